"""What a chunk of conversation established, sentence by sentence: the constraints and facts worth
keeping (verbatim), the decisions with their reasons, and the questions still open. Chit-chat
("No I'm good.", "Thanks!") and instruction-like text are left out. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from projections.context.messages import Message, text_of
from projections.summaries.injection import looks_like_instruction
from projections.summaries.normalize import has_negation, is_answered, sentences, terms
from projections.summaries.schema_v2 import DecisionV2, FactV2, QuestionV2

__all__ = ["Extracted", "extract", "meaning_key", "open_questions"]

_DECISION = re.compile(
    r"(?i)\b(?:exclud(?:e|ed|es|ing)|decid(?:e|ed|es)|chose|choose|will take|go with|"
    r"rule[sd]? out|pick(?:ed)?|book(?:ed)?|cancel(?:led|ed)?|chang(?:e|ed)|upgrad(?:e|ed)|"
    r"switch(?:ed)?|proceed(?:ed)?|confirm(?:ed)?|instead)\b|排除|选择|决定|改为|改成|选定|预订|取消"
)
_REASON = re.compile(
    r"(?i)\s*(?:\bbecause\b|\bsince\b|\bdue to\b|(?<!\d)[:：](?!\d)|\s—\s|因为|由于)\s*"
)
# Requests for confirmation and offers are not decisions, whatever verb they use.
_NOT_DECIDED = re.compile(
    r"(?i)^\W*(?:please|could you|would you|can you|let me know|if you|to proceed|shall i|"
    r"do you|once|before|would you like)\b|\bif you(?:'d| would) like\b"
)
_CONSTRAINT = re.compile(
    r"(?i)\b(?:at most|at least|no more than|no later than|before|after|by|until|only|"
    r"prefer(?:s|red)?|must|need(?:s|ed)?|want(?:s|ed)?|would like|budget|limit|maximum|"
    r"minimum|allergic|always|never|every)\b|不超过|最多|至少|之前|以后|之后|必须|需要|预算|只"
)
_INCIDENTAL = re.compile(
    r"(?i)\b(?:remember|recall|know|sure|have|worry|worries|mind|think|forget|forgot|understand|"
    r"see|find|found|problem|thanks?|thank you)\b"
)
# List markers and emphasis are layout, not content ("1. **Upgrade Cabin Class**").
_MARKUP = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+|\*\*|__")
_QUESTION = re.compile(r"[?？]\s*$|吗\s*[。]?$")
_MAX_OPEN = 4
_MAX_SENTENCE = 240  # longer ones are lists and tables: their values go to the ledger


@dataclass
class Extracted:
    """Facts, decisions and questions of one chunk, in order."""

    facts: list[FactV2]
    decisions: list[DecisionV2]
    questions: list[QuestionV2]


def meaning_key(role: str, clause: str) -> str:
    """A key for a fact from its content terms (``user.insurance.want``): the same statement
    gets the same key, so a newer one supersedes it."""
    words = key_words(clause)
    return ".".join([role, *words]) if words else f"{role}.statement"


def key_words(clause: str, skip: frozenset[str] = frozenset()) -> list[str]:
    """A clause's first three content terms that are not numbers (nor in ``skip``), in the
    order the clause says them: what a key is made of."""
    lowered = clause.lower()
    # In the order the clause says them; two terms found at one place ("bag" in "baggage")
    # in their own order, never the set's (which moves with the hash seed).
    named = (t for t in terms(clause) if not t[0].isdigit() and t not in skip)
    return sorted(named, key=lambda term: (lowered.find(term), term))[:3]


def _keep_as_fact(sentence: str) -> bool:
    """A constraint, or a negated statement that is not about the speaker's memory or
    possessions ("I don't remember my ID" is no constraint); plain values go to the ledger."""
    if len(terms(sentence)) < 2:
        return False  # "No worries.", "Not yet."
    if _CONSTRAINT.search(sentence):
        return True
    return has_negation(sentence) and not _INCIDENTAL.search(sentence)


def _decision(sentence: str, version: int) -> DecisionV2:
    parts = _REASON.split(sentence, maxsplit=1)
    if len(parts) == 2 and len(terms(parts[0])) >= 2 and parts[1].strip():
        return DecisionV2(text=parts[0].strip(), reason=parts[1].strip(), src=[version])
    return DecisionV2(text=sentence, src=[version])


def extract(messages: Sequence[Message], versions: Sequence[int]) -> Extracted:
    """Facts (user constraints confirmed, assistant statements tentative), decisions and
    questions of user and assistant turns."""
    found = Extracted([], [], [])
    seen: set[str] = set()
    for message, version in zip(messages, versions, strict=True):
        if message.role not in ("user", "assistant"):
            continue
        for sentence in sentences(text_of(message)):
            cleaned = _MARKUP.sub("", sentence).strip()
            if len(cleaned) > _MAX_SENTENCE or cleaned in seen or looks_like_instruction(cleaned):
                continue  # repeated, or a directive: data that must not steer the summary
            seen.add(cleaned)
            if _QUESTION.search(cleaned):
                found.questions.append(
                    QuestionV2(text=cleaned, src=[version], asked_by=message.role)
                )
            elif _DECISION.search(cleaned) and not _NOT_DECIDED.search(cleaned):
                found.decisions.append(_decision(cleaned, version))
            elif _keep_as_fact(cleaned) and len(terms(cleaned)) >= 1:
                status: Literal["confirmed", "tentative"] = (
                    "confirmed" if message.role == "user" else "tentative"
                )
                found.facts.append(
                    FactV2(
                        key=meaning_key(message.role, cleaned),
                        value=cleaned,
                        status=status,
                        src=[version],
                        speaker=message.role,
                    )
                )
    return found


def open_questions(
    asked: Sequence[QuestionV2],
    later: Sequence[tuple[int, str, str]],
) -> tuple[list[QuestionV2], list[QuestionV2]]:
    """The questions still open (newest kept, at most four) and the ones that expire.

    Args:
        asked: the questions, oldest first (the previous summary's, then the chunk's).
        later: ``(version, role, text)`` of the chunk's turns, to judge which were answered.
    """
    still = [
        question
        for question in asked
        if not is_answered(
            question.text,
            question.asked_by or "",
            [(role, text) for version, role, text in later if version > max(question.src)],
        )
    ]
    keep = still[-_MAX_OPEN:]
    return keep, still[: len(still) - len(keep)]
