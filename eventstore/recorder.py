"""The narrow storage interface every backend implements.

A recorder stores and returns :class:`~eventstore.records.StoredEvent` rows; it never encodes,
decodes or validates user data (the store does that before and after). It does own the one
transaction in which an append reads the heads, chains the pending events with
:func:`~eventstore.records.chain_events` and writes them, because versions, positions and hashes
depend on the state it locks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from eventstore.records import PendingEvent, SnapshotRecord, StoredEvent, StreamHead

__all__ = ["AppendOutcome", "ErasureOutcome", "LogSnapshot", "MakeErasure", "Recorder"]

#: Builds the ``PayloadErased`` pending event for the ids that are really erased.
MakeErasure = Callable[[list[str]], PendingEvent]


@dataclass(frozen=True, slots=True)
class AppendOutcome:
    """The records of an append, and whether they were written now (False: an idempotent retry)."""

    events: list[StoredEvent]
    written: bool


@dataclass(frozen=True, slots=True)
class ErasureOutcome:
    """The ``PayloadErased`` record (None if nothing was left to erase) and what was skipped."""

    erasure: StoredEvent | None
    erased: list[str]
    already_erased: dict[str, int]


@dataclass(frozen=True, slots=True)
class LogSnapshot:
    """A tenant's heads and extents read in one transaction.

    ``position`` is the tenant head; ``last_event_position`` the largest position in the events
    table (they differ only in a damaged or edited database). With a stream, ``heads`` holds
    only that stream's head (if any) and ``last_stream_version`` its largest stored version.
    """

    position: int
    heads: dict[str, StreamHead]
    last_event_position: int
    last_stream_version: int = 0


class Recorder(Protocol):
    """Storage of hashed events for many tenants."""

    async def initialize(self) -> None:
        """Open connections and create or check the schema."""
        ...

    async def close(self) -> None:
        """Release every connection."""
        ...

    async def append(
        self,
        tenant_id: str,
        stream_id: str,
        expected_version: int | None,
        pending: Sequence[PendingEvent],
    ) -> AppendOutcome:
        """Append ``pending`` atomically after checking ``expected_version`` (None: any)."""
        ...

    async def read_stream(
        self, tenant_id: str, stream_id: str, from_version: int, to_version: int | None
    ) -> list[StoredEvent]:
        """Events of one stream with ``from_version <= version <= to_version``."""
        ...

    async def read_log(
        self, tenant_id: str, after_position: int, limit: int, to_position: int | None = None
    ) -> list[StoredEvent]:
        """Up to ``limit`` events of a tenant after ``after_position``, in position order."""
        ...

    async def read_events(self, tenant_id: str, event_ids: Sequence[str]) -> list[StoredEvent]:
        """The tenant's events with these ids (ids of other tenants are not returned)."""
        ...

    async def stream_head(self, tenant_id: str, stream_id: str) -> StreamHead:
        """The head of one stream (version 0 when it has no events)."""
        ...

    async def snapshot(self, tenant_id: str, stream_id: str | None = None) -> LogSnapshot:
        """The tenant's heads and extents (or one stream's), read consistently."""
        ...

    async def tenants(self) -> list[str]:
        """Every tenant that has events (an operator's view, used by ``verify`` of all)."""
        ...

    async def erase(
        self, tenant_id: str, event_ids: Sequence[str], make_erasure: MakeErasure
    ) -> ErasureOutcome:
        """Record a ``PayloadErased`` and delete the named payloads (and the snapshots of the
        streams they belong to, which may hold copies), in one transaction."""
        ...

    async def save_snapshot(self, snapshot: SnapshotRecord) -> None:
        """Store a projection snapshot, replacing the previous one of that projection/stream."""
        ...

    async def load_snapshot(
        self, tenant_id: str, name: str, stream_id: str
    ) -> SnapshotRecord | None:
        """The latest snapshot of a projection for a stream, if any."""
        ...

    async def read_hashes(self, tenant_id: str, first: int, last: int) -> list[bytes]:
        """The event hashes at positions ``first .. last`` of a tenant, in order (the Merkle
        tree's leaves; shorter if the log ends earlier)."""
        ...

    async def merkle_nodes(
        self, tenant_id: str, algorithm: str, level: int, first: int, last: int
    ) -> list[bytes]:
        """Stored perfect-subtree hashes ``first .. last`` of one level, in order (shorter if
        not all are stored)."""
        ...

    async def merkle_extent(self, tenant_id: str, algorithm: str, level: int) -> int:
        """How many nodes of ``level`` are stored (they are stored from index 0, gap-free)."""
        ...

    async def save_merkle_nodes(
        self, tenant_id: str, algorithm: str, nodes: Sequence[tuple[int, int, bytes]]
    ) -> None:
        """Store ``(level, index, hash)`` nodes; nodes already stored are left as they are
        (they are derived deterministically from the log)."""
        ...
