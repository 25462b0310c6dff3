"""projections: what is derived from the ctxledger log, the processes acting on it, the CLI.

The public API: the :class:`Ledger` facade (and :class:`SyncLedger`), messages and wire
formats, token counting, budgets, the summary record and its validation gate.
"""

from projections.context.budget import Budget
from projections.context.formats import from_messages, to_messages
from projections.context.messages import Message, ToolCall
from projections.context.tokens import TiktokenCounter, TokenCounter
from projections.context.view import ContextView, Manifest, RenderedContext
from projections.errors import MessageValidationError
from projections.ledger import Ledger, Session, SyncLedger
from projections.summaries.schema import CompactionSummary
from projections.summaries.validation import ValidationReport, validate_summary

__all__ = [
    "Budget",
    "CompactionSummary",
    "ContextView",
    "Ledger",
    "Manifest",
    "Message",
    "MessageValidationError",
    "RenderedContext",
    "Session",
    "SyncLedger",
    "TiktokenCounter",
    "TokenCounter",
    "ToolCall",
    "ValidationReport",
    "from_messages",
    "to_messages",
    "validate_summary",
]
