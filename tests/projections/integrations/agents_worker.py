"""A separate process that resumes an Agents SDK session from the ledger and runs one more turn:
``python -m tests.projections.integrations.agents_worker DB``."""

from __future__ import annotations

import asyncio
import json
import sys

from agents import Agent, Runner

from eventstore import EventStore
from projections.integrations.openai_agents import LedgerSession
from projections.ledger import Ledger
from tests.projections.integrations.fake_model import ScriptedModel, get_weather


async def main(database: str) -> None:
    async with EventStore.open(database) as store:
        session = LedgerSession("trip", Ledger(store), tenant_id="acme")
        before = len(await session.get_items())
        agent = Agent(name="planner", model=ScriptedModel(), tools=[get_weather])
        result = await Runner.run(agent, "And the weather on Sunday?", session=session)
        print(json.dumps({"resumed_with": before, "final": result.final_output}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
