"""A session: its typed events, the state folded from them, the snapshot codec, the fold,
the render under a budget, and the pure compaction plan."""

from projections.session.events import (
    SESSION_EVENTS,
    MessageAppended,
    MessagesPinned,
    MessagesUnpinned,
    ModelCallRecorded,
    ProtocolIssueRecorded,
    SessionEvent,
    SummaryCommitted,
    SummaryRejected,
    SummaryRolledBack,
)
from projections.session.fold import SessionView
from projections.session.render import Manifest, RenderedContext, render
from projections.session.state import Cut, SessionState, Unreadable

__all__ = [
    "SESSION_EVENTS",
    "Cut",
    "Manifest",
    "MessageAppended",
    "MessagesPinned",
    "MessagesUnpinned",
    "ModelCallRecorded",
    "ProtocolIssueRecorded",
    "RenderedContext",
    "SessionEvent",
    "SessionState",
    "SessionView",
    "SummaryCommitted",
    "SummaryRejected",
    "SummaryRolledBack",
    "Unreadable",
    "render",
]
