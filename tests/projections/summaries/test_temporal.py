"""Relative dates anchored to the date of the turn that says them (issue #27): the turn's date
from its metadata or its transcript prefix, and "yesterday", "3 days ago", "tmrw" from it."""

from __future__ import annotations

from datetime import date

import pytest

from projections.context.messages import Message
from projections.summaries.temporal import anchor_relative_dates, message_date

SAID_ON = date(2023, 5, 8)


@pytest.mark.parametrize(
    ("text", "phrase", "anchored"),
    [
        ("I flew back yesterday", "yesterday", "2023-05-07"),
        ("we met 3 days ago", "3 days ago", "2023-05-05"),
        ("the day after tomorrow works", "the day after tomorrow", "2023-05-10"),
        # a text message's shorthand
        ("can u book 4 me tmrw at 7?", "tmrw", "2023-05-09"),
        ("meet 2nite around 8", "2nite", "2023-05-08"),
    ],
)
def test_a_relative_date_is_anchored_to_the_day_it_was_said(
    text: str, phrase: str, anchored: str
) -> None:
    assert (phrase, anchored) in anchor_relative_dates(text, SAID_ON)


def test_a_turns_date_comes_from_its_metadata_or_its_transcript_prefix() -> None:
    prefixed = Message(role="user", content="[1:56 pm on 8 May, 2023] Caroline: Hey Mel!")
    stamped = Message(role="user", content="hi", metadata={"timestamp": "2023-05-08T13:56:00Z"})
    assert message_date(prefixed) == SAID_ON
    assert message_date(stamped) == SAID_ON
    assert message_date(Message(role="user", content="no date here")) is None
