"""What a projection is (DESIGN §4): a pure fold ``apply(state, event) -> state`` from
``initial()``, with a name and a version.

Two kinds run on :mod:`projections.runner`:

- a :class:`Projection` keeps its state in memory per key (a session, a user): the runner
  catches it up from the log, caches it, snapshots it when it has a :class:`SnapshotCodec`,
  and drops it when an erasure happens;
- a :class:`ReadModel` keeps rows of its own in the store (``store.read_models``): the runner
  folds the tenant's log into row changes and commits them with the read model's checkpoint
  in one transaction.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from eventstore import RecordedEvent
from eventstore.recorder import Document

__all__ = ["Changes", "Projection", "ReadModel", "SnapshotCodec", "State"]


class State(Protocol):
    """A projection state knows how far it has folded."""

    version: int
    position: int


S = TypeVar("S")


class Projection(Protocol[S]):
    """A fold over the streams of one key (a session, a user)."""

    name: str
    version: int

    def initial(self, tenant_id: str, key: str) -> S:
        """The state of ``key`` before any event."""
        ...

    def apply(self, state: S, event: RecordedEvent, known: Any = None) -> S:
        """The state after one more event (may change ``state`` in place). ``known`` may
        carry the payload model the writer appended, sparing its validation."""
        ...

    def streams(self, key: str) -> Sequence[str]:
        """The streams whose events, merged in position order, the state of ``key`` folds."""
        ...


class SnapshotCodec(Protocol[S]):
    """A projection whose state can be saved as a snapshot (single-stream projections)."""

    def encode(self, state: S) -> bytes:
        """The state as bytes."""
        ...

    def decode(self, data: bytes, tenant_id: str, key: str) -> S:
        """The state of ``key`` from :meth:`encode`'s bytes."""
        ...


@dataclass
class Changes:
    """Row changes of a read model for a batch of events."""

    upserts: list[Document] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)


class ReadModel(Protocol):
    """A projection over a tenant's whole log into rows of its own.

    ``name`` and ``version`` together name the stored rows: a new version starts from an empty
    read model and rebuilds from the log.
    """

    name: str
    version: int

    def changes(self, events: Sequence[RecordedEvent]) -> Changes:
        """The rows that a batch of events (in position order) adds, replaces or deletes."""
        ...
