"""The storage seam, layered by capability.

A backend implements four small protocols, each a handful of verbs:

- :class:`LogRecorder`: the hashed log itself (append, reads, heads, erasure);
- :class:`SnapshotRecorder`: projection snapshots (derived state, replaceable);
- :class:`MerkleRecorder`: the stored interior nodes of each tenant's Merkle tree;
- :class:`ReadModelStore`: read models with rows of their own (documents with searchable
  terms) and a checkpoint per read model, written in one transaction.

:class:`Recorder` is all four. A recorder stores and returns
:class:`~eventstore.records.StoredEvent` rows; it never encodes, decodes or validates user data
(the store does that before and after). It does own the one transaction in which an append
reads the heads, chains the pending events with :func:`~eventstore.records.chain_events` and
writes them, because versions, positions and hashes depend on the state it locks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from eventstore.records import PendingEvent, SnapshotRecord, StoredEvent, StreamHead

__all__ = [
    "AppendOutcome",
    "Document",
    "DocumentStats",
    "ErasureOutcome",
    "LogRecorder",
    "LogState",
    "MakeErasure",
    "MerkleRecorder",
    "ReadModelStore",
    "Recorder",
    "SnapshotRecorder",
]

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
    #: what of the erased bytes is still on disk when the call returns, and when it goes
    #: (None: nothing; see the SQLite recorder's WAL checkpoint)
    residue: str | None = None


@dataclass(frozen=True, slots=True)
class LogState:
    """A tenant's heads and extents read in one transaction.

    ``position`` is the tenant head; ``last_event_position`` the largest position in the events
    table (they differ only in a damaged or edited database). With a stream, ``heads`` holds
    only that stream's head (if any) and ``last_stream_version`` its largest stored version.
    """

    position: int
    heads: dict[str, StreamHead]
    last_event_position: int
    last_stream_version: int = 0


@dataclass(frozen=True, slots=True)
class Document:
    """One row of a read model: the terms it is found by, and the read model's own data.

    Args:
        key: unique within the tenant's read model (e.g. a message's event id).
        scope: what a search can be limited to (e.g. the stream ``session/42``).
        event_id: the event the row is derived from; erasing that event deletes the row in the
            erasure's own transaction.
        position: the tenant position of that event (searches "as of" a position use it).
        terms: the searchable terms, separated by single spaces (the read model tokenises;
            backends index them as they are).
        data: the read model's own JSON bytes for the row.
    """

    key: str
    scope: str
    event_id: str
    position: int
    terms: str
    data: bytes

    @property
    def length(self) -> int:
        """How many terms the row has (the document length of BM25)."""
        return len(self.terms.split())


@dataclass(frozen=True, slots=True)
class DocumentStats:
    """Corpus figures of a tenant's read model within some scopes, for ranking: how many rows,
    their total length in terms, and in how many rows each asked term occurs."""

    count: int
    total_length: int
    frequencies: dict[str, int] = field(default_factory=dict)


class LogRecorder(Protocol):
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

    async def read_stream_and_head(
        self, tenant_id: str, stream_id: str, from_version: int, head_of: str
    ) -> tuple[list[StoredEvent], StreamHead]:
        """The events of one stream from ``from_version`` on, and the head of the stream
        ``head_of`` read no later than them, in one operation (a cached projection's catch-up
        that also watches the erasure stream: one round trip instead of two)."""
        ...

    async def read_log(
        self, tenant_id: str, after_position: int, limit: int, to_position: int | None = None
    ) -> list[StoredEvent]:
        """Up to ``limit`` events of a tenant after ``after_position``, in position order."""
        ...

    async def read_events(self, tenant_id: str, event_ids: Sequence[str]) -> list[StoredEvent]:
        """The tenant's events with these ids (ids of other tenants are not returned)."""
        ...

    async def read_hashes(self, tenant_id: str, first: int, last: int) -> list[bytes]:
        """The event hashes at positions ``first .. last`` of a tenant, in order (the Merkle
        tree's leaves; shorter if the log ends earlier)."""
        ...

    async def stream_head(self, tenant_id: str, stream_id: str) -> StreamHead:
        """The head of one stream (version 0 when it has no events)."""
        ...

    async def log_state(self, tenant_id: str, stream_id: str | None = None) -> LogState:
        """The tenant's heads and extents (or one stream's), read consistently."""
        ...

    async def tenants(self) -> list[str]:
        """Every tenant that has events (an operator's view, used by ``verify`` of all)."""
        ...

    async def erase(
        self,
        tenant_id: str,
        event_ids: Sequence[str],
        make_erasure: MakeErasure,
        expected_position: int | None = None,
    ) -> ErasureOutcome:
        """Record a ``PayloadErased`` and delete the named payloads, with everything derived
        from them (snapshots of their streams, read-model rows of these events), in one
        transaction: see :func:`eventstore.erasure.run_erasure` (which refuses with
        ``LogMovedError`` when the tenant is not at ``expected_position``)."""
        ...


