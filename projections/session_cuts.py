"""The base of a session's reads: its latest state, cuts of it, and bodies read from the log.

:class:`~projections.session_reads.SessionReads` builds on it (renders, time travel, the
state folded afresh), through :class:`~projections.session_recall.RecallReads` (search and
recall).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, TypeVar

from eventstore import EventStore
from projections.context.holes import RowsNotLoaded
from projections.context.messages import Message
from projections.context.tokens import TokenCounter
from projections.errors import MessageValidationError
from projections.projection import ReadModel
from projections.read_model_runner import ReadModelRunner
from projections.runner import ProjectionRunner
from projections.session.bodies import IndexMismatchError, fetch_bodies
from projections.session.checks import check_served
from projections.session.needs import compaction_needs
from projections.session.state import Cut, SessionState
from projections.text_caches import forgotten

if TYPE_CHECKING:
    from projections.recall.vectors import VectorIndex

__all__ = ["LedgerParts", "SessionCuts", "check_reached"]

T = TypeVar("T")


class LedgerParts(Protocol):
    """What a session's reads use of its ledger (a :class:`~projections.ledger.Ledger`)."""

    store: EventStore
    sessions: ProjectionRunner[SessionState]
    vectors: VectorIndex | None  # the embedding ranker's read model (None: BM25 alone)

    @property
    def counter(self) -> TokenCounter:
        """The token counter."""
        ...

    def read_model(self, model: ReadModel) -> ReadModelRunner:
        """The runner of a read model with rows of its own."""
        ...


class SessionCuts:
    """Cuts of the stream ``session/<session_id>`` of a tenant, with bodies from the log."""

    ledger: LedgerParts
    tenant_id: str
    session_id: str
    stream_id: str

    async def latest(self) -> SessionState:
        """The session's latest state, as the ledger keeps it current (O(new events) to catch
        up); read it, never change it. :meth:`state` folds a fresh copy from the log instead."""
        return await self.ledger.sessions.current(self.tenant_id, self.session_id)

    async def _cut(
        self, at_version: int | None, at_position: int | None, at_time: datetime | None
    ) -> Cut:
        # A render reads few rows: it may start from a partial index (see ``_checked``).
        state = await self.ledger.sessions.current(self.tenant_id, self.session_id, partial=True)
        check_reached(self.session_id, state.version, at_version)
        version = at_version
        if at_position is not None or at_time is not None:
            version = state.version_at(position=at_position, time=at_time)
            if at_version is not None:
                version = min(version, at_version)
        return state.cut(version)

    async def _checked(self, read: Callable[[], Awaitable[T]]) -> T:
        """``read()``, once more on the whole index if it met a row a partial one lacks, and
        on a state rebuilt from the log if the index it read from (a snapshot) disagreed with
        the log: nothing a forged snapshot says is served."""
        try:
            try:
                return await read()
            except RowsNotLoaded:
                await self.ledger.sessions.current(self.tenant_id, self.session_id)
                return await read()
        except IndexMismatchError as error:
            await self.ledger.sessions.distrust(self.tenant_id, self.session_id, str(error))
            return await read()

    async def with_bodies(self, cut: Cut, indexes: Iterable[int]) -> Cut:
        """The cut with the bodies of these messages at hand: from the ledger's body cache,
        else read from the log and checked against the index (:mod:`projections.session.bodies`);
        the served summary and these messages' masks checked against their events first when
        they came from a snapshot (:mod:`projections.session.checks`)."""
        state = cut.state
        indexes = list(indexes)
        store = self.ledger.store
        await check_served(store, self.tenant_id, self.stream_id, cut, indexes)
        held: dict[int, Message] = {}
        missing = []
        for index in indexes:
            body = cut.loaded.get(index) or state.bodies.get(index)
            if body is None:
                missing.append(index)
            else:
                held[index] = body
        if missing:
            since = forgotten()
            found = await fetch_bodies(store, self.tenant_id, self.stream_id, state, missing)
            if forgotten() == since:  # else an erasure ran meanwhile: serve, do not keep
                for index, message in found.items():
                    state.bodies.put(index, state.message_versions[index], message)
            held.update(found)
        return cut.with_bodies(held)

    async def compaction_cut(self) -> Cut:
        """The latest cut with what compaction and masking read at hand: the messages no
        summary covers yet, the prefix, the pins, and what the served summary cites."""
        cut = (await self.latest()).cut()
        return await self.with_bodies(cut, compaction_needs(cut))

    async def all_messages(self, cut: Cut | None = None) -> Cut:
        """The cut (default: the latest) with every message's body at hand: O(history), for
        reports, exports and integrations that hand the whole conversation over."""
        cut = cut if cut is not None else (await self.latest()).cut()
        return await self.with_bodies(cut, range(cut.count))


def check_reached(session_id: str, head: int, at_version: int | None) -> None:
    """Refuse a time travel to a version the session has not reached: not "now", since a
    version the log has not reached is a wrong session or a typo, and an audit asking what the
    model saw then must not be answered with today."""
    if at_version is not None and at_version > head:
        raise MessageValidationError(
            f"session {session_id} is at version {head}: at_version {at_version} is after "
            f"it (time travel reads versions 0 to {head})"
        )
