"""Benchmark of the memory a ledger holds for cached sessions: resident memory with 100
sessions of 10,000 messages each rendered once, under the default byte bounds of the session
indexes (``cached_bytes``) and the bodies (``body_cache_bytes``), and under a smaller one.

    python -m tests.benchmarks.bench_memory            # 100 sessions of 10,000 messages
    python -m tests.benchmarks.bench_memory --quick    # 10 sessions of 1,000 (a smoke run)

The sessions are the context benchmark's conversation (1-2 KB chat messages, tool calls and
their results), written with ``Session.append_events`` (the messages are counted once and the
same ``MessageAppended`` events go to every session). Each measurement runs in a fresh child
process: it opens the file, renders every session once (so each index is loaded and cached,
or evicted by the byte bound) and reports its resident set (``VmRSS``) against the same
process before the first render, beside what the ledger estimates it holds. Nothing here
asserts a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import gc
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.tokens import TiktokenCounter
from projections.ledger import Ledger
from projections.session.events import MessageAppended
from tests.benchmarks.bench_context import conversation
from tests.conftest import ROOT

BUDGET = Budget(context_limit=128_000, max_output_tokens=4_000)
TENANT = "bench"


def resident_mb() -> float:
    """This process's resident set in MB (Linux ``/proc``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status (Linux only)")


async def build(path: Path, sessions: int, messages: int) -> float:
    """``sessions`` sessions of ``messages`` messages; returns the seconds it took."""
    counter = TiktokenCounter()
    events = [
        MessageAppended(
            message=m, tokens=counter.count_message(m), encoding=counter.encoding_name, flags=[]
        )
        for m in conversation(messages)
    ]
    began = time.perf_counter()
    async with EventStore.open(path) as store:
        ledger = Ledger(store, counter=counter, cached_sessions=1)
        for index in range(sessions):
            session = ledger.session(TENANT, f"s{index}")
            for start in range(0, messages, 1000):
                await session.append_events(events[start : start + 1000])
    return time.perf_counter() - began


async def measure(path: Path, sessions: int, cached_mb: int) -> dict[str, float]:
    """Render every session once with the indexes bounded to ``cached_mb`` (and the default
    body cache): the resident set grown, and what the ledger says it holds."""
    async with EventStore.open(path) as store:
        ledger = Ledger(store, counter=TiktokenCounter(), cached_bytes=cached_mb * 2**20)
        await ledger.session(TENANT, "s0").render(BUDGET)  # imports and the tokenizer loaded
        before = resident_mb()
        began = time.perf_counter()
        for index in range(sessions):
            await ledger.session(TENANT, f"s{index}").render(BUDGET)
        seconds = time.perf_counter() - began
        after = resident_mb()
        gc.collect()
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # what the allocator kept but nothing uses
        return {
            "before": before,
            "after": after,
            "trimmed": resident_mb(),
            "seconds": seconds,
            "held": len(ledger.sessions.cached_keys()),
            "index_mb": ledger.sessions.cached_bytes() / 2**20,
            "bodies_mb": ledger.bodies.bytes / 2**20,
            "bound_mb": cached_mb + ledger.bodies.max_bytes / 2**20,
        }


def child(path: Path, sessions: int, cached_mb: int) -> dict[str, float]:
    command = [sys.executable, "-m", "tests.benchmarks.bench_memory", "--measure", str(path)]
    command += ["--sessions", str(sessions), "--cached-mb", str(cached_mb)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 sessions of 1,000 messages")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--cached-mb", type=int, default=256, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure is not None:
        figures = asyncio.run(measure(arguments.measure, arguments.sessions, arguments.cached_mb))
        print(json.dumps(figures))
        return
    sessions, messages = (10, 1000) if arguments.quick else (arguments.sessions, arguments.messages)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "memory.db"
        seconds = asyncio.run(build(path, sessions, messages))
        size = path.stat().st_size / 2**20
        built = f"{sessions} sessions of {messages:,} messages"
        print(f"built {built} in {seconds:.0f} s ({size:,.0f} MB)")
        print("| index bound MB (cached_bytes) | sessions held | index MB (its estimate) "
              "| bodies MB | bound MB (index + bodies) | RSS grown MB | after malloc_trim MB "
              "| fold s |")  # fmt: skip
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        # The first run folds every session from the log and saves its snapshot; the others
        # start from those snapshots, as a restarted process does.
        for cached_mb in (256, 256, 16):
            figures = child(path, sessions, cached_mb)
            grown = figures["after"] - figures["before"]
            trimmed = figures["trimmed"] - figures["before"]
            print(
                f"| {cached_mb} | {figures['held']:.0f} | {figures['index_mb']:.1f} "
                f"| {figures['bodies_mb']:.1f} | {figures['bound_mb']:.0f} | {grown:.0f} "
                f"| {trimmed:.0f} | {figures['seconds']:.1f} |"
            )


if __name__ == "__main__":
    main()
