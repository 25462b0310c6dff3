"""The sessions' vectors held in memory: the fusion over them is the reference fusion, a render
reads only the rows of messages appended since, an erasure empties the cache, and the cache
keeps within its bound, counted as allocated (a cut ranking from the head's vectors:
test_vectors.py)."""

from __future__ import annotations

import asyncio
import base64
import builtins
import sys
import tracemalloc
from collections.abc import Sequence
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventstore import EventStore
from eventstore.recorder import Document
from projections.ledger import Ledger
from projections.recall.dense import CutVectors, fuse_held
from projections.recall.vector_cache import SessionVectors, VectorCache, held_vectors
from projections.recall.vectors import SCALE, DenseScore, fuse
from projections.session.columns import IdColumn
from projections.text_caches import forget_texts
from tests.projections.recall.concepts import ConceptEmbedder
from tests.projections.recall.small_talk import chat
from tests.projections.recall.test_vectors import conversation, recalled


def _entry(vectors: list[list[int]]) -> SessionVectors:
    held = SessionVectors(len(vectors[0]))
    for vector in vectors:
        held.present.append(1)
        held.matrix += bytes(value & 0xFF for value in vector)
    return held


def _cut(vectors: list[list[int]], count: int, erased: set[int]) -> CutVectors:
    ids = [f"m{index}" for index in range(len(vectors))]
    return CutVectors(_entry(vectors), ids, {m: i for i, m in enumerate(ids)}, count, erased)


def _reference(
    bm25: dict[str, float],
    asked: list[int],
    vectors: list[list[int]],
    count: int,
    erased: set[int],
    weight: float,
    limit: int,
) -> list[tuple[str, float]]:
    dense = [
        DenseScore(f"m{i}", sum(a * b for a, b in zip(asked, vectors[i], strict=True)) / SCALE)
        for i in range(count)
        if i not in erased
    ]
    return fuse(bm25, dense, weight, limit)


# Few distinct values (cosines tie often, at the median and at the edge of the ranking) or
# any (the BM25 hits then fall anywhere in the dense order).
VALUES = st.sampled_from([st.sampled_from([-127, -3, 0, 2, 127]), st.integers(-127, 127)])
# Sizes drawn outright: left to itself, hypothesis draws short lists, where every row ranks and
# the cut to the nearest rows is never exercised.
SIZES = st.sampled_from([1, 2, 5, 16, 60, 120])
VECTORS = st.tuples(st.integers(1, 8), VALUES, SIZES).flatmap(
    lambda shape: st.lists(
        st.lists(shape[1], min_size=shape[0], max_size=shape[0]),
        min_size=shape[2],
        max_size=shape[2],
    )
)


