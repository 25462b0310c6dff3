"""200 turns through the Agents SDK's real Runner with ``CompactionSettings`` (a fake model, a
real SQLite file): at an 8k context and at a tiny budget the context served is never over the
usable budget without the caller being told, compaction commits, the tool protocol holds, and
nothing is lost from the log. Timings are the benchmark's business
(``tests/benchmarks/agents_session.py``), never asserted here."""

from __future__ import annotations

from pathlib import Path

import pytest
from agents import Runner

from eventstore import EventStore
from projections.context.budget import Budget
from projections.errors import ConfigurationError, ContextOverBudgetError
from projections.integrations.openai_agents import CompactionSettings, LedgerSession
from projections.ledger import Ledger
from tests.projections.integrations.test_openai_agents import paired
from tests.projections.integrations.travel_agent import TimedSession, play, travel_agent, user_turn

TURNS = 200
EIGHT_K = Budget(context_limit=8192, max_output_tokens=1024)  # usable 5,668
TINY = Budget(context_limit=1600, max_output_tokens=200, tool_reserve=300, safety_margin=100)
TOO_SMALL = Budget(context_limit=700, max_output_tokens=200, tool_reserve=0, safety_margin=100)


@pytest.mark.parametrize("budget", [EIGHT_K, TINY], ids=["8k", "tiny"])
async def test_two_hundred_turns_hold_the_budget(tmp_path: Path, budget: Budget) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        session = TimedSession(
            "long", Ledger(store), tenant_id="acme", compaction=CompactionSettings(budget=budget)
        )
        await play(session, TURNS)
        turns = session.turns
        assert len(turns) == TURNS  # one get_items per Runner.run
        assert all(t.tokens <= budget.usable for t in turns)
        assert not any(t.warned for t in turns)  # never over usable: nothing to tell
        results = [t.compaction for t in turns if t.compaction]
        attempts = [r for r in results if r in ("committed", "rejected")]
        assert attempts
        assert attempts.count("committed") >= 0.9 * len(attempts)
        # compaction is not re-run on every turn: most turns serve the context as it is
        assert results.count("not_needed") + results.count("backoff") < TURNS // 2
        state = await (await session.current()).state()
        assert state.masks  # the ladder's first step ran
        served = await session.get_items()
        assert paired(served)
        assert served[0]["role"] == "user"  # the summary block, never a system message
        assert "<compaction_summary trust='untrusted' schema='v2'" in str(served[0]["content"])
        raw = LedgerSession("long", Ledger(store), tenant_id="acme")
        everything = await raw.get_items()
        assert len(everything) >= 2 * TURNS  # the log keeps every item (a user turn, a reply)
        assert (await store.verify("acme")).ok


async def test_the_caller_is_told_when_the_last_turn_alone_is_over(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        session = TimedSession(
            "warn", Ledger(store), tenant_id="acme", compaction=CompactionSettings(budget=TOO_SMALL)
        )
        await play(session, 40)  # turn 24 asks for a 700-token itinerary
        over = [t for t in session.turns if t.tokens > TOO_SMALL.usable]
        assert over
        assert all(t.warned for t in over)  # every one of them, with the figures and why
        assert all("over the usable budget of 400" in t.warned[0] for t in over)
        assert not any(t.warned for t in session.turns if t.tokens <= TOO_SMALL.usable)
        assert session.last_manifest is not None


async def test_on_over_budget_raise_stops_the_run(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        settings = CompactionSettings(budget=TOO_SMALL, on_over_budget="raise")
        session = LedgerSession("raise", Ledger(store), tenant_id="acme", compaction=settings)
        agent = travel_agent()
        for n in range(25):  # turn 24 asks for the itinerary: the reply alone is over
            await Runner.run(agent, user_turn(n), session=session)
        with pytest.raises(ContextOverBudgetError) as raised:
            await Runner.run(agent, user_turn(25), session=session)
        assert raised.value.usable == TOO_SMALL.usable
        assert raised.value.tokens > TOO_SMALL.usable
        assert "even with only the newest turn kept" in raised.value.why
        assert (await store.verify("acme")).ok  # nothing half-written


async def test_on_over_budget_ignore_serves_silently(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        settings = CompactionSettings(budget=TOO_SMALL, on_over_budget="ignore")
        session = TimedSession("quiet", Ledger(store), tenant_id="acme", compaction=settings)
        await play(session, 30)
        assert any(t.tokens > TOO_SMALL.usable for t in session.turns)
        assert not any(t.warned for t in session.turns)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"summary_budget": 2000}, "does not fit the usable budget of 400"),
        ({"on_over_budget": "shout"}, "must be 'warn', 'raise' or 'ignore'"),
        ({"target": 1.5}, "target is a share of usable"),
        ({"keep_groups": 0}, "keep_groups must be at least 1"),
    ],
)
def test_settings_that_cannot_work_are_refused(options: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigurationError, match=message):
        CompactionSettings(budget=TOO_SMALL, **options)
