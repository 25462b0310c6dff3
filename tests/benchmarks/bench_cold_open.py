"""Cold opens and memory of a session as an index over its log (issue #28), each measured in a
new process, with ratios side by side in one run:

    python -m tests.benchmarks.bench_cold_open            # 1k and 100k messages
    python -m tests.benchmarks.bench_cold_open --quick    # 1k and 5k (a smoke run)

For each size, a SQLite file holds a session of the context benchmark's conversation (1-2 KB
chat messages, tool calls and results), appended through ``Session.append`` so snapshots are
saved as a deployment saves them. Every size is built first; then five rounds, each measuring
every size in turn (this machine's speed drifts over minutes: sizes measured minutes apart
would compare the machine), and each figure is the median of its five rounds. In a round, each
in a fresh child process:

- ctxledger: import, then open the store and a ledger and render the session once (the cold
  open), then 20 warm renders, 20 renders at random versions of the session's latter half and
  20 at random versions at most 500 back (at 1k messages the two ranges are the same); the
  resident set (``VmRSS``) before the open and after the renders; and the cold open alone in
  another process whose imports are done first;
- LangGraph: ``SqliteSaver.get_tuple`` on a thread whose latest checkpoint holds the same
  number of messages (written with ``put``), the resident set likewise;
- the CLI: ``ctxledger context`` on the smallest session against ``python -c pass``, in CPU
  seconds of the child (user + system, ``os.wait4``), 5 runs each, medians.

Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import gc
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Not from tests.conftest: the child would import pytest, and the objects of those imports
# are the collector's young generations when the cold open starts (a collection of them landed
# inside it: 1.4-2.2 ms, 2026-12-07).
ROOT = Path(__file__).resolve().parents[2]

TENANT = "bench"
NEAR = 500  # time travel "near": to a version at most this many back from the head
Figure = tuple[str, str, float, str]  # what, where, the ratio, its target
TARGETS = {"cold_growth": 2.0, "cold_vs_warm": 20.0, "rss_mb": 100.0, "cli_cpu": 10.0}
ROUNDS = 5  # rounds of new processes per figure (its median), the sizes alternating


def resident_mb() -> float:
    """This process's resident set in MB (Linux ``/proc``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status (Linux only)")


async def build(path: Path, size: int) -> None:
    """A session ``s<size>`` of ``size`` messages, appended in batches as a client would."""
    from eventstore import EventStore
    from projections.ledger import Ledger
    from tests.benchmarks.bench_context import conversation

    messages = conversation(size)
    async with EventStore.open(path) as store:
        session = Ledger(store).session(TENANT, f"s{size}")
        for start in range(0, len(messages), 1000):
            await session.append(messages[start : start + 1000])