class SnapshotRecorder(Protocol):
    """Projection snapshots: derived state beside the log, never in it."""

    async def save_snapshots(self, snapshots: Sequence[SnapshotRecord]) -> None:
        """Store projection snapshots in one transaction (all or none), each replacing the
        previous one of its name and stream."""
        ...

    async def load_snapshots(
        self, tenant_id: str, stream_id: str, names: Sequence[str]
    ) -> list[SnapshotRecord]:
        """The stored snapshots of a stream with these names (those that exist, any order)."""
        ...


class MerkleRecorder(Protocol):
    """The stored perfect subtrees of each tenant's Merkle tree (derived, insert-only)."""

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

    async def delete_merkle_nodes(self, tenant_id: str, algorithm: str) -> None:
        """Delete every stored node of one tenant's tree in one hash mode (to rebuild it)."""
        ...


class ReadModelStore(Protocol):
    """Read models with rows of their own, each with a checkpoint (the tenant position it has
    folded up to) written in the same transaction as its rows."""

    async def read_model_position(self, tenant_id: str, name: str) -> int:
        """The position the read model has folded up to (0: nothing yet)."""
        ...

    async def commit_documents(
        self,
        tenant_id: str,
        name: str,
        *,
        expected_position: int,
        position: int,
        upserts: Sequence[Document],
        deletes: Sequence[str] = (),
    ) -> bool:
        """Write rows (replacing rows of the same key), delete rows by key, and move the
        checkpoint from ``expected_position`` to ``position``, atomically. Returns False and
        writes nothing when the checkpoint is no longer at ``expected_position`` (another
        process committed first)."""
        ...

    async def search_documents(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        limit: int,
        max_position: int | None = None,
    ) -> list[Document]:
        """Up to ``limit`` rows holding any of ``terms`` within ``scopes`` (None: all) and at
        or before ``max_position``, the newest (highest position) first: a pre-filter whose
        choice depends only on the rows within those bounds; callers rank with
        :meth:`document_stats`."""
        ...

    async def document_stats(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        max_position: int | None = None,
    ) -> DocumentStats:
        """Row count, total length and per-term row frequencies within the same bounds."""
        ...

    async def find_documents(
        self,
        tenant_id: str,
        name: str,
        terms: Sequence[str],
        *,
        scopes: Sequence[str] | None,
        limit: int,
        max_position: int | None = None,
    ) -> tuple[list[Document], DocumentStats]:
        """:meth:`document_stats` for ``terms``, and :meth:`search_documents` for the rarest
        of them whose rows fit ``limit`` (``eventstore.document_stats.rarest_terms``), read
        in one transaction: the figures and the rows of one moment, in one round trip."""
        ...

    async def read_documents(
        self, tenant_id: str, name: str, keys: Sequence[str]
    ) -> list[Document]:
        """The rows with these keys (unknown keys are left out)."""
        ...

    async def reset_read_model(self, tenant_id: str, name: str) -> None:
        """Delete every row and the checkpoint of one read model of a tenant (a rebuild)."""
        ...


class Recorder(LogRecorder, SnapshotRecorder, MerkleRecorder, ReadModelStore, Protocol):
    """A complete backend: every capability the :class:`~eventstore.store.EventStore` uses."""
