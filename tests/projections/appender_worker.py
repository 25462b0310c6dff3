"""A process that appends turns to one session while others do too:
``python -m tests.projections.appender_worker URL NAME TURNS [STOP_FILE]``. Each turn is a
user message, a tool call with its result and a reply, appended atomically (a conflict is
retried: appends carry no expected version). With a stop file it appends until the file
exists (TURNS at most), so a test's figures do not hang on the machine's speed. Prints the
number of turns appended."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

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


def stopped(stop: Path | None) -> bool:
    """Whether the test has asked the appenders to stop (a file check: microseconds)."""
    return stop is not None and stop.exists()


async def main(url: str, name: str, turns: int, stop: Path | None) -> None:
    appended = 0
    async with EventStore.open(url) as store:
        session = Ledger(store).session("acme", "busy")
        while appended < turns and not stopped(stop):
            await session.append(turn(name, appended))
            appended += 1
            await asyncio.sleep(0.02)
    print(appended, flush=True)


if __name__ == "__main__":
    stop_file = Path(sys.argv[4]) if len(sys.argv) > 4 else None
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), stop_file))
