"""A span or a shift of time by one unit, a range that opens at noon and a price said without
its currency, as people say them to an assistant that books and reschedules: each read whole by
the value ledger (``text_values``); the forms that only look like them are not."""

from __future__ import annotations

import pytest

from tests.projections.summaries.reading import values_read


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("Can you push it back an hour?", "count", "back an hour"),
        ("Book the cabin for a fortnight.", "count", "for a fortnight"),
        ("Extend the rental by a week please.", "count", "by a week"),
        ("Move it forward a day.", "count", "forward a day"),
        ("I'll be there in an hour.", "count", "in an hour"),
        ("Hold the room for a night.", "count", "for a night"),
        ("I've been playing for a month now.", "count", "for a month"),
        ("Deliver it between noon and 2.", "time", "noon and 2"),
        ("Deliver it between noon and 2pm tomorrow.", "time", "noon and 2pm"),
        ("From midday to three works.", "time", "midday to three"),
        ("I can pay 150 a night at most.", "amount", "150 a night"),
        ("Keep it under 200 per night.", "amount", "200 per night"),
        ("Rent is 1,200 a month.", "amount", "1,200 a month"),
        ("The tour is 25 a head.", "amount", "25 a head"),
    ],
)
def test_spans_ranges_and_prices_are_read_whole(text: str, kind: str, value: str) -> None:
    assert (kind, value) in values_read(text), values_read(text)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("I spent 400 a week ago.", "amount", "400 a week"),  # when, not a rate
        ("Take 2 a day.", "amount", "2 a day"),  # how often, not a price
        ("I go twice a week.", "count", "a week"),  # a frequency, read as one
        ("Take a day off.", "count", "a day"),  # no word sets a span
        ("between noon and 25 people", "time", "noon and 25"),  # no hour
    ],
)
def test_forms_that_only_look_like_them_are_not_read_so(text: str, kind: str, value: str) -> None:
    assert (kind, value) not in values_read(text), values_read(text)


def test_a_while_is_no_span() -> None:
    assert values_read("It lasted for a while.") == []
