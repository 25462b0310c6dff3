"""Benchmark of ``ctxledger report``: time, file size and peak memory as sessions grow, against
the report as it was before it stored contexts by reference (every version's context rendered
and written out in full: the module from git at ``BASELINE_COMMIT``), in the same run.

    python -m tests.benchmarks.bench_report            # sessions of 2,000 and 20,000 messages
    python -m tests.benchmarks.bench_report --quick    # 500 and 2,000 (a smoke run)

Each session is the context benchmark's conversation (chat, tool calls and their results)
appended in batches, with a model call recorded after each batch (its manifest included), a
compaction whenever the context passes the trigger (offline summarizer, so summaries, masks
and the chain are real) and a pin every 5,000 messages. The report runs through the real
console script in a child process (``/usr/bin/time`` style figures from ``resource``), so
start-up is included. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import types
from pathlib import Path
from typing import Any

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.tokens import TiktokenCounter
from projections.ledger import Ledger
from tests.benchmarks.bench_context import conversation

BUDGET = Budget(context_limit=16_000, max_output_tokens=2_000)
TENANT, SESSION = "bench", "report"


async def build_session(path: Path, count: int, *, batch: int = 100, compact_every: int = 1) -> int:
    """A session of ``count`` messages with model calls, compactions (tried after every
    ``compact_every`` batches) and pins (see above); returns its number of events."""
    async with EventStore.open(path) as store:
        session = Ledger(store, counter=TiktokenCounter()).session(TENANT, SESSION)
        messages = conversation(count)
        for start in range(0, count, batch):
            await session.append(messages[start : start + batch])
            if start % 5000 == 0:
                await session.pin([messages[start].id], reason="benchmark pin")
            rendered = await session.render(BUDGET)
            await session.record_model_call(
                manifest=rendered.manifest.model_dump(mode="json"),
                input_tokens=rendered.manifest.tokens["total"],
                output_tokens=40,
                model="bench-model",
            )
            due = (start // batch) % compact_every == compact_every - 1
            if due and rendered.manifest.tokens["total"] > BUDGET.trigger:
                await session.compact(BUDGET)
        return (await store.stream_head(TENANT, f"session/{SESSION}")).version


def run_report(path: Path, output: Path) -> dict[str, Any]:
    """``ctxledger report`` in a child process: wall time, bytes written, peak RSS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    began = time.perf_counter()
    script = Path(sys.executable).with_name("ctxledger")
    command = [str(script), "--db", str(path), "report"]
    command += ["--tenant", TENANT, "--session", SESSION, "-o", str(output), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "seconds": seconds,
        "bytes": json.loads(done.stdout)["bytes"],
        # ru_maxrss of children is the largest child so far: a lower bound when it did not grow
        "peak_mb": max(peak, before) / 1024,
    }


# The report module as it was before contexts were stored by reference, for the baseline.
BASELINE_COMMIT = "fb0f4a2"


def baseline_module() -> Any:
    """The old ``projections/reports/report.py`` from git, imported under another name."""
    source = subprocess.run(
        ["git", "show", f"{BASELINE_COMMIT}:projections/reports/report.py"],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout
    module = types.ModuleType("old_report")
    exec(compile(source, "old_report.py", "exec"), module.__dict__)  # our own file, from git
    return module


async def old_report(path: Path) -> dict[str, Any]:
    """The old report over the same session, timed in this process (peak Python memory by
    tracemalloc, which undercounts RSS)."""
    module = baseline_module()
    tracemalloc.start()
    began = time.perf_counter()
    async with EventStore.open(path) as store:
        page = await module.build_report(Ledger(store), TENANT, SESSION)
    seconds = time.perf_counter() - began
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"seconds": seconds, "bytes": len(page.encode()), "peak_mb": peak / 2**20}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="500 and 2,000 messages")
    parser.add_argument("--no-baseline", action="store_true", help="skip the old approach")
    arguments = parser.parse_args()
    sizes = [500, 2000] if arguments.quick else [2000, 20_000]
    print("| messages | events | report s | report MB | peak RSS MB | old report s | old MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            path = Path(folder) / f"report-{size}.db"
            events = asyncio.run(build_session(path, size))
            ours = run_report(path, Path(folder) / f"report-{size}.html")
            old = "–", "–"
            if not arguments.no_baseline:
                baseline = asyncio.run(old_report(path))
                old = f"{baseline['seconds']:.1f}", f"{baseline['bytes'] / 1e6:.1f}"
            print(
                f"| {size:,} | {events:,} | {ours['seconds']:.1f} | {ours['bytes'] / 1e6:.1f} "
                f"| {ours['peak_mb']:.0f} | {old[0]} | {old[1]} |"
            )


if __name__ == "__main__":
    main()
