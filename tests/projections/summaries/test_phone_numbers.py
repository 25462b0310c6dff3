"""Phone numbers read whole by their structure (issue #27): an international number's "+" or
"00" and 8 to 15 digits, North America's area code in parentheses, a trunk's "0" and 10 or 11
digits in groups; each group was a number of its own before."""

from __future__ import annotations

import pytest

from tests.projections.summaries.reading import values_read


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Reach me at +44 20 7946 0958.", "+44 20 7946 0958"),
        ("My cell: +1 415 555 0132", "+1 415 555 0132"),
        ("Call +1 (415) 555-0132 now", "+1 (415) 555-0132"),
        ("phone 0049 30 1234567", "0049 30 1234567"),
        ("My number is (415) 555-0132.", "(415) 555-0132"),
        ("call 020 7946 0958 today", "020 7946 0958"),
        ("Text 07700 900123 please.", "07700 900123"),
        ("tel 06 12 34 56 78", "06 12 34 56 78"),
        ("Call me at 555-123-4567.", "555-123-4567"),
    ],
)
def test_a_phone_number_is_one_value(text: str, value: str) -> None:
    assert ("id", value) in values_read(text)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("up +15.5% this year", "amount", "15.5%"),  # three digits: a change, no number to dial
        ("on 05-06-2024 12:00", "date", "05-06-2024"),  # a date and a time, not 10 digits
        ("order 0012 3456", "number", "0012"),  # eight digits after a "0": no trunk's number
    ],
)
def test_what_only_looks_like_a_phone_number_keeps_its_own_reading(
    text: str, kind: str, value: str
) -> None:
    read = values_read(text)
    assert (kind, value) in read
    assert not any(found_kind == "id" for found_kind, _ in read)
