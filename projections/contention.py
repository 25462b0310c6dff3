"""Appending a planned session event onto a stream that moved while it was planned.

A compaction plans at one stream version, then waits for its summarizer (seconds, for a model).
Meanwhile other processes append messages. Starting over on every such move starves
compaction under steady traffic: the plan is never current when it is ready. But a plan made at
version ``v`` still holds at a later head when every event after ``v`` only adds messages or
figures after what the plan read (``APPEND_ONLY``) and nothing was erased: the same messages
are covered, the same pins, summary head and masks apply, so the event is appended at the new
head (rebased). Anything else (a pin, another summary, a rollback, a mask, an erasure) makes
the plan stale: :class:`StalePlan`, and the caller plans again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from eventstore import ConcurrencyError, RecordedEvent
from projections.session.events import SessionEvent
from projections.session.state import SessionState

__all__ = ["APPEND_ONLY", "RebasingSession", "StalePlan", "append_rebased"]

#: Event types after a plan that leave it valid: they only add after what it read.
APPEND_ONLY = frozenset({"MessageAppended", "ModelCallRecorded", "ProtocolIssueRecorded"})
#: Moves to follow before giving up (each is one read of the events that moved the stream).
MAX_REBASES = 64


class StalePlan(Exception):
    """Something a plan depends on changed since it was made: plan again. ``conflict`` is the
    store's error, to raise when planning again does not end."""

    def __init__(self, reason: str, conflict: ConcurrencyError | None = None) -> None:
        super().__init__(reason)
        self.conflict = conflict


class RebasingSession(Protocol):
    """What rebasing uses of a session."""

    async def latest(self) -> SessionState: ...

    async def append_events(
        self, events: Sequence[SessionEvent], *, expected_version: int | None = None
    ) -> list[RecordedEvent]: ...

    async def events_after(self, version: int) -> list[RecordedEvent]: ...


async def append_rebased(
    session: RebasingSession, event: SessionEvent, planned: int, erased: frozenset[int]
) -> RecordedEvent:
    """Append ``event``, planned at stream version ``planned`` when the session had the erased
    messages ``erased``; rebased onto appends by others (see the module docstring).

    Raises:
        StalePlan: the plan no longer holds (with the store's conflict, if there was one).
    """
    expected = planned
    conflict: ConcurrencyError | None = None
    for _ in range(MAX_REBASES):
        if frozenset((await session.latest()).erased) != erased:
            raise StalePlan("a message was erased since the plan", conflict)
        try:
            (recorded,) = await session.append_events([event], expected_version=expected)
            return recorded
        except ConcurrencyError as error:
            conflict = error
        moved = await session.events_after(expected)
        changed = sorted({e.type for e in moved} - APPEND_ONLY)
        if changed:
            raise StalePlan(f"the stream moved with {', '.join(changed)}", conflict)
        expected = max((e.version for e in moved), default=expected)
    raise StalePlan(f"the stream moved {MAX_REBASES} times while appending", conflict)
