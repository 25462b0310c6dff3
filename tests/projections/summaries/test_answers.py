"""A user's short reply to the agent's question is the choice it states ("Economy, please."
after "Would you like economy or business?"), keyed by what was asked; a longer turn, a reply
to no question, or a question back is not one."""

from __future__ import annotations

from projections.context.messages import Message
from projections.summaries.answers import short_answers
from projections.summaries.values import value_candidates
from tests.projections.summaries.offline_summary import summary_of


def asked(question: str, reply: str) -> list[Message]:
    return [
        Message(id="a1", role="assistant", content=question),
        Message(id="u1", role="user", content=reply),
    ]


def answers(question: str, reply: str) -> list[tuple[str, str]]:
    return [(key, value) for _, key, value in short_answers(asked(question, reply))]


def test_a_short_reply_is_the_choice_it_states_keyed_by_the_question() -> None:
    question = "I found two fares. Would you like economy or business?"
    assert answers(question, "Economy, please.") == [("choice.economy.business", "Economy")]
    insurance = "Shall I add travel insurance for $30?"
    assert answers(insurance, "No, thanks.") == [("choice.add.travel.insurance", "No")]
    seat = "Which seat would you prefer?"
    assert answers(seat, "Sure, the window seat please") == [("choice.seat", "the window seat")]
    assert answers("What is the passenger's name?", "Ivan Petrov") == [
        ("choice.passenger.name", "Ivan Petrov")
    ]


def test_what_is_no_short_answer() -> None:
    question = "Would you like economy or business?"
    long_reply = "I think I would rather take economy because the company only pays for it."
    assert answers(question, long_reply) == []  # a statement: kept as one
    assert answers(question, "Which is cheaper?") == []  # a question back
    assert answers("Here are your options.", "Economy.") == []  # nothing was asked
    messages = [Message(id="u0", role="user", content="Economy or business?"), *asked("", "x")]
    assert list(short_answers(messages)) == []  # the agent asked nothing


def test_the_answer_is_a_users_choice_the_summary_can_keep() -> None:
    chunk = asked("Shall I add travel insurance for $30?", "No, thanks.")
    found = {c.value: c for c in value_candidates(chunk, [1, 2])}
    assert found["No"].kind == "choice"
    assert found["No"].key == "choice.add.travel.insurance"
    values = {v.key: v.value for v in summary_of(chunk, 200).values}
    assert values.get("choice.add.travel.insurance") == "No", values
