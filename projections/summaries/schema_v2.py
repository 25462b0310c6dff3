"""``compaction_summary.v2``: what the older groups of a session established, compactly.

Differences from v1 (which stays readable, and renders as it always did):

- coverage is a list of session-version ranges with a count and a BLAKE3 digest of the covered
  message events' hashes, instead of a list of every message id;
- every item cites its sources as session versions (small integers), not message ids;
- ``values`` is a ledger of the identifiers, codes, amounts, dates, times, counts and names the
  conversation used, each verbatim, with its source and, for a tool result, its JSON key path;
- facts are keyed by meaning (``budget.one_way``), decisions carry their reasons, open
  questions may expire explicitly (recorded in ``expired_questions``), and when the carried
  confirmed facts alone no longer fit the budget the oldest are dropped explicitly (recorded
  in ``dropped_facts``).

The JSON Schema is published in docs/compaction_summary.v2.schema.json. Pure: no I/O.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "SCHEMA_V2",
    "CompactionSummaryV2",
    "Coverage",
    "DecisionV2",
    "DroppedFact",
    "FactV2",
    "QuestionV2",
    "ToolDigestV2",
    "Value",
]

SCHEMA_V2: Literal["compaction_summary.v2"] = "compaction_summary.v2"
_MODEL = ConfigDict(frozen=True, extra="forbid")
Version = Annotated[int, Field(ge=1)]
Sources = Annotated[list[Version], Field(min_length=1, description="session versions cited")]


class Coverage(BaseModel):
    """The message events a summary stands in for: version ranges (inclusive), how many
    messages they hold, and BLAKE3 over those events' hashes in order."""

    model_config = _MODEL

    ranges: list[tuple[Version, Version]] = Field(min_length=1)
    count: int = Field(ge=1)
    digest: str = Field(pattern=r"^[0-9a-f]{64}$")

    @model_validator(mode="after")
    def _ordered(self) -> Coverage:
        last = 0
        for first, end in self.ranges:
            if first > end or first <= last:
                raise ValueError(f"coverage ranges must be ordered and disjoint: {self.ranges}")
            last = end
        return self

    def contains(self, version: int) -> bool:
        """Whether ``version`` lies inside the covered ranges."""
        return any(first <= version <= end for first, end in self.ranges)

    @property
    def last(self) -> int:
        """The last covered version."""
        return self.ranges[-1][1]


class Value(BaseModel):
    """One value the conversation used, verbatim: ``key`` says what it is (for a tool result,
    its JSON key path), ``src`` the message it comes from."""

    model_config = _MODEL

    key: str = Field(min_length=1, max_length=200)
    value: str = Field(min_length=1, max_length=400)
    src: Version
    path: str | None = Field(
        default=None,
        description="JSON key path in a tool result, or call[i].path in a call's arguments",
    )
    anchor: str | None = Field(
        default=None,
        max_length=80,
        description="a relative date phrase of the source ('yesterday') this date resolves",
    )


class FactV2(BaseModel):
    """Something established, keyed by meaning (``budget.one_way``), stated verbatim or close
    to its source; a user's constraint is ``confirmed``."""

    model_config = _MODEL

    key: str = Field(min_length=1, max_length=200)
    value: str = Field(min_length=1, max_length=1000)
    status: Literal["confirmed", "tentative", "retracted"] = "confirmed"
    src: Sources
    speaker: Literal["user", "assistant", "tool", "system"] | None = None


class DroppedFact(BaseModel):
    """A confirmed fact of the previous version left out because the carried facts alone no
    longer fit the summary's budget (the oldest go first): recorded, never silent."""

    model_config = _MODEL

    key: str = Field(min_length=1, max_length=200)
    src: Sources
    reason: Literal["capacity"] = "capacity"


class DecisionV2(BaseModel):
    """A choice made, with its reason (``exclude G123`` because ``arrives later than planned``)."""

    model_config = _MODEL

    text: str = Field(min_length=1, max_length=1000)
    reason: str | None = Field(default=None, max_length=1000)
    src: Sources


class QuestionV2(BaseModel):
    """A question asked and not answered yet, and who asked it."""

    model_config = _MODEL

    text: str = Field(min_length=1, max_length=1000)
    src: Sources
    asked_by: Literal["user", "assistant"] | None = None


class ToolDigestV2(BaseModel):
    """A tool result reduced to its call and a few key values (verbatim)."""

    model_config = _MODEL

    src: Version  # the tool result's version
    call: str = Field(min_length=1, max_length=400)
    digest: str = Field(default="", max_length=600)


class CompactionSummaryV2(BaseModel):
    """The summary of the messages in ``coverage``."""

    model_config = ConfigDict(frozen=True, extra="forbid", title=SCHEMA_V2)

    schema_version: Literal["compaction_summary.v2"] = SCHEMA_V2
    coverage: Coverage
    values: list[Value] = Field(default_factory=list)
    facts: list[FactV2] = Field(default_factory=list)
    decisions: list[DecisionV2] = Field(default_factory=list)
    open_questions: list[QuestionV2] = Field(default_factory=list)
    expired_questions: list[QuestionV2] = Field(default_factory=list)
    dropped_facts: list[DroppedFact] = Field(default_factory=list)
    tools: list[ToolDigestV2] = Field(default_factory=list)
    created_at: datetime

    def cited(self) -> set[int]:
        """Every version an item cites."""
        found = {value.src for value in self.values} | {tool.src for tool in self.tools}
        for fact in self.facts:
            found.update(fact.src)
        for decision in self.decisions:
            found.update(decision.src)
        for question in (*self.open_questions, *self.expired_questions):
            found.update(question.src)
        return found
