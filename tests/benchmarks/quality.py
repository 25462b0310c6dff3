"""Compaction quality on real conversations (figures for docs/quality.md).

    python -m tests.benchmarks.quality            # tau-bench airline and LoCoMo, 50% and 25%

For each conversation, at a budget of 50% and 25% of its own token count: ingest it, compact
with the offline summarizer (the window first, then one rolling summary of what the window
drops), render, and measure against the dataset's gold data: the share of gold values
(tau-bench: the scalar arguments of the gold actions; LoCoMo: the answers of QA categories 1-4;
BFCL memory: the recall questions' acceptable answers)
found in the rendered context, with the window alone for comparison; the compression ratio;
the share of summaries the gate accepted; and tool-protocol errors in the rendered context
(split groups; must be 0). Reads ``../shared/corpora`` (or ``$CTXLEDGER_CORPORA``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from pathlib import Path
from typing import Any

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.formats import to_messages
from projections.context.grouping import group_messages
from projections.context.messages import Message
from projections.ledger import Ledger
from tests.conftest import corpora_dir


def tau_bench(limit: int | None) -> list[tuple[str, list[Message], list[str]]]:
    runs = json.loads((corpora_dir() / "tau-bench-airline" / "gpt-4o-airline.json").read_text())
    cases = []
    for run in runs[:limit]:
        messages = to_messages("openai", run["traj"])
        messages = [m.model_copy(update={"id": f"m{i}"}) for i, m in enumerate(messages)]
        gold: list[str] = []
        for action in run["info"]["task"]["actions"]:
            gold += _scalars(action.get("kwargs", {}))
        cases.append((f"tau-{run['task_id']}-{run['trial']}", messages, gold))
    return cases


def _scalars(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for item in value.values() for s in _scalars(item)]
    if isinstance(value, list):
        return [s for item in value for s in _scalars(item)]
    if isinstance(value, bool) or value is None:
        return []
    text = str(value)
    return [text] if len(text) >= 2 else []


def locomo(limit: int | None) -> list[tuple[str, list[Message], list[str]]]:
    data = json.loads((corpora_dir() / "locomo" / "locomo10.json").read_text())
    cases = []
    for sample in data[:limit]:
        conversation = sample["conversation"]
        speaker_a = conversation["speaker_a"]
        messages = []
        index = 1
        while f"session_{index}" in conversation or f"session_{index}_date_time" in conversation:
            turns = conversation.get(f"session_{index}") or []
            when = conversation.get(f"session_{index}_date_time", "")
            for turn in turns:
                role = "user" if turn["speaker"] == speaker_a else "assistant"
                messages.append(
                    Message(
                        id=turn["dia_id"],
                        role=role,
                        content=f"[{when}] {turn['speaker']}: {turn['text']}",
                    )
                )
            index += 1
        gold = [
            str(qa["answer"])
            for qa in sample["qa"]
            if qa.get("category") in (1, 2, 3, 4) and "answer" in qa
        ]
        cases.append((sample["sample_id"], messages, gold))
    return cases


def bfcl(limit: int | None) -> list[tuple[str, list[Message], list[list[str]]]]:
    """One conversation per scenario (all its prerequisite user turns, in order); gold: the
    acceptable answers of each recall question (any one counts)."""
    folder = corpora_dir() / "bfcl-memory"

    def lines(path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    answers = {
        row["id"]: row["ground_truth"]
        for row in lines(folder / "possible_answer" / "BFCL_v4_memory.json")
    }
    questions = lines(folder / "BFCL_v4_memory.json")
    cases = []
    for path in sorted((folder / "memory_prereq_conversation").glob("memory_*.json"))[:limit]:
        scenario = path.stem.removeprefix("memory_")
        messages = []
        for conversation in lines(path):
            for turn_index, turn in enumerate(conversation["question"]):
                for message in turn:
                    messages.append(
                        Message(
                            id=f"{conversation['id']}:{turn_index}",
                            role="user",
                            content=message["content"],
                        )
                    )
        gold = [
            [str(a) for a in answers[q["id"]]]
            for q in questions
            if q["scenario"] == scenario and q["id"] in answers
        ]
        cases.append((f"bfcl-{scenario}", messages, gold))
    return cases


async def measure(
    name: str, messages: list[Message], gold: list[str] | list[list[str]], share: float
) -> dict[str, Any]:
    async with EventStore.open("memory://") as store:
        ledger = Ledger(store, snapshot_every=0)
        session = ledger.session("quality", name)
        for start in range(0, len(messages), 500):
            await session.append(messages[start : start + 500])
        total = sum((await session.state()).tokens.values())
        budget = Budget(
            context_limit=max(int(total * share), 400),
            max_output_tokens=0,
            tool_reserve=0,
            safety_margin=0,
        )
        window = await session.render(budget)
        outcome = await session.compact(
            budget, summary_budget=max(budget.usable // 3, 200), max_chunk=len(messages)
        )
        after = await session.render(budget)
        state = await session.state()
    groups, _ = group_messages(state.messages)
    ids = {m.id for m in after.messages}
    split = sum(1 for g in groups if 0 < sum(m.id in ids for m in g.messages) < len(g.messages))
    return {
        "retention_window": _retained(gold, window.wire),
        "retention": _retained(gold, after.wire),
        "compression": total / max(after.manifest.tokens["total"], 1),
        "summary": outcome.result,
        "protocol_errors": split,
    }


def _retained(gold: list[str] | list[list[str]], wire: Any) -> float:
    """The share of gold items found; an item may be a list of acceptable alternatives."""
    if not gold:
        return 1.0
    text = json.dumps(wire, ensure_ascii=False).lower()
    found = 0
    for item in gold:
        alternatives = item if isinstance(item, list) else [item]
        found += any(value.lower() in text for value in alternatives)
    return found / len(gold)


async def run(limit: int | None) -> dict[str, Any]:
    results: dict[str, Any] = {}
    corpora: list[tuple[str, Any]] = [
        ("tau-bench airline", tau_bench(limit)),
        ("LoCoMo", locomo(limit)),
        ("BFCL memory", bfcl(limit)),
    ]
    for corpus, cases in corpora:
        for share in (0.5, 0.25):
            rows = [await measure(name, msgs, gold, share) for name, msgs, gold in cases]
            attempted = [r for r in rows if r["summary"] != "not_needed"]
            results[f"{corpus} @ {int(share * 100)}%"] = {
                "conversations": len(rows),
                "retention_window": statistics.mean(r["retention_window"] for r in rows),
                "retention": statistics.mean(r["retention"] for r in rows),
                "compression": statistics.median(r["compression"] for r in rows),
                "gate_pass_rate": (
                    sum(r["summary"] == "committed" for r in attempted) / max(len(attempted), 1)
                ),
                "protocol_errors": sum(r["protocol_errors"] for r in rows),
            }
    return results


def report(results: dict[str, Any]) -> str:
    lines = [
        f"{'corpus @ budget':24} {'convs':>5} {'window only':>11} {'with summary':>12} "
        f"{'compression':>11} {'gate pass':>9} {'protocol errors':>15}"
    ]
    for name, r in results.items():
        lines.append(
            f"{name:24} {r['conversations']:>5} {r['retention_window']:>10.1%} "
            f"{r['retention']:>12.1%} {r['compression']:>10.1f}x "
            f"{r['gate_pass_rate']:>9.0%} {r['protocol_errors']:>15}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--limit", type=int, help="conversations per corpus (default: all)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = asyncio.run(run(args.limit))
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
