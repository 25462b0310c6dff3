"""The read-model runner, on every backend: a runner reads on from the checkpoint it last
reached (no checkpoint read per turn), and that hint never hides rows: when another runner (in
effect another process) reset or advanced the rows, the next catch-up finds the true
checkpoint, with or without new events."""

from __future__ import annotations

from typing import Any

import pytest

from eventstore import EventStore
from projections.ledger import Ledger
from projections.read_model_runner import ReadModelRunner
from projections.recall.index import SEARCH_INDEX


def _turn(n: int) -> list[dict[str, Any]]:
    return [{"id": f"m{n}", "role": "user", "content": f"turn {n} about trains and tickets"}]


async def _rows(store: EventStore, runner: ReadModelRunner) -> int:
    stats = await store.read_models.stats("acme", runner.name, ["train"], scopes=None)
    return stats.count


@pytest.fixture
def checkpoint_reads(monkeypatch: pytest.MonkeyPatch, store: EventStore) -> list[str]:
    reads: list[str] = []
    models = store.read_models
    position = models.position

    async def counted(tenant_id: str, name: str) -> int:
        reads.append(name)
        return await position(tenant_id, name)

    monkeypatch.setattr(models, "position", counted)
    return reads


async def test_a_turn_reads_no_checkpoint(store: EventStore, checkpoint_reads: list[str]) -> None:
    ledger = Ledger(store)
    session, runner = ledger.session("acme", "s"), ledger.read_model(SEARCH_INDEX)
    await session.append(_turn(1))
    await runner.catch_up("acme")
    assert checkpoint_reads == [runner.name]  # the first catch-up reads it
    for n in range(2, 5):
        await session.append(_turn(n))
        await runner.catch_up("acme")
    assert checkpoint_reads == [runner.name]  # then each commit checks it
    assert await _rows(store, runner) == 4


@pytest.mark.parametrize("new_events", [0, 2])
async def test_rows_reset_elsewhere_are_rebuilt(store: EventStore, new_events: int) -> None:
    ledger = Ledger(store)
    session, runner = ledger.session("acme", "s"), ledger.read_model(SEARCH_INDEX)
    await session.append([*_turn(1), *_turn(2), *_turn(3)])
    await runner.catch_up("acme")
    await store.read_models.reset("acme", runner.name)  # another process, in effect
    for n in range(new_events):
        await session.append(_turn(10 + n))
    reached = await runner.catch_up("acme")
    assert reached == await store.tenant_position("acme")
    assert await _rows(store, runner) == 3 + new_events
    assert [r.message.id for r in await session.search("turn 2", 1)] == ["m2"]


async def test_rows_advanced_elsewhere_are_applied_once(store: EventStore) -> None:
    ledger = Ledger(store)
    session, runner = ledger.session("acme", "s"), ledger.read_model(SEARCH_INDEX)
    await session.append(_turn(1))
    await runner.catch_up("acme")
    other = ReadModelRunner(store, SEARCH_INDEX)  # another process's runner
    await session.append(_turn(2))
    await other.catch_up("acme")
    await session.append(_turn(3))
    assert await runner.catch_up("acme") == await store.tenant_position("acme")
    assert await _rows(store, runner) == 3
