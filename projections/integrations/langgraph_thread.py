"""The state of one LangGraph thread, folded from its ledger stream (``langgraph/<thread>``).

Three event types: ``LangGraphCheckpointSaved`` (a checkpoint without its channel values, its
metadata, its parent, and the channels whose version changed: a list that only grew (a message
list) as the items appended to the list it extends, anything else whole — so a message is
stored once, not again with every later checkpoint), ``LangGraphWritesSaved`` (a task's
pending writes) and ``LangGraphThreadDeleted`` (everything before it is gone; its payloads were
erased). Values stay serialised with the saver's serde (type tag and bytes, base64 in JSON).
"""

from __future__ import annotations

import base64
import json
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from eventstore import RecordedEvent
from projections.integration_events import (
    LANGGRAPH_CHECKPOINT_SAVED,
    LANGGRAPH_THREAD_DELETED,
    LANGGRAPH_WRITES_SAVED,
)
from projections.integrations.stream_view import StreamView

__all__ = [
    "CHECKPOINT_SAVED",
    "MISSING",
    "THREADS",
    "THREAD_DELETED",
    "WRITES_SAVED",
    "ThreadState",
    "Typed",
    "pack",
    "unpack",
    "version_key",
]

CHECKPOINT_SAVED = LANGGRAPH_CHECKPOINT_SAVED
WRITES_SAVED = LANGGRAPH_WRITES_SAVED
THREAD_DELETED = LANGGRAPH_THREAD_DELETED

#: A serde's ``dumps_typed`` result.
Typed = tuple[str, bytes]
#: A channel with no value stored at a version (or cleared there).
MISSING: Any = object()
#: Decoded channel values kept per thread.
_DECODED = 64


def pack(typed: Typed) -> list[str]:
    """A typed value as JSON: ``[type, base64(bytes)]``."""
    return [typed[0], base64.b64encode(typed[1]).decode("ascii")]


def unpack(packed: list[str]) -> Typed:
    """The inverse of :func:`pack`."""
    return packed[0], base64.b64decode(packed[1])


def version_key(version: Any) -> str:
    """A channel version (str, int or float) as a dict key that keeps its type."""
    return json.dumps(version)


@dataclass
class _Saved:
    checkpoint: Typed
    metadata: Typed
    parent: str | None
    event_id: str


