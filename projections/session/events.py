"""The events of a session stream (``session/<id>``), each with its pydantic model.

Writers build these models and append ``event.new()``; the fold validates stored data against
the same models, so a payload that does not match (an older or foreign writer) is reported as
unreadable with its position, never a ``KeyError``. Every type is registered with its schema
version in :data:`SESSION_EVENTS` (see :func:`projections.events.register_ledger_events`).
Pure: no I/O.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from eventstore import NewEvent
from projections.context.messages import Message
from projections.summaries.schema import CompactionSummary

__all__ = [
    "SESSION_EVENTS",
    "MessageAppended",
    "MessagesPinned",
    "MessagesUnpinned",
    "ModelCallRecorded",
    "ProtocolIssueRecorded",
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


class SummaryCommitted(SessionEvent):
    """A summary that passed the validation gate, with what it covers and what it cost."""

    type_name: ClassVar[str] = "SummaryCommitted"

    summary_version: int = Field(ge=1)
    parent_version: int | None = None
    summary: CompactionSummary
    covered_ids: list[str]
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


class SummaryRejected(SessionEvent):
    """A summary the gate (or a failing summarizer) refused; the window keeps being served."""

    type_name: ClassVar[str] = "SummaryRejected"

    summary_version: int = Field(ge=1)
    failed_checks: list[str]
    reason: str
    latency_ms: float = Field(ge=0)
    sanitized: dict[str, Any]


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
        SummaryCommitted,
        SummaryRejected,
        SummaryRolledBack,
    )
}
