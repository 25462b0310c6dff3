"""An integration's stream as a projection on the ledger's one runner. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, Protocol, TypeVar

from eventstore import RecordedEvent

__all__ = ["Feedable", "StreamView"]


class Feedable(Protocol):
    """A fold of one stream that takes its next events."""

    version: int

    def feed(self, events: Iterable[RecordedEvent]) -> None:
        """Apply the stream's next events."""
        ...


F = TypeVar("F", bound=Feedable)


class StreamView(Generic[F]):
    """One stream as a :class:`~projections.projection.Projection` keyed by the stream's own
    name, so the one runner keeps its folds (caught up with new events only, least recently
    used out, dropped when the tenant's erasure stream moves), never a cache of its own."""

    version = 1

    def __init__(self, name: str, new: Callable[[], F]) -> None:
        self.name = name
        self._new: Callable[[], F] = new

    @staticmethod
    def streams(key: str) -> list[str]:
        """The stream itself."""
        return [key]

    def initial(self, tenant_id: str, key: str) -> F:
        """The fold before any event."""
        return self._new()

    @staticmethod
    def apply(state: F, event: RecordedEvent, known: Any = None) -> F:
        """The fold after one more event."""
        state.feed([event])
        return state
