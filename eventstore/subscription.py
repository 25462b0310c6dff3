"""Following a tenant's log: catch up from a position, then poll with a cursor.

Correctness rests on the cursor alone: positions are gap-free and commit-ordered, so "every
event after the last position I saw" never skips one. A wake-up from appends made through the
same store only shortens the wait; appends from other processes are found by polling.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Protocol, Self

from eventstore.events import RecordedEvent

__all__ = ["Subscription"]


class EventSource(Protocol):
    """What a subscription reads: an :class:`~eventstore.store.EventStore`."""

    def _wakeup(self, tenant_id: str) -> asyncio.Event: ...

    async def read_batch(
        self, tenant_id: str, *, after_position: int, limit: int
    ) -> list[RecordedEvent]: ...


class Subscription:
    """An async iterator over a tenant's events, in position order, without end.

    ``position`` is the position of the last event handed out: persist it with your
    projection's state and pass it back as ``after_position`` to resume exactly there.
    """

    def __init__(
        self,
        store: EventSource,
        tenant_id: str,
        *,
        after_position: int = 0,
        poll_interval: float = 0.25,
        batch_size: int = 500,
    ) -> None:
        if poll_interval <= 0:
            raise ValueError(f"poll_interval must be positive, got {poll_interval}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.store = store
        self.tenant_id = tenant_id
        self.position = after_position
        self.poll_interval = poll_interval
        self.batch_size = batch_size
        self._buffer: deque[RecordedEvent] = deque()
        self._closed = False

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> RecordedEvent:
        while not self._buffer:
            if self._closed:
                raise StopAsyncIteration
            # Take the wake-up before reading, so an append between the read and the wait
            # still wakes us.
            wakeup = self.store._wakeup(self.tenant_id)
            batch = await self.store.read_batch(
                self.tenant_id, after_position=self.position, limit=self.batch_size
            )
            if batch:
                self._buffer.extend(batch)
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wakeup.wait(), self.poll_interval)
        event = self._buffer.popleft()
        self.position = event.position
        return event

    async def next_batch(self, max_wait: float | None = None) -> list[RecordedEvent]:
        """Every event available now, waiting up to ``max_wait`` seconds for at least one."""
        try:
            first = await asyncio.wait_for(self.__anext__(), max_wait)
        except TimeoutError:
            return []
        batch = [first, *self._buffer]
        self._buffer.clear()
        if batch:
            self.position = batch[-1].position
        return batch

    def close(self) -> None:
        """Stop: the iteration ends once buffered events are handed out."""
        self._closed = True
