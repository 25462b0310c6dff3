"""The events of a session stream (``session/<id>``), each with its pydantic model.

Writers build these models and append ``event.new()``; the fold validates stored data against
the same models, so a payload that does not match (an older or foreign writer) is reported as
unreadable with its position, never a ``KeyError``. Every type is registered with its schema
version in :data:`SESSION_EVENTS` (see :func:`projections.events.register_ledger_events`).
Pure: no I/O.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from eventstore import NewEvent
from eventstore.registry import Upcaster
from projections.context.messages import Message
from projections.summaries.schema import CompactionSummary
from projections.summaries.schema_v2 import CompactionSummaryV2

__all__ = [
    "SESSION_EVENTS",
    "MaskedResult",
    "MessageAppended",
    "MessagesPinned",
    "MessagesUnpinned",
    "ModelCallRecorded",
    "ProtocolIssueRecorded",
    "ResultsMasked",
    "SessionEvent",
    "SummaryCommitted",
    "SummaryRejected",
    "SummaryRolledBack",
]

_Ids = Field(min_length=1, description="message ids of the session")
_Reason = Field(min_length=1, max_length=2000)


class SessionEvent(BaseModel):
    """Base of the session events: frozen, no unknown fields, a type name and a version."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type_name: ClassVar[str]
    schema_version: ClassVar[int] = 1
    #: ``{n: f}``: ``f`` turns stored data of schema version ``n`` into version ``n + 1``.
    upcasters: ClassVar[dict[int, Upcaster]] = {}

    def new(self, *, actor: str | None = None) -> NewEvent:
        """This payload as an event to append."""
        return NewEvent(type=self.type_name, data=self.model_dump(mode="json"), actor=actor)


class MessageAppended(SessionEvent):
    """One message, with its token count taken once at append (and the tokenizer's name)."""

    type_name: ClassVar[str] = "MessageAppended"

    message: Message
    tokens: int = Field(ge=0)
    encoding: str = Field(min_length=1)
    flags: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _message_has_an_id(cls, data: Any) -> Any:
        # Message would generate a fresh id for a stored message without one: every fold
        # would then see another id. A stored message must carry its own.
        message = data.get("message") if isinstance(data, dict) else None
        if isinstance(message, dict) and "id" not in message:
            raise ValueError("message: the stored message has no 'id'")
        return data


class MessagesPinned(SessionEvent):
    """Messages whose groups stay in context verbatim, whatever the budget."""

    type_name: ClassVar[str] = "MessagesPinned"

    message_ids: list[str] = _Ids
    reason: str = _Reason


class MessagesUnpinned(SessionEvent):
    """Pins removed."""

    type_name: ClassVar[str] = "MessagesUnpinned"

    message_ids: list[str] = _Ids
    reason: str = _Reason


class ModelCallRecorded(SessionEvent):
    """A model call with the figures the seed tracks per call (and what was sent)."""

    type_name: ClassVar[str] = "ModelCallRecorded"

    manifest: dict[str, Any] | None = None
    input_tokens: int = Field(ge=0)
    cached_input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(ge=0)
    request_bytes: int | None = Field(default=None, ge=0)
    ttft_ms: float | None = Field(default=None, ge=0)
    queue_ms: float | None = Field(default=None, ge=0)
    model: str | None = None


class ProtocolIssueRecorded(SessionEvent):
    """A tool-protocol issue found at append (orphan result, call without result, …)."""

    type_name: ClassVar[str] = "ProtocolIssueRecorded"

    kind: str = Field(min_length=1)
    message_id: str
    tool_call_id: str
    detail: str


