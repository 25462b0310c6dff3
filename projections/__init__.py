"""projections: what is derived from the ctxledger log, the processes acting on it, the CLI.

The public API: the :class:`Ledger` facade (and :class:`SyncLedger`), messages and wire
formats, token counting, budgets, the typed session events, the render and its manifest, the
summary record, its validation gate and the summarizer protocol.

Names are imported on first use (PEP 562), so ``import projections`` (and the CLI's start-up)
stays cheap; type checkers see them as ordinary imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from projections.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from projections.compactor import CompactionOutcome
    from projections.context.budget import Budget
    from projections.context.formats import from_messages, to_messages
    from projections.context.messages import Message, ToolCall
    from projections.context.tokens import TiktokenCounter, TokenCounter
    from projections.errors import (
        MessageValidationError,
        SummarizerError,
        SummarizerUnavailableError,
    )
    from projections.events import ledger_registry, register_ledger_events
    from projections.ledger import Ledger, Session
    from projections.projection import Projection, ReadModel
    from projections.read_model_runner import ReadModelRunner
    from projections.runner import ProjectionRunner
    from projections.session import Manifest, RenderedContext, SessionState, SessionView
    from projections.summaries.schema import CompactionSummary
    from projections.summaries.summarizer import Summarizer, SummaryRequest, SummaryResult
    from projections.summaries.validation import ValidationReport, validate_summary
    from projections.sync import SyncLedger, SyncSession

_EXPORTS = {
    "Budget": "projections.context.budget",
    "CompactionOutcome": "projections.compactor",
    "CompactionSummary": "projections.summaries.schema",
    "Ledger": "projections.ledger",
    "Manifest": "projections.session",
    "Message": "projections.context.messages",
    "MessageValidationError": "projections.errors",
    "Projection": "projections.projection",
    "ProjectionRunner": "projections.runner",
    "ReadModel": "projections.projection",
    "ReadModelRunner": "projections.read_model_runner",
    "RenderedContext": "projections.session",
    "Session": "projections.ledger",
    "SessionState": "projections.session",
    "SessionView": "projections.session",
    "Summarizer": "projections.summaries.summarizer",
    "SummarizerError": "projections.errors",
    "SummarizerUnavailableError": "projections.errors",
    "SummaryRequest": "projections.summaries.summarizer",
    "SummaryResult": "projections.summaries.summarizer",
    "SyncLedger": "projections.sync",
    "SyncSession": "projections.sync",
    "TiktokenCounter": "projections.context.tokens",
    "TokenCounter": "projections.context.tokens",
    "ToolCall": "projections.context.messages",
    "ValidationReport": "projections.summaries.validation",
    "from_messages": "projections.context.formats",
    "ledger_registry": "projections.events",
    "register_ledger_events": "projections.events",
    "to_messages": "projections.context.formats",
    "validate_summary": "projections.summaries.validation",
}

__all__ = [
    "Budget",
    "CompactionOutcome",
    "CompactionSummary",
    "Ledger",
    "Manifest",
    "Message",
    "MessageValidationError",
    "Projection",
    "ProjectionRunner",
    "ReadModel",
    "ReadModelRunner",
    "RenderedContext",
    "Session",
    "SessionState",
    "SessionView",
    "Summarizer",
    "SummarizerError",
    "SummarizerUnavailableError",
    "SummaryRequest",
    "SummaryResult",
    "SyncLedger",
    "SyncSession",
    "TiktokenCounter",
    "TokenCounter",
    "ToolCall",
    "ValidationReport",
    "from_messages",
    "ledger_registry",
    "register_ledger_events",
    "to_messages",
    "validate_summary",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
