"""A long OpenAI Agents SDK session with ``CompactionSettings``: what the served context costs
and how long compaction takes per turn (figures for docs/benchmarks.md).

    python -m tests.benchmarks.bench_agents_session            # 200 turns, 8k and tiny, 3 runs
    python -m tests.benchmarks.bench_agents_session --quick    # 60 turns, 1 run

The SDK's real ``Runner`` drives a deterministic fake model (tests/projections/integrations/
travel_agent.py: flight searches and reservation lookups with 300-500-token JSON results,
constraints, chat, a long itinerary now and then) on a SQLite file. Per budget it prints the
time of each ``get_items`` (render, and compaction when due: masking, the offline summarizer,
the gate, the append), split into turns with and without a compaction, the served context
against usable and the trigger, and what compaction did. A warm-up run in the same process
comes first, so one-time imports and regex compilation are not counted as a turn; the caches of
text are emptied before each measured run, so no turn gains from texts the warm-up saw. The
baseline, in the same process: the SDK's own ``SQLiteSession`` (no compaction) on the same
script, whose ``get_items`` returns the whole history.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from agents import SQLiteSession

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.tokens import TiktokenCounter
from projections.integrations.openai_agents import CompactionSettings
from projections.ledger import Ledger
from projections.text_caches import forget_texts
from tests.projections.integrations.travel_agent import TimedSession, TurnRecord, play

BUDGETS = {
    "8k": Budget(context_limit=8192, max_output_tokens=1024),
    "tiny": Budget(context_limit=1600, max_output_tokens=200, tool_reserve=300, safety_margin=100),
}


class FullCollections:
    """The milliseconds the process spends in full (generation 2) garbage collections, as a
    ``gc`` callback: a full collection walks every tracked object of the process (about 200,000
    here, most of them the imported SDK, openai and pydantic), 100-130 ms on this machine, and
    lands on whichever turn allocates past its threshold."""

    def __init__(self) -> None:
        self.ms = 0.0
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.ms += (time.perf_counter() - self._began) * 1000


FULL_COLLECTIONS = FullCollections()


class GcTimedSession(TimedSession):
    """A timed ledger session that also notes the full collections inside each call."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.full_gc_ms: list[float] = []

    async def get_items(self, limit: int | None = None) -> list[Any]:
        before = FULL_COLLECTIONS.ms
        items = await super().get_items(limit)
        self.full_gc_ms.append(FULL_COLLECTIONS.ms - before)
        return items


async def run(budget: Budget, turns: int) -> dict[str, Any]:
    """One session of ``turns`` turns at ``budget``; its figures."""
    with tempfile.TemporaryDirectory() as directory:
        async with EventStore.open(Path(directory) / "ledger.db") as store:
            settings = CompactionSettings(budget=budget)
            session = GcTimedSession("bench", Ledger(store), tenant_id="acme", compaction=settings)
            await play(session, turns)
            state = await (await session.current()).state()
            history = sum(state.tokens.values())
    chain = Counter(c["status"] for c in state.summary_chain())
    return figures(session.turns, budget, history, chain, session.full_gc_ms)


def percentile(values: list[float], share: float) -> float:
    """The ``share`` percentile (nearest rank); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def figures(
    turns: list[TurnRecord],
    budget: Budget,
    history: int,
    chain: Counter[str],
    full_gc_ms: list[float],
) -> dict[str, Any]:
    """The figures of one run (``full_gc_ms``: per turn, the full collections inside it)."""
    every = [t.ms for t in turns]
    due = [i for i, t in enumerate(turns) if t.compaction in ("committed", "rejected", "masked")]
    compacting = [turns[i].ms for i in due]
    own = [turns[i].ms - full_gc_ms[i] for i in due]
    return {
        "full_gcs": [round(ms) for ms in full_gc_ms if ms],
        "full_gcs_in_compactions": [round(full_gc_ms[i]) for i in due if full_gc_ms[i]],
        "compaction_own_p95_ms": percentile(own, 0.95),
        "turns": len(turns),
        "usable": budget.usable,
        "trigger": budget.trigger,
        "history_tokens": history,
        "p50_ms": statistics.median(every),
        "p95_ms": percentile(every, 0.95),
        "compaction_turns": len(compacting),
        "compaction_p50_ms": statistics.median(compacting) if compacting else 0.0,
        "compaction_p95_ms": percentile(compacting, 0.95),
        "max_ms": max(every),
        "max_served": max(t.tokens for t in turns),
        "over_trigger": sum(t.tokens > budget.trigger for t in turns),
        "over_usable": sum(t.tokens > budget.usable for t in turns),
        "told": sum(bool(t.warned) for t in turns),
        "results": dict(Counter(t.compaction or "none due" for t in turns)),
        "summaries": dict(chain),
        "masked_results": sum(t.masked for t in turns),
    }


def report(name: str, f: dict[str, Any]) -> str:
    """One budget's figures as text."""
    return "\n".join([
        f"{name}: {f['turns']} turns, usable {f['usable']:,}, trigger {f['trigger']:,}, "
        f"history {f['history_tokens']:,} tokens ({f['history_tokens'] / f['usable']:.1f}x usable)",
        f"  get_items per turn: p50 {f['p50_ms']:.1f} ms, p95 {f['p95_ms']:.1f} ms, "
        f"max {f['max_ms']:.1f} ms",
        f"  turns that compacted: {f['compaction_turns']}, p50 {f['compaction_p50_ms']:.1f} ms, "
        f"p95 {f['compaction_p95_ms']:.1f} ms (target <= 50 ms)",
        f"  served: max {f['max_served']:,} tokens ({f['max_served'] / f['usable']:.0%} of "
        f"usable); over the trigger {f['over_trigger']}, over usable {f['over_usable']}, "
        f"caller told {f['told']}",
        f"  compaction results: {f['results']}; summary versions: {f['summaries']}; "
        f"results masked: {f['masked_results']}",
    ])  # fmt: skip


