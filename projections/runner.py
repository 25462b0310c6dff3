"""The one runner: catch-up, an LRU cache, snapshots, erasure invalidation, checkpoints.

:class:`ProjectionRunner` keeps the state of a :class:`~projections.projection.Projection` per
``(tenant, key)`` current. A state comes from the cache, else from the last snapshot (checked:
its projection version, and that the event it was taken at is still where it was), else from
``initial()``, and is caught up with the events after it: O(new events). What this process
appends is folded in directly (:meth:`ProjectionRunner.advance`). When the tenant's erasure
stream moves, every cached state of the tenant is dropped: it may hold erased data.

Read models (rows rather than states) have their own runner:
:class:`~projections.read_model_runner.ReadModelRunner`.
"""

from __future__ import annotations

import heapq
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from eventstore import EventStore, RecordedEvent
from eventstore.loop_lock import LoopSafeLock
from eventstore.records import ERASURE_STREAM
from projections.arguments import check_count
from projections.projection import PartialCodec, Projection, SnapshotCodec
from projections.read_model_runner import ReadModelRunner, read_model_name
from projections.snapshot_parts import Slot, load_state, parted, save_state
from projections.text_caches import forget_texts

# ReadModelRunner and read_model_name lived here until 0.1.0: still importable from here.
__all__ = ["ProjectionRunner", "ReadModelRunner", "read_model_name"]

S = TypeVar("S")
Until = Callable[[RecordedEvent], bool]
# Without parts, a snapshot is saved when the state has grown by snapshot_every events, or by
# this share of its length, whichever is more: saving (O(length) each time) costs O(32) per
# event, amortised.
_TAIL_SHARE = 32
_log = logging.getLogger("ctxledger.runner")


@dataclass
class _Entry(Generic[S]):
    state: S
    versions: dict[str, int] = field(default_factory=dict)  # stream -> last version folded
    snapshot_version: int = 0
    part_digests: list[bytes] = field(default_factory=list)  # of the parts saved
    #: the events read with the snapshot (after it; None: none were), folded by the first
    #: catch-up instead of reading the stream again
    unfolded: list[RecordedEvent] | None = None


