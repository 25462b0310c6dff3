"""A session's message vectors held in process memory for the embedding ranker.

A render with recall and an embedder scores every message of the cut against the query, so it
needs every vector of the session. Read from the store on every query, that was one read of
all the session's rows, a JSON and base64 decode per row and a Python object per score: 181-194
ms a render at 10,000 messages and 1.5-1.7 s at 100,000 (docs/benchmarks.md, "The embedding
ranker as the session grows"). Here the vectors of a session stay decoded in one packed
``bytearray``, aligned with the session's message indexes, and a render reads from the store
only the rows of messages appended since (:meth:`SessionVectors.extend`).

The cache holds derived data of message text, so it follows the body cache's rules: bounded in
bytes (least recently used sessions out), owned by the ledger's :class:`VectorIndex`, and
emptied whenever an erasure is seen (:func:`projections.text_caches.forget_texts`); an erased
message's index is also left out of every score (the cut's ``erased``). A time-travel cut uses
the first ``cut.count`` rows of the same entry: a message's vector does not depend on what
came after it.
"""

from __future__ import annotations

import base64
import sys
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import orjson

from eventstore.recorder import Document
from projections.arguments import check_count
from projections.text_caches import forgotten, remembered_object

__all__ = [
    "DEFAULT_VECTOR_BYTES",
    "SessionVectors",
    "VectorCache",
    "held_vectors",
]

#: The default bound of a ledger's vector cache: 64 MiB, a 100,000-message session's
#: 384-dimension vectors (38 MB) with room to spare.
DEFAULT_VECTOR_BYTES = 64 * 2**20


@dataclass
class SessionVectors:
    """The vectors of a session's first ``count`` messages, by message index.

    ``matrix`` holds ``dimension`` signed bytes per index (zeros where the store holds no row:
    an erased or unreadable message, or a vector of another dimension) and ``present`` one byte
    per index (1: it has a vector). The messages' ids are the session index's own
    (``SessionState.ids``, ``index_of``). ``last_key`` is the event id of the last index held:
    a state whose event at that index differs (the session rebuilt otherwise) does not reuse
    the entry.
    """

    dimension: int
    matrix: bytearray = field(default_factory=bytearray)
    present: bytearray = field(default_factory=bytearray)
    last_key: str = ""

    @property
    def count(self) -> int:
        """How many message indexes the entry covers."""
        return len(self.present)

    @property
    def size(self) -> int:
        """The bytes the entry holds, as allocated (a ``bytearray`` grows ahead of its
        length; tracemalloc of 20,000 rows: within 1% of this)."""
        return sys.getsizeof(self.matrix) + sys.getsizeof(self.present)

    def extend(self, keys: Sequence[str], rows: Sequence[Document]) -> None:
        """Cover the messages whose event ids are ``keys`` (the next indexes, in order), with
        the store's ``rows`` for them (a key without a row, or whose vector has another
        dimension, is held as absent)."""
        by_key = {row.key: row for row in rows}
        blank = bytes(self.dimension)
        for key in keys:
            row = by_key.get(key)
            vector = base64.b64decode(orjson.loads(row.data)["q"]) if row is not None else blank
            found = len(vector) == self.dimension and row is not None
            self.present.append(found)
            self.matrix += vector if found else blank
        if keys:
            self.last_key = keys[-1]

    def rows(self, count: int, erased: set[int]) -> list[int]:
        """The indexes below ``count`` that have a vector and are not ``erased``, in order."""
        indexes = [i for i, found in enumerate(self.present[:count]) if found]
        return [i for i in indexes if i not in erased] if erased else indexes

    def vector(self, index: int) -> bytes:
        """The signed bytes of index ``index``'s vector."""
        start = index * self.dimension
        return bytes(self.matrix[start : start + self.dimension])


class VectorCache:
    """Session vectors of many sessions, least recently used out, within ``max_bytes``."""

    def __init__(self, max_bytes: int = DEFAULT_VECTOR_BYTES) -> None:
        check_count("vector_cache_bytes", max_bytes)
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, str], SessionVectors] = OrderedDict()
        remembered_object(self)  # an erasure anywhere in this process empties it

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        """What the held entries hold, estimated."""
        return sum(entry.size for entry in self._entries.values())

    def get(self, key: tuple[str, str]) -> SessionVectors | None:
        """The entry of ``(tenant, stream)``, if held (it becomes the most recent)."""
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: tuple[str, str], entry: SessionVectors) -> None:
        """Hold an entry (again after it grew), dropping the least recently used others
        while the bound is passed; an entry over the bound alone is not held."""
        self._entries.pop(key, None)
        if entry.size > self.max_bytes:
            return
        self._entries[key] = entry
        total = self.bytes
        while total > self.max_bytes:
            _, dropped = self._entries.popitem(last=False)
            total -= dropped.size

    def cache_clear(self) -> None:
        """Drop every entry (an erasure was seen: see :mod:`projections.text_caches`)."""
        self._entries.clear()


class _EventIds(Protocol):
    """The session index's event ids by message index (``SessionState.message_event_ids``)."""

    def __len__(self) -> int: ...
    def __getitem__(self, index: int) -> str: ...


async def held_vectors(
    cache: VectorCache,
    key: tuple[str, str],
    event_ids: _EventIds,
    count: int,
    dimension: int,
    read: Callable[[list[str]], Awaitable[Sequence[Document]]],
) -> SessionVectors:
    """The entry of ``key`` covering at least the first ``count`` messages, whose event ids
    are the session index's ``event_ids``: the held one grown by the rows ``read`` gives for
    the messages it lacks, or a new one (none held, another dimension, or a session whose
    events differ from those it was built from). Rows read while an erasure emptied the
    caches (:func:`projections.text_caches.forgotten`) are read again, so no vector of an
    erased message is held after its erasure."""
    for _ in range(3):  # another render, or an erasure, may move the entry meanwhile
        held = cache.get(key)
        if held is None or held.dimension != dimension or not _continues(held, event_ids):
            held = SessionVectors(dimension)
        start, since = held.count, forgotten()
        if start >= count:
            return held
        keys = [event_ids[index] for index in range(start, count)]
        rows = await read(keys)
        if held.count == start and forgotten() == since:
            held.extend(keys, rows)
            cache.put(key, held)
            return held
    # Still moving: this render scores an entry of its own, read whole (not held).
    own = SessionVectors(dimension)
    keys = [event_ids[index] for index in range(count)]
    own.extend(keys, await read(keys))
    return own


def _continues(held: SessionVectors, event_ids: _EventIds) -> bool:
    """Whether the session's message ``held.count - 1`` is still the one the entry ends with."""
    count = held.count
    if count > len(event_ids):
        return False
    return count == 0 or event_ids[count - 1] == held.last_key
