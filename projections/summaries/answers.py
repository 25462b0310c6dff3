"""A user's short reply to the agent's question, as the choice it states: "Economy, please."
after "Would you like economy or business?", "No, thanks." after "Shall I add travel
insurance?". Pure: no I/O.

Such a reply holds no value the patterns read (a capitalised word that opens a sentence is no
name, "no" is no number) and is too short to be kept as a statement, so the user's answer was
lost with the turn. The structure says what it is: the turn before it asks, and the reply is a
few words. Its value is the reply's first clause as the user wrote it, politeness left out;
its key names what was asked, by the question's own terms ("choice.travel.insurance: No").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from projections.context.messages import Message, text_of
from projections.summaries.choice_patterns import NOT_A_TOPIC, choice_key
from projections.summaries.extract import key_words

__all__ = ["short_answers"]

_MAX_WORDS = 5  # "The second one, please" is a reply; a sentence with a clause is a statement
_MAX_CHARS = 60
# Politeness around the answer: "please", "thanks", "thank you" at its end, "sure" or "ok"
# before it ("Sure, economy" answers "economy").
_TRAILING = re.compile(r"(?i)(?:[\s,]+(?:please|thanks|thank\s+you))+[\s.!]*$")
_LEADING = re.compile(r"(?i)^(?:sure|ok|okay|well|hmm|um)[\s,]+(?=\S)")
_CLAUSE_END = re.compile(r"[,.;!?\n]")


def short_answers(messages: Sequence[Message]) -> Iterator[tuple[int, str, str]]:
    """``(index, key, value)`` for each user turn that answers the assistant turn before it
    in a few words: ``value`` is the answer as the turn says it."""
    for index in range(1, len(messages)):
        message, before = messages[index], messages[index - 1]
        if message.role != "user" or before.role != "assistant":
            continue
        question = _last_question(text_of(before))
        if question is None:
            continue
        value = _answer(text_of(message))
        if value is not None:
            key = choice_key(".".join(key_words(question, NOT_A_TOPIC)) or "answer")
            yield index, key, value


def _last_question(text: str) -> str | None:
    """The last sentence of ``text`` that asks (ends with a question mark), if any."""
    end = text.rfind("?")
    if end < 0:
        return None
    start = max(text.rfind(mark, 0, end) for mark in ".!?\n") + 1
    return text[start : end + 1].strip()


def _answer(text: str) -> str | None:
    """The answer in a short reply (None: not a short reply)."""
    stripped = text.strip()
    if not stripped or len(stripped) > _MAX_CHARS or len(stripped.split()) > _MAX_WORDS:
        return None
    if "?" in stripped:
        return None  # a question back, not an answer
    lead = _LEADING.match(stripped)
    body = stripped[lead.end() :] if lead else stripped
    body = _TRAILING.sub("", body)
    cut = _CLAUSE_END.search(body)
    value = (body[: cut.start()] if cut else body).strip()
    return value or None