class TimedSQLiteSession(SQLiteSession):
    """The SDK's own SQLite session, timing ``get_items`` and sizing what it returns."""

    def __init__(self, path: Path) -> None:
        super().__init__("bench", path)
        self.ms: list[float] = []
        self.tokens: list[int] = []
        self.counter = TiktokenCounter()

    async def get_items(self, limit: int | None = None) -> list[Any]:
        began = time.perf_counter()
        items = await super().get_items(limit)
        self.ms.append((time.perf_counter() - began) * 1000)
        self.tokens.append(self.counter.count_text(json.dumps(items)))
        return items


async def baseline(turns: int) -> str:
    """The SDK's ``SQLiteSession`` on the same script: time per turn and what it serves."""
    with tempfile.TemporaryDirectory() as directory:
        session = TimedSQLiteSession(Path(directory) / "sdk.db")
        await play(session, turns)
        session.close()
    return (
        f"baseline, the SDK's SQLiteSession (no compaction): get_items p50 "
        f"{statistics.median(session.ms):.1f} ms, p95 {percentile(session.ms, 0.95):.1f} ms; "
        f"serves the whole history: {max(session.tokens):,} tokens at the last turn "
        f"({max(session.tokens) / BUDGETS['8k'].usable:.1f}x the 8k usable budget)"
    )


async def main_async(turns: int, repeat: int, freeze: bool = False) -> None:
    gc.callbacks.append(FULL_COLLECTIONS)
    await run(BUDGETS["tiny"], 30)  # warm-up: imports, compiled patterns, tokenizer
    if freeze:  # what a service does after start-up: full collections skip the imported heap
        gc.freeze()
        print(f"gc.freeze() after the warm-up: {gc.get_freeze_count():,} objects frozen")
    for name, budget in BUDGETS.items():
        runs, speeds = [], []
        for _ in range(repeat):
            forget_texts()  # each run starts with no text remembered: no run gains from another
            speeds.append(calibration_ms())
            runs.append(await run(budget, turns))
        print(report(name, runs[-1]))
        print(spread(runs))
        print(
            f"  the machine: a fixed loop took {', '.join(f'{s:.0f}' for s in speeds)} ms "
            f"before each run (the same work: this moves with the machine, not the code)"
        )
    print(await baseline(turns))


def calibration_ms() -> float:
    """A fixed piece of pure-Python work (a million multiplications), timed: the machine's
    speed at the moment, printed next to the figures it explains."""
    began = time.perf_counter()
    sum(number * number for number in range(1_000_000))
    return (time.perf_counter() - began) * 1000


def spread(runs: list[dict[str, Any]]) -> str:
    """The compaction p50 and p95 of each run and their medians: the same script gives the
    same work every run (its outcome is deterministic), so what moves is the machine."""
    p50s = [f"{r['compaction_p50_ms']:.1f}" for r in runs]
    p95s = [f"{r['compaction_p95_ms']:.1f}" for r in runs]
    own = [f"{r['compaction_own_p95_ms']:.1f}" for r in runs]
    gcs = [r["full_gcs_in_compactions"] for r in runs]
    every = [r["full_gcs"] for r in runs]
    return (
        f"  over {len(runs)} runs: compaction p50 {', '.join(p50s)} ms (median "
        f"{statistics.median(r['compaction_p50_ms'] for r in runs):.1f}); p95 {', '.join(p95s)} "
        f"ms (median {statistics.median(r['compaction_p95_ms'] for r in runs):.1f}, "
        f"target <= 50 ms)\n"
        f"  full collections of the process's heap, ms: {every} in all turns, {gcs} inside "
        f"compacting turns; compaction p95 without them: {', '.join(own)} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="60 turns instead of 200")
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="measured runs per budget")
    parser.add_argument(
        "--gc-freeze", action="store_true", help="gc.freeze() after the warm-up, as a service may"
    )
    args = parser.parse_args()
    turns, repeat = (60, 1) if args.quick else (args.turns, args.repeat)
    asyncio.run(main_async(turns, repeat, args.gc_freeze))


if __name__ == "__main__":
    main()