def _unchanged(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 data is valid version 2 data: the new fields have defaults."""
    return data


class SummaryCommitted(SessionEvent):
    """A summary that passed the validation gate, with what it covers and what it cost.

    Version 2 allows a ``compaction_summary.v2`` summary (coverage in the summary itself, so
    ``covered_ids`` stays empty) and records whether the render came under the trigger.
    Version 3 records ``erased_versions``: the covered messages that were already erased when
    the summary was made (it saw them as ``[erased]``, so their erasure does not taint it).
    Version 4 serves the block without the coverage digest (``block_digest`` False), so the
    same conversation gives the same bytes in any log; older versions keep theirs, and their
    recorded requests replay byte for byte.
    """

    type_name: ClassVar[str] = "SummaryCommitted"
    schema_version: ClassVar[int] = 4
    upcasters: ClassVar[dict[int, Upcaster]] = {1: _unchanged, 2: _unchanged, 3: _unchanged}

    summary_version: int = Field(ge=1)
    parent_version: int | None = None
    summary: Annotated[
        CompactionSummary | CompactionSummaryV2, Field(discriminator="schema_version")
    ]
    covered_ids: list[str] = Field(default_factory=list)
    covered_hash: str
    tokens: int = Field(ge=0)
    tokens_before: int = Field(ge=0)
    tokens_after: int = Field(ge=0)
    validation: dict[str, Any]
    diff: dict[str, list[str]]
    summarizer: str
    model: str | None = None
    usage: dict[str, Any] | None = None
    latency_ms: float = Field(ge=0)
    sanitized: dict[str, Any]
    trigger: int | None = Field(default=None, ge=0)
    reached_trigger: bool | None = None
    why_not: str | None = None
    erased_versions: list[int] = Field(default_factory=list)
    block_digest: bool = True  # version 4 writes False (see above)


class SummaryRejected(SessionEvent):
    """A summary the gate (or a failing summarizer) refused; the window keeps being served.

    Version 2 records the session's group count at the attempt, so the next attempt waits
    until enough new groups arrived (no retry on every turn).
    """

    type_name: ClassVar[str] = "SummaryRejected"
    schema_version: ClassVar[int] = 2
    upcasters: ClassVar[dict[int, Upcaster]] = {1: _unchanged}

    summary_version: int = Field(ge=1)
    failed_checks: list[str]
    reason: str
    latency_ms: float = Field(ge=0)
    sanitized: dict[str, Any]
    groups: int | None = Field(default=None, ge=0)


class MaskedResult(BaseModel):
    """One tool result served as ``text`` (a digest naming the version that keeps it all)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    message_id: str = Field(min_length=1)
    event_id: str = Field(min_length=1)
    tokens_before: int = Field(ge=0)
    tokens: int = Field(ge=0)
    text: str = Field(min_length=1)
    text_tokens_only: bool = False  # a version 1 record: ``tokens`` left out the overhead


def _text_tokens_only(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 counted each digest's text alone: mark its results so the fold adds the
    message overhead."""
    results = [{**result, "text_tokens_only": True} for result in data.get("results", [])]
    return {**data, "results": results}


class ResultsMasked(SessionEvent):
    """Old tool results that renders from now on serve as a short digest (the ladder's first
    step): the groups stay whole, the log keeps every result in full.

    In version 2 a result's ``tokens`` are the serving message's (overheads included); in
    version 1 they were the digest text's alone (``text_tokens_only``), and such a record is
    planned as it was then, so the requests recorded while it was served replay byte for
    byte.
    """

    type_name: ClassVar[str] = "ResultsMasked"
    schema_version: ClassVar[int] = 2
    upcasters: ClassVar[dict[int, Upcaster]] = {1: _text_tokens_only}

    results: list[MaskedResult] = Field(min_length=1)
    keep_groups: int = Field(ge=0)
    tokens_saved: int = Field(ge=0)


class SummaryRolledBack(SessionEvent):
    """The summary head moved back (``to_version`` None: no summary, the window is served)."""

    type_name: ClassVar[str] = "SummaryRolledBack"

    to_version: int | None = Field(default=None, ge=1)
    reason: str = _Reason


#: Every session event type, by name.
SESSION_EVENTS: dict[str, type[SessionEvent]] = {
    model.type_name: model
    for model in (
        MessageAppended,
        MessagesPinned,
        MessagesUnpinned,
        ModelCallRecorded,
        ProtocolIssueRecorded,
        ResultsMasked,
        SummaryCommitted,
        SummaryRejected,
        SummaryRolledBack,
    )
}
