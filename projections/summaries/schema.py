"""``compaction_summary.v1``: the structured record that stands in for older groups.

A summary is data, never instructions: every fact, decision and open question cites the
messages it comes from, and it is rendered only inside an untrusted block (see ``block``).
The JSON Schema is published in docs/compaction_summary.v1.schema.json. Pure: no I/O.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SCHEMA_NAME", "CompactionSummary", "Decision", "Fact", "OpenQuestion", "ToolDigest"]

SCHEMA_NAME: Literal["compaction_summary.v1"] = "compaction_summary.v1"

_SOURCES = Field(min_length=1, description="ids of the messages this item comes from")


class Fact(BaseModel):
    """Something established in the conversation, e.g. ``budget_one_way = 200 CNY``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(min_length=1)
    value: str
    status: Literal["confirmed", "tentative", "retracted"]
    confidence: float = Field(ge=0, le=1)
    source_ids: list[str] = _SOURCES


class Decision(BaseModel):
    """A choice made, with its reason, e.g. "exclude G123: arrives later than planned"."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(min_length=1)
    source_ids: list[str] = _SOURCES


class OpenQuestion(BaseModel):
    """A question asked and not answered yet."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(min_length=1)
    source_ids: list[str] = _SOURCES


class ToolDigest(BaseModel):
    """One tool result reduced to what matters: tool, arguments and key values."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool_call_id: str = Field(min_length=1)
    digest: str


class CompactionSummary(BaseModel):
    """The summary of the messages ``source_message_ids`` (the seed's fields, exactly)."""

    model_config = ConfigDict(frozen=True, extra="forbid", title=SCHEMA_NAME)

    schema_version: Literal["compaction_summary.v1"] = SCHEMA_NAME
    source_message_ids: list[str] = Field(min_length=1)
    facts: list[Fact] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    open_questions: list[OpenQuestion] = Field(default_factory=list)
    tool_result_digests: list[ToolDigest] = Field(default_factory=list)
    created_at: datetime
