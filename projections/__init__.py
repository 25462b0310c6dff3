"""projections: what is derived from the ctxledger log, the processes acting on it, the CLI.

The public API: the :class:`Ledger` facade (and :class:`SyncLedger`), messages and wire
formats, token counting, budgets, the typed session events, the render and its manifest, the
summary record, its validation gate and the summarizer protocol.
"""

from projections.context.budget import Budget
from projections.context.formats import from_messages, to_messages
from projections.context.messages import Message, ToolCall
from projections.context.tokens import TiktokenCounter, TokenCounter
from projections.errors import MessageValidationError, SummarizerError
from projections.events import ledger_registry, register_ledger_events
from projections.ledger import CompactionOutcome, Ledger, Session
from projections.projection import Projection, ReadModel
from projections.runner import ProjectionRunner, ReadModelRunner
from projections.session import Manifest, RenderedContext, SessionState, SessionView
from projections.summaries.schema import CompactionSummary
from projections.summaries.summarizer import Summarizer, SummaryRequest, SummaryResult
from projections.summaries.validation import ValidationReport, validate_summary
from projections.sync import SyncLedger, SyncSession

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
