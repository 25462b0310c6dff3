"""A private event loop on a daemon thread, for adapters whose framework calls them from both
sync and async code (LangGraph's savers, LangChain's chat histories).

Every coroutine on the adapter's store runs on this one loop, whichever way it was called:
the store's connections and locks are bound to the loop that first used them, so a sync call
(no running loop) and an async call (the caller's loop) must not use it from two loops.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["LoopThread"]

T = TypeVar("T")


class LoopThread:
    """An event loop running on its own daemon thread until :meth:`stop`."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop` has run."""
        return self.loop.is_closed()

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> Future[T]:
        """Schedule ``coroutine`` on the loop."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop and wait for it (from sync code)."""
        return self.submit(coroutine).result()

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop and await it (from another loop)."""
        return await asyncio.wrap_future(self.submit(coroutine))

    def stop(self) -> None:
        """Stop the loop and its thread (idempotent)."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()
