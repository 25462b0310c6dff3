"""Locks and wake-ups that any event loop in any thread may use.

A store (and the ledger on it) may be shared by threads that each run their own event loop:
the Agents SDK's ``Runner.run_sync`` from several threads, a web server's workers. An
``asyncio.Lock`` belongs to the loop that first waits on it, and releasing it from another
thread wakes nobody, so such code hangs or fails with "bound to a different event loop".

:class:`LoopSafeLock` queues a loop's own waiters on an ``asyncio.Lock`` of that loop (first
come, first served, no polling), and the one waiter per loop at the head of that queue takes a
``threading.Lock`` shared by all loops, polling with a short back-off only while another loop
holds it. :class:`Wakeups` keeps one ``asyncio.Event`` per loop and sets each in its own loop.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from types import TracebackType

__all__ = ["LoopSafeLock", "Wakeups"]

_FIRST_WAIT_S = 0.0001
_LONGEST_WAIT_S = 0.005


class LoopSafeLock:
    """An async, non-reentrant lock shared by every event loop of the process."""

    def __init__(self) -> None:
        self._shared = threading.Lock()
        self._guard = threading.Lock()
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._holder: asyncio.Lock | None = None

    def _local(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        with self._guard:
            lock = self._per_loop.get(loop)
            if lock is None:
                lock = self._per_loop[loop] = asyncio.Lock()
            return lock

    async def acquire(self) -> None:
        """Wait for the lock without blocking the loop."""
        local = self._local()
        await local.acquire()
        try:
            wait = _FIRST_WAIT_S
            while not self._shared.acquire(blocking=False):  # another loop holds it
                await asyncio.sleep(wait)
                wait = min(wait * 2, _LONGEST_WAIT_S)
        except BaseException:
            local.release()
            raise
        self._holder = local

    def release(self) -> None:
        """Release the lock (held by the caller)."""
        local, self._holder = self._holder, None
        self._shared.release()
        if local is not None:
            local.release()

    def locked(self) -> bool:
        """Whether some loop holds the lock."""
        return self._shared.locked()

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


class Wakeups:
    """Per key, an ``asyncio.Event`` per loop waiting on it; :meth:`wake` sets them all,
    each in its own loop (thread-safe)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._events: dict[str, dict[asyncio.AbstractEventLoop, asyncio.Event]] = {}

    def event(self, key: str) -> asyncio.Event:
        """The event the next :meth:`wake` of ``key`` sets, for the running loop."""
        loop = asyncio.get_running_loop()
        with self._guard:
            per_loop = self._events.setdefault(key, {})
            event = per_loop.get(loop)
            if event is None:
                event = per_loop[loop] = asyncio.Event()
            return event

    def wake(self, key: str) -> None:
        """Set every loop's event for ``key`` (and forget them: the next wait makes new ones)."""
        with self._guard:
            per_loop = self._events.pop(key, {})
        try:
            current: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            current = None
        for loop, event in per_loop.items():
            if loop is current:
                event.set()
            elif not loop.is_closed():
                loop.call_soon_threadsafe(event.set)
