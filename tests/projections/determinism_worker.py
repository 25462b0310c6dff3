"""Ingest one conversation into a fresh database, compact it as it grows, and print what the
model would read: ``python -m tests.projections.determinism_worker DB``. Run under different
``PYTHONHASHSEED`` values, the output must be byte-identical (test_determinism.py).

Half the messages carry no id, so each database gives them random ones (uuid7), and every
event has a random id and its own timestamp: none of that may reach the output.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from eventstore import EventStore
from projections.context.budget import Budget
from projections.ledger import Ledger

BUDGET = Budget(context_limit=900, max_output_tokens=0, tool_reserve=0, safety_margin=0)
CITIES = ["Hangzhou", "Suzhou", "Nanjing", "Ningbo", "Wuxi", "Shaoxing"]


def turn(n: int) -> list[dict[str, Any]]:
    """One turn: the user asks, a tool answers with a large JSON result, the agent replies."""
    city = CITIES[n % len(CITIES)]
    result = {
        "reservation_id": f"RX{n:04d}Q",
        "city": city,
        "date": f"2024-05-{8 + n:02d}",
        "price": {"amount": 180 + 7 * n, "currency": "CNY"},
        "seats": [{"seat": f"{r}{c}", "free": (r + n) % 3 == 0} for r in range(1, 5) for c in "AB"],
        "notes": f"The train to {city} leaves from platform {n % 9 + 1}; " * 4,
    }
    call = {"id": f"call_{n}", "name": "search_trains", "arguments": json.dumps({"to": city})}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": f"Book me a train to {city} on the {8 + n}th, under 300 yuan."},
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"call_{n}", "content": json.dumps(result)},
        {"role": "assistant", "content": f"I found RX{n:04d}Q to {city} for {180 + 7 * n} CNY."},
    ]
    if n % 2 == 0:  # the other half get random ids from the ledger
        for k, message in enumerate(messages):
            message["id"] = f"m{n}_{k}"
    return messages


async def play(database: str) -> dict[str, Any]:
    async with EventStore.open(database) as store:
        session = Ledger(store).session("acme", "trip")
        await session.append([{"role": "system", "content": "You book trains in China."}])
        outcomes = []
        for n in range(18):
            await session.append(turn(n))
            outcome = await session.compact(BUDGET, keep_groups=2)
            outcomes.append([outcome.result, outcome.summary_version, outcome.masked])
        state = await session.state()
        summaries = [
            committed.summary.model_dump(mode="json", exclude={"created_at", "coverage"})
            | {"covers": committed.summary.coverage.ranges}  # type: ignore[union-attr]
            for committed in sorted(state.chain.committed.values(), key=lambda c: c.version)
        ]
        renders = {}
        for fmt in ("openai", "responses", "anthropic"):
            rendered = await session.render(BUDGET, keep_groups=2, fmt=fmt)
            manifest = rendered.manifest
            renders[fmt] = {
                "wire": rendered.wire,
                "request_hash": manifest.request_hash,
                "tokens": manifest.tokens,
                "sections": manifest.sections,
                "summary_version": manifest.summary_version,
            }
    return {"outcomes": outcomes, "summaries": summaries, "renders": renders}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(play(sys.argv[1])), sort_keys=True, ensure_ascii=False))
