"""Bodies are read from the log, checked against the index, on every backend: nearby messages
as ranges of the stream, scattered ones (recall's candidates) by event id in one read; an index
that names another event, or something that is not an event id, is a mismatch (the facade then
rebuilds the session from the log), never served."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest

from eventstore import EventStore
from projections.ledger import Ledger
from projections.session.bodies import IndexMismatchError, IndexRows, PackedColumn, fetch_bodies

STREAM = "session/s"


class CountingStore(EventStore):
    """A store that counts its reads."""

    reads: list[str]

    async def read_stream(self, *args: Any, **kwargs: Any) -> Any:
        self.reads.append("stream")
        return await super().read_stream(*args, **kwargs)

    async def read_events(self, *args: Any, **kwargs: Any) -> Any:
        self.reads.append("events")
        return await super().read_events(*args, **kwargs)


@dataclass
class SwappedIds:
    """The index's rows with some event ids replaced (a forged snapshot, in effect)."""

    rows: IndexRows
    replaced: dict[int, str]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rows, name)

    @property
    def message_event_ids(self) -> SwappedColumn:
        return SwappedColumn(self.rows.message_event_ids, self.replaced)


@dataclass
class SwappedColumn:
    """An event-id column with some rows replaced, read as text or packed bytes."""

    column: PackedColumn
    replaced: dict[int, str]

    def __getitem__(self, index: int) -> str:
        return self.replaced.get(index, self.column[index])

    def __len__(self) -> int:
        return len(self.column)

    def raw(self, index: int) -> bytes:
        return UUID(self[index]).bytes


async def _store(store_url: str) -> tuple[CountingStore, IndexRows]:
    store = CountingStore.open(store_url)
    assert isinstance(store, CountingStore)
    store.reads = []
    await store.initialize()
    session = Ledger(store).session("acme", "s")
    await session.append(
        [{"id": f"m{i}", "role": "user", "content": f"turn {i}"} for i in range(200)]
    )
    return store, await session.latest()


async def test_scattered_bodies_are_one_read_and_runs_are_ranges(store_url: str) -> None:
    store, rows = await _store(store_url)
    try:
        store.reads.clear()
        scattered = [3, 40, 90, 150, 151, 199]
        found = await fetch_bodies(store, "acme", STREAM, rows, scattered)
        assert [found[i].id for i in scattered] == [f"m{i}" for i in scattered]
        assert store.reads == ["events"]
        store.reads.clear()
        found = await fetch_bodies(store, "acme", STREAM, rows, range(100, 130))
        assert sorted(found) == list(range(100, 130))
        assert store.reads == ["stream"]
    finally:
        await store.close()


@pytest.mark.parametrize("replacement", ["another event", "not an id"])
async def test_an_index_naming_another_event_is_a_mismatch(
    store_url: str, replacement: str
) -> None:
    store, rows = await _store(store_url)
    try:
        other = rows.message_event_ids[41] if replacement == "another event" else "not-a-uuid"
        forged = SwappedIds(rows, {40: other})
        with pytest.raises(IndexMismatchError):
            await fetch_bodies(store, "acme", STREAM, forged, [3, 40, 150])  # type: ignore[arg-type]
    finally:
        await store.close()
