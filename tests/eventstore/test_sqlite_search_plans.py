"""SQLite's search takes one of three plans (the full-text index walked newest first, rows
looked up by rowid and sorted, or the scope walked newest first): the rows found are the same
whichever it takes, for any terms, scopes, bounds and limits; and the first is taken only
while the read model's rows are in position order (``newest_matches``)."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventstore.sql.sqlite.documents as documents
import eventstore.sql.sqlite.newest_matches as newest
from eventstore import EventStore
from eventstore.recorder import Document

WORDS = ["alpha", "beta", "gamma", "delta", "omega", "rare"]
SCOPES = ["session/a", "session/b", "session/c"]


def _rows(count: int) -> list[Document]:
    rows = []
    for index in range(count):
        words = [WORDS[(index * 7 + k) % 5] for k in range(1 + index % 3)]
        if index % 17 == 0:
            words.append("rare")
        rows.append(
            Document(
                key=f"k{index}",
                scope=SCOPES[index % 3],
                event_id=str(uuid.UUID(int=index + 1)),
                position=index + 1,
                terms=" ".join(words),
                data=b"{}",
            )
        )
    return rows


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("plans") / "ledger.db"

    async def fill() -> None:
        async with EventStore.open(path) as store:
            rows = _rows(600)
            await store.read_models.commit(
                "acme", "index", expected_position=0, position=600, upserts=rows
            )
            # Rows deleted as an erasure deletes them: the walk's rowids have gaps.
            gone = [row.key for index, row in enumerate(rows) if index % 7 == 3]
            await store.read_models.commit(
                "acme", "index", expected_position=600, position=601, deletes=gone
            )

    asyncio.run(fill())
    return path


async def _search(
    path: Path, terms: list[str], scopes: list[str] | None, limit: int, at: int | None
) -> list[str]:
    async with EventStore.open(path, read_only=True) as store:
        found = await store.read_models.search(
            "acme", "index", terms, scopes=scopes, limit=limit, max_position=at
        )
    return [row.key for row in found]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    terms=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
    scopes=st.one_of(st.none(), st.lists(st.sampled_from(SCOPES), min_size=1, max_size=2)),
    limit=st.integers(1, 300),
    at=st.one_of(st.none(), st.integers(1, 600)),
)
def test_both_plans_find_the_same_rows(
    store_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    terms: list[str],
    scopes: list[str] | None,
    limit: int,
    at: int | None,
) -> None:
    found = {}
    with monkeypatch.context() as patched:
        patched.setattr(documents, "newest_matches", lambda *args: None)
        for plan, up_to, per_lookup in (("walk", 0, 10), ("by rows", 10_000, 0)):
            patched.setattr(documents, "_BY_ROWS_UP_TO", up_to)
            patched.setattr(documents, "_WALK_PER_LOOKUP", per_lookup)
            found[plan] = asyncio.run(_search(store_path, terms, scopes, limit, at))
    for window in (1, 2, 4):  # how far the walk may look before it gives up
        monkeypatch.setattr(newest, "WINDOW", window)
        found[f"index walk {window}"] = asyncio.run(_search(store_path, terms, scopes, limit, at))
    assert len(set(map(tuple, found.values()))) == 1, found
    assert len(found["walk"]) <= limit


def _order_of(path: Path) -> str | None:
    with sqlite3.connect(path) as db:
        return newest._order(db, "acme", "index")


async def _commit(store: EventStore, rows: list[Document], at: int) -> None:
    assert await store.read_models.commit(
        "acme", "index", expected_position=at, position=at + len(rows), upserts=rows
    )


async def test_a_row_committed_out_of_order_turns_the_index_walk_off(tmp_path: Path) -> None:
    path, rows = tmp_path / "order.db", _rows(400)
    async with EventStore.open(path) as store:
        await _commit(store, rows[200:], 0)
        assert _order_of(path) == "1"
        await _commit(store, rows[:200], 200)  # older positions, committed later
        assert _order_of(path) == "0"
        found = await store.read_models.search("acme", "index", ["alpha"], limit=50)
        assert [row.position for row in found] == sorted(
            (row.position for row in rows if "alpha" in row.terms.split()), reverse=True
        )[:50]
        await store.read_models.reset("acme", "index")
        assert _order_of(path) == "1"


async def test_a_read_model_without_a_note_is_checked_whole_once(tmp_path: Path) -> None:
    path, rows = tmp_path / "old.db", _rows(300)
    for order, first in (("1", rows[:100]), ("0", [*rows[50:100], *rows[:50]])):
        async with EventStore.open(path) as store:
            await store.read_models.reset("acme", "index")
            await _commit(store, first, 0)
        with sqlite3.connect(path) as db:  # as a database written before the note was kept
            db.execute("DELETE FROM ledger_meta WHERE key LIKE 'documents in position order%'")
        async with EventStore.open(path) as store:
            await _commit(store, rows[100:], 100)
        assert _order_of(path) == order


def test_the_index_walk_answers_a_common_term(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers: list[object] = []
    walk = newest.newest_matches

    def spied(*args: object) -> object:
        answers.append(walk(*args))  # type: ignore[arg-type]
        return answers[-1]

    monkeypatch.setattr(documents, "newest_matches", spied)
    found = asyncio.run(_search(store_path, ["alpha"], ["session/b"], 20, 500))
    assert len(answers) == 1
    assert answers[0] is not None  # the walk answered; no other plan ran
    assert len(found) == 20
    monkeypatch.setattr(documents, "newest_matches", lambda *args: None)
    assert asyncio.run(_search(store_path, ["alpha"], ["session/b"], 20, 500)) == found
