"""What verify-on-read costs: cold opens, warm renders and time travel with the store's read
check on and off, on the same database in the same run.

    python -m tests.benchmarks.bench_read_check             # sessions of 10k and 100k messages
    python -m tests.benchmarks.bench_read_check --quick     # a smoke run (also run by the tests)

Each cold open is the first render of the session by a fresh ledger; a raw BLAKE3 pass over
the same events (payload commitment and event hash only) is timed beside it as the floor.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from eventstore import EventStore
from eventstore.envelope_checks import commitment_problem
from projections.context.tokens import TiktokenCounter
from projections.ledger import Ledger
from tests.benchmarks.bench_context import (
    BUDGET,
    cold_open,
    conversation,
    ingest,
    time_travel,
    warm_renders,
)


async def hash_pass(store: EventStore, tenant: str) -> float:
    """Recompute every payload commitment and event hash of the tenant (the floor)."""
    events = await store.recorder.read_log(tenant, 0, 10_000_000)
    began = time.perf_counter()
    assert not any(commitment_problem(event) for event in events)
    return time.perf_counter() - began


async def measure(path: Path, session: str, verify_reads: bool, turns: int) -> dict[str, float]:
    size = int(session.split("-")[0])
    async with EventStore.open(path, verify_reads=verify_reads) as store:
        colds = [await cold_open(store, session) for _ in range(3)]
        ledger = Ledger(store)
        await ledger.session("bench", session).render(BUDGET)
        warm = await warm_renders(ledger, session, turns)
        travel = await time_travel(ledger, session, size, 10)
    return {
        "cold_open_ms": statistics.median(colds) * 1e3,
        "warm_render_p50_ms": statistics.median(warm) * 1e3,
        "time_travel_p50_ms": statistics.median(travel) * 1e3,
    }


async def run(sizes: list[int], turns: int) -> dict[str, Any]:
    TiktokenCounter()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="ctxledger-bench-") as name:
        path = Path(name) / "ledger.db"
        for size in sizes:
            async with EventStore.open(path) as store:
                messages = conversation(size)
                for copy in ("off", "on"):  # the same conversation twice: one per mode
                    await ingest(store, f"{size}-{copy}", messages)
            off = await measure(path, f"{size}-off", False, turns)
            on = await measure(path, f"{size}-on", True, turns)
            async with EventStore.open(path) as store:
                floor = await hash_pass(store, "bench")
            results[size] = {"off": off, "on": on, "hash_pass_ms": floor * 1e3}
    return results


def report(results: dict[str, Any]) -> str:
    lines = [f"{'messages':>9} {'measure':>20} {'off (ms)':>10} {'on (ms)':>10} {'on/off':>7}"]
    for size, r in results.items():
        for key in ("cold_open_ms", "warm_render_p50_ms", "time_travel_p50_ms"):
            off, on = r["off"][key], r["on"][key]
            lines.append(f"{size:>9} {key[:-3]:>20} {off:10.2f} {on:10.2f} {on / off:7.2f}")
        lines.append(f"{size:>9} {'all hashes, raw':>20} {r['hash_pass_ms']:10.1f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.turns = "500", 3
    print(report(asyncio.run(run([int(s) for s in args.sizes.split(",")], args.turns))))


if __name__ == "__main__":
    main()
