"""SQLite's search takes one of two plans by how many rows the terms match (rows looked up by
rowid and sorted, or the scope walked newest first): the rows found are the same either way,
for any terms, scopes, bounds and limits."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventstore.sql.sqlite.documents as documents
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
    for plan, up_to, per_lookup in (("walk", 0, 10), ("by rows", 10_000, 0)):
        monkeypatch.setattr(documents, "_BY_ROWS_UP_TO", up_to)
        monkeypatch.setattr(documents, "_WALK_PER_LOOKUP", per_lookup)
        found[plan] = asyncio.run(_search(store_path, terms, scopes, limit, at))
    assert found["walk"] == found["by rows"]
    assert len(found["walk"]) <= limit
