"""LangGraph: a thread of N steps, each adding one message, on ``LedgerSaver`` against
LangGraph's own ``SqliteSaver``, both SQLite files, in the same run: time and bytes on disk.

    python -m tests.benchmarks.bench_langgraph             # 1,000 steps
    python -m tests.benchmarks.bench_langgraph --quick     # a smoke run (also run by the tests)

Every step writes a checkpoint. ``SqliteSaver`` stores every channel's whole value in every
checkpoint, so a message list is written again at every step; the ledger stores the channels
whose version changed, and (by default) mirrors each new message into the thread's session:
a second transaction per step here, where every step adds a message and calls no model; the
row "mirror off" is ``LedgerSaver(..., mirror=False)``. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from eventstore import EventStore
from projections.context.tokens import TiktokenCounter
from projections.integrations.langgraph import LedgerSaver


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    steps: int


def graph(steps: int) -> Any:
    def step(state: State) -> dict[str, Any]:
        n = state["steps"] + 1
        text = f"step {n}: " + "the train leaves at 08:05 from Hangzhou East, platform 7. " * 3
        return {"messages": [AIMessage(content=text, id=f"m{n}")], "steps": n}

    builder = StateGraph(State)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", lambda s: END if s["steps"] >= steps else "step")
    return builder


def _bytes(folder: Path, stem: str) -> int:
    return sum(p.stat().st_size for p in folder.glob(f"{stem}*"))


def run(steps: int) -> dict[str, Any]:
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": steps + 10}
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="ctxledger-bench-") as name:
        folder = Path(name)
        connection = sqlite3.connect(folder / "theirs.db", check_same_thread=False)
        began = time.perf_counter()
        graph(steps).compile(checkpointer=SqliteSaver(connection)).invoke(
            {"messages": [], "steps": 0}, config
        )
        results["sqlite_saver_s"] = time.perf_counter() - began
        connection.close()
        TiktokenCounter().count_text("warm")  # the mirror counts tokens: not its first load
        for key, mirror in (("ledger_saver", True), ("ledger_unmirrored", False)):
            store = EventStore.open(folder / f"{key}.db")
            with LedgerSaver(store, tenant_id="bench", mirror=mirror) as saver:
                began = time.perf_counter()
                app = graph(steps).compile(checkpointer=saver)
                app.invoke({"messages": [], "steps": 0}, config)
                results[f"{key}_s"] = time.perf_counter() - began
            results[f"{key}_bytes"] = _bytes(folder, f"{key}.db")
        results["sqlite_saver_bytes"] = _bytes(folder, "theirs.db")
    results["steps"] = steps
    return results


def report(r: dict[str, Any]) -> str:
    steps = r["steps"]
    return "\n".join(
        [
            f"{'saver':<14} {'time (s)':>9} {'ms/step':>8} {'bytes':>13} {'bytes/message':>14}",
            *(
                f"{label:<14} {r[key + '_s']:9.2f} {1e3 * r[key + '_s'] / steps:8.2f} "
                f"{r[key + '_bytes']:13,} {r[key + '_bytes'] / steps:14,.0f}"
                for label, key in (
                    ("SqliteSaver", "sqlite_saver"),
                    ("LedgerSaver", "ledger_saver"),
                    ("  mirror off", "ledger_unmirrored"),
                )
            ),
            f"time, ledger / SqliteSaver at {steps} steps: "
            f"{r['ledger_saver_s'] / r['sqlite_saver_s']:.2f}x (mirror off: "
            f"{r['ledger_unmirrored_s'] / r['sqlite_saver_s']:.2f}x)",
            f"bytes, SqliteSaver / ledger: "
            f"{r['sqlite_saver_bytes'] / r['ledger_saver_bytes']:.1f}x",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(report(run(50 if args.quick else args.steps)))


if __name__ == "__main__":
    main()
