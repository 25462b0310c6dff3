"""A product's name and its model are one name ("iPhone 15 Pro Max", "Galaxy S24 Ultra"),
not a name and a street address or an identifier; a booking code and a flight number stay
identifiers."""

from __future__ import annotations

import pytest

from tests.projections.summaries.reading import values_read


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Find me an iPhone 15 Pro Max in blue.", "iPhone 15 Pro Max"),
        ("The iPhone 15, please.", "iPhone 15"),
        ("Get me a Galaxy S24 Ultra.", "Galaxy S24 Ultra"),
        ("Do you sell the PlayStation 5?", "PlayStation 5"),
        ("My MacBook Air M2 won't charge.", "MacBook Air M2"),
        ("I bought a MacBook Pro 2019.", "MacBook Pro 2019"),
    ],
)
def test_a_product_and_its_model_are_one_name(text: str, value: str) -> None:
    assert values_read(text) == [("name", value)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Reservation ZFA04Y is mine.", ("id", "ZFA04Y")),  # three capitals: a booking code
        ("Flight UA 90 please.", ("id", "UA 90")),
        ("I sent a WhatsApp 10 minutes ago.", ("count", "10 minutes")),  # a count first
        ("It is iPhone 15.5 percent.", ("amount", "15.5 percent")),  # no model's number
        ("Visit 1600 Amphitheatre Parkway.", ("name", "1600 Amphitheatre Parkway")),
    ],
)
def test_codes_counts_and_addresses_stay_what_they_are(
    text: str, expected: tuple[str, str]
) -> None:
    assert expected in values_read(text), values_read(text)


def test_a_name_may_end_in_capitals_not_camel_case() -> None:
    # "iOS", "iPadOS", "tvOS": a word with inner capitals that ends in a run of them (nothing
    # was read before); camelCase after a longer start is a field's name, not a product
    for text, name in (("I use iOS daily.", "iOS"), ("Switch to tvOS.", "tvOS")):
        assert values_read(text) == [("name", name)], text
    assert ("name", "iOS") in values_read("Update iOS 17.2 on my phone.")  # a version: apart
    assert values_read("Run it on iPadOS 17.") == [("name", "iPadOS 17")]  # as "iPhone 15"
    assert values_read("The userId field and getURL.") == []
