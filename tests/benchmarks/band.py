"""Where compaction should aim: retention against how often it runs, per target.

    python -m tests.benchmarks.band                 # every tau-bench run with gold, 4x and 8x
    python -m tests.benchmarks.band --limit 20

Each tau-bench airline run is replayed turn by turn, as an agent would: append the turn, and
when the rendered context passes the trigger (0.8 of usable), compact with the target under
test. The budget gives k-fold compression of the whole history (``usable = prefix + rest /
k``, at least the prefix and the newest turn). Per target, measured in the same process:
compactions per run, the served context after each compaction as a share of usable (the band
it lands in), and at the end the share of the run's gold values (scalar arguments of its gold
actions) the final context holds, against the share the whole conversation holds (ceiling).
"""

from __future__ import annotations

import json
import statistics
from typing import Any

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.grouping import group_messages
from projections.context.messages import Message
from projections.ledger import Ledger
from tests.benchmarks import script
from tests.benchmarks.quality import KEEP_GROUPS, Gold, corpora, found_in

TARGETS = (0.5, 0.6, 0.75, 0.9)
RATIOS = (4, 8)


def budget_of(
    messages: list[Message], counts: list[int], ratio: int, trigger_ratio: float
) -> Budget:
    prefix = sum(c for m, c in zip(messages, counts, strict=True) if m.role == "system")
    rest = sum(counts) - prefix
    groups, _ = group_messages(messages)
    ends = [len(g.messages) for g in groups]
    last = sum(counts[-ends[-1] :]) if ends else 0
    return Budget(
        context_limit=prefix + max(rest // ratio, 64, last) + 3,
        max_output_tokens=0,
        tool_reserve=0,
        safety_margin=0,
        trigger_ratio=trigger_ratio,
    )


async def replay(
    messages: list[Message], gold: list[Gold], ratio: int, target: float, trigger_ratio: float
) -> dict[str, Any]:
    async with EventStore.open("memory://") as store:
        session = Ledger(store, snapshot_every=0).session("band", "run")
        counter = session.ledger.counter
        counts = [counter.count_message(m) for m in messages]
        budget = budget_of(messages, counts, ratio, trigger_ratio)
        groups, _ = group_messages(messages)
        compactions, refused, bands = 0, 0, []
        for group in groups:
            await session.append(list(group.messages))
            rendered = await session.render(budget, keep_groups=KEEP_GROUPS, over_budget="serve")
            if budget.need_compaction(rendered.manifest.tokens["total"]):
                outcome = await session.compact(budget, keep_groups=KEEP_GROUPS, target=target)
                if outcome.summarised or outcome.masked:
                    compactions += 1
                    after = await session.render(
                        budget, keep_groups=KEEP_GROUPS, over_budget="serve"
                    )
                    refused += after.manifest.over_budget
                    bands.append(after.manifest.tokens["total"] / budget.usable)
        final = await session.render(budget, keep_groups=KEEP_GROUPS, over_budget="serve")
        refused += final.manifest.over_budget  # the default render raises here
    text = json.dumps(final.wire, ensure_ascii=False).lower()
    return {
        "compactions": compactions,
        "refused": refused,
        "bands": bands,
        "kept": sum(found_in(v, text) for v in gold),
    }


async def run(limit: int | None) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for corpus, cases in corpora(limit).items():
        # tau-bench's system prompt is most of a 4x budget: the trigger sits at usable there
        # (as in tests.benchmarks.quality), at the default 0.8 elsewhere.
        trigger_ratio = 1.0 if corpus.startswith("tau") else 0.8
        for ratio in RATIOS:
            for target in TARGETS:
                rows = [
                    await replay(msgs, gold, ratio, target, trigger_ratio)
                    for _, msgs, gold in cases
                ]
                results[f"{corpus} @ {ratio}x, {target}"] = _figures(cases, rows)
    return results


def _figures(
    cases: list[tuple[str, list[Message], list[Gold]]], rows: list[dict[str, Any]]
) -> dict[str, Any]:
    gold = sum(len(g) for _, _, g in cases)
    ceiling = sum(
        sum(found_in(v, json.dumps([m.model_dump() for m in msgs]).lower()) for v in g)
        for _, msgs, g in cases
    )
    bands = [b for r in rows for b in r["bands"]]
    return {
        "runs": len(rows),
        "compactions_per_run": sum(r["compactions"] for r in rows) / len(rows),
        "band_median": statistics.median(bands) if bands else None,
        "band_p10": statistics.quantiles(bands, n=10)[0] if len(bands) > 1 else None,
        "refused": sum(r["refused"] for r in rows),
        "kept": sum(r["kept"] for r in rows) / gold,
        "kept_of_ceiling": sum(r["kept"] for r in rows) / max(ceiling, 1),
    }


def report(results: dict[str, Any]) -> str:
    lines = [
        f"{'corpus @ budget, target':30} {'runs':>4} {'compactions/run':>15} "
        f"{'served/usable p50':>17} {'p10':>5} {'kept':>6} {'kept/ceiling':>12} {'refused':>7}"
    ]
    for name, r in results.items():
        band = "-" if r["band_median"] is None else f"{r['band_median']:.0%}"
        p10 = "-" if r["band_p10"] is None else f"{r['band_p10']:.0%}"
        lines.append(
            f"{name:30} {r['runs']:>4} {r['compactions_per_run']:>15.2f} {band:>17} {p10:>5} "
            f"{r['kept']:>6.1%} {r['kept_of_ceiling']:>12.1%} {r['refused']:>7}"
        )
    return "\n".join(lines)


def main() -> None:
    script.main(__doc__, run, report, "runs of tau-bench (default: all)")


if __name__ == "__main__":
    main()
