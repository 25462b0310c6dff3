"""The OpenAI Agents SDK on ctxledger: the real ``Runner`` with a deterministic model (no
network), a new process resuming the session, non-destructive pop and clear, compaction."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from agents import Agent, Runner
from agents.memory.session import Session as SdkSession

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.formats import to_messages
from projections.context.grouping import group_messages
from projections.integrations.openai_agents import CompactionSettings, LedgerSession
from projections.ledger import Ledger
from tests.conftest import ROOT
from tests.projections.integrations.fake_model import ScriptedModel, get_weather


def paired(items: list[dict]) -> bool:  # type: ignore[type-arg]
    calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    return calls == outputs


async def test_runner_persists_resumes_and_verifies(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        session = LedgerSession("trip", Ledger(store), tenant_id="acme")
        assert isinstance(session, SdkSession)  # the SDK's own protocol check
        model = ScriptedModel()
        agent = Agent(name="planner", model=model, tools=[get_weather])
        first = await Runner.run(agent, "Plan a trip to Hangzhou.", session=session)
        assert first.final_output == "Noted."
        second = await Runner.run(agent, "What is the weather on Saturday?", session=session)
        assert second.final_output == "Forecast: sunny."
        items = await session.get_items()
        assert [i.get("type", "message") for i in items] == [
            "message",
            "message",
            "message",
            "function_call",
            "function_call_output",
            "message",
        ]
        assert paired(items)
        # The model saw the first turn again on the second run: the session fed it back.
        assert any("Plan a trip" in str(i.get("content")) for i in model.inputs[-1])
        assert await session.get_items(limit=2) == items[-2:]

    worker = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "tests.projections.integrations.agents_worker", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert worker.returncode == 0, worker.stderr
    report = json.loads(worker.stdout.strip().splitlines()[-1])
    assert report == {"resumed_with": 6, "final": "Forecast: sunny."}

    async with EventStore.open(path) as store:
        session = LedgerSession("trip", Ledger(store), tenant_id="acme")
        items = await session.get_items()
        assert len(items) == 10
        assert paired(items)
        _, issues = group_messages(to_messages("responses", items))
        assert issues == []
        assert (await store.verify("acme")).ok


async def test_pop_and_clear_are_not_destructive(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        session = LedgerSession("s", Ledger(store), tenant_id="acme")
        agent = Agent(name="planner", model=ScriptedModel(), tools=[get_weather])
        await Runner.run(agent, "Weather in Hangzhou?", session=session)
        before = await session.get_items()
        position = await store.tenant_position("acme")
        popped = await session.pop_item()
        assert popped == before[-1]
        assert await session.get_items() == before[:-1]
        await session.clear_session()
        assert await session.get_items() == []
        assert await session.pop_item() is None
        # Time travel: the items as they were before the pop, and before the clear.
        assert await session.items_at(position) == before
        assert await session.items_at(await store.tenant_position("acme")) == []
        assert (await store.verify("acme")).ok
        await Runner.run(agent, "Hello again.", session=session)
        assert len(await session.get_items()) == 2


async def test_compacted_items_stay_within_budget(tmp_path: Path) -> None:
    budget = Budget(context_limit=1000, max_output_tokens=100, tool_reserve=0, safety_margin=0)
    async with EventStore.open(tmp_path / "ledger.db") as store:
        raw = LedgerSession("long", Ledger(store), tenant_id="acme")
        compacted = LedgerSession(
            "long",
            Ledger(store),
            tenant_id="acme",
            # target 0.8: a first summary of about 350 tokens, far from its 600-token budget
            # (message ids are random UUIDs: a summary near its budget passes or fails by chance).
            compaction=CompactionSettings(
                budget=budget, keep_groups=2, summary_budget=600, target=0.8
            ),
        )
        agent = Agent(name="planner", model=ScriptedModel(), tools=[get_weather])
        for n in range(16):
            await Runner.run(
                agent, f"Check the weather for stop {n} of the trip.", session=compacted
            )
        everything = await raw.get_items()
        served = await compacted.get_items()
        assert len(everything) == 16 * 4
        assert len(served) < len(everything)
        assert paired(served)
        session = await compacted.current()
        rendered = await session.render(budget, keep_groups=2)
        assert rendered.manifest.tokens["total"] <= budget.usable
        assert rendered.manifest.summary_version is not None
        assert (await store.verify("acme")).ok


async def test_one_line_open_and_the_sdk_session_conventions(tmp_path: Path) -> None:
    """``LedgerSession.open(id, path)`` as ``SQLiteSession(id, path)``; ``session_settings``
    defaults to the SDK's ``SessionSettings()`` and its limit is what ``get_items()`` gives."""
    from agents.memory.session_settings import SessionSettings

    path = tmp_path / "conversations.db"
    async with LedgerSession.open("trip", path, tenant_id="acme") as session:
        assert session.session_settings == SessionSettings()
        agent = Agent(name="planner", model=ScriptedModel(), tools=[get_weather])
        await Runner.run(agent, "Plan a trip to Hangzhou.", session=session)
        everything = await session.get_items()
    limited = LedgerSession.open("trip", path, tenant_id="acme", session_settings={"limit": 2})
    try:
        assert limited.session_settings == SessionSettings(limit=2)
        assert await limited.get_items() == everything[-2:]  # the settings' limit
        assert await limited.get_items(limit=1) == everything[-1:]  # an explicit one wins
    finally:
        await limited.close()


async def test_close_leaves_a_store_it_was_given_open(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "shared.db") as store:
        async with LedgerSession("trip", Ledger(store), tenant_id="acme") as session:
            await session.add_items([{"role": "user", "content": "hi"}])
        assert len(await session.get_items()) == 1  # the caller's store is still open
