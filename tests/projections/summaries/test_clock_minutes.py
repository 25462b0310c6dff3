"""The minutes of a clock time said before its hour ("twenty past three", "ten to midnight",
"five to seven tonight"), and a product's generation after its model ("ThinkPad X1 Carbon Gen
11"): each read whole by the value ledger (``text_values``); "to" between two numbers stays a
range or a count unless an hour is what follows."""

from __future__ import annotations

import pytest

from tests.projections.summaries.reading import values_read


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("I'll be arriving around quarter to midnight.", "time", "quarter to midnight"),
        ("We land at ten past midnight.", "time", "ten past midnight"),
        ("Let's meet at half past noon.", "time", "half past noon"),
        ("Pick me up at twenty past three.", "time", "twenty past three"),
        ("The call is at 25 past 4.", "time", "25 past 4"),
        ("The call is at 25 minutes past 4 pm.", "time", "25 minutes past 4 pm"),
        ("It starts at five to seven tonight.", "time", "five to seven tonight"),
        ("My laptop is a ThinkPad X1 Carbon Gen 11.", "name", "ThinkPad X1 Carbon Gen 11"),
        ("My iPad Pro 12 needs a case.", "name", "iPad Pro 12"),
    ],
)
def test_minutes_before_an_hour_and_a_generation_are_read_whole(
    text: str, kind: str, value: str
) -> None:
    assert (kind, value) in values_read(text), values_read(text)


@pytest.mark.parametrize(
    ("text", "not_read"),
    [
        ("We need five to seven people.", "five to seven"),  # a range of a count
        ("It takes 5 to 7 days.", "5 to 7"),
        ("I waited twenty minutes past the hour.", "twenty minutes past the hour"),
        ("I have an iPhone 15 Pro Max 256GB.", "iPhone 15 Pro Max 256GB"),  # its storage
    ],
)
def test_to_between_numbers_is_no_clock_time(text: str, not_read: str) -> None:
    assert not_read not in [value for _, value in values_read(text)], values_read(text)
