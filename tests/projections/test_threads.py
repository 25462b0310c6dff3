"""One store and one ledger shared by threads that each run their own event loop (the Agents
SDK's ``Runner.run_sync`` from several threads, a server's workers): nothing hangs, nothing
fails with "bound to a different event loop", every append lands once and the log verifies,
on every backend."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from agents import Agent, Runner

from eventstore import EventStore
from projections.context.budget import Budget
from projections.integrations.openai_agents import LedgerSession
from projections.ledger import Ledger
from tests.projections.integrations.fake_model import ScriptedModel, get_weather

THREADS = 4
TURNS = 8
BUDGET = Budget(context_limit=3000, max_output_tokens=500, tool_reserve=0, safety_margin=0)


def in_threads(work: object, count: int = THREADS, timeout: float = 120) -> list[str]:
    """Run ``work(n)`` (a coroutine function) in ``count`` threads, each with its own loop;
    the errors, as text."""
    errors: list[str] = []

    def run(n: int) -> None:
        try:
            asyncio.run(work(n))  # type: ignore[operator]
        except Exception as error:  # reported below: a thread's exception is otherwise lost
            errors.append(f"thread {n}: {type(error).__name__}: {error}")

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    return errors


def test_threads_with_their_own_loops_share_a_store(store_url: str) -> None:
    store = EventStore.open(store_url)
    ledger = Ledger(store)

    async def work(n: int) -> None:
        own, shared = ledger.session("acme", f"own-{n}"), ledger.session("acme", "shared")
        for turn in range(TURNS):
            text = f"thread {n} turn {turn}: order ZX{n}{turn:02d}"
            await own.append([{"role": "user", "content": text}])
            await shared.append([{"role": "user", "content": text}])
            await shared.render(BUDGET, keep_groups=2)
            await own.search("order", 2)

    assert in_threads(work) == []

    async def check() -> None:
        assert await store.tenant_position("acme") == 2 * THREADS * TURNS
        assert len((await ledger.session("acme", "shared").state()).messages) == THREADS * TURNS
        assert (await store.verify("acme")).ok
        await store.close()

    asyncio.run(check())


def test_runner_run_sync_from_several_threads(tmp_path: Path) -> None:
    session = LedgerSession.open("trip", tmp_path / "conversations.db", tenant_id="acme")
    agent = Agent(name="planner", model=ScriptedModel(), tools=[get_weather])
    results: list[str] = []

    async def work(n: int) -> None:
        # run_sync makes its own loop: called here from a thread that has none running.
        result = await asyncio.to_thread(Runner.run_sync, agent, f"Plan trip {n}.", session=session)
        results.append(str(result.final_output))

    assert in_threads(work) == []
    assert results == ["Noted."] * THREADS

    async def check() -> None:
        items = await session.get_items()
        assert sum("Plan trip" in str(item.get("content")) for item in items) == THREADS
        await session.close()

    asyncio.run(check())
