"""What a user chooses in small letters ("I'd like a window seat", "I'll pay with my credit
card", "upgrade me to business"): read by the sentence that states it, kept under the
statement and the values it would otherwise displace, and never read from an agent's turn."""

from __future__ import annotations

import pytest

from projections.context.messages import Message
from projections.summaries.choice_patterns import CHOICE_KEY
from projections.summaries.values import value_candidates
from tests.projections.summaries.offline_summary import summary_of
from tests.projections.summaries.reading import values_read


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("I'd prefer a king bed on a high floor, non-smoking.", "king bed"),
        ("I'd like a window seat in premium economy please", "window seat"),
        ("Can you get me an aisle seat?", "aisle seat"),
        ("I'd like the salmon, medium rare, with a side of asparagus.", "salmon"),
        ("I'll pay with my credit card ending in 4421.", "credit card"),
        ("Could I get a large oat latte?", "large oat latte"),
        ("I'd like the early morning flight.", "early morning flight"),
        ("I want the flights departing after noon.", "flights"),
        ("We need a crib in the room.", "crib"),
        ("I'll go with the vegetarian option.", "vegetarian option"),
        ("I'd rather have the aisle", "aisle"),
        ("Please upgrade me to business.", "business"),
        ("Change my seat to an aisle, thanks.", "aisle"),
        ("Book us a quiet table for Friday.", "quiet table"),
        ("I love pottery and painting.", "pottery"),
        ("I'm looking for a guesthouse in the north.", "guesthouse"),
        ("Can you find me an expensive place to eat?", "expensive place"),
        ("I want to find a museum in the centre of town.", "museum"),
        ("I'd like to rent a car for the weekend", "car"),
        # a preposition ends the chosen thing (a closed class: "near", "behind", "along", ...)
        ("I'd prefer an aisle seat near the front.", "aisle seat"),
        ("I'd like a window seat behind the wing.", "window seat"),
        ("I'd prefer an inside cabin.", "inside cabin"),
    ],
)
def test_a_choice_is_read_by_the_sentence_that_states_it(text: str, choice: str) -> None:
    assert ("choice", choice) in values_read(text), values_read(text)


def test_a_choice_accepted_at_a_sentences_start() -> None:
    for text, choice in (
        ("Economy is fine.", "Economy"),
        ("OK. Business class is perfect", "Business class"),
        ("The aisle would be great", "aisle"),
    ):
        assert ("choice", choice) in values_read(text), values_read(text)
    for text in ("That is fine", "Either is fine", "Those dates are great", "It works for me."):
        assert [v for k, v in values_read(text) if k == "choice"] == [], text


def test_an_area_by_its_compass_point_and_what_a_place_serves() -> None:
    text = "A cheap restaurant in the city centre serving italian food, or one in the north."
    choices = [value for kind, value in values_read(text) if kind == "choice"]
    assert sorted(choices) == ["city centre", "italian food", "north"], values_read(text)
    for text in ("Call me in the morning.", "The center of town.", "They are serving the best"):
        assert [v for k, v in values_read(text) if k == "choice"] == [], text


@pytest.mark.parametrize(
    "text",
    [
        "I'd like to change my flight.",  # an infinitive
        "I want you to cancel it.",  # a pronoun
        "I need it by Friday.",
        "I have a dog named Max.",  # "have" without a modal states no choice
        "I love going to the beach.",  # a light verb opens a verb phrase
        "I need some help with my booking.",  # what anyone asks a service for
        "I'll get back to you.",  # a particle
        "I'll take care of it.",  # an idiom
        "I need to get back home.",  # a particle after the verb of getting
        "I want to get refunded.",  # a participle alone
    ],
)
def test_what_only_looks_like_a_choice_is_not_read(text: str) -> None:
    assert [value for kind, value in values_read(text) if kind == "choice"] == [], values_read(text)


def test_a_choice_is_the_users_and_ranks_under_what_it_could_displace() -> None:
    # An agent's "I need the following details" chooses nothing; a user's choice ranks under a
    # carried value of the previous summary (6) and under the statement that says it
    from projections.summaries.offline_v2 import _BARE_STATEMENT, _CARRIED_VALUE

    user = Message(id="u1", role="user", content="I'd like a window seat.")
    agent = Message(id="a1", role="assistant", content="I'd like the following details.")
    found = {(c.src, c.value): c for c in value_candidates([user, agent], [1, 2])}
    assert set(found) == {(1, "window seat")}
    choice = found[1, "window seat"]
    assert choice.kind == "choice"
    assert choice.key.partition(".")[0] == CHOICE_KEY
    assert choice.score < _CARRIED_VALUE < _BARE_STATEMENT


def test_a_statement_holding_only_a_choice_ranks_as_a_bare_statement() -> None:
    # The choice promotes no statement: a user's open question (9) ranks over a statement that
    # holds only a choice (8, as if it held no value; 9.5 with a value), at every budget
    chunk = [
        Message(id="u1", role="user", content="Does the hotel have an indoor pool?"),
        Message(
            id="u2",
            role="user",
            content="For the long flight over the ocean I would really prefer a window seat.",
        ),
    ]
    kept_statement = False
    for budget in range(40, 200, 5):
        summary = summary_of(chunk, budget)
        if summary.facts:
            kept_statement = True
            assert summary.open_questions, (budget, summary)
    assert kept_statement


def test_a_tool_results_key_under_choice_is_no_choice() -> None:
    # Only a choice read from a user's text is set apart; a tool result's value keyed by its
    # JSON path ("choice.seat") promotes the statement of its version like any value
    from projections.summaries.offline_v2 import _values_by_source
    from projections.summaries.schema_v2 import Value

    tool = Value(key="choice.seat", value="14C", src=3, path="choice.seat")
    said = Value(key="choice.like", value="window seat", src=4)
    assert _values_by_source([(5.0, tool), (5.0, said)]) == {3: ["14C"]}