@dataclass
class ThreadState:
    """Checkpoints by namespace and id, channel blobs, and pending writes of one thread."""

    version: int = 0
    checkpoints: dict[str, dict[str, _Saved]] = field(default_factory=dict)
    blobs: dict[tuple[str, str, str], Typed] = field(default_factory=dict)
    #: (ns, channel, version) -> (base version, the items appended to the base's list)
    deltas: dict[tuple[str, str, str], tuple[str, Typed]] = field(default_factory=dict)
    #: (ns, channel) -> the version last stored, the base a new list value is compared with
    latest: dict[tuple[str, str], str] = field(default_factory=dict)
    #: decoded channel values, most recently used last (the saver's serde decodes them)
    decoded: OrderedDict[tuple[str, str, str], Any] = field(default_factory=OrderedDict)
    writes: dict[tuple[str, str], dict[tuple[str, int], tuple[str, str, Typed, str]]] = field(
        default_factory=dict
    )
    event_ids: list[str] = field(default_factory=list)
    #: (ns, channel, version) -> the event that stored that blob or delta
    origins: dict[tuple[str, str, str], str] = field(default_factory=dict)
    #: (ns, checkpoint id) -> the events that stored its pending writes
    write_events: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def feed(self, events: Iterable[RecordedEvent]) -> None:
        """Apply events that follow ``version`` (erased ones are skipped)."""
        for event in events:
            self.version = event.version
            data = event.data
            if event.type == THREAD_DELETED:
                self.checkpoints.clear()
                self.blobs.clear()
                self.deltas.clear()
                self.latest.clear()
                self.decoded.clear()
                self.writes.clear()
                self.event_ids.clear()
                self.origins.clear()
                self.write_events.clear()
            elif data is None:
                continue
            elif event.type == CHECKPOINT_SAVED:
                self._checkpoint(data, str(event.event_id))
            elif event.type == WRITES_SAVED:
                self._writes(data, str(event.event_id))
            self.event_ids.append(str(event.event_id))

    def _checkpoint(self, data: dict[str, Any], event_id: str) -> None:
        ns = data["ns"]
        for channel, (version, packed) in data["blobs"].items():
            key = (ns, channel, version)
            self.blobs[key] = unpack(packed)
            self.deltas.pop(key, None)  # stored whole again (a pruned thread's survivor)
            self._stored(key, event_id)
        for channel, (version, base, packed) in data.get("deltas", {}).items():
            key = (ns, channel, version)
            self.deltas[key] = (base, unpack(packed))
            self.blobs.pop(key, None)
            self._stored(key, event_id)
        self.checkpoints.setdefault(ns, {})[data["id"]] = _Saved(
            unpack(data["checkpoint"]), unpack(data["metadata"]), data["parent"], event_id
        )

    def _stored(self, key: tuple[str, str, str], event_id: str) -> None:
        self.decoded.pop(key, None)
        self.latest[key[:2]] = key[2]
        self.origins[key] = event_id

    def _writes(self, data: dict[str, Any], event_id: str) -> None:
        checkpoint = (data["ns"], data["checkpoint_id"])
        self.write_events.setdefault(checkpoint, []).append(event_id)
        stored = self.writes.setdefault(checkpoint, {})
        for index, channel, packed in data["writes"]:
            key = (data["task_id"], index)
            if index >= 0 and key in stored:
                continue  # a retried task's regular writes are kept once
            stored[key] = (data["task_id"], channel, unpack(packed), data["task_path"])

    # -- channel values (need the saver's serde) ----------------------------------------------

    def encode(
        self, serde: Any, ns: str, values: dict[str, Any], new_versions: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The changed channels of a checkpoint: whole, or as what was appended to the list
        stored last for that channel (``blobs``, ``deltas`` of the event)."""
        blobs: dict[str, Any] = {}
        deltas: dict[str, Any] = {}
        for channel, version in new_versions.items():
            key = version_key(version)
            if channel not in values:
                blobs[channel] = [key, pack(("empty", b""))]  # cleared: LangGraph's marker
                continue
            value = values[channel]
            base = self.latest.get((ns, channel))
            before = self.value(serde, (ns, channel, base)) if base is not None else MISSING
            if _extends(value, before):
                deltas[channel] = [key, base, pack(serde.dumps_typed(value[len(before) :]))]
            else:
                blobs[channel] = [key, pack(serde.dumps_typed(value))]
        return blobs, deltas

    def stored_in(self, key: tuple[str, str, str]) -> set[str]:
        """The events a channel value at a version is rebuilt from (its delta chain's)."""
        found = set()
        while key in self.origins:
            found.add(self.origins[key])
            if key not in self.deltas:
                break
            key = (key[0], key[1], self.deltas[key][0])
        return found

    def value(self, serde: Any, key: tuple[str, str, str]) -> Any:
        """The decoded value of a channel at a version (``MISSING`` when none is stored).

        A delta chain is walked back iteratively to the nearest decoded or whole value, then
        rebuilt forward; the last values decoded are kept (an LRU of ``_DECODED`` entries), so
        the next checkpoint's value costs one append."""
        chain: list[tuple[str, str, str]] = []
        while key not in self.decoded and key in self.deltas:
            chain.append(key)
            key = (key[0], key[1], self.deltas[key][0])
        if key in self.decoded:
            value = self.decoded[key]
            self.decoded.move_to_end(key)
        elif key in self.blobs:
            blob = self.blobs[key]
            value = MISSING if blob[0] == "empty" else serde.loads_typed(blob)
            self._remember(key, value)
        else:
            return MISSING
        for step in reversed(chain):
            value = [*value, *serde.loads_typed(self.deltas[step][1])]
            self._remember(step, value)
        return value

    def _remember(self, key: tuple[str, str, str], value: Any) -> None:
        self.decoded[key] = value
        while len(self.decoded) > _DECODED:
            self.decoded.popitem(last=False)


def _extends(value: Any, before: Any) -> bool:
    """Whether ``value`` is the non-empty list ``before`` with items appended (a list edited
    in place — a message replaced by id — is stored whole)."""
    if not isinstance(value, list) or not isinstance(before, list) or not before:
        return False
    return len(value) >= len(before) and value[: len(before)] == before


#: The threads' folds, on the saver's runner (keyed by the thread's stream).
THREADS: StreamView[ThreadState] = StreamView("langgraph_thread", ThreadState)