class ProjectionRunner(Generic[S]):
    """Keeps one projection's states current for many keys (see the module docstring).

    Args:
        store: the event log.
        projection: the fold; snapshots are used when it is also a
            :class:`~projections.projection.SnapshotCodec` over a single stream.
        cache_size: states kept in memory (least recently used ones are dropped).
        cache_bytes: and the most memory they may hold together, as the states estimate it
            (``approx_bytes()``, when the projection's states have it; None: no bound).
        snapshot_every: save a snapshot when the state has grown by this many events since the
            last one (0: never): a cold open folds at most this many. With a codec that cuts
            parts a save costs one part's worth at most; without, it also waits for the state
            to grow by 1/32 of its length.
    """

    def __init__(
        self,
        store: EventStore,
        projection: Projection[S],
        *,
        cache_size: int = 256,
        snapshot_every: int = 100,
        cache_bytes: int | None = None,
    ) -> None:
        check_count("cache_size (a Ledger's cached_sessions)", cache_size, least=1)
        check_count("cache_bytes (a Ledger's cached_bytes)", cache_bytes, optional=True)
        check_count("snapshot_every", snapshot_every)
        self.store = store
        self.projection = projection
        self.cache_size = cache_size
        self.snapshot_every = snapshot_every
        self._snapshot_codec = cast(SnapshotCodec[S] | None, parted(projection))
        self.cache_bytes = cache_bytes
        self._cache: OrderedDict[tuple[str, str], _Entry[S]] = OrderedDict()
        # Per slot, a lock any thread's event loop may take (a ledger may be shared by threads
        # that each run their own loop); the cache's order is changed under a thread lock.
        self._locks: dict[tuple[str, str], LoopSafeLock] = {}
        self._guard = threading.RLock()
        self._erasures: dict[str, int] = {}
        self._distrusted: set[tuple[str, str]] = set()
        #: Why a state was rebuilt from the log (its snapshot disagreed with the log).
        self.distrusts: list[str] = []

    async def current(self, tenant_id: str, key: str, *, partial: bool = False) -> S:
        """The latest state of ``key``: cached or snapshot state caught up with the log.

        ``partial``: the state may lack rows its snapshot's codec did not read (a
        :class:`~projections.projection.PartialCodec`); a reader of such a state catches
        ``RowsNotLoaded``, asks again without ``partial`` (the whole state replaces it) and
        reads again."""
        slot = (tenant_id, key)
        async with self._lock(slot):
            try:
                entry = await self._caught_up(tenant_id, key, partial)
            except _NeedsWhole:  # a partial state met an event it cannot fold
                entry = await self._whole(tenant_id, key)
            if not partial and _is_partial(entry.state):
                entry = await self._whole(tenant_id, key)
            self._remember(slot, entry)
            await self._maybe_snapshot(entry, tenant_id, key)
            return entry.state

    async def _caught_up(self, tenant_id: str, key: str, partial: bool) -> _Entry[S]:
        entry = await self._cached_caught_up(tenant_id, key)
        if entry is None:
            await self._forget_if_erased(tenant_id)
            slot = (tenant_id, key)
            entry = self._cache.get(slot) or await self._start(tenant_id, key, partial=partial)
            await self._catch_up(entry, tenant_id, key)
        return entry

    async def _whole(self, tenant_id: str, key: str) -> _Entry[S]:
        entry = await self._start(tenant_id, key)
        await self._catch_up(entry, tenant_id, key)
        return entry

    async def advance(
        self, tenant_id: str, key: str, recorded: Sequence[RecordedEvent], known: Sequence[Any]
    ) -> None:
        """Fold events this process just appended into the cached state, if it is right
        behind them (else the next :meth:`current` reads them). ``known[i]`` may carry the
        payload model of ``recorded[i]``, sparing its validation."""
        slot = (tenant_id, key)
        async with self._lock(slot):
            entry = self._cache.get(slot)
            if entry is None or not recorded:
                return
            first = recorded[0]
            if entry.versions.get(first.stream_id, 0) != first.version - 1:
                return
            if not self._folds(entry, recorded):
                with self._guard:
                    self._cache.pop(slot, None)  # the next read loads the whole state
                return
            for index, event in enumerate(recorded):
                payload = known[index] if index < len(known) else None
                entry.state = self.projection.apply(entry.state, event, payload)
                entry.versions[event.stream_id] = event.version
            await self._maybe_snapshot(entry, tenant_id, key)

    async def fold(self, tenant_id: str, key: str, *, until: Until | None = None) -> S:
        """A fresh fold of ``key`` from the log (no cache, no snapshot), stopping at the first
        event for which ``until`` is false: the reference for time travel."""
        state = self.projection.initial(tenant_id, key)
        for event in await self._events(tenant_id, key, {}):
            if until is not None and not until(event):
                break
            state = self.projection.apply(state, event)
        return state

    def cached(self, tenant_id: str, key: str) -> S | None:
        """The cached state of ``key`` (None when it is not cached); read it, never change it."""
        entry = self._cache.get((tenant_id, key))
        return entry.state if entry is not None else None

    def cached_keys(self) -> list[tuple[str, str]]:
        """The ``(tenant, key)`` pairs cached, least recently used first."""
        with self._guard:
            return list(self._cache)

    def snapshot_version(self, tenant_id: str, key: str) -> int | None:
        """The stream version of the snapshot the cached state was loaded from or last saved
        as (0: none; None: not cached)."""
        entry = self._cache.get((tenant_id, key))
        return entry.snapshot_version if entry is not None else None

    async def distrust(self, tenant_id: str, key: str, why: str) -> None:
        """Drop the state of ``key`` and rebuild it from the log alone, never from its
        snapshot (which disagreed with the log: ``why``); the rebuild saves a new one."""
        slot = (tenant_id, key)
        async with self._lock(slot):
            with self._guard:
                self._cache.pop(slot, None)
            self._distrusted.add(slot)
            self.distrusts.append(f"{tenant_id}/{key}: {why}")
            _log.warning("rebuilding %s/%s from the log: %s", tenant_id, key, why)

    async def check_erasures(self, tenant_id: str) -> None:
        """Drop the tenant's cached states if its erasure stream moved since they were built
        (before reading them with :meth:`cached`, which reads nothing)."""
        await self._forget_if_erased(tenant_id)

    def forget(self, tenant_id: str) -> None:
        """Drop every cached state of a tenant."""
        with self._guard:
            for slot in [s for s in self._cache if s[0] == tenant_id]:
                del self._cache[slot]

    # -- internals ---------------------------------------------------------------------------

    def _lock(self, slot: tuple[str, str]) -> LoopSafeLock:
        lock = self._locks.get(slot)
        if lock is None:
            with self._guard:
                lock = self._locks.setdefault(slot, LoopSafeLock())
        return lock

    def _remember(self, slot: tuple[str, str], entry: _Entry[S]) -> None:
        with self._guard:
            self._cache[slot] = entry
            self._cache.move_to_end(slot)
            while len(self._cache) > self.cache_size or self._over_bytes():
                old, _ = self._cache.popitem(last=False)
                lock = self._locks.get(old)
                if lock is not None and not lock.locked():
                    del self._locks[old]

    def cached_bytes(self) -> int:
        """The memory the cached states hold, as they estimate it (0 when they cannot)."""
        with self._guard:
            entries = list(self._cache.values())
        sizes = (getattr(entry.state, "approx_bytes", None) for entry in entries)
        return sum(size() for size in sizes if size is not None)

    def _over_bytes(self) -> bool:
        # The newest state always stays, however big: it is the one being served.
        bound = self.cache_bytes
        return bound is not None and len(self._cache) > 1 and self.cached_bytes() > bound

    async def _cached_caught_up(self, tenant_id: str, key: str) -> _Entry[S] | None:
        """The cached entry caught up in one read that also checks the erasure stream; None
        when there is no cached entry of a single stream, or the erasure stream has moved."""
        entry = self._cache.get((tenant_id, key))
        streams = self.projection.streams(key)
        known = self._erasures.get(tenant_id)
        if entry is None or len(streams) != 1 or known is None:
            return None
        (stream,) = streams
        events, erasures = await self.store.read_stream_watching(
            tenant_id, stream, from_version=entry.versions.get(stream, 0) + 1, watch=ERASURE_STREAM
        )
        if erasures.version != known:
            return None  # the careful path drops the tenant's states and reads again
        self._fold(entry, events)
        return entry

    async def _forget_if_erased(self, tenant_id: str) -> None:
        erasures = (await self.store.stream_head(tenant_id, ERASURE_STREAM)).version
        known = self._erasures.get(tenant_id)
        if known is not None and known != erasures:
            self.forget(tenant_id)
            forget_texts()  # erased text must not outlive the erasure in a cache either
        self._erasures[tenant_id] = erasures

    def _codec(self, key: str) -> SnapshotCodec[S] | None:
        if not self.snapshot_every or len(self.projection.streams(key)) != 1:
            return None
        return self._snapshot_codec

    async def _start(self, tenant_id: str, key: str, *, partial: bool = False) -> _Entry[S]:
        codec = self._codec(key)
        distrusted = (tenant_id, key) in self._distrusted
        loaded = None
        if codec is not None and not distrusted:
            slot = self._slot(tenant_id, key)
            loaded = await load_state(self.store, codec, slot, partial=partial)
        if loaded is None:
            state = self.projection.initial(tenant_id, key)
            adopt = getattr(self.projection, "adopt", None)  # optional (SessionView's bodies)
            return _Entry(adopt(state, tenant_id, key) if adopt is not None else state)
        (stream,) = self.projection.streams(key)
        versions = {stream: loaded.version}
        return _Entry(loaded.state, versions, loaded.version, loaded.digests, loaded.tail)

    def _slot(self, tenant_id: str, key: str) -> Slot:
        (stream,) = self.projection.streams(key)
        name, version = self.projection.name, self.projection.version
        return Slot(tenant_id, name, version, stream, key)

    async def _catch_up(self, entry: _Entry[S], tenant_id: str, key: str) -> None:
        if entry.unfolded is not None:  # read with the snapshot, just now: no second read
            events, entry.unfolded = entry.unfolded, None
            self._fold(entry, events)
            return
        self._fold(entry, await self._events(tenant_id, key, entry.versions))

    def _folds(self, entry: _Entry[S], events: Sequence[RecordedEvent]) -> bool:
        """Whether the entry's state can fold these events (a partial one, only some)."""
        if not _is_partial(entry.state):
            return True
        folds = cast(PartialCodec[S], self._snapshot_codec).folds_partially
        return all(folds(event) for event in events)

    def _fold(self, entry: _Entry[S], events: Sequence[RecordedEvent]) -> None:
        if not self._folds(entry, events):
            raise _NeedsWhole  # before any event is folded: the state stays as it was
        for event in events:
            entry.state = self.projection.apply(entry.state, event)
            entry.versions[event.stream_id] = event.version

    async def _events(self, tenant_id: str, key: str, after: dict[str, int]) -> list[RecordedEvent]:
        streams = self.projection.streams(key)
        if len(streams) == 1:
            stream = streams[0]
            return await self.store.read_stream(
                tenant_id, stream, from_version=after.get(stream, 0) + 1
            )
        # Several streams: read up to one tenant position, so that no event committed while
        # they are read can be folded before an earlier one (positions are commit-ordered).
        bound = await self.store.tenant_position(tenant_id)
        parts = [
            [
                event
                for event in await self.store.read_stream(
                    tenant_id, stream, from_version=after.get(stream, 0) + 1
                )
                if event.position <= bound
            ]
            for stream in streams
        ]
        return list(heapq.merge(*parts, key=lambda event: event.position))

    async def _maybe_snapshot(self, entry: _Entry[S], tenant_id: str, key: str) -> None:
        codec = self._codec(key)
        if codec is None or _is_partial(entry.state):
            return  # a partial state cannot encode what it lacks; the whole one saves later
        (stream,) = self.projection.streams(key)
        version = entry.versions.get(stream, 0)
        last = entry.snapshot_version
        replace = (tenant_id, key) in self._distrusted  # the stored one disagreed with the log
        # Parts make a save cost O(part), so a head can follow every snapshot_every events;
        # without them a save costs O(state), so it waits for the state to grow by a share.
        gap = self.snapshot_every if codec.part_versions else last // _TAIL_SHARE
        if version - last < max(self.snapshot_every, gap) and not replace:
            return
        self._distrusted.discard((tenant_id, key))
        at = (version, getattr(entry.state, "position", 0))
        digests = [] if replace else entry.part_digests
        slot = self._slot(tenant_id, key)
        entry.part_digests = await save_state(self.store, codec, slot, entry.state, at, digests)
        entry.snapshot_version = version


class _NeedsWhole(Exception):
    """A partial state met an event it cannot fold: the whole state is loaded instead."""


def _is_partial(state: object) -> bool:
    return bool(getattr(state, "partial", False))
