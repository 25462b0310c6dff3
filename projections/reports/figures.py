"""The per-session figures behind ``ctxledger stats``, as a projection over typed session
events (it runs on :class:`~projections.runner.ProjectionRunner`). Pure: no I/O."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from eventstore import RecordedEvent
from projections.session.events import (
    SESSION_EVENTS,
    MessageAppended,
    MessagesPinned,
    ModelCallRecorded,
    ProtocolIssueRecorded,
    ResultsMasked,
    SessionEvent,
    SummaryCommitted,
    SummaryRejected,
    SummaryRolledBack,
)

__all__ = ["SESSION_FIGURES", "SessionFigures", "SessionFiguresView"]


@dataclass
class SessionFigures:
    """Running figures of one session."""

    version: int = 0
    position: int = 0
    messages: int = 0
    history: int = 0
    before: int = 0  # history tokens at each model call, summed
    sent: int = 0  # input tokens of each model call, summed
    cached: int = 0
    output: int = 0
    calls: int = 0
    tool_calls: int = 0
    issues: int = 0
    flagged: int = 0
    committed: int = 0
    rejected: int = 0
    rollbacks: int = 0
    unreadable: int = 0
    summarizer_tokens: int = 0
    latencies: list[float] = field(default_factory=list)
    saved: int = 0
    masked: int = 0  # tool results served as a digest (ResultsMasked)
    mask_saved: int = 0  # tokens those digests save
    redactions: Counter[str] = field(default_factory=Counter)
    neutralised: int = 0
    pinned: set[str] = field(default_factory=set)
    facts: dict[int, dict[str, str]] = field(default_factory=dict)  # version -> confirmed facts
    last_budget: dict[str, Any] | None = None

    def stale_facts(self, served: int | None) -> int:
        """Facts of the served summary that a later version changed or retracted."""
        if served is None or served not in self.facts:
            return 0
        mine = self.facts[served]
        later = [facts for version, facts in self.facts.items() if version > served]
        return sum(1 for key, value in mine.items() if any(f.get(key) != value for f in later))


def _message(figures: SessionFigures, data: MessageAppended) -> None:
    figures.messages += 1
    figures.history += data.tokens
    figures.tool_calls += len(data.message.tool_calls)
    figures.flagged += bool(data.flags)


def _pinned(figures: SessionFigures, data: MessagesPinned) -> None:
    figures.pinned.update(data.message_ids)


def _call(figures: SessionFigures, data: ModelCallRecorded) -> None:
    figures.calls += 1
    figures.before += figures.history
    figures.sent += data.input_tokens
    figures.cached += data.cached_input_tokens
    figures.output += data.output_tokens
    figures.last_budget = (data.manifest or {}).get("budget") or figures.last_budget


def _issue(figures: SessionFigures, _: ProtocolIssueRecorded) -> None:
    figures.issues += 1


def _attempt(figures: SessionFigures, data: SummaryCommitted | SummaryRejected) -> None:
    figures.latencies.append(data.latency_ms)
    figures.redactions.update(data.sanitized.get("redactions") or {})
    figures.neutralised += int(data.sanitized.get("neutralised") or 0)
    if isinstance(data, SummaryRejected):
        figures.rejected += 1
        return
    figures.committed += 1
    figures.summarizer_tokens += int((data.usage or {}).get("total_tokens") or 0)
    figures.saved += max(0, data.tokens_before - data.tokens_after)
    figures.facts[data.summary_version] = {
        fact.key: fact.value for fact in data.summary.facts if fact.status == "confirmed"
    }


def _masked(figures: SessionFigures, data: ResultsMasked) -> None:
    figures.masked += len(data.results)
    figures.mask_saved += data.tokens_saved


def _rolled_back(figures: SessionFigures, _: SummaryRolledBack) -> None:
    figures.rollbacks += 1


_HANDLERS: dict[str, Callable[[SessionFigures, Any], None]] = {
    "MessageAppended": _message,
    "MessagesPinned": _pinned,
    "ModelCallRecorded": _call,
    "ProtocolIssueRecorded": _issue,
    "SummaryCommitted": _attempt,
    "SummaryRejected": _attempt,
    "SummaryRolledBack": _rolled_back,
    "ResultsMasked": _masked,
}


class SessionFiguresView:
    """The projection: a session's stream folded into :class:`SessionFigures`."""

    name = "session_figures"
    version = 2  # 2: masked tool results

    @staticmethod
    def streams(session_id: str) -> list[str]:
        """A session's one stream."""
        return [f"session/{session_id}"]

    @staticmethod
    def initial(tenant_id: str = "", session_id: str = "") -> SessionFigures:
        """No figures yet."""
        return SessionFigures()

    @staticmethod
    def apply(
        figures: SessionFigures, event: RecordedEvent, known: SessionEvent | None = None
    ) -> SessionFigures:
        """Fold one event; unreadable ones are counted, never raised."""
        figures.version, figures.position = event.version, event.position
        handler = _HANDLERS.get(event.type)
        if handler is None or event.data is None:
            return figures
        payload = known
        if payload is None:
            try:
                payload = SESSION_EVENTS[event.type].model_validate(event.data)
            except ValidationError:
                figures.unreadable += 1
                return figures
        handler(figures, payload)
        return figures


SESSION_FIGURES = SessionFiguresView()
