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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from eventstore import RecordedEvent
from eventstore.recorder import Document

__all__ = ["Changes", "PartialCodec", "Projection", "ReadModel", "SnapshotCodec", "State"]


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
    """A projection whose state can be saved as a snapshot (single-stream projections): a
    *head*, and *parts* that each hold what ``part_versions`` stream versions added and never
    change once cut (:mod:`projections.snapshot_parts`), so that saving a head costs what one
    part costs, whatever the state's size. A codec with ``part_versions = 0`` keeps all of
    its state in the head."""

    #: stream versions a part covers (0: no parts)
    part_versions: int

    def encode(self, state: S, digests: Sequence[bytes]) -> bytes:
        """The head: what parts ``0 .. len(digests)`` (whose BLAKE3 digests these are) do
        not hold."""
        ...

    def encode_part(self, state: S, part: int) -> bytes:
        """Part ``part``: what versions ``(part·V, (part+1)·V]`` added."""
        ...

    def head_parts(self, data: bytes) -> list[bytes]:
        """The digests of the parts a head names, in order."""
        ...

    def decode(self, data: bytes, parts: Sequence[bytes], tenant_id: str, key: str) -> S:
        """The state of ``key`` from a head and the parts it names, in order (raises
        ValueError, KeyError or TypeError when they do not make a state)."""
        ...


class PartialCodec(SnapshotCodec[S], Protocol[S]):
    """A codec that can also open a state from some of its parts (a cold open of a long
    session reads its first and last parts): the state raises on a read of what it lacks,
    and must never be folded or saved but where the projection says so."""

    def partial_parts(self, data: bytes) -> list[int] | None:
        """The parts of a head to read for a partial state; None: read them all."""
        ...

    def decode_partial(
        self, data: bytes, parts: Mapping[int, bytes], tenant_id: str, key: str
    ) -> S:
        """The partial state of ``key`` from a head and the parts :meth:`partial_parts`
        named, by index."""
        ...

    def folds_partially(self, event: RecordedEvent) -> bool:
        """Whether an event can be folded into a partial state (else it is loaded whole)."""
        ...


@dataclass
class Changes:
    """Row changes of a read model for a batch of events."""

    upserts: list[Document] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)


class ReadModel(Protocol):
    """A projection over a tenant's whole log into rows of its own.

    ``name`` and ``version`` together name the stored rows: a new version starts from an empty
    read model and rebuilds from the log. A read model may set ``blocking = True`` when its
    ``changes`` is slow work (a model embedding texts): the runner then calls it in a worker
    thread, so the event loop keeps serving while it runs.
    """

    name: str
    version: int

    def changes(self, events: Sequence[RecordedEvent]) -> Changes:
        """The rows that a batch of events (in position order) adds, replaces or deletes."""
        ...
