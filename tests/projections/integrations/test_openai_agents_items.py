"""The Agents SDK with a reasoning model, hosted tools, ``EncryptedSession`` on top and usage
recorded: the real ``Runner``, no network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents import Agent, Runner
from agents.extensions.memory.encrypt_session import EncryptedSession
from cryptography.fernet import Fernet

from eventstore import EventStore
from projections.integrations.openai_agents import LedgerSession
from projections.ledger import Ledger
from projections.reports.stats import tenant_stats
from tests.projections.integrations.fake_model import get_weather
from tests.projections.integrations.reasoning_model import ReasoningModel
from tests.projections.test_cli import ctxledger


def _types(items: list[Any]) -> list[str]:
    return [i.get("type", "message") for i in items]


async def test_reasoning_and_hosted_tool_items_are_kept_and_passed_back(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    async with EventStore.open(db) as store:
        session = LedgerSession("user-42", Ledger(store), tenant_id="acme")
        model = ReasoningModel()
        agent = Agent(name="planner", model=model, tools=[get_weather])
        hooks = session.usage_hooks()
        first = await Runner.run(
            agent, "What is the weather on Saturday?", session=session, hooks=hooks
        )
        assert first.final_output == "Forecast: sunny."
        stored = await session.get_items()
        assert _types(stored) == [
            "message", "reasoning", "web_search_call", "function_call", "function_call_output",
            "reasoning", "message",
        ]  # fmt: skip
        second = await Runner.run(agent, "Thanks!", session=session, hooks=hooks)
        assert second.final_output == "Noted."
        fed_back = model.inputs[-1][: len(stored)]
        assert [_plain(i) for i in fed_back] == [_plain(i) for i in stored]
        assert (await store.verify("acme")).ok
        stats = await tenant_stats(Ledger(store), "acme")
    assert stats.totals["model_calls"] == 3
    assert stats.totals["sent_tokens"] == 100 + 200 + 300  # as the SDK reported them
    shown = ctxledger("context", "--tenant", "acme", "--session", "user-42", "--json", db=db)
    assert shown.returncode == 0, shown.stderr
    assert "Forecast: sunny." in shown.stdout


async def test_encrypted_session_on_top(tmp_path: Path) -> None:
    key = Fernet.generate_key().decode("ascii")
    async with EventStore.open(tmp_path / "ledger.db") as store:
        underlying = LedgerSession("secret", Ledger(store), tenant_id="acme")
        session = EncryptedSession("secret", underlying, encryption_key=key, ttl=3600)
        agent = Agent(name="planner", model=ReasoningModel(), tools=[get_weather])
        result = await Runner.run(agent, "What is the weather on Saturday?", session=session)
        assert result.final_output == "Forecast: sunny."
        decrypted = await session.get_items()
        assert _types(decrypted)[:3] == ["message", "reasoning", "web_search_call"]
        raw = await underlying.get_items()
        assert all("__enc__" in item for item in raw)  # ctxledger stored the envelopes whole
        assert "Saturday" not in json.dumps(raw)
        assert (await store.verify("acme")).ok


def _plain(item: Any) -> dict[str, Any]:
    data = item if isinstance(item, dict) else item.model_dump(exclude_unset=True)
    return json.loads(json.dumps(data, sort_keys=True, default=str))


async def test_streaming_run_is_stored_like_a_plain_one(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        session = LedgerSession("streamed", Ledger(store), tenant_id="acme")
        agent = Agent(name="planner", model=ReasoningModel(), tools=[get_weather])
        result = Runner.run_streamed(agent, "What is the weather on Saturday?", session=session)
        async for _ in result.stream_events():
            pass
        assert result.final_output == "Forecast: sunny."
        assert _types(await session.get_items())[:4] == [
            "message", "reasoning", "web_search_call", "function_call",
        ]  # fmt: skip
        assert (await store.verify("acme")).ok


async def test_an_approval_interrupt_resumes_on_the_ledger(tmp_path: Path) -> None:
    from agents import function_tool

    @function_tool(needs_approval=True)
    def get_weather(city: str, day: str) -> str:
        """The weather forecast of a city on a day (needs a human's approval)."""
        return json.dumps({"city": city, "day": day, "sky": "sunny"})

    async with EventStore.open(tmp_path / "ledger.db") as store:
        session = LedgerSession("approve", Ledger(store), tenant_id="acme")
        agent = Agent(name="planner", model=ReasoningModel(), tools=[get_weather])
        paused = await Runner.run(agent, "What is the weather on Saturday?", session=session)
        assert paused.interruptions
        state = paused.to_state()
        for interruption in paused.interruptions:
            state.approve(interruption)
        resumed = await Runner.run(agent, state, session=session)
        assert resumed.final_output == "Forecast: sunny."
        items = await session.get_items()
        calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
        outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
        assert calls == outputs == ["call_1"]
        assert (await store.verify("acme")).ok
