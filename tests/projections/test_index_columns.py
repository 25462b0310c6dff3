"""The packed columns of a session's index read back what was appended, survive a snapshot's
bytes exactly, and find event ids only at their own rows."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from projections.session.columns import (
    EncodingColumn,
    HashColumn,
    IdColumn,
    microseconds,
    packed_bytes,
    packed_ints,
    unpacked,
)

hashes = st.one_of(st.just(""), st.binary(min_size=32, max_size=32).map(bytes.hex))
ids = st.one_of(st.just(""), st.uuids().map(str))


@given(st.lists(hashes, max_size=40))
def test_hashes_round_trip(values: list[str]) -> None:
    column = HashColumn()
    for value in values:
        column.append(value)
    stored = HashColumn(column.to_bytes())
    assert list(stored) == [value if value.strip("0") else "" for value in values]
    assert stored == column


@given(st.lists(ids, max_size=40), st.uuids())
def test_event_ids_round_trip_and_are_found_at_their_row(
    values: list[str], other: uuid.UUID
) -> None:
    column = IdColumn()
    for value in values:
        column.append(value)
    stored = IdColumn(column.to_bytes())
    assert list(stored) == values
    for index, value in enumerate(values):
        if value:
            assert stored.find(value) == values.index(value) <= index
    if str(other) not in values:
        assert stored.find(str(other)) is None
    assert stored.find("not an id") is None


def test_an_id_straddling_two_rows_is_not_found() -> None:
    first, second = uuid.uuid4().bytes, uuid.uuid4().bytes
    column = IdColumn(first + second)
    straddling = uuid.UUID(bytes=first[8:] + second[:8])
    assert column.find(str(straddling)) is None


@given(st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1), max_size=50))
def test_integers_round_trip(values: list[int]) -> None:
    assert list(unpacked("q", packed_bytes(packed_ints(values)))) == values


@given(st.lists(st.sampled_from(["", "o200k_base", "cl100k_base", "claude"]), max_size=40))
def test_encodings_read_back_by_row_and_round_trip(names: list[str]) -> None:
    column = EncodingColumn()
    for name in names:
        column.append(name)
    stored = EncodingColumn(column.names, unpacked("H", packed_bytes(column.codes)))
    assert [stored[index] for index in range(len(stored))] == names
    assert stored.used() == set(names) - {""}
    assert stored.used(range(min(1, len(names)))) == set(names[:1]) - {""}


@given(st.datetimes(timezones=st.just(UTC)), st.integers(min_value=1, max_value=10**6))
def test_microseconds_keep_order_to_the_microsecond(moment: datetime, step: int) -> None:
    later = moment + timedelta(microseconds=step)
    assert microseconds(later) - microseconds(moment) == step
