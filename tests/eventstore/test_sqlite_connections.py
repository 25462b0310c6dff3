"""The SQLite recorder's connections: the one that set the schema up serves the first reads,
the writer opens on the first write, and none is left open or shared wrongly."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import eventstore.sql.sqlite.recorder as sqlite_recorder
from eventstore import EventStore, NewEvent, StorageError
from eventstore.sql.sqlite.recorder import SqliteRecorder


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the connections the recorder opens, in order."""
    seen: list[str] = []
    connect: Callable[..., Awaitable[Any]] = sqlite_recorder.connect

    async def counted(database: str, path: str, **options: Any) -> Any:
        seen.append(path)
        return await connect(database, path, **options)

    monkeypatch.setattr(sqlite_recorder, "connect", counted)
    return seen


def _event(text: str) -> NewEvent:
    return NewEvent(type="T", data={"text": text})


async def _existing(path: Path) -> None:
    async with EventStore.open(path) as store:
        await store.append("acme", "s", [_event("one"), _event("two")])


async def test_a_process_that_only_reads_opens_one_connection(
    tmp_path: Path, opened: list[str]
) -> None:
    path = tmp_path / "a.db"
    await _existing(path)
    opened.clear()
    async with EventStore.open(path) as store:
        assert len(await store.read_stream("acme", "s")) == 2
        assert (await store.stream_head("acme", "s")).version == 2
        assert (await store.verify("acme")).ok
    assert len(opened) == 1


async def test_a_process_that_only_writes_opens_one_connection(
    tmp_path: Path, opened: list[str]
) -> None:
    async with EventStore.open(tmp_path / "a.db") as store:
        await store.append("acme", "s", [_event("one")])
        await store.append("acme", "s", [_event("two")], expected_version=1)
    assert len(opened) == 1


async def test_reads_beside_the_writer_open_a_reader_of_their_own(
    tmp_path: Path, opened: list[str]
) -> None:
    async with EventStore.open(tmp_path / "a.db") as store:
        await store.append("acme", "s", [_event("one")])
        await asyncio.gather(
            store.append("acme", "s", [_event("two")], expected_version=1),
            store.read_stream("acme", "s"),
        )
        assert [event.data["text"] for event in await store.read_stream("acme", "s")] == [
            "one",
            "two",
        ]
    assert len(opened) == 2


async def test_writers_racing_to_the_first_write_share_one_writer(
    tmp_path: Path, opened: list[str]
) -> None:
    path = tmp_path / "a.db"
    await _existing(path)
    opened.clear()
    async with EventStore.open(path) as store:
        await asyncio.gather(*(store.append("acme", f"s{n}", [_event("x")]) for n in range(8)))
        assert (await store.verify("acme")).ok
        assert [event.position async for event in store.read_log("acme")] == list(range(1, 11))
    assert len(opened) <= 2  # the writer, and a reader for the reads beside it


async def test_a_closed_store_refuses_reads_and_writes_and_opens_again(tmp_path: Path) -> None:
    store = EventStore(SqliteRecorder(str(tmp_path / "a.db")))
    await store.initialize()
    await store.append("acme", "s", [_event("one")])
    await store.close()
    recorder = store.recorder
    assert isinstance(recorder, SqliteRecorder)
    with pytest.raises(StorageError, match="the store is not open"):
        await recorder.read_stream("acme", "s", 1, None)
    with pytest.raises(StorageError, match="the store is not open"):
        await recorder.append("acme", "s", None, [])
    await store.initialize()
    assert len(await store.read_stream("acme", "s")) == 1
    await store.close()


async def test_a_read_that_spans_a_close_leaves_no_connection_open(
    tmp_path: Path, opened: list[str]
) -> None:
    path = tmp_path / "a.db"
    await _existing(path)
    store = EventStore(SqliteRecorder(str(path)))
    await store.initialize()
    reading = asyncio.ensure_future(store.read_stream("acme", "s"))
    await asyncio.sleep(0)  # the read has taken the idle reader
    await store.close()
    assert len(await reading) == 2
    recorder = store.recorder
    assert isinstance(recorder, SqliteRecorder)
    assert recorder._pool._idle_readers == []  # the read's connection was closed, not kept


async def test_a_failed_set_up_leaves_no_connection_open(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    recorder = SqliteRecorder(str(path), create=False)
    with pytest.raises(StorageError):
        await recorder.initialize()
    assert recorder._pool._idle_readers == []
    assert not recorder._pool.opened
