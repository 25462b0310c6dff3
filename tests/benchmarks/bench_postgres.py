"""PostgreSQL benchmark: 1, 4 and 8 concurrent writer processes of durable single appends.

    eval "$(.ci/start-postgres)"
    python -m tests.benchmarks.bench_postgres [--peer-python /path/to/python]

Each writer appends the benchmark's 1-2 KB chat messages, one event per append, to its own
stream; once with every writer in one tenant (each append takes that tenant's lock for a
gap-free position) and once with a tenant per writer (tenants never wait for each other).
Prints events/s and append p50/p95. With ``--peer-python`` (an interpreter that has
``eventsourcing[postgres]``), the same load runs through pyeventsourcing's application recorder
(one gap-free log) in the same run and the ratio is printed. The same load also runs through
bare asyncpg loops with no ctxledger code (``postgres_floors``: what this machine allows with and
without a gap-free order; ``--no-floors`` skips them). Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import asyncpg

from eventstore import EventStore, NewEvent
from eventstore.encoding import canonical_json
from tests.benchmarks.payloads import make_messages, percentile
from tests.benchmarks.postgres_floors import FLOORS, SETUP, append_once, check_positions
from tests.conftest import ROOT
from tests.eventstore.workers import wait_for_file
from tests.postgres import dsn, fresh_database, server_url

TENANT = "bench"


async def timed(appends: list[Callable[[], Awaitable[object]]], go_file: str) -> None:
    """Wait for the start signal, run the appends one after another, and print the figures."""
    await asyncio.to_thread(wait_for_file, go_file)
    latencies = []
    before = resource.getrusage(resource.RUSAGE_SELF)
    busy_started = busy_cpu_seconds()
    started = time.time()
    for append in appends:
        began = time.perf_counter()
        await append()
        latencies.append(time.perf_counter() - began)
    finished = time.time()
    busy_finished = busy_cpu_seconds()
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    figures = {"latencies": latencies, "started": started, "finished": finished, "cpu_s": cpu}
    print(json.dumps({**figures, "busy": [busy_started, busy_finished]}))


async def writer(
    url: str, index: int, count: int, go_file: str, tenant: str, protocol: str = "handoff"
) -> None:
    events = [NewEvent(type="MessageAppended", data=m) for m in make_messages(count, seed=index)]
    handoff = protocol == "handoff"
    async with EventStore.open(url, lock_timeout=120, lock_handoff=handoff) as store:
        await store.stream_head(tenant, f"writer/{index}")  # connect before the start signal
        await timed(
            [partial(store.append, tenant, f"writer/{index}", [event]) for event in events],
            go_file,
        )


async def floor_writer(url: str, index: int, count: int, go_file: str, mode: str) -> None:
    payloads = [canonical_json(m) for m in make_messages(count, seed=index)]
    db = await asyncpg.connect(dsn(url))
    try:
        await timed([partial(append_once, db, mode, data) for data in payloads], go_file)
    finally:
        await db.close()


def busy_cpu_seconds() -> float:
    """CPU time the whole machine spent busy so far (every process, the server's included)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def run_writers(commands: list[list[str]], go_file: Path) -> dict[str, Any]:
    processes = [
        subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for command in commands
    ]
    time.sleep(1.5)  # let every writer import and connect
    go_file.touch()
    results = []
    for process in processes:
        out, err = process.communicate(timeout=900)
        if process.returncode != 0:
            raise SystemExit(f"a writer failed:\n{err}")
        results.append(json.loads(out))
    # The machine's busy CPU from the first writer's start to the last writer's finish.
    busy = max(r["busy"][1] for r in results) - min(r["busy"][0] for r in results)
    latencies = [value for result in results for value in result["latencies"]]
    wall = max(r["finished"] for r in results) - min(r["started"] for r in results)
    events = len(latencies)
    return {
        "events": events,
        "events_per_s": events / wall,
        "p50_ms": statistics.median(latencies) * 1e3,
        "p95_ms": percentile(latencies, 0.95) * 1e3,
        "writer_cpu_us": sum(r["cpu_s"] for r in results) / events * 1e6,
        "machine_cpu_us": busy / events * 1e6,
    }


async def measure_ctxledger(
    writers: int, count: int, spread: bool, protocol: str = "handoff"
) -> dict[str, Any]:
    """``spread``: each writer in its own tenant; otherwise all in one tenant. ``protocol``:
    ``handoff`` (the default lock hand-off) or ``transaction`` (``lock_handoff=False``)."""
    tenants = [f"{TENANT}-{index}" if spread else TENANT for index in range(writers)]
    async with fresh_database() as url:
        async with EventStore.open(url) as store:
            await store.tenant_position(TENANT)  # creates the schema
        with tempfile.TemporaryDirectory() as folder:
            go_file = Path(folder) / "go"
            commands = [
                [sys.executable, "-m", "tests.benchmarks.bench_postgres", "writer", url,
                 str(index), str(count), str(go_file), tenants[index], protocol]
                for index in range(writers)
            ]  # fmt: skip
            result = await asyncio.to_thread(run_writers, commands, go_file)
        async with EventStore.open(url) as store:
            for tenant in sorted(set(tenants)):
                report = await store.verify(tenant)
                assert report.ok, report.failures
                expected = count * tenants.count(tenant)
                assert await store.tenant_position(tenant) == expected, "positions have gaps"
        return result


async def measure_floor(mode: str, writers: int, count: int) -> dict[str, Any]:
    async with fresh_database() as url:
        db = await asyncpg.connect(dsn(url))
        try:
            await db.execute(SETUP)
        finally:
            await db.close()
        with tempfile.TemporaryDirectory() as folder:
            go_file = Path(folder) / "go"
            commands = [
                [sys.executable, "-m", "tests.benchmarks.bench_postgres", "floor", url,
                 str(index), str(count), str(go_file), mode]
                for index in range(writers)
            ]  # fmt: skip
            result = await asyncio.to_thread(run_writers, commands, go_file)
        db = await asyncpg.connect(dsn(url))
        try:
            await check_positions(db, mode, writers * count)
        finally:
            await db.close()
        return result


async def measure_peer(python: str, writers: int, count: int) -> dict[str, Any]:
    peer = str(ROOT / "tests" / "benchmarks" / "peer_eventsourcing.py")
    async with fresh_database() as url:
        plain = dsn(url)
        setup = [python, peer, "setup", plain]
        await asyncio.to_thread(subprocess.run, setup, check=True, cwd=ROOT)
        with tempfile.TemporaryDirectory() as folder:
            go_file = Path(folder) / "go"
            payload_file = Path(folder) / "payloads"
            messages = make_messages(writers * count)
            payload_file.write_bytes(b"\n".join(canonical_json(m) for m in messages))
            commands = [
                [python, peer, "worker", plain, str(index), str(count), str(go_file),
                 str(payload_file)]
                for index in range(writers)
            ]  # fmt: skip
            return await asyncio.to_thread(run_writers, commands, go_file)


async def run(
    counts: list[int], per_writer: int, peer_python: str | None, floors: bool
) -> dict[str, Any]:
    server_url()
    results: dict[str, Any] = {
        "per_writer": per_writer,
        "ctxledger_one_tenant": {},
        "ctxledger_tenant_per_writer": {},
        "ctxledger_one_tenant_transaction": {},
        "eventsourcing": {},
        "floors": {name: {} for name in FLOORS} if floors else {},
    }
    for writers in counts:
        one = await measure_ctxledger(writers, per_writer, spread=False)
        results["ctxledger_one_tenant"][writers] = one
        spread = await measure_ctxledger(writers, per_writer, spread=True)
        results["ctxledger_tenant_per_writer"][writers] = spread
        transaction = await measure_ctxledger(writers, per_writer, False, "transaction")
        results["ctxledger_one_tenant_transaction"][writers] = transaction
        if peer_python:
            peer = await measure_peer(peer_python, writers, per_writer)
            results["eventsourcing"][writers] = peer
        for name, mode in FLOORS.items() if floors else ():
            results["floors"][name][writers] = await measure_floor(mode, writers, per_writer)
    return results


def row(writers: int, name: str, figures: dict[str, Any]) -> str:
    return (
        f"{writers:>8} {name:30} {figures['events_per_s']:10.0f} "
        f"{figures['p50_ms']:8.2f} {figures['p95_ms']:8.2f} "
        f"{figures['writer_cpu_us']:10.0f}{figures['machine_cpu_us']:11.0f}"
    )


def report(results: dict[str, Any]) -> str:
    lines = [
        f"durable single-event appends, {results['per_writer']} per writer process",
        f"{'writers':>8} {'system':30} {'events/s':>10} {'p50 ms':>8} {'p95 ms':>8} "
        f"{'cpu us':>10}{'all cpu us':>11}",
    ]
    for writers, one in results["ctxledger_one_tenant"].items():
        lines.append(row(writers, "ctxledger, one tenant", one))
        spread = results["ctxledger_tenant_per_writer"][writers]
        lines.append(row(writers, "ctxledger, a tenant per writer", spread))
        transaction = results["ctxledger_one_tenant_transaction"].get(writers)
        if transaction:
            lines.append(row(writers, "ctxledger, one tenant, no hand-off", transaction))
        peer = results["eventsourcing"].get(writers)
        if peer:
            lines.append(row(writers, "eventsourcing (one log)", peer))
            ratio = one["events_per_s"] / peer["events_per_s"]
            lines.append(
                f"{'':>8} ratio events/s, ctxledger one tenant / eventsourcing: {ratio:.2f}"
            )
        for name, by_writers in results["floors"].items():
            lines.append(row(writers, name, by_writers[writers]))
        floor = results["floors"].get("raw asyncpg, lock to commit", {}).get(writers)
        if floor:
            lines.append(
                f"{'':>8} ratio events/s to the lock-to-commit floor: one tenant "
                f"{one['events_per_s'] / floor['events_per_s']:.2f}, a tenant per writer "
                f"{spread['events_per_s'] / floor['events_per_s']:.2f}"
            )
    cores = os.cpu_count() or 1
    lines.append(
        f"cpu us: the writer processes' CPU per append; all cpu us: the whole machine's busy "
        f"CPU per append (writers, server, everything else). With {cores} cores, the ceiling "
        f"is {cores} s of CPU per second: {cores} * 1e6 / (all cpu us) events/s."
    )
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("writer", "floor"):
        role, url, index, count, go_file, last, *protocol = sys.argv[1:8]
        if role == "writer":
            asyncio.run(writer(url, int(index), int(count), go_file, last, *protocol))
        else:
            asyncio.run(floor_writer(url, int(index), int(count), go_file, last))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--writers", default="1,4,8")
    parser.add_argument("--per-writer", type=int, default=500)
    parser.add_argument("--peer-python", help="a Python with eventsourcing[postgres]")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--no-floors", action="store_true", help="skip the bare asyncpg floors (postgres_floors)"
    )
    args = parser.parse_args()
    counts = [int(n) for n in args.writers.split(",")]
    results = asyncio.run(run(counts, args.per_writer, args.peer_python, not args.no_floors))
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
