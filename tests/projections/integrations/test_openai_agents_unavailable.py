"""A summarizer service that is down is not called on every turn: after ``unavailable``,
``get_items`` serves the window and rests for ``retry_unavailable_after`` seconds. Driven by
the SDK's real ``Runner``."""

from __future__ import annotations

from pathlib import Path

import pytest
from agents import Agent, Runner

from eventstore import EventStore
from projections.context.budget import Budget
from projections.errors import ConfigurationError, SummarizerUnavailableError
from projections.integrations.openai_agents import CompactionSettings, LedgerSession
from projections.ledger import Ledger
from projections.summaries.summarizer import SummaryRequest
from tests.projections.integrations.fake_model import ScriptedModel, get_weather

BUDGET = Budget(context_limit=400, max_output_tokens=0, tool_reserve=0, safety_margin=0)
TURNS = 7
LONG = "Plan a trip to Hangzhou with a long list of wishes: " + "a quiet hotel, " * 30


class DownService:
    """A summarizer whose server refuses every call, counting them."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, request: SummaryRequest) -> object:
        self.calls += 1
        raise SummarizerUnavailableError("connection refused (the test's service is down)")


async def _turns(path: Path, settings: CompactionSettings, turns: int) -> LedgerSession:
    async with EventStore.open(path) as store:
        session = LedgerSession("trip", Ledger(store), tenant_id="acme", compaction=settings)
        agent = Agent(name="planner", model=ScriptedModel(), tools=[get_weather])
        for _ in range(turns):  # each turn leaves older ones out of the window: compaction due
            await Runner.run(agent, LONG, session=session)
    return session


async def test_an_unavailable_summarizer_rests_between_attempts(tmp_path: Path) -> None:
    down = DownService()
    settings = CompactionSettings(budget=BUDGET, keep_groups=1, summarizer=down)
    session = await _turns(tmp_path / "ledger.db", settings, TURNS)
    assert down.calls == 1  # tried once; the next due turns came within the 30 s rest
    assert session.last_compaction is None
    assert session.last_manifest is not None  # the window was served all along


async def test_no_rest_retries_on_every_call(tmp_path: Path) -> None:
    down = DownService()
    settings = CompactionSettings(
        budget=BUDGET, keep_groups=1, summarizer=down, retry_unavailable_after=0
    )
    session = await _turns(tmp_path / "ledger.db", settings, TURNS)
    assert down.calls >= 3  # the same turns, compaction due on several: tried on each
    assert session.last_compaction is not None
    assert session.last_compaction.result == "unavailable"


def test_a_negative_rest_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="retry_unavailable_after"):
        CompactionSettings(budget=BUDGET, retry_unavailable_after=-1)
