"""The store's verbs on what is derived from the log: projection snapshots, the Merkle tree
and its signed checkpoints, and verification (mixed into :class:`~eventstore.store.EventStore`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from eventstore.codec import prepare_event
from eventstore.events import NewEvent, RecordedEvent, Snapshot
from eventstore.hashing import snapshot_hash
from eventstore.merkle import ALGORITHMS, Algorithm
from eventstore.names import validate_stream, validate_tenant
from eventstore.notes import Signer, Verifier
from eventstore.records import (
    CHECKPOINT_EVENT_TYPE,
    CHECKPOINT_STREAM,
    SnapshotRecord,
    StoredEvent,
    default_origin,
)
from eventstore.registry import EventTypeRegistry
from eventstore.scan import ProgressCallback, verify_log
from eventstore.tree import CHUNK_LEVEL, MerkleLog, signed_checkpoint
from eventstore.verify import VerificationReport

if TYPE_CHECKING:
    from eventstore.recorder import Recorder

__all__ = ["DerivedVerbs"]


class _Store(Protocol):
    """What these verbs use of the store they are mixed into."""

    recorder: Recorder
    registry: EventTypeRegistry
    max_payload_bytes: int

    async def initialize(self) -> None: ...

    async def read_stream(
        self,
        tenant_id: str,
        stream_id: str,
        *,
        from_version: int = 1,
        to_version: int | None = None,
    ) -> list[RecordedEvent]: ...

    def _decode(self, event: StoredEvent) -> RecordedEvent: ...

    def _wake(self, tenant_id: str) -> None: ...


def _guarded(snapshot: Snapshot) -> SnapshotRecord:
    record = SnapshotRecord(**snapshot.model_dump(), state_hash=b"")
    return record._replace(state_hash=snapshot_hash(*record[:7]))


class DerivedVerbs:
    """Snapshots, the Merkle tree, checkpoints and verification of an event store."""

    # -- projection snapshots ----------------------------------------------------------------

    async def save_snapshot(self: _Store, snapshot: Snapshot) -> None:
        """Store a projection snapshot (replacing that projection's previous one for the
        stream), guarded by a hash bound to its tenant, name, stream, versions and position."""
        await DerivedVerbs.save_snapshots(self, [snapshot])

    async def save_snapshots(self: _Store, snapshots: Sequence[Snapshot]) -> None:
        """Store several snapshots of one tenant in one transaction, all or none (a
        projection's head snapshot with the parts it names), each guarded as by
        :meth:`save_snapshot`."""
        tenants = {snapshot.tenant_id for snapshot in snapshots}
        if len(tenants) > 1:
            raise ValueError(f"snapshots of one tenant were expected, got {sorted(tenants)}")
        for snapshot in snapshots:
            validate_tenant(snapshot.tenant_id)
            validate_stream(snapshot.stream_id, allow_reserved=True)
        if not snapshots:
            return
        await self.initialize()
        await self.recorder.save_snapshots([_guarded(snapshot) for snapshot in snapshots])

    async def load_snapshot(
        self: _Store, tenant_id: str, name: str, stream_id: str
    ) -> Snapshot | None:
        """The latest snapshot of a projection for a stream; None when there is none or when
        its hash does not match (a damaged snapshot is never used: rebuild from the log)."""
        found = await DerivedVerbs.load_snapshots(self, tenant_id, stream_id, [name])
        return found.get(name)

    async def load_snapshots(
        self: _Store, tenant_id: str, stream_id: str, names: Sequence[str]
    ) -> dict[str, Snapshot]:
        """The snapshots of a stream with these names, by name, in one read: those that
        exist and whose guard hash matches (a damaged one is left out, as if absent)."""
        validate_tenant(tenant_id)
        await self.initialize()
        records = await self.recorder.load_snapshots(tenant_id, stream_id, names)
        return {
            record.name: Snapshot.model_validate(record._asdict())  # state_hash: not a field
            for record in records
            if snapshot_hash(*record[:7]) == record.state_hash
        }

    # -- Merkle tree and checkpoints ---------------------------------------------------------

    def tree(self: _Store, tenant_id: str, algorithm: Algorithm = "blake3") -> MerkleLog:
        """The tenant's Merkle tree over its event hashes (see ``eventstore.tree``)."""
        return MerkleLog(self.recorder, validate_tenant(tenant_id), algorithm)

    async def checkpoint(
        self: _Store,
        tenant_id: str,
        signer: Signer,
        *,
        origin: str | None = None,
        algorithm: Algorithm = "blake3",
    ) -> RecordedEvent:
        """Sign the tenant's current tree size and root as a C2SP checkpoint and record it as a
        ``CheckpointRecorded`` event on ``ledger/checkpoints`` (itself the next leaf).

        The interior nodes are stored first, so later proofs need no rebuild.
        """
        validate_tenant(tenant_id)
        await self.initialize()
        tree = MerkleLog(self.recorder, tenant_id, algorithm)
        data = await signed_checkpoint(tree, signer, origin or default_origin(tenant_id))
        pending = prepare_event(
            self.registry,
            self.max_payload_bytes,
            NewEvent(type=CHECKPOINT_EVENT_TYPE, data=data, actor=signer.name),
        )
        outcome = await self.recorder.append(tenant_id, CHECKPOINT_STREAM, None, [pending])
        self._wake(tenant_id)
        return self._decode(outcome.events[0])

    async def checkpoints(self: _Store, tenant_id: str) -> list[RecordedEvent]:
        """The tenant's recorded checkpoints, oldest first."""
        return await self.read_stream(tenant_id, CHECKPOINT_STREAM)

    # -- verification ------------------------------------------------------------------------

    async def verify(
        self: _Store,
        tenant_id: str,
        *,
        stream: str | None = None,
        progress: ProgressCallback | None = None,
        verifiers: Sequence[Verifier] = (),
        trusted_checkpoints: Sequence[str] = (),
    ) -> VerificationReport:
        """Recompute every hash of a tenant's log (or of one stream) from the stored bytes.

        Reports the first bad event of each stream: an edited payload or envelope, a missing,
        re-ordered or moved event, a truncated stream. Erased payloads count as ``erased``
        when a verified ``PayloadErased`` names them. For a whole tenant it also recomputes
        the Merkle root at every recorded checkpoint (requiring a valid signature of one of
        ``verifiers`` on each, when given), proves the log extends each of
        ``trusted_checkpoints`` (signed notes published earlier) and compares the stored tree
        nodes with the log: this is what catches a rewrite whose hashes were recomputed with
        the public hash spec, and a truncation or an old restore.

        Raises:
            EventValidationError: trusted checkpoints given with a stream.
        """
        validate_tenant(tenant_id)
        if stream is not None:
            validate_stream(stream, allow_reserved=True)
        await self.initialize()
        return await verify_log(
            self.recorder,
            tenant_id,
            stream,
            progress,
            verifiers=verifiers,
            trusted=trusted_checkpoints,
        )

    async def rebuild_tree(self: _Store, tenant_id: str) -> int:
        """Delete the tenant's stored Merkle nodes and store them again from the log; returns
        the chunks stored. The nodes are derived: do this once ``verify`` with the signed
        checkpoints says the log is sound but the stored nodes differ."""
        validate_tenant(tenant_id)
        await self.initialize()
        added = 0
        for algorithm in ALGORITHMS:
            if await self.recorder.merkle_extent(tenant_id, algorithm, CHUNK_LEVEL):
                await self.recorder.delete_merkle_nodes(tenant_id, algorithm)
                added += await MerkleLog(self.recorder, tenant_id, algorithm).sync()
        return added
