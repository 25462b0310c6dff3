"""A projection's snapshot as a head and immutable parts (see :class:`SnapshotCodec`).

Part ``k`` of a stream's snapshot is stored under the name ``<projection>.part<k>`` beside
the head (same tenant and stream: an erasure of the stream drops them all); the head names
each part's BLAKE3 digest. Parts are cut at fixed versions, so any process cuts the same bytes
for the same log and a part is written once: a save writes the parts that became complete since
the last one and the head, in one transaction (all or none). Opening reads the head, checks it
against the log, then reads every part it names in one query; anything missing, stale or not
matching its digest means no snapshot: the state is folded from the log.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeGuard, TypeVar

from blake3 import blake3

from eventstore import EventStore, RecordedEvent, Snapshot
from projections.projection import PartialCodec, SnapshotCodec

__all__ = ["Loaded", "WholeStateCodec", "load_state", "part_name", "parted", "save_state"]

S = TypeVar("S")
_log = logging.getLogger("ctxledger.runner")


@dataclass
class Loaded(Generic[S]):
    """A state read from a snapshot, what the snapshot was, and the stream's events after it
    (read with the snapshot's own event, in one read: the caller folds them)."""

    state: S
    version: int
    digests: list[bytes] = field(default_factory=list)
    tail: list[RecordedEvent] = field(default_factory=list)


@dataclass(frozen=True)
class Slot:
    """Where a projection's snapshot of one stream lives."""

    tenant_id: str
    name: str
    projection_version: int
    stream: str
    key: str


class WholeStateCodec(Protocol[S]):
    """A codec of the earlier protocol: the whole state in one snapshot."""

    def encode(self, state: S) -> bytes: ...

    def decode(self, data: bytes, tenant_id: str, key: str) -> S: ...


@dataclass
class _Whole(Generic[S]):
    """A :class:`WholeStateCodec` as a codec without parts (its head is its snapshot)."""

    codec: WholeStateCodec[S]
    part_versions: int = 0

    def encode(self, state: S, digests: Sequence[bytes]) -> bytes:
        return self.codec.encode(state)

    def encode_part(self, state: S, part: int) -> bytes:
        raise ValueError("a whole-state codec cuts no parts")

    def head_parts(self, data: bytes) -> list[bytes]:
        return []

    def decode(self, data: bytes, parts: Sequence[bytes], tenant_id: str, key: str) -> S:
        return self.codec.decode(data, tenant_id, key)


def parted(projection: Any) -> SnapshotCodec[Any] | None:
    """The projection as a :class:`SnapshotCodec`: itself when it cuts parts, an adapter when
    it encodes its whole state (the earlier protocol), None when it has no codec."""
    if not hasattr(projection, "decode"):
        return None
    if hasattr(projection, "part_versions"):
        return projection  # type: ignore[no-any-return]
    return _Whole(projection)


def part_name(name: str, part: int) -> str:
    """The stored name of part ``part`` of projection ``name``'s snapshot."""
    return f"{name}.part{part}"


async def load_state(
    store: EventStore, codec: SnapshotCodec[S], slot: Slot, *, partial: bool = False
) -> Loaded[S] | None:
    """The state the stored snapshot holds; None when there is none usable. ``partial``: a
    codec that can (:class:`~projections.projection.PartialCodec`) reads only the parts it
    names, and the state lacks the others."""
    head = await store.load_snapshot(slot.tenant_id, slot.name, slot.stream)
    if head is None or head.projection_version != slot.projection_version:
        return None
    # The snapshot's own event and the events after it, in one read.
    at = await store.read_stream(slot.tenant_id, slot.stream, from_version=head.version)
    if not at or at[0].version != head.version or at[0].position != head.position:
        return None  # the log was rebuilt or edited under it
    try:
        digests = codec.head_parts(head.state)
        if partial and _opens_partially(codec) and (some := codec.partial_parts(head.state)):
            found = await _some_parts(store, slot, some)
            if found is None:
                return None
            state = codec.decode_partial(head.state, found, slot.tenant_id, slot.key)
        else:
            parts = await _parts(store, slot, len(digests))
            if parts is None:
                return None
            state = codec.decode(head.state, parts, slot.tenant_id, slot.key)
    except (ValueError, KeyError, TypeError) as error:
        _log.warning("snapshot of %s/%s not used: %s", slot.tenant_id, slot.stream, error)
        return None
    return Loaded(state, head.version, digests, at[1:])


async def load_parts(
    store: EventStore, tenant_id: str, stream: str, name: str, count: int
) -> list[bytes] | None:
    """Parts ``0 .. count`` of projection ``name``'s snapshot of a stream, in order, in one
    read; None when one is missing or damaged."""
    names = [part_name(name, part) for part in range(count)]
    found = await store.load_snapshots(tenant_id, stream, names) if names else {}
    parts = [found[part].state for part in names if part in found]
    return parts if len(parts) == count else None


def _opens_partially(codec: SnapshotCodec[S]) -> TypeGuard[PartialCodec[S]]:
    return hasattr(codec, "partial_parts")


async def _some_parts(store: EventStore, slot: Slot, chosen: list[int]) -> dict[int, bytes] | None:
    names = {part_name(slot.name, part): part for part in chosen}
    found = await store.load_snapshots(slot.tenant_id, slot.stream, list(names))
    if len(found) != len(names):
        _log.warning("snapshot of %s/%s lacks parts", slot.tenant_id, slot.stream)
        return None
    return {names[name]: snapshot.state for name, snapshot in found.items()}


async def _parts(store: EventStore, slot: Slot, count: int) -> list[bytes] | None:
    parts = await load_parts(store, slot.tenant_id, slot.stream, slot.name, count)
    if parts is None:
        _log.warning("snapshot of %s/%s lacks parts", slot.tenant_id, slot.stream)
    return parts


async def save_state(
    store: EventStore,
    codec: SnapshotCodec[S],
    slot: Slot,
    state: S,
    at: tuple[int, int],
    digests: list[bytes],
) -> list[bytes]:
    """Save the head of ``state`` at ``at`` (stream version, tenant position) with the parts
    that became complete since those whose ``digests`` are saved; the digests now saved."""
    version, position = at
    every = codec.part_versions
    due = version // every if every else 0
    digests = digests[:due]
    parts = [(part, codec.encode_part(state, part)) for part in range(len(digests), due)]
    digests += [blake3(data).digest() for _, data in parts]
    rows = [
        # A part is bound to its head by its digest; its position is its head's.
        _snapshot(slot, part_name(slot.name, part), ((part + 1) * every, position), data)
        for part, data in parts
    ]
    rows.append(_snapshot(slot, slot.name, at, codec.encode(state, digests)))
    await store.save_snapshots(rows)
    return digests


def _snapshot(slot: Slot, name: str, at: tuple[int, int], data: bytes) -> Snapshot:
    return Snapshot(
        tenant_id=slot.tenant_id,
        name=name,
        stream_id=slot.stream,
        projection_version=slot.projection_version,
        version=at[0],
        position=at[1],
        state=data,
    )
