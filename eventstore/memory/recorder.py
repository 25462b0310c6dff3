"""The in-memory recorder: the reference semantics every other backend is tested against.

It keeps everything in dicts behind one asyncio lock, so appends are serialised exactly like
SQLite's ``BEGIN IMMEDIATE`` and positions are gap-free and commit-ordered by construction. Data
lives as long as the process; use it for tests and short-lived agents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from eventstore.erasure import run_erasure
from eventstore.errors import ConcurrencyError
from eventstore.loop_lock import LoopSafeLock
from eventstore.memory.documents import MemoryReadModels
from eventstore.recorder import AppendOutcome, ErasureOutcome, LogState, MakeErasure
from eventstore.records import (
    ERASURE_STREAM,
    PendingEvent,
    SnapshotRecord,
    StoredEvent,
    StreamHead,
    chain_events,
    match_retry,
)
from eventstore.timestamps import timestamp_now

__all__ = ["MemoryRecorder"]


class _Tenant:
    def __init__(self) -> None:
        self.log: list[StoredEvent] = []  # index i holds position i + 1
        self.streams: dict[str, list[int]] = {}  # stream id -> indexes into log, by version
        self.heads: dict[str, StreamHead] = {}
        self.by_id: dict[str, int] = {}  # event id -> index into log (unique per tenant)


class MemoryRecorder(MemoryReadModels):
    """A :class:`~eventstore.recorder.Recorder` that keeps the log in process memory."""

    def __init__(self) -> None:
        super().__init__()
        self._tenants: dict[str, _Tenant] = {}
        self._lock = LoopSafeLock()
        self._snapshots: dict[tuple[str, str, str], SnapshotRecord] = {}
        self._merkle: dict[tuple[str, str, int], dict[int, bytes]] = {}

    async def initialize(self) -> None:
        """Nothing to open."""

    async def close(self) -> None:
        """Nothing to release; the data stays until the recorder is garbage collected."""

    # -- the log -------------------------------------------------------------------------------

    async def append(
        self,
        tenant_id: str,
        stream_id: str,
        expected_version: int | None,
        pending: Sequence[PendingEvent],
    ) -> AppendOutcome:
        async with self._lock:
            known = self._tenants.get(tenant_id, _Tenant())
            existing = {
                event.event_id: known.log[known.by_id[event.event_id]]
                for event in pending
                if event.event_id in known.by_id
            }
            retry = match_retry(tenant_id, stream_id, pending, existing)
            if retry is not None:
                return AppendOutcome(retry, written=False)
            tenant = self._tenants.setdefault(tenant_id, _Tenant())
            head = tenant.heads.get(stream_id) or StreamHead.empty(tenant_id, stream_id)
            if expected_version is not None and expected_version != head.version:
                raise ConcurrencyError(tenant_id, stream_id, expected_version, head.version)
            stored = chain_events(head, len(tenant.log), pending, timestamp_now())
            self._write(tenant, stored)
            return AppendOutcome(stored, written=True)

    def _write(self, tenant: _Tenant, stored: Sequence[StoredEvent]) -> None:
        for event in stored:
            indexes = tenant.streams.setdefault(event.stream_id, [])
            tenant.by_id[event.event_id] = len(tenant.log)
            indexes.append(len(tenant.log))
            tenant.log.append(event)
        last = stored[-1]
        tenant.heads[last.stream_id] = StreamHead(
            last.tenant_id, last.stream_id, last.version, last.hash
        )

    async def read_stream(
        self, tenant_id: str, stream_id: str, from_version: int, to_version: int | None
    ) -> list[StoredEvent]:
        tenant = self._tenants.get(tenant_id)
        if tenant is None:
            return []
        indexes = tenant.streams.get(stream_id, [])
        last = len(indexes) if to_version is None else min(to_version, len(indexes))
        return [tenant.log[i] for i in indexes[max(from_version, 1) - 1 : last]]

    async def read_stream_and_head(
        self, tenant_id: str, stream_id: str, from_version: int, head_of: str
    ) -> tuple[list[StoredEvent], StreamHead]:
        head = await self.stream_head(tenant_id, head_of)
        return await self.read_stream(tenant_id, stream_id, from_version, None), head

    async def read_log(
        self, tenant_id: str, after_position: int, limit: int, to_position: int | None = None
    ) -> list[StoredEvent]:
        tenant = self._tenants.get(tenant_id)
        if tenant is None:
            return []
        end = after_position + limit
        if to_position is not None:
            end = min(end, to_position)
        return tenant.log[max(after_position, 0) : max(end, 0)]

    async def read_events(self, tenant_id: str, event_ids: Sequence[str]) -> list[StoredEvent]:
        tenant = self._tenants.get(tenant_id)
        if tenant is None:
            return []
        return [tenant.log[tenant.by_id[i]] for i in dict.fromkeys(event_ids) if i in tenant.by_id]

    async def read_hashes(self, tenant_id: str, first: int, last: int) -> list[bytes]:
        tenant = self._tenants.get(tenant_id)
        if tenant is None:
            return []
        return [event.hash for event in tenant.log[max(first, 1) - 1 : last]]

    async def stream_head(self, tenant_id: str, stream_id: str) -> StreamHead:
        tenant = self._tenants.get(tenant_id)
        head = tenant.heads.get(stream_id) if tenant else None
        return head or StreamHead.empty(tenant_id, stream_id)

    async def log_state(self, tenant_id: str, stream_id: str | None = None) -> LogState:
        tenant = self._tenants.get(tenant_id)
        if tenant is None:
            return LogState(0, {}, 0)
        if stream_id is None:
            return LogState(len(tenant.log), dict(tenant.heads), len(tenant.log))
        head = tenant.heads.get(stream_id)
        return LogState(
            len(tenant.log),
            {stream_id: head} if head else {},
            len(tenant.log),
            len(tenant.streams.get(stream_id, [])),
        )

    async def tenants(self) -> list[str]:
        return sorted(self._tenants)

    async def erase(
        self,
        tenant_id: str,
        event_ids: Sequence[str],
        make_erasure: MakeErasure,
        expected_position: int | None = None,
    ) -> ErasureOutcome:
        async with self._lock:
            steps = _MemoryErasure(self, tenant_id)
            return await run_erasure(
                steps, tenant_id, event_ids, make_erasure, timestamp_now(), expected_position
            )

    # -- snapshots and the Merkle tree ---------------------------------------------------------

    async def save_snapshots(self, snapshots: Sequence[SnapshotRecord]) -> None:
        for snapshot in snapshots:
            self._snapshots[(snapshot.tenant_id, snapshot.name, snapshot.stream_id)] = snapshot

    async def load_snapshots(
        self, tenant_id: str, stream_id: str, names: Sequence[str]
    ) -> list[SnapshotRecord]:
        found = (self._snapshots.get((tenant_id, name, stream_id)) for name in dict.fromkeys(names))
        return [snapshot for snapshot in found if snapshot is not None]

    async def merkle_nodes(
        self, tenant_id: str, algorithm: str, level: int, first: int, last: int
    ) -> list[bytes]:
        stored = self._merkle.get((tenant_id, algorithm, level), {})
        found = []
        for index in range(first, last + 1):
            if index not in stored:
                break
            found.append(stored[index])
        return found

    async def merkle_extent(self, tenant_id: str, algorithm: str, level: int) -> int:
        return len(self._merkle.get((tenant_id, algorithm, level), {}))

    async def save_merkle_nodes(
        self, tenant_id: str, algorithm: str, nodes: Sequence[tuple[int, int, bytes]]
    ) -> None:
        for level, index, digest in nodes:
            self._merkle.setdefault((tenant_id, algorithm, level), {}).setdefault(index, digest)

    async def delete_merkle_nodes(self, tenant_id: str, algorithm: str) -> None:
        for key in [key for key in self._merkle if key[:2] == (tenant_id, algorithm)]:
            del self._merkle[key]


class _MemoryErasure:
    """The erasure steps on the dicts (the caller holds the recorder's lock)."""

    def __init__(self, recorder: MemoryRecorder, tenant_id: str) -> None:
        self.recorder = recorder
        self.tenant_id = tenant_id
        self.tenant = recorder._tenants.setdefault(tenant_id, _Tenant())

    async def lock(self) -> tuple[int, StreamHead]:
        head = self.tenant.heads.get(ERASURE_STREAM)
        return len(self.tenant.log), head or StreamHead.empty(self.tenant_id, ERASURE_STREAM)

    async def find(self, event_ids: Sequence[str]) -> Mapping[str, StoredEvent]:
        found = await self.recorder.read_events(self.tenant_id, event_ids)
        return {event.event_id: event for event in found}

    async def write(self, erasure: StoredEvent) -> None:
        self.recorder._write(self.tenant, [erasure])

    async def mark_erased(self, event_ids: Sequence[str], erased_by: int) -> None:
        for event_id in event_ids:
            index = self.tenant.by_id[event_id]
            self.tenant.log[index] = self.tenant.log[index]._replace(erased_by=erased_by)

    async def delete_payloads(self, event_ids: Sequence[str]) -> None:
        for event_id in event_ids:
            index = self.tenant.by_id[event_id]
            self.tenant.log[index] = self.tenant.log[index]._replace(payload=None, salt=None)

    async def drop_derived(self, streams: Sequence[str], event_ids: Sequence[str]) -> None:
        snapshots = self.recorder._snapshots
        for key in [k for k in snapshots if k[0] == self.tenant_id and k[2] in streams]:
            del snapshots[key]
        self.recorder.drop_documents_of(self.tenant_id, event_ids)
