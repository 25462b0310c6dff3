"""An erasure in the middle of an Agents SDK conversation (the SDK's real Runner, a fake model,
a real SQLite file): the summaries that quoted the erased message go with it, and over the next
ten turns under a small budget every summary the summarizer is paid for is served, the context
stays within the usable budget and the erased text is never served again."""

from __future__ import annotations

import json
from pathlib import Path

from agents import Runner

from eventstore import EventStore
from projections.context.budget import Budget
from projections.integrations.openai_agents import CompactionSettings
from projections.ledger import Ledger
from projections.summaries.offline_v2 import OfflineSummarizer
from projections.summaries.summarizer import SummaryRequest, SummaryResult
from tests.projections.integrations.travel_agent import TimedSession, travel_agent, user_turn

TINY = Budget(context_limit=1600, max_output_tokens=200, tool_reserve=300, safety_margin=100)
MARKER = "Zebraquokka4417"
# past the fake model's ten-word echo, so only this message holds the marker
PRIVATE = f"Please remember one more thing about my seat preference for later: near {MARKER}"


class CountingSummarizer(OfflineSummarizer):
    """The offline summarizer, counting its calls (each would be a paid model call)."""

    def __init__(self) -> None:
        self.calls = 0

    async def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.calls += 1
        return await super().summarize(request)


async def test_summaries_after_an_erasure_are_served_and_none_is_wasted(tmp_path: Path) -> None:
    summarizer = CountingSummarizer()
    settings = CompactionSettings(budget=TINY, summarizer=summarizer)
    async with EventStore.open(tmp_path / "ledger.db") as store:
        ledger = Ledger(store)
        session = TimedSession("trip", ledger, tenant_id="acme", compaction=settings)
        agent = travel_agent()
        for n in range(28):
            await Runner.run(agent, PRIVATE if n == 3 else user_turn(n), session=session)
        stream = (await session.current()).stream_id
        events = await store.read_stream("acme", stream)
        holding = [e for e in events if MARKER in json.dumps(e.data or {})]
        (private,) = [e for e in holding if e.type == "MessageAppended"]
        assert len(holding) > 1  # summaries quoted it
        receipt = await ledger.erase("acme", [str(private.event_id)], reason="r", requested_by="u")
        assert "SummaryCommitted" in {d.type for d in receipt.derived}

        summarizer.calls, before = 0, len(session.turns)
        for n in range(28, 38):
            await Runner.run(agent, user_turn(n), session=session)
        after = session.turns[before:]
        results = [t.compaction for t in after if t.compaction]
        assert "committed" in results, results
        assert "unserved" not in results
        # every paid summary is served: calls == summaries committed and served
        assert summarizer.calls == results.count("committed") + results.count("partial")
        assert all(t.tokens <= TINY.usable for t in after)
        served = await session.get_items()
        assert MARKER not in json.dumps(served)
        assert session.last_manifest is not None
        assert session.last_manifest.summary_version
        everything = await store.read_stream("acme", stream)
        assert MARKER not in json.dumps([e.data for e in everything])
        assert (await store.verify("acme")).ok
