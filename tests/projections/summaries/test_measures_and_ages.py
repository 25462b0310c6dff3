"""A sixteenth battery of values as users say them, each read whole by its structure:
dimensions, an amount with its cents, "half ten" after a preposition of time, ages after the
word that says they are ages or the persons they bound. Each case failed before (a part read,
or nothing); the forms that only look like them stay what they were."""

from __future__ import annotations

import pytest

from projections.summaries.values import text_values


def _read(text: str) -> list[tuple[str, str]]:
    return [(kind, value) for kind, value, _ in text_values(text)]


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        # dimensions: "30 cm", "5 metres" or nothing were read
        ("Ship a 12 by 10 by 8 inch box to Portland.", "quantity", "12 by 10 by 8 inch"),
        ("The box is 12x10x8 inches.", "quantity", "12x10x8 inches"),
        ("A 20 x 30 cm frame, please.", "quantity", "20 x 30 cm"),
        ("The room is 4 by 5 metres.", "quantity", "4 by 5 metres"),
        ("a rug of 3 by 4 feet", "quantity", "3 by 4 feet"),
        # an amount with its cents: two amounts, or "17 cents" and a tally, were read
        ("My bill went up to 243 dollars and 17 cents.", "amount", "243 dollars and 17 cents"),
        ("It was 5 pounds and 20 pence.", "amount", "5 pounds and 20 pence"),
        ("forty dollars and fifty cents", "amount", "forty dollars and fifty cents"),
        ("$12 and 50 cents each", "amount", "$12 and 50 cents"),
        # "half ten" is half past ten after a preposition of time (only "at" was read)
        ("Move it to next Monday, around half ten?", "time", "half ten"),
        ("Open until half five.", "time", "half five"),
        ("Can we meet after half six", "time", "half six"),
        # ages after the word that says they are ages
        ("I'm travelling with two kids aged 7 and 10.", "count", "aged 7 and 10"),
        ("My son, aged 12, needs a ticket.", "count", "aged 12"),
        ("The children are ages 5, 8 and 11.", "count", "ages 5, 8 and 11"),
        ("youth sports for kids ages 3-18", "count", "ages 3-18"),
        ("she won at age fifteen", "count", "age fifteen"),
        # an age's bound after the persons it bounds
        ("Two adults and a child under 2.", "count", "child under 2"),
        ("Kids under 12 eat free.", "count", "Kids under 12"),
        ("seniors over 65 get a discount", "count", "seniors over 65"),
        ("children under the age of five", "count", "children under the age of five"),
    ],
)
def test_a_measure_or_an_age_is_read_whole(text: str, kind: str, value: str) -> None:
    assert (kind, value) in _read(text), _read(text)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("We won 3 by 4.", [("time", "by 4")]),  # no unit: a score, not a size
        ("I need a 2 by 4 for the shelf.", []),
        ("open 3 by 4 pm", [("time", "4 pm")]),  # a time, not a unit
        ("I paid 20 dollars and my friend 10.", [("amount", "20 dollars")]),
        ("It costs 20 dollars per person.", [("amount", "20 dollars per person")]),
        ("I ate about half ten minutes ago.", [("count", "ten minutes")]),
        ("The page 12 is torn.", []),  # "age" inside a word
        ("He managed 5 teams.", [("tally", "5 teams")]),
        ("I waited over 20 minutes", [("count", "20 minutes")]),  # no persons: no age
        ("people over 100 kg", [("quantity", "100 kg")]),  # a weight, not an age
    ],
)
def test_what_only_looks_like_them_is_read_as_before(
    text: str, read: list[tuple[str, str]]
) -> None:
    assert _read(text) == read