@settings(max_examples=300, deadline=None)
@given(vectors=VECTORS, data=st.data())
def test_the_fusion_over_held_vectors_is_the_reference_fusion(
    vectors: list[list[int]], data: st.DataObject
) -> None:
    dimension, size = len(vectors[0]), len(vectors)
    asked = data.draw(st.lists(st.integers(-127, 127), min_size=dimension, max_size=dimension))
    count = data.draw(st.sampled_from([size, size // 2, 0]))
    erased = data.draw(st.sets(st.integers(0, size - 1), max_size=size // 4))
    # Few hits and a small limit: the hits then fall outside the nearest rows kept.
    hits = data.draw(st.lists(st.integers(0, size + 2), unique=True, max_size=4))
    scores = data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.5]), min_size=len(hits)))
    bm25 = {f"m{i}": score for i, score in zip(hits, scores, strict=False)}
    weight = data.draw(st.sampled_from([0.0, 0.3, 1.0]))
    limit = data.draw(st.integers(1, 6))
    question = bytes(value & 0xFF for value in asked)
    held = _cut(vectors, count, erased)
    expected = _reference(bm25, asked, vectors, count, erased, weight, limit)
    assert fuse_held(bm25, question, held, weight, limit) == expected


def test_the_fusion_without_numpy_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    vectors = [[(i * 7 + j * 3) % 255 - 127 for j in range(8)] for i in range(30)]
    asked, bm25 = vectors[4], {"m3": 2.0, "m9": 1.0}
    question = bytes(value & 0xFF for value in asked)
    expected = _reference(bm25, asked, vectors, 25, {2, 7}, 0.3, 10)
    real_import = builtins.__import__

    def no_numpy(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "numpy":
            raise ImportError("numpy is not installed")
        return real_import(name, *args, **kwargs)

    monkeypatch.setitem(sys.modules, "numpy", None)
    monkeypatch.setattr(builtins, "__import__", no_numpy)
    assert fuse_held(bm25, question, _cut(vectors, 25, {2, 7}), 0.3, 10) == expected


class CountingReads:
    """The store's read-model reads, with the keys each one asked for."""

    def __init__(self, store: EventStore) -> None:
        self.asked: list[int] = []
        self._read = store.read_models.read

    async def read(self, tenant_id: str, name: str, keys: Sequence[str]) -> list[Document]:
        self.asked.append(len(keys))
        return await self._read(tenant_id, name, keys)


async def test_a_render_reads_only_the_vectors_of_messages_appended_since(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = CountingReads(store)
    monkeypatch.setattr(store.read_models, "read", reads.read)
    session = Ledger(store, embedder=ConceptEmbedder()).session("acme", "trip")
    await conversation(session)
    assert "k" in await recalled(session)
    assert reads.asked == [42]
    await recalled(session)
    assert reads.asked == [42]  # nothing new: nothing read
    await session.append(chat(40, 3))
    assert "k" in await recalled(session)
    assert reads.asked == [42, 3]


async def test_an_erasure_empties_the_held_vectors(store: EventStore) -> None:
    ledger = Ledger(store, embedder=ConceptEmbedder())
    session = ledger.session("acme", "trip")
    await conversation(session)
    assert "k" in await recalled(session)
    assert ledger.vectors is not None
    assert len(ledger.vectors.cache) == 1
    state = await session.latest()
    event_id = state.message_event_ids[state.index_of["k"]]
    await ledger.erase("acme", [event_id], reason="user asked", requested_by="test")
    assert len(ledger.vectors.cache) == 0
    assert "k" not in await recalled(session)


def test_the_cache_keeps_within_its_bound_newest_first() -> None:
    size = _entry([[1] * 8] * 10).size
    cache = VectorCache(max_bytes=2 * size + size // 2)
    for name in ("a", "b", "c"):
        cache.put(("t", name), _entry([[1] * 8] * 10))
    assert len(cache) == 2
    assert cache.get(("t", "a")) is None
    assert cache.bytes <= cache.max_bytes
    cache.put(("t", "big"), _entry([[1] * 8] * 400))
    assert cache.get(("t", "big")) is None  # over the bound alone: not held
    assert cache.get(("t", "c")) is not None


def test_an_entry_of_another_history_is_not_reused() -> None:
    ids = IdColumn()
    for value in ("00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000002"):
        ids.append(value)
    read_keys: list[list[str]] = []

    async def read(keys: list[str]) -> list[Document]:
        read_keys.append(keys)
        return []

    cache = VectorCache()
    asyncio.run(held_vectors(cache, ("t", "s"), ids, 2, 4, read))
    other = IdColumn()
    for value in ("00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000009"):
        other.append(value)
    asyncio.run(held_vectors(cache, ("t", "s"), other, 2, 4, read))
    assert read_keys == [[str(ids[0]), str(ids[1])], [str(other[0]), str(other[1])]]


async def test_two_renders_growing_the_entry_at_once_hold_each_message_once(
    store: EventStore,
) -> None:
    ledger = Ledger(store, embedder=ConceptEmbedder())
    session = ledger.session("acme", "trip")
    await conversation(session)
    await recalled(session)
    await session.append(chat(40, 5))
    first, second = await asyncio.gather(recalled(session), recalled(session))
    fresh = Ledger(store, embedder=ConceptEmbedder()).session("acme", "trip")  # nothing held
    assert first == second == await recalled(fresh)
    assert ledger.vectors is not None
    [held] = ledger.vectors.cache._entries.values()
    count = len((await session.latest()).message_event_ids)
    assert held.count == count
    assert len(held.matrix) == count * held.dimension
    assert len(held.present) == count


def test_an_entrys_size_is_what_it_allocates() -> None:
    keys = [f"00000000-0000-7000-8000-{i:012d}" for i in range(2_000)]
    vector = base64.b64encode(bytes(range(48)) * 8).decode()  # 384 signed bytes
    rows = [
        Document(key, "session/s", key, i, "", orjson.dumps({"id": f"turn-{i}", "q": vector}))
        for i, key in enumerate(keys)
    ]
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        held = SessionVectors(384)
        held.extend(keys, rows)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    allocated = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert 0.95 <= allocated / held.size <= 1.05


def test_rows_read_while_an_erasure_empties_the_cache_are_read_again() -> None:
    ids = IdColumn()
    for i in range(3):
        ids.append(f"00000000-0000-7000-8000-{i:012d}")
    cache = VectorCache()
    asked: list[list[str]] = []

    async def read(keys: list[str]) -> list[Document]:
        asked.append(keys)
        if len(asked) == 1:
            forget_texts()  # an erasure seen while the first read was under way
        return []

    held = asyncio.run(held_vectors(cache, ("t", "s"), ids, 3, 4, read))
    assert len(asked) == 2  # the rows read across the erasure were not kept
    assert held.count == 3
    assert cache.get(("t", "s")) is held