async def ledger_child(
    path: str, size: int, probes: int, imports_first: bool = False
) -> dict[str, float]:
    """Run in a fresh process: the cold open, then warm renders and time travel (none when
    ``probes`` is 0). ``imports_first``: render a one-message session in a memory store
    before the clock starts, so that the modules a render imports on first use (the render
    and compaction modules, OpenTelemetry when installed) are loaded: the cold open of the
    session alone, without the process's one-time imports."""
    import eventstore.sql.sqlite.backend  # noqa: F401  (imported on first open: not a cold open)
    from eventstore import EventStore
    from projections.context.budget import Budget
    from projections.ledger import Ledger

    budget = Budget(context_limit=32_000, max_output_tokens=4_000)
    if imports_first:
        async with EventStore.open("memory://") as scratch:
            warmup = Ledger(scratch).session("warm-up", "s")
            await warmup.append([{"role": "user", "content": "hello"}])
            await warmup.render(budget)
    before = resident_mb()
    began = time.perf_counter()
    pauses = CollectorPauses()
    async with EventStore.open(path) as store:
        session = Ledger(store).session(TENANT, f"s{size}")
        await session.render(budget)
        cold = time.perf_counter() - began
        pauses.stop()
        if not probes:
            return {"cold_ms": cold * 1e3, "cold_gc_ms": pauses.total()}
        warm, travel, near = [], [], []
        rng = random.Random(7)
        version = (await session.latest()).version
        # First the same distance back at every size, from the same cache (the latest
        # window's bodies): how far a render travels, not how much of the session the body
        # cache holds, then decides what it reads from the log.
        for _ in range(probes):
            began = time.perf_counter()
            await session.render(budget)
            warm.append(time.perf_counter() - began)
            at = rng.randint(max(1, version - NEAR), version)
            began = time.perf_counter()
            await session.render(budget, at_version=at)
            near.append(time.perf_counter() - began)
        for _ in range(probes):
            at = rng.randint(version // 2, version)
            began = time.perf_counter()
            await session.render(budget, at_version=at)
            travel.append(time.perf_counter() - began)
        after = resident_mb()
        uncached = await _travel_from_the_log(store, size, budget, version, probes)
    return {
        "cold_ms": cold * 1e3,
        "cold_gc_ms": pauses.total(),
        "cold_gc_oldest": pauses.oldest(),
        "warm_ms": statistics.median(warm) * 1e3,
        "travel_ms": statistics.median(travel) * 1e3,
        "travel_near_ms": statistics.median(near) * 1e3,
        "travel_log_ms": uncached,
        "rss_above_imports_mb": after - before,
    }


async def _travel_from_the_log(
    store: Any, size: int, budget: Any, version: int, probes: int
) -> float:
    """Time travel with no body cache: every body read back from the log and checked (what
    a render at an old version pays at any size, once its bodies are out of the cache)."""
    from projections.ledger import Ledger

    session = Ledger(store, body_cache_bytes=0).session(TENANT, f"s{size}")
    await session.render(budget)
    rng, samples = random.Random(11), []
    for _ in range(probes):
        at = rng.randint(version // 2, version)
        began = time.perf_counter()
        await session.render(budget, at_version=at)
        samples.append(time.perf_counter() - began)
    return statistics.median(samples) * 1e3


def langgraph_build(path: Path, size: int) -> None:
    """A LangGraph thread whose latest checkpoint holds ``size`` messages."""
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.base import empty_checkpoint
    from langgraph.checkpoint.sqlite import SqliteSaver

    from tests.benchmarks.bench_context import conversation

    texts = [str(m.content or "") for m in conversation(min(size, 2000))]
    messages = [
        (HumanMessage if i % 2 else AIMessage)(content=texts[i % len(texts)], id=f"m{i}")
        for i in range(size)
    ]
    with SqliteSaver.from_conn_string(str(path)) as saver:
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"messages": messages}
        checkpoint["channel_versions"] = {"messages": 1}
        config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
        saver.put(config, checkpoint, {"source": "input", "step": 0}, {"messages": 1})


def langgraph_child(path: str) -> dict[str, float]:
    """Run in a fresh process: ``get_tuple`` of the thread's latest checkpoint."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    before = resident_mb()
    began = time.perf_counter()
    with SqliteSaver.from_conn_string(path) as saver:
        found = saver.get_tuple({"configurable": {"thread_id": "t", "checkpoint_ns": ""}})
        assert found is not None
        elapsed = time.perf_counter() - began
        after = resident_mb()
    return {"get_tuple_ms": elapsed * 1e3, "rss_above_imports_mb": after - before}


class CollectorPauses:
    """The cyclic collector's pauses from now until :meth:`stop`, in ms by the oldest
    generation each collected. A collection walks the process's young objects (its imports'
    too, not only what the cold open made), so where one lands is the host's: it is printed
    beside the figure, not hidden in it."""

    def __init__(self) -> None:
        self.paused: dict[int, float] = {}
        self._started = 0.0
        gc.callbacks.append(self._timed)

    def _timed(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        elapsed = (time.perf_counter() - self._started) * 1e3
        self.paused[info["generation"]] = self.paused.get(info["generation"], 0.0) + elapsed

    def stop(self) -> None:
        gc.callbacks.remove(self._timed)

    def total(self) -> float:
        return sum(self.paused.values())

    def oldest(self) -> int:
        """The oldest generation collected (-1: none)."""
        return max(self.paused, default=-1)


def child(*args: str) -> dict[str, float]:
    """A measurement in a new interpreter (its imports done before it starts measuring)."""
    code = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.bench_cold_open", "--child", *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return dict(json.loads(code.stdout.strip().splitlines()[-1]))


def compiled_bytecode() -> None:
    """Compile the project's modules to ``__pycache__``, as an installed package has them.

    An editable install keeps no bytecode where ``PYTHONDONTWRITEBYTECODE`` is set (this
    machine's environment sets it), so every child compiled the 116 modules a CLI command
    imports from source: 0.10 s of its 0.55 s of CPU, and ``ctxledger context`` read 15.9x a
    bare interpreter against 10.4x with bytecode (2026-12-08). pip compiles a wheel's modules
    when it installs them; the figures are of that."""
    for package in ("eventstore", "projections"):
        compileall.compile_dir(ROOT / package, quiet=1)


def cpu_seconds(command: list[str], runs: int = 5) -> float:
    """The median CPU time (user + system) of a child process running ``command``."""
    samples = []
    for _ in range(runs):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=ROOT)
        _, _, usage = os.wait4(process.pid, 0)
        samples.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(samples)


def run(sizes: list[int], probes: int, rounds: int = ROUNDS) -> dict[str, Any]:
    """Every size built first, then measured in ``rounds`` rounds that alternate the sizes:
    this machine's speed moves by half over minutes (a VM sharing its host), so a ratio of
    two sizes measured minutes apart measures the machine. Each figure is the median of its
    rounds (a new process each), printed with their spread."""
    results: dict[str, Any] = {"sizes": {size: {} for size in sizes}}
    compiled_bytecode()
    with tempfile.TemporaryDirectory(prefix="ctxledger-cold-") as name:
        folder = Path(name)
        db = folder / "ledger.db"
        for size in sizes:
            asyncio.run(build(db, size))
            langgraph_build(folder / f"lg{size}.db", size)
        samples: dict[int, list[dict[str, float]]] = {size: [] for size in sizes}
        for _ in range(rounds):
            for size in sizes:
                measured = child("ledger", str(db), str(size), str(probes))
                imported = child("ledger", str(db), str(size), "0", "imports-first")
                samples[size].append({**measured, "cold_imported_ms": imported["cold_ms"]})
        for size in sizes:
            rows = samples[size]
            row: dict[str, Any] = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
            colds = [r["cold_ms"] for r in rows]
            row["cold_spread_ms"] = (min(colds), max(colds))
            # Cold and warm of the same process: the machine's speed is the same for both.
            row["cold_vs_warm_rounds"] = sorted(r["cold_ms"] / r["warm_ms"] for r in rows)
            row["cold_gc_rounds"] = [(r["cold_gc_ms"], int(r["cold_gc_oldest"])) for r in rows]
            row["cold_less_gc_vs_warm_rounds"] = sorted(
                (r["cold_ms"] - r["cold_gc_ms"]) / r["warm_ms"] for r in rows
            )
            row["langgraph"] = child("langgraph", str(folder / f"lg{size}.db"))
            results["sizes"][size] = row
        # The same ratio round by round: a process's renders move by half from one process to
        # the next (2026-12-08: 0.45-1.25x over ten rounds of the same code, median 0.98x).
        first, last = samples[sizes[0]], samples[sizes[-1]]
        results["travel_log_rounds"] = sorted(
            big["travel_log_ms"] / small["travel_log_ms"]
            for small, big in zip(first, last, strict=True)
        )
        cli = [shutil.which("ctxledger") or "ctxledger", "--db", str(db), "context"]
        context = [*cli, "--tenant", TENANT, "--session", f"s{sizes[0]}"]
        results["cli_cpu_s"] = cpu_seconds(context)
        results["bare_cpu_s"] = cpu_seconds([sys.executable, "-c", "pass"])
    return results


def report(results: dict[str, Any]) -> str:
    sizes = list(results["sizes"])
    lines = [
        f"{'messages':>9} {'cold ms':>9} {'imported':>8} {'warm ms':>8} {'travel ms':>9} "
        f"{'near ms':>8} {'from log ms':>11} {'RSS MB':>7} "
        f"{'LangGraph get_tuple ms':>23} {'its RSS MB':>10}"
    ]
    for size, r in results["sizes"].items():
        graph = r["langgraph"]
        lines.append(
            f"{size:>9} {r['cold_ms']:9.1f} {r['cold_imported_ms']:8.1f} {r['warm_ms']:8.2f} "
            f"{r['travel_ms']:9.2f} {r['travel_near_ms']:8.2f} {r['travel_log_ms']:11.2f} "
            f"{r['rss_above_imports_mb']:7.1f} {graph['get_tuple_ms']:23.1f} "
            f"{graph['rss_above_imports_mb']:10.1f}"
        )
    first, last = results["sizes"][sizes[0]], results["sizes"][sizes[-1]]
    cli = results["cli_cpu_s"] / results["bare_cpu_s"]
    growth, at = f"{sizes[-1]} / {sizes[0]}", f"at {sizes[-1]}"

    def ratio(what: str, where: str, top: float, bottom: float, target: str) -> Figure:
        return (what, where, top / bottom, target)

    figures = [
        ratio("cold open", growth, last["cold_ms"], first["cold_ms"], "<= 2"),
        ratio("cold open / warm render", at, last["cold_ms"], last["warm_ms"], "<= 20"),
        ratio(
            "cold open / LangGraph get_tuple",
            at,
            last["cold_ms"],
            last["langgraph"]["get_tuple_ms"],
            "< 1",
        ),
        ratio(
            "cold open, imports done first",
            growth,
            last["cold_imported_ms"],
            first["cold_imported_ms"],
            "<= 2",
        ),
        ratio(
            "cold open, imports done first / warm render",
            at,
            last["cold_imported_ms"],
            last["warm_ms"],
            "<= 20",
        ),
        *(
            ratio(what, growth, last[key], first[key], "<= 1.3")
            for what, key in (
                ("warm render", "warm_ms"),
                ("time travel (to the latter half)", "travel_ms"),
                (f"time travel (within {NEAR} versions)", "travel_near_ms"),
                ("time travel, bodies from the log", "travel_log_ms"),
            )
        ),
        ("ctxledger context CPU / python -c pass", f"at {sizes[0]}", cli, "<= 10"),
    ]
    lines += [
        f"{what}, {where}: {value:.2f}x (target {target})" for what, where, value, target in figures
    ]
    for size, r in results["sizes"].items():
        low, high = r["cold_spread_ms"]
        lines.append(f"cold open at {size}: median {r['cold_ms']:.1f} ms, {low:.1f}-{high:.1f} ms")
        each = ", ".join(f"{ratio:.1f}" for ratio in r["cold_vs_warm_rounds"])
        lines.append(f"cold open / warm render at {size}, each round's process: {each}x")
        pauses = ", ".join(
            f"{ms:.1f} (generation {oldest})" if oldest >= 0 else "none"
            for ms, oldest in r["cold_gc_rounds"]
        )
        lines.append(f"the collector's pauses inside the cold open at {size}, ms: {pauses}")
        less = ", ".join(f"{ratio:.1f}" for ratio in r["cold_less_gc_vs_warm_rounds"])
        lines.append(f"cold open less those pauses / warm render at {size}: {less}x")
    each = ", ".join(f"{ratio:.2f}" for ratio in results["travel_log_rounds"])
    lines.append(f"time travel, bodies from the log, {growth}, each round: {each}x")
    lines.append(
        f"resident above imports holding {sizes[-1]} messages: "
        f"{last['rss_above_imports_mb']:.1f} MB (target <= 100)"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1k and 5k messages")
    parser.add_argument(
        "--rounds", type=int, default=ROUNDS, help=f"rounds of new processes ({ROUNDS})"
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "ledger":
            path, size, probes, *mode = rest
            measured = ledger_child(path, int(size), int(probes), mode == ["imports-first"])
            print(json.dumps(asyncio.run(measured)))
        else:
            print(json.dumps(langgraph_child(rest[0])))
        return
    sizes = [1000, 5000] if args.quick else [1000, 100_000]
    quick = bool(args.quick)
    print(report(run(sizes, probes=5 if quick else 20, rounds=1 if quick else args.rounds)))


if __name__ == "__main__":
    main()
