"""``prune`` and ``delete_for_runs`` on a real graph whose message list is stored as deltas:
what stays is whole after a cold start, what goes is erased (payloads gone, the log verifies),
and the removal itself is on the record."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from eventstore import EventStore
from eventstore.records import ERASURE_EVENT_TYPE
from projections.integrations.langgraph import LedgerSaver
from tests.benchmarks.bench_langgraph import graph as steps_graph

STEPS = 40


def _config(thread: str, run_id: str | None = None) -> dict[str, Any]:
    config: dict[str, Any] = {"configurable": {"thread_id": thread}, "recursion_limit": 100}
    if run_id is not None:
        config["metadata"] = {"run_id": run_id}  # LangGraph records it in each checkpoint
    return config


def _messages(saver: LedgerSaver, thread: str) -> list[str]:
    app = steps_graph(STEPS).compile(checkpointer=saver)
    return [m.id for m in app.get_state(_config(thread)).values["messages"]]


async def _erased_and_verified(path: Path, thread: str) -> int:
    async with EventStore.open(path) as store:
        assert (await store.verify("acme")).ok
        events = await store.read_stream("acme", f"langgraph/{thread}")
    return sum(e.data is None for e in events)


def test_prune_keep_latest_keeps_the_newest_state_whole(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with LedgerSaver(EventStore.open(path), tenant_id="acme") as saver:
        app = steps_graph(STEPS).compile(checkpointer=saver)
        app.invoke({"messages": [], "steps": 0}, _config("long"))
        app.invoke({"messages": [], "steps": 0}, _config("other"))
        before = len(list(saver.list(_config("long"))))  # type: ignore[arg-type]
        saver.prune(["long"])
        assert len(list(saver.list(_config("long")))) == 1  # type: ignore[arg-type]
        assert len(list(saver.list(_config("other")))) == before  # type: ignore[arg-type]
    expected = [f"m{n}" for n in range(1, STEPS + 1)]
    with LedgerSaver(EventStore.open(path), tenant_id="acme") as cold:  # a fresh fold
        assert _messages(cold, "long") == expected
        assert _messages(cold, "other") == expected
        app = steps_graph(STEPS + 1).compile(checkpointer=cold)
        app.invoke({"steps": STEPS}, _config("long"))  # the list goes on from the kept one
        assert _messages(cold, "long") == [*expected, f"m{STEPS + 1}"]
    assert asyncio.run(_erased_and_verified(path, "long")) >= before - 1


def test_delete_for_runs_keeps_later_runs_built_on_the_deleted_one(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    with LedgerSaver(EventStore.open(path), tenant_id="acme") as saver:
        steps_graph(10).compile(checkpointer=saver).invoke(
            {"messages": [], "steps": 0}, _config("t", first)
        )
        # The second run extends the first run's message list: stored as deltas on it.
        steps_graph(20).compile(checkpointer=saver).invoke({"steps": 10}, _config("t", second))
        saver.delete_for_runs([first])
        runs = {c.metadata.get("run_id") for c in saver.list(_config("t"))}  # type: ignore[arg-type]
        assert first not in runs
        assert second in runs
    with LedgerSaver(EventStore.open(path), tenant_id="acme") as cold:
        assert _messages(cold, "t") == [f"m{n}" for n in range(1, 21)]
    assert asyncio.run(_erased_and_verified(path, "t")) > 0


async def test_removal_is_on_the_record_and_bad_strategies_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    saver = LedgerSaver(EventStore.open(path), tenant_id="acme")
    try:
        app = steps_graph(5).compile(checkpointer=saver)
        await app.ainvoke({"messages": [], "steps": 0}, _config("t"))
        with pytest.raises(ValueError, match="keep_latest, delete"):
            await saver.aprune(["t"], strategy="keep_newest")
        await saver.aprune(["t"], strategy="delete")
        assert [c async for c in saver.alist(_config("t"))] == []  # type: ignore[arg-type]
        await saver.adelete_for_runs([])
    finally:
        await asyncio.to_thread(saver.close)
    async with EventStore.open(path) as store:
        erasures = [e async for e in store.read_log("acme") if e.type == ERASURE_EVENT_TYPE]
    assert erasures
    assert "delete_thread" in str(erasures[-1].data)
