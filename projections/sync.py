"""The synchronous facade: :class:`SyncLedger` and :class:`SyncSession`, for callers without an
event loop.

Thin, never a second copy: every verb is the async one run on the ledger's own event loop,
declared once with :func:`blocking`, which keeps the async verb's signature (and docstring) for
type checkers and ``help()``. A test checks that every public verb of
:class:`~projections.ledger.Session` has its twin here with the same signature.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from eventstore import EventStore
from projections.context.tokens import TokenCounter
from projections.erasure import CascadedErasure
from projections.ledger import Ledger, Session
from projections.memory.service import LongTermMemory
from projections.recall.vector_cache import DEFAULT_VECTOR_BYTES
from projections.session.bodies import DEFAULT_BODY_BYTES, DEFAULT_INDEX_BYTES

if TYPE_CHECKING:
    from projections.recall.vectors import Embedder

__all__ = ["SyncLedger", "SyncSession", "blocking"]

P = ParamSpec("P")
R = TypeVar("R")


def blocking(
    verb: Callable[Concatenate[Session, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[SyncSession, P], R]:
    """The async ``Session`` verb as a blocking ``SyncSession`` method (same signature)."""

    def run(self: SyncSession, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._runner.run(verb(self.session, *args, **kwargs))

    functools.update_wrapper(run, verb)
    return run


class SyncSession:
    """A :class:`~projections.ledger.Session` whose verbs block until done."""

    def __init__(self, session: Session, runner: asyncio.Runner) -> None:
        self.session = session
        self._runner = runner

    @property
    def session_id(self) -> str:
        """The session's id."""
        return self.session.session_id

    append = blocking(Session.append)
    append_events = blocking(Session.append_events)
    events_after = blocking(Session.events_after)
    propose_summary_facts = blocking(Session.propose_summary_facts)
    pin = blocking(Session.pin)
    unpin = blocking(Session.unpin)
    record_model_call = blocking(Session.record_model_call)
    compact = blocking(Session.compact)
    propose_memory = blocking(Session.propose_memory)
    rollback = blocking(Session.rollback)
    latest = blocking(Session.latest)
    messages = blocking(Session.messages)
    state = blocking(Session.state)
    render = blocking(Session.render)
    search = blocking(Session.search)
    read_message = blocking(Session.read_message)
    recall_block = blocking(Session.recall_block)
    with_bodies = blocking(Session.with_bodies)
    all_messages = blocking(Session.all_messages)
    compaction_cut = blocking(Session.compaction_cut)


class SyncLedger:
    """A :class:`~projections.ledger.Ledger` for synchronous code; it owns an event loop and
    the store, so use it as a context manager::

        with SyncLedger("ledger.db") as ledger:
            ledger.session("acme", "trip-42").append([{"role": "user", "content": "hi"}])

    Args:
        url: the database (see :meth:`EventStore.open`), with the backend's ``options``.
        counter: the token counter; ``snapshot_every``, ``cached_sessions``, ``cached_bytes``,
            ``body_cache_bytes``, ``embedder`` and ``vector_cache_bytes`` as for
            :class:`~projections.ledger.Ledger`.
    """

    def __init__(
        self,
        url: str | os.PathLike[str] = "ctxledger.db",
        *,
        counter: TokenCounter | None = None,
        snapshot_every: int = 100,
        cached_sessions: int = 256,
        cached_bytes: int | None = DEFAULT_INDEX_BYTES,
        body_cache_bytes: int = DEFAULT_BODY_BYTES,
        embedder: Embedder | None = None,
        vector_cache_bytes: int = DEFAULT_VECTOR_BYTES,
        **options: Any,
    ) -> None:
        self._runner = asyncio.Runner()
        self.store = EventStore.open(url, **options)
        self.ledger = Ledger(
            self.store,
            counter=counter,
            snapshot_every=snapshot_every,
            cached_sessions=cached_sessions,
            cached_bytes=cached_bytes,
            body_cache_bytes=body_cache_bytes,
            embedder=embedder,
            vector_cache_bytes=vector_cache_bytes,
        )

    def session(
        self, tenant_id: str, session_id: str, *, user_id: str | None = None
    ) -> SyncSession:
        """The session ``session_id`` of ``tenant_id`` (see :meth:`Ledger.session`)."""
        return SyncSession(
            self.ledger.session(tenant_id, session_id, user_id=user_id), self._runner
        )

    def erase(
        self, tenant_id: str, event_ids: Sequence[str], *, reason: str, requested_by: str
    ) -> CascadedErasure:
        """Erase events and what was derived from them (see :meth:`Ledger.erase`)."""
        return self._runner.run(
            self.ledger.erase(tenant_id, event_ids, reason=reason, requested_by=requested_by)
        )

    @property
    def memory(self) -> LongTermMemory:
        """Long-term memory (async API: run it with :meth:`run`)."""
        return self.ledger.memory

    def run(self, coroutine: Coroutine[Any, Any, R]) -> R:
        """Run any coroutine of the async API on this ledger's event loop."""
        return self._runner.run(coroutine)

    def close(self) -> None:
        """Close the store and the event loop."""
        self._runner.run(self.store.close())
        self._runner.close()

    def __enter__(self) -> SyncLedger:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
