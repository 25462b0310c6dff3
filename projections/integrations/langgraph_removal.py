"""Removing checkpoints from LangGraph threads on the ledger: ``delete_thread``, ``prune`` and
``delete_for_runs`` of :class:`~projections.integrations.langgraph.LedgerSaver`.

Removal is erasure (DESIGN: the log is append-only): the payloads of the removed checkpoints'
events and of their pending writes are erased, their envelopes and the hash chain stay, and
the erasure is itself an event, so what was removed, when and why verifies like everything
else. A checkpoint stores only the channels that changed, a growing list as what was appended
(``langgraph_thread``), so a checkpoint that stays may be rebuilt from an event that goes: such
a survivor is first saved again whole (the same checkpoint id, every channel value in full),
and only then are the others erased. (LangGraph's ``DeltaChannel`` warning on ``prune`` is the
same hazard in its own storage.) Not atomic: a crash between the two leaves the survivors
saved twice and the removal undone; running it again completes it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from eventstore import EventStore, NewEvent
from projections.integrations.langgraph_thread import (
    CHECKPOINT_SAVED,
    MISSING,
    THREAD_DELETED,
    ThreadState,
    pack,
    version_key,
)

__all__ = ["PRUNE_STRATEGIES", "Removal"]

PRUNE_STRATEGIES = ("keep_latest", "delete")
_Checkpoint = tuple[str, str]  # (namespace, checkpoint id)


class Removal:
    """The removal verbs of one saver: its store, tenant, serde, and how it reads a thread.

    Args:
        stream: the stream of a thread id.
        thread: the folded state of a thread id.
        mirrored: the readable event ids of a thread's mirror session, erased with it.
    """

    def __init__(
        self,
        store: EventStore,
        tenant_id: str,
        serde: Any,
        stream: Callable[[str], str],
        thread: Callable[[str], Awaitable[ThreadState]],
        mirrored: Callable[[str], Awaitable[list[str]]] | None = None,
    ) -> None:
        self.store = store
        self.tenant_id = tenant_id
        self.serde = serde
        self._stream = stream
        self._thread = thread
        self._mirrored = mirrored

    async def delete_thread(self, thread_id: str) -> None:
        """Erase every payload of the thread (and of its mirror session) and record that it
        was deleted."""
        state = await self._thread(thread_id)
        mirror = await self._mirrored(thread_id) if self._mirrored else []
        await self._erase([*state.event_ids, *mirror], "LangGraph delete_thread")
        await self._append(thread_id, [NewEvent(type=THREAD_DELETED, data={})])

    async def prune(self, thread_ids: Sequence[str], strategy: str) -> None:
        """``keep_latest``: only the newest checkpoint of each namespace (and its writes)
        stays; ``delete``: the threads are deleted."""
        if strategy not in PRUNE_STRATEGIES:
            raise ValueError(
                f"unknown prune strategy {strategy!r}: expected one of "
                f"{', '.join(PRUNE_STRATEGIES)}"
            )
        for thread_id in dict.fromkeys(thread_ids):
            if strategy == "delete":
                await self.delete_thread(thread_id)
                continue
            state = await self._thread(thread_id)
            doomed = {
                (ns, checkpoint_id)
                for ns, saved in state.checkpoints.items()
                for checkpoint_id in sorted(saved)[:-1]
            }
            await self._remove(thread_id, state, doomed, "LangGraph prune keep_latest")

    async def delete_for_runs(self, run_ids: Sequence[str], thread_ids: Iterable[str]) -> None:
        """Remove, in every thread, the checkpoints whose metadata names one of ``run_ids``
        (and their writes)."""
        runs = set(run_ids)
        if not runs:
            return
        for thread_id in thread_ids:
            state = await self._thread(thread_id)
            doomed = {
                (ns, checkpoint_id)
                for ns, saved in state.checkpoints.items()
                for checkpoint_id, checkpoint in saved.items()
                if self.serde.loads_typed(checkpoint.metadata).get("run_id") in runs
            }
            await self._remove(thread_id, state, doomed, "LangGraph delete_for_runs")

    async def _remove(
        self, thread_id: str, state: ThreadState, doomed: set[_Checkpoint], reason: str
    ) -> None:
        if not doomed:
            return
        events = {state.checkpoints[ns][cid].event_id for ns, cid in doomed}
        for checkpoint in doomed:
            events.update(state.write_events.get(checkpoint, ()))
        survivors = [
            (ns, cid)
            for ns, saved in sorted(state.checkpoints.items())
            for cid in sorted(saved)
            if (ns, cid) not in doomed
        ]
        again = []
        for ns, cid in survivors:
            versions = self._versions(state, ns, cid)
            if _sources(state, ns, versions) & events:
                again.append(self._saved_whole(state, ns, cid, versions))
        await self._append(thread_id, again)  # before the erasure: nothing is lost meanwhile
        await self._erase(sorted(events), reason)

    def _saved_whole(
        self, state: ThreadState, ns: str, checkpoint_id: str, versions: dict[str, Any]
    ) -> NewEvent:
        saved = state.checkpoints[ns][checkpoint_id]
        blobs: dict[str, Any] = {}
        for channel, version in versions.items():
            key = version_key(version)
            value = state.value(self.serde, (ns, channel, key))
            typed = ("empty", b"") if value is MISSING else self.serde.dumps_typed(value)
            blobs[channel] = [key, pack(typed)]
        data = {
            "ns": ns,
            "id": checkpoint_id,
            "parent": saved.parent,
            "checkpoint": pack(saved.checkpoint),
            "metadata": pack(saved.metadata),
            "blobs": blobs,
            "deltas": {},
        }
        return NewEvent(type=CHECKPOINT_SAVED, data=data)

    def _versions(self, state: ThreadState, ns: str, checkpoint_id: str) -> dict[str, Any]:
        checkpoint = self.serde.loads_typed(state.checkpoints[ns][checkpoint_id].checkpoint)
        versions: dict[str, Any] = checkpoint["channel_versions"]
        return versions

    async def _append(self, thread_id: str, events: Sequence[NewEvent]) -> None:
        for begin in range(0, len(events), 200):
            batch = list(events[begin : begin + 200])
            await self.store.append(self.tenant_id, self._stream(thread_id), batch)

    async def _erase(self, event_ids: Sequence[str], reason: str) -> None:
        if event_ids:
            await self.store.erase(
                self.tenant_id, list(event_ids), reason=reason, requested_by="langgraph"
            )


def _sources(state: ThreadState, ns: str, versions: dict[str, Any]) -> set[str]:
    """The events a checkpoint's channel values (at ``versions``) are rebuilt from."""
    found: set[str] = set()
    for channel, version in versions.items():
        found |= state.stored_in((ns, channel, version_key(version)))
    return found
