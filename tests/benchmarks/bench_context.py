"""Benchmark of the context path: warm renders as sessions grow, time travel, bulk ingest.

    python -m tests.benchmarks.bench_context            # sessions of 1k, 10k and 100k messages
    python -m tests.benchmarks.bench_context --quick    # a smoke run

Warm render: the session's state is cached; each measured render follows the append of one
message (not timed), as on an agent's turn. Time travel: renders at random earlier versions,
cut out of the same cached state. Cold open: the first render by a fresh ledger (a new
process), which folds the whole log. Bulk ingest: ``Session.append`` in batches of 500
(token counting, canonical JSON, hashing, the log) against a raw sqlite3 batch insert doing
the same token counting and hashing, in the same run. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from blake3 import blake3

from eventstore import EventStore
from eventstore.encoding import canonical_json
from projections.context.budget import Budget
from projections.context.messages import Message
from projections.context.tokens import TiktokenCounter
from projections.ledger import Ledger
from tests.benchmarks.payloads import make_messages, percentile

BUDGET = Budget(context_limit=128_000, max_output_tokens=4_000)
BATCH = 500


def conversation(count: int) -> list[Message]:
    """A system prompt, then chat messages with tool calls and their results."""
    texts = make_messages(min(count, 2000))
    messages = [Message(id="m0", role="system", content="You plan train trips.")]
    index = 1
    while len(messages) < count:
        source = texts[index % len(texts)]
        if "tool_calls" in source and len(messages) < count - 1:
            call = source["tool_calls"][0]
            messages.append(
                Message(
                    id=f"m{index}",
                    role="assistant",
                    tool_calls=[
                        {
                            "id": f"call_{index}",
                            "name": call["function"]["name"],
                            "arguments": call["function"]["arguments"],
                        }
                    ],
                )
            )
            messages.append(
                Message(
                    id=f"m{index}r",
                    role="tool",
                    tool_call_id=f"call_{index}",
                    content=source["content"][:400],
                )
            )
        else:
            messages.append(Message(id=f"m{index}", role=source["role"], content=source["content"]))
        index += 1
    return messages[:count]


async def ingest(store: EventStore, session_id: str, messages: list[Message]) -> float:
    session = Ledger(store, counter=TiktokenCounter()).session("bench", session_id)
    began = time.perf_counter()
    for start in range(0, len(messages), BATCH):
        await session.append(messages[start : start + BATCH])
    return time.perf_counter() - began


def raw_ingest(path: Path, messages: list[Message]) -> float:
    counter = TiktokenCounter()
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE raw (id INTEGER PRIMARY KEY, data BLOB, hash BLOB)")
    began = time.perf_counter()
    for start in range(0, len(messages), BATCH):
        rows = []
        for message in messages[start : start + BATCH]:
            data = canonical_json(
                {
                    "message": message.model_dump(mode="json"),
                    "tokens": counter.count_message(message),
                }
            )
            rows.append((data, blake3(data).digest()))
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany("INSERT INTO raw (data, hash) VALUES (?, ?)", rows)
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - began
    connection.close()
    return elapsed


async def warm_renders(ledger: Ledger, session_id: str, turns: int) -> list[float]:
    session = ledger.session("bench", session_id)
    samples = []
    for turn in range(turns):
        await session.append([Message(id=f"turn{turn}", role="user", content=f"turn {turn}")])
        began = time.perf_counter()
        await session.render(BUDGET)
        samples.append(time.perf_counter() - began)
    return samples


async def time_travel(
    ledger: Ledger,
    session_id: str,
    count: int,
    probes: int,
    *,
    tenant: str = "bench",
    budget: Budget = BUDGET,
) -> list[float]:
    """Renders at ``probes`` random versions up to ``count`` (the same versions every run)."""
    session = ledger.session(tenant, session_id)
    rng = random.Random(7)
    samples = []
    for _ in range(probes):
        version = rng.randint(1, count)
        began = time.perf_counter()
        await session.render(budget, at_version=version)
        samples.append(time.perf_counter() - began)
    return samples


async def cold_open(store: EventStore, session_id: str) -> float:
    """The first render of a session by a fresh ledger (a new process): folds the log."""
    began = time.perf_counter()
    await Ledger(store).session("bench", session_id).render(BUDGET)
    return time.perf_counter() - began


async def run(sizes: list[int], turns: int, probes: int) -> dict[str, Any]:
    results: dict[str, Any] = {"sizes": {}}
    TiktokenCounter()  # load the BPE ranks before anything is timed
    with tempfile.TemporaryDirectory(prefix="ctxledger-bench-") as name:
        folder = Path(name)
        async with EventStore.open(folder / "ledger.db") as store:
            for size in sizes:
                messages = conversation(size)
                ingest_s = await ingest(store, f"s{size}", messages)
                raw_s = raw_ingest(folder / f"raw{size}.db", messages)
                cold_s = await cold_open(store, f"s{size}")
                ledger = Ledger(store)
                await ledger.session("bench", f"s{size}").render(BUDGET)  # warm the cache
                warm = await warm_renders(ledger, f"s{size}", turns)
                travel = await time_travel(ledger, f"s{size}", size, probes)
                results["sizes"][size] = {
                    "ingest_messages_per_s": size / ingest_s,
                    "raw_ingest_messages_per_s": size / raw_s,
                    "ingest_ratio": raw_s / ingest_s,
                    "warm_render_p50_ms": statistics.median(warm) * 1e3,
                    "warm_render_p95_ms": percentile(warm, 0.95) * 1e3,
                    "time_travel_p50_ms": statistics.median(travel) * 1e3,
                    "time_travel_p95_ms": percentile(travel, 0.95) * 1e3,
                    "cold_open_ms": cold_s * 1e3,
                }
    first, last = results["sizes"][sizes[0]], results["sizes"][sizes[-1]]
    results["warm_growth"] = last["warm_render_p50_ms"] / first["warm_render_p50_ms"]
    results["time_travel_vs_warm"] = last["time_travel_p50_ms"] / last["warm_render_p50_ms"]
    return results


def report(results: dict[str, Any]) -> str:
    lines = [
        f"{'messages':>9} {'ingest/s':>9} {'raw/s':>9} {'ratio':>6} {'warm p50':>9} "
        f"{'warm p95':>9} {'travel p50':>11} {'travel p95':>11}  (ms)"
    ]
    for size, r in results["sizes"].items():
        lines.append(
            f"{size:>9} {r['ingest_messages_per_s']:9.0f} {r['raw_ingest_messages_per_s']:9.0f} "
            f"{r['ingest_ratio']:6.2f} {r['warm_render_p50_ms']:9.2f} "
            f"{r['warm_render_p95_ms']:9.2f} {r['time_travel_p50_ms']:11.1f} "
            f"{r['time_travel_p95_ms']:11.1f} {r['cold_open_ms']:10.0f}"
        )
    sizes = list(results["sizes"])
    lines += [
        f"warm render p50, {sizes[-1]} / {sizes[0]} messages: {results['warm_growth']:.2f}x "
        f"(target <= 1.3)",
        f"time travel p50 / warm render p50 at {sizes[-1]}: {results['time_travel_vs_warm']:.1f}x"
        f" (target <= 10)",
        f"bulk ingest vs raw sqlite3 with the same counting and hashing, at {sizes[-1]}: "
        f"{results['sizes'][sizes[-1]]['ingest_ratio']:.2f}x (target >= 0.5)",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--probes", type=int, default=30)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.turns, args.probes = "200,1000", 5, 3
    sizes = [int(size) for size in args.sizes.split(",")]
    results = asyncio.run(run(sizes, args.turns, args.probes))
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
