"""A process that appends turns to one session while others do too:
``python -m tests.projections.appender_worker URL NAME TURNS``. Each turn is a user message, a
tool call with its result and a reply, appended atomically (a conflict is retried: appends
carry no expected version). Prints the number of turns appended."""

from __future__ import annotations

import asyncio
import json
import sys

from eventstore import EventStore
from projections.ledger import Ledger


def turn(name: str, n: int) -> list[dict[str, object]]:
    call = {"id": f"{name}-c{n}", "name": "lookup", "arguments": json.dumps({"n": n})}
    result = {"order": f"{name.upper()}-{n:04d}", "status": "confirmed", "note": "ok " * 40}
    return [
        {"id": f"{name}-u{n}", "role": "user", "content": f"{name}: check order {n} please"},
        {"id": f"{name}-a{n}", "role": "assistant", "tool_calls": [call]},
        {"id": f"{name}-t{n}", "role": "tool", "tool_call_id": call["id"],
         "content": json.dumps(result)},
        {"id": f"{name}-r{n}", "role": "assistant", "content": f"Order {n} is confirmed."},
    ]  # fmt: skip


async def main(url: str, name: str, turns: int) -> None:
    async with EventStore.open(url) as store:
        session = Ledger(store).session("acme", "busy")
        for n in range(turns):
            await session.append(turn(name, n))
            await asyncio.sleep(0.02)
    print(turns, flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
