"""Recall in the Agents SDK session, through the real ``Runner`` with a scripted model: the
run's input finds an old turn the window no longer holds; the block reaches the model before
the question, within the share ``get_items`` left free, and is never stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents import Agent, Runner

from eventstore import EventStore
from projections.context.budget import Budget
from projections.integrations.agents_recall import recall_room, window_budget
from projections.integrations.openai_agents import CompactionSettings, LedgerSession
from projections.ledger import Ledger
from projections.recall.search import RecallOptions
from tests.projections.integrations.fake_model import ScriptedModel, get_weather

BUDGET = Budget(context_limit=1400, max_output_tokens=100, tool_reserve=0, safety_margin=0)
RECALL = RecallOptions(share=0.3)


def _texts(items: list[Any]) -> list[str]:
    return [str(item.get("content", "")) for item in items if isinstance(item, dict)]


async def _long_trip(session: LedgerSession, agent: Agent[Any]) -> None:
    await Runner.run(agent, "Book me train G7311 to Hangzhou at 08:05.", session=session)
    for stop in range(14):  # each a tool call and its result: the first turn leaves the window
        await Runner.run(agent, f"Check the weather for stop {stop} of the trip.", session=session)


async def test_the_run_input_recalls_an_old_turn_never_stored(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        settings = CompactionSettings(budget=BUDGET, keep_groups=2, recall=RECALL)
        session = LedgerSession("trip", Ledger(store), tenant_id="acme", compaction=settings)
        model = ScriptedModel()
        agent = Agent(name="planner", model=model, tools=[get_weather])
        await _long_trip(session, agent)
        await session.get_items()
        first = (await (await session.current()).messages())[0]
        assert session.last_manifest is not None
        assert first.id not in session.last_manifest.message_ids, "still in the window"

        await Runner.run(
            agent, "Which train did I book?", session=session, run_config=session.run_config()
        )

        seen = model.inputs[-1]
        assert "Which train did I book?" in _texts(seen)[-1]
        block = next(text for text in _texts(seen) if "<recalled trust='untrusted'>" in text)
        assert "Book me train G7311 to Hangzhou at 08:05." in block  # the turn, verbatim
        assert session.last_recall is not None
        assert first.id in {entry["message_id"] for entry in session.last_recall.entries}
        assert 0 < session.last_recall.tokens <= recall_room(BUDGET, RECALL)
        assert session.last_manifest is not None
        window = window_budget(BUDGET, RECALL)
        assert session.last_manifest.tokens["total"] <= window.usable
        assert window.usable + recall_room(BUDGET, RECALL) <= BUDGET.usable
        # The block is what the model saw, not what the session holds.
        stored = await (await session.current()).messages()
        assert not any("<recalled" in str(message.content) for message in stored)
        assert (await store.verify("acme")).ok


async def test_without_the_filter_or_the_option_nothing_is_recalled(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        plain = LedgerSession(
            "trip",
            Ledger(store),
            tenant_id="acme",
            compaction=CompactionSettings(budget=BUDGET, keep_groups=2),
        )
        model = ScriptedModel()
        agent = Agent(name="planner", model=model, tools=[get_weather])
        await _long_trip(plain, agent)
        await Runner.run(agent, "Which train did I book?", session=plain)
        await Runner.run(
            agent, "Which train did I book?", session=plain, run_config=plain.run_config()
        )
        for seen in model.inputs[-2:]:
            assert not any("<recalled" in text for text in _texts(seen))
        assert plain.last_recall is None
