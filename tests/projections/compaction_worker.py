"""A process that starts a compaction and hangs inside the summarizer, to be killed:
``python -m tests.projections.compaction_worker DB``."""

from __future__ import annotations

import asyncio
import sys

from eventstore import EventStore
from projections.context.budget import Budget
from projections.ledger import Ledger
from projections.summaries.schema import CompactionSummary
from projections.summaries.summarizer import SummaryRequest

BUDGET = Budget(context_limit=700, max_output_tokens=0, tool_reserve=0, safety_margin=0)


async def hang(request: SummaryRequest) -> CompactionSummary:
    print("summarizing", flush=True)
    await asyncio.Event().wait()  # never returns: the parent kills this process here
    raise AssertionError("unreachable")


async def main(database: str) -> None:
    async with EventStore.open(database) as store:
        session = Ledger(store).session("acme", "trip")
        await session.compact(BUDGET, keep_groups=2, summarizer=hang)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
