"""Event times: the hash spec's text form and the stored integer convert losslessly."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from eventstore.timestamps import format_micros, micros_now, parse_timestamp, timestamp_now

_EPOCH = datetime(1970, 1, 1)
# Year 1 to year 9999, in microseconds since 1970.
_MIN = (datetime(1, 1, 1) - _EPOCH) // timedelta(microseconds=1)
_MAX = (datetime(9999, 12, 31, 23, 59, 59, 999999) - _EPOCH) // timedelta(microseconds=1)


@given(st.integers(min_value=_MIN, max_value=_MAX))
def test_text_form_is_the_spec_format_and_round_trips(micros: int) -> None:
    text = format_micros(micros)
    moment = _EPOCH + timedelta(microseconds=micros)
    assert text == f"{moment.year:04d}" + moment.strftime("-%m-%dT%H:%M:%S.%fZ")
    assert len(text) == 27
    assert parse_timestamp(text) == micros


def test_known_values() -> None:
    assert format_micros(0) == "1970-01-01T00:00:00.000000Z"
    assert format_micros(1_764_527_400_000_001) == "2025-11-30T18:30:00.000001Z"
    assert parse_timestamp("2025-11-30T18:30:00.000001Z") == 1_764_527_400_000_001


def test_now_is_in_the_spec_format() -> None:
    before = micros_now()
    now = parse_timestamp(timestamp_now())
    assert before <= now <= micros_now()
