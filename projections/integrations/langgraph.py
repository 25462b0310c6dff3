"""A LangGraph checkpointer on the ledger: every checkpoint and every pending write is a hashed,
chained event, so a thread's history verifies, exports and time-travels like a session.

    saver = LedgerSaver.open("ledger.db", tenant_id="acme")
    graph = builder.compile(checkpointer=saver)
    graph.invoke(inputs, {"configurable": {"thread_id": "t1"}})
    saver.close()

A thread is the stream ``langgraph/<thread id>`` (percent-encoded). Only the channels whose
version changed are stored with a checkpoint (LangGraph's ``new_versions``), so a message list
is written once per change, never again with every later checkpoint. ``delete_thread`` erases
the payloads of the thread's events and records ``LangGraphThreadDeleted`` (the envelopes and
the proof stay); ``prune`` and ``delete_for_runs`` erase the checkpoints they remove, after
saving whole any survivor built from them (``langgraph_removal``); ``copy_thread`` appends
copies on the target thread. Sync and async verbs
alike run on the saver's own event loop (a background thread), so the saver serves
``graph.invoke`` and ``graph.ainvoke`` from any thread. Needs ``langgraph`` (the ``langgraph``
extra). The ``langgraph-checkpoint-conformance`` suite runs against it in the tests.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from typing import Any, TypeVar
from urllib.parse import quote, unquote

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_checkpoint_metadata,
    writes_sort_key,
)

from eventstore import EventStore, NewEvent
from projections.events import register_ledger_events
from projections.integrations.langgraph_mirror import ThreadMirror
from projections.integrations.langgraph_opened import OpenedSaver
from projections.integrations.langgraph_removal import Removal
from projections.integrations.langgraph_thread import (
    CHECKPOINT_SAVED,
    MISSING,
    THREAD_DELETED,
    THREADS,
    WRITES_SAVED,
    ThreadState,
    pack,
    version_key,
)
from projections.integrations.loop_thread import LoopThread
from projections.runner import ProjectionRunner

__all__ = ["LedgerSaver"]

T = TypeVar("T")
_PREFIX = "langgraph/"
#: A list of checkpoint tuples (``list`` is a method name inside the saver's class body).
Tuples = list[CheckpointTuple]


class LedgerSaver(BaseCheckpointSaver[str]):
    """``BaseCheckpointSaver`` on an :class:`EventStore` (see the module docstring).

    Args:
        store: an unopened or open store, used only on the saver's own loop.
        tenant_id: the tenant every thread belongs to.
        mirror: mirror each thread's ``messages`` into the session ``langgraph-<thread>``
            (``langgraph_mirror``), for context, compaction and search.
    """

    def __init__(
        self, store: EventStore, *, tenant_id: str, serde: Any = None, mirror: bool = True
    ) -> None:
        super().__init__(serde=serde)
        self.store = store
        self.tenant_id = tenant_id
        register_ledger_events(store.registry)  # its three event types, validated on append
        self._threads = ProjectionRunner(store, THREADS, snapshot_every=0)
        self._loop = LoopThread()
        self._mirror = ThreadMirror(store, tenant_id) if mirror else None
        mirrored = self._mirror.event_ids if self._mirror else None
        self._removal = Removal(store, tenant_id, self.serde, _stream, self._thread, mirrored)

    @classmethod
    def open(cls, url: str, *, tenant_id: str, **options: Any) -> LedgerSaver:
        """A saver on the database at ``url`` (see :meth:`EventStore.open`)."""
        return cls(EventStore.open(url, **options), tenant_id=tenant_id)

    @classmethod
    def from_conn_string(cls, conn_string: str, *, tenant_id: str) -> OpenedSaver[LedgerSaver]:
        """A saver on ``conn_string`` (a SQLite file path or any store URL) as LangGraph's own
        savers give one: ``with LedgerSaver.from_conn_string("ledger.db", tenant_id="acme")
        as saver:`` or ``async with``; closed on the way out."""
        return OpenedSaver(cls.open(conn_string, tenant_id=tenant_id))

    def close(self) -> None:
        """Close the store and stop the saver's loop."""
        if self._loop.stopped:
            return
        self._call(self.store.close())
        self._loop.stop()

    def __enter__(self) -> LedgerSaver:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- running on the saver's loop ---------------------------------------------------------

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self._loop.call(coroutine)

    async def _await(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return await self._loop.run(coroutine)

    # -- the async verbs ---------------------------------------------------------------------

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await self._await(self._get_tuple(config))

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        for item in await self._await(self._list(config, filter, before, limit)):
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await self._await(self._put(config, checkpoint, metadata, new_versions))

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await self._await(self._put_writes(config, writes, task_id, task_path))

    async def adelete_thread(self, thread_id: str) -> None:
        await self._await(self._delete_thread(thread_id))

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await self._await(self._copy_thread(source_thread_id, target_thread_id))

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """See :meth:`prune`."""
        await self._await(self._removal.prune(thread_ids, strategy))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """See :meth:`delete_for_runs`."""
        await self._await(self._delete_for_runs(run_ids))

    # -- the sync verbs ----------------------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self._call(self._get_tuple(config))

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        yield from self._call(self._list(config, filter, before, limit))

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return self._call(self._put(config, checkpoint, metadata, new_versions))

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self._call(self._put_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        self._call(self._delete_thread(thread_id))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self._call(self._copy_thread(source_thread_id, target_thread_id))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """``keep_latest``: keep each namespace's newest checkpoint and its writes; ``delete``:
        delete the threads. Removed payloads are erased (``langgraph_removal``)."""
        self._call(self._removal.prune(thread_ids, strategy))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Erase, in every thread, the checkpoints (and writes) of ``run_ids``' runs."""
        self._call(self._delete_for_runs(run_ids))

    # -- implementation (on the saver's loop) ------------------------------------------------

    async def _thread(self, thread_id: str) -> ThreadState:
        return await self._threads.current(self.tenant_id, _stream(thread_id))

    async def _get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        thread_id = config["configurable"]["thread_id"]
        ns = config["configurable"].get("checkpoint_ns", "")
        state = await self._thread(thread_id)
        saved = state.checkpoints.get(ns, {})
        checkpoint_id = get_checkpoint_id(config) or max(saved, default=None)
        if checkpoint_id is None or checkpoint_id not in saved:
            return None
        return self._tuple(thread_id, ns, checkpoint_id, state)

    async def _list(
        self,
        config: RunnableConfig | None,
        filter: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> Tuples:
        if config is not None:
            threads = [config["configurable"]["thread_id"]]
        else:
            threads = list(await self._thread_ids())
        wanted_ns = config["configurable"].get("checkpoint_ns") if config else None
        wanted_id = get_checkpoint_id(config) if config else None
        before_id = get_checkpoint_id(before) if before else None
        found: Tuples = []
        for thread_id in threads:
            state = await self._thread(thread_id)
            for ns, saved in state.checkpoints.items():
                if wanted_ns is not None and ns != wanted_ns:
                    continue
                for checkpoint_id in sorted(saved, reverse=True):
                    if limit is not None and len(found) >= limit:
                        return found
                    if wanted_id and checkpoint_id != wanted_id:
                        continue
                    if before_id and checkpoint_id >= before_id:
                        continue
                    metadata = self.serde.loads_typed(saved[checkpoint_id].metadata)
                    if filter and any(metadata.get(k) != v for k, v in filter.items()):
                        continue
                    found.append(self._tuple(thread_id, ns, checkpoint_id, state))
        return found

    def _tuple(
        self, thread_id: str, ns: str, checkpoint_id: str, state: ThreadState
    ) -> CheckpointTuple:
        saved = state.checkpoints[ns][checkpoint_id]
        checkpoint = self.serde.loads_typed(saved.checkpoint)
        values = {}
        for channel, version in checkpoint["channel_versions"].items():
            value = state.value(self.serde, (ns, channel, version_key(version)))
            if value is not MISSING:
                values[channel] = list(value) if isinstance(value, list) else value
        writes = state.writes.get((ns, checkpoint_id), {})
        ordered = [
            writes[k] for k in sorted(writes, key=lambda k: writes_sort_key(writes[k][3], *k))
        ]
        parent = saved.parent
        return CheckpointTuple(
            config=_config(thread_id, ns, checkpoint_id),
            checkpoint={**checkpoint, "channel_values": values},  # type: ignore[typeddict-item]
            metadata=self.serde.loads_typed(saved.metadata),
            parent_config=_config(thread_id, ns, parent) if parent else None,
            pending_writes=[
                (task, channel, self.serde.loads_typed(v)) for task, channel, v, _ in ordered
            ],
        )

    async def _put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        thread_id = config["configurable"]["thread_id"]
        ns = config["configurable"].get("checkpoint_ns", "")
        bare: dict[str, Any] = dict(checkpoint)
        values: dict[str, Any] = bare.pop("channel_values", {})
        state = await self._thread(thread_id)
        blobs, deltas = state.encode(self.serde, ns, values, new_versions)
        data = {
            "ns": ns,
            "id": checkpoint["id"],
            "parent": config["configurable"].get("checkpoint_id"),
            "checkpoint": pack(self.serde.dumps_typed(bare)),
            "metadata": pack(self.serde.dumps_typed(get_checkpoint_metadata(config, metadata))),
            "blobs": blobs,
            "deltas": deltas,
        }
        await self.store.append(
            self.tenant_id, _stream(thread_id), [NewEvent(type=CHECKPOINT_SAVED, data=data)]
        )
        if self._mirror is not None:  # after the checkpoint: the next one heals a crash here
            await self._mirror.catch_up(thread_id, ns, values)
        return _config(thread_id, ns, checkpoint["id"])

    def get_next_version(self, current: str | int | float | None, channel: None) -> str:
        """The next channel version, unique across branches (an integer part and a random
        fraction, as LangGraph's own savers do), so that a fork never reuses a version."""
        number = 0 if current is None else int(str(current).split(".")[0])
        return f"{number + 1:032}.{random.random():016}"

    async def _put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str,
    ) -> None:
        thread_id = config["configurable"]["thread_id"]
        data = {
            "ns": config["configurable"].get("checkpoint_ns", ""),
            "checkpoint_id": config["configurable"]["checkpoint_id"],
            "task_id": task_id,
            "task_path": task_path,
            "writes": [
                [WRITES_IDX_MAP.get(channel, index), channel, pack(self.serde.dumps_typed(value))]
                for index, (channel, value) in enumerate(writes)
            ],
        }
        await self.store.append(
            self.tenant_id, _stream(thread_id), [NewEvent(type=WRITES_SAVED, data=data)]
        )

    async def _thread_ids(self) -> Sequence[str]:
        heads = await self.store.streams(self.tenant_id)
        return [
            unquote(h.stream_id[len(_PREFIX) :]) for h in heads if h.stream_id.startswith(_PREFIX)
        ]

    async def _delete_thread(self, thread_id: str) -> None:
        await self._removal.delete_thread(thread_id)

    async def _delete_for_runs(self, run_ids: Sequence[str]) -> None:
        if run_ids:
            await self._removal.delete_for_runs(run_ids, await self._thread_ids())

    async def _copy_thread(self, source: str, target: str) -> None:
        events = await self.store.read_stream(self.tenant_id, _stream(source))
        start = max((i for i, e in enumerate(events) if e.type == THREAD_DELETED), default=-1) + 1
        copies = [
            NewEvent(type=e.type, data=e.data)
            for e in events[start:]
            if e.data is not None and e.type in (CHECKPOINT_SAVED, WRITES_SAVED)
        ]
        for begin in range(0, len(copies), 200):
            await self._append(target, copies[begin : begin + 200])

    async def _append(self, thread_id: str, events: Sequence[NewEvent]) -> None:
        await self.store.append(self.tenant_id, _stream(thread_id), list(events))


def _stream(thread_id: str) -> str:
    return _PREFIX + quote(str(thread_id), safe="")


def _config(thread_id: str, ns: str, checkpoint_id: str) -> RunnableConfig:
    return {
        "configurable": {
            "thread_id": thread_id,
            "checkpoint_ns": ns,
            "checkpoint_id": checkpoint_id,
        }
    }
