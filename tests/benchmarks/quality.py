"""Compaction quality on real conversations: one context for the whole run (figures for
docs/quality.md).

    python -m tests.benchmarks.quality                 # every tau-bench run, at 4x and 8x
    python -m tests.benchmarks.quality --limit 20 --json out.json

Each tau-bench airline trajectory is ingested whole, then compacted once to a budget that
gives k-fold compression of its history (the system prompt, kept verbatim, is left out of the
ratio: ``usable = prefix + rest / k``), and rendered. Gold values are the scalar arguments of
the run's gold actions; runs without gold actions are left out (they would count as retained).
Measured per run, in the same process: the ceiling (the share of gold that occurs in the
conversation at all), the window alone (no summary), today's v1 summary (the offline v1
summarizer behind the v1 gate, on the same chunk and budget), v2 (``Session.compact``: old
tool results masked first, then the rolling summary) and v2 with masking off;
where each retained value came from (prefix, pinned, window, summary); the compression; the
gate's pass rate; and tool groups split in the rendered context (must be 0).
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from eventstore import EventStore
from projections.context.accounting import REPLY_PRIMING_TOKENS
from projections.context.budget import Budget
from projections.context.formats import from_messages
from projections.context.grouping import group_messages
from projections.context.messages import Message, text_of
from projections.context.tokens import TokenCounter
from projections.ledger import Ledger, Session
from projections.session.compaction import CompactionOptions, Skip, plan_compaction
from projections.session.render import RenderedContext, render
from projections.session.state import SessionState
from projections.summaries.block import render_summary_block
from projections.summaries.offline import offline_summarizer
from projections.summaries.sanitize import sanitize_messages
from projections.summaries.summarizer import SummaryRequest
from projections.summaries.validation import validate_summary
from tests.benchmarks import script
from tests.benchmarks.corpora import bfcl, locomo, tau_bench

RATIOS = (4, 8)
KEEP_GROUPS = 2


Gold = str | list[str]  # a value, or a question's acceptable answers (any one counts)


def found_in(value: Gold, text: str) -> bool:
    if isinstance(value, list):
        return any(found_in(v, text) for v in value)
    return value.lower() in text


def wire_text(rendered: RenderedContext) -> str:
    return json.dumps(rendered.wire, ensure_ascii=False).lower()


def budget_for(state: SessionState, ratio: int) -> Budget:
    """``usable = prefix + rest / ratio``, but never under the prefix and the newest turn: no
    request can leave those out, so a smaller budget is not a compression but a refusal
    (short runs at 8x; ``floored`` counts them, and the ratio column shows the real one)."""
    prefix = sum(state.group_tokens[: state.prefix_end])
    rest = sum(state.tokens.values()) - prefix
    return Budget(
        context_limit=prefix + max(rest // ratio, 64, newest_turn(state)) + 3,
        max_output_tokens=0,
        tool_reserve=0,
        safety_margin=0,
        trigger_ratio=1.0,
    )


def newest_turn(state: SessionState) -> int:
    return state.group_tokens[-1] if state.group_tokens else 0


def floored(state: SessionState, ratio: int) -> bool:
    prefix = sum(state.group_tokens[: state.prefix_end])
    return newest_turn(state) > max((sum(state.tokens.values()) - prefix) // ratio, 64)


def over_usable(rendered: RenderedContext, budget: Budget, counter: TokenCounter) -> bool:
    """Whether the request, counted message by message as a provider would, is over usable
    (the manifest's own total is checked against the same count)."""
    counted = sum(counter.count_message(m) for m in rendered.messages) + REPLY_PRIMING_TOKENS
    assert counted == rendered.manifest.tokens["total"], "the manifest's accounting drifted"
    return counted > budget.usable


def origins(rendered: RenderedContext, gold: list[Gold]) -> Counter[str]:
    """The section each retained gold value was found in first."""
    texts: dict[str, str] = {}
    for message, section in zip(rendered.messages, rendered.manifest.sections, strict=True):
        calls = " ".join(f"{c.name} {c.arguments}" for c in message.tool_calls)
        texts[section] = texts.get(section, "") + f" {text_of(message)} {calls}".lower()
    found: Counter[str] = Counter()
    for value in gold:
        for section in ("prefix", "pinned", "window", "summary"):
            if found_in(value, texts.get(section, "")):
                found[section] += 1
                break
    return found


def user_words(messages: list[Message]) -> str:
    """What the user said, in their own words (the user turns' text, lowercased): a gold value
    found there is user-stated, the kind of value issue #27's held-back measure counts."""
    return " ".join(text_of(m) for m in messages if m.role == "user").lower()


async def unmasked(name: str, messages: list[Message], gold: list[Gold], ratio: int) -> int:
    """Gold values kept by v2 with masking off (the ladder's first step skipped)."""
    async with EventStore.open("memory://") as store:
        session = Ledger(store, snapshot_every=0).session("quality", name)
        await session.append(messages)
        budget = budget_for(await session.state(), ratio)
        await session.compact(
            budget, keep_groups=KEEP_GROUPS, target=1.0, max_steps=8, mask_results=False
        )
        rendered = await session.render(budget, keep_groups=KEEP_GROUPS)
        text = wire_text(rendered)
    return sum(found_in(v, text) for v in gold)


async def measure(
    name: str, messages: list[Message], gold: list[Gold], ratio: int
) -> dict[str, Any]:
    async with EventStore.open("memory://") as store:
        ledger = Ledger(store, snapshot_every=0)
        session = ledger.session("quality", name)
        await session.append(messages)
        state = await session.state()
        budget = budget_for(state, ratio)
        full = json.dumps(from_messages("openai", messages), ensure_ascii=False).lower()
        ceiling = [v for v in gold if found_in(v, full)]
        stated = [v for v in gold if found_in(v, user_words(messages))]
        window = await session.render(budget, keep_groups=KEEP_GROUPS)
        v1_found = await _v1(session, budget, gold)
        outcome = await session.compact(budget, keep_groups=KEEP_GROUPS, target=1.0, max_steps=8)
        after = await session.render(budget, keep_groups=KEEP_GROUPS)
        state = await session.state()
        over = [over_usable(r, budget, ledger.counter) for r in (window, after)]
    text = wire_text(after)
    groups, _ = group_messages(state.messages)
    ids = {m.id for m in after.messages}
    split = sum(1 for g in groups if 0 < sum(m.id in ids for m in g.messages) < len(g.messages))
    prefix = sum(
        t
        for t, s in zip(after.manifest.message_tokens, after.manifest.sections, strict=True)
        if s == "prefix"
    )
    rest = sum(state.tokens.values()) - prefix
    return {
        "gold": len(gold),
        "ceiling": len(ceiling),
        "window": sum(found_in(v, wire_text(window)) for v in gold),
        "v1": v1_found,
        "v2": sum(found_in(v, text) for v in gold),
        "stated": len(stated),
        "window_stated": sum(found_in(v, wire_text(window)) for v in stated),
        "v2_stated": sum(found_in(v, text) for v in stated),
        "v2_unmasked": await unmasked(name, messages, gold, ratio),
        "masked": outcome.masked,
        "origins": origins(after, gold),
        "compression": rest / max(after.manifest.tokens["total"] - prefix, 1),
        "attempts": [e.type for e in outcome.events],
        "protocol_errors": split,
        "floored": floored(state, ratio),
        "over_window": over[0],
        "over_v2": over[1],
    }


# The v1 baseline's clock: its summary block prints when it was made, so the wall clock moved
# its token count, its room and the v1 figure by up to 0.6 points from run to run.
_V1_NOW = datetime(2026, 1, 1, tzinfo=UTC)


async def _v1(session: Session, budget: Budget, gold: list[Gold]) -> int:
    state = await session.state()  # a fold of the log: every body at hand
    count = session.ledger.counter.count_text
    cut = state.cut()
    options = CompactionOptions(keep_groups=KEEP_GROUPS, target=1.0, max_chunk=10_000)
    plan = plan_compaction(cut, budget, options, count=count, now=_V1_NOW)
    window = render(cut, budget, keep_groups=KEEP_GROUPS, over_budget="serve")
    if isinstance(plan, Skip):
        return sum(found_in(v, wire_text(window)) for v in gold)
    chunk = [state.messages[state.index_of[m.id]] for m in plan.request.chunk]
    sources, _ = sanitize_messages(chunk, count_tokens=count)
    request = SummaryRequest(None, sources, plan.summary_budget, _V1_NOW, count)
    summary = await offline_summarizer(request)
    report = validate_summary(summary, sources, budget=plan.summary_budget, count_tokens=count)
    kept = render(
        cut,
        budget.shrunk(max(0.01, 1 - plan.summary_budget / budget.usable)),
        keep_groups=KEEP_GROUPS,
        over_budget="serve",
    )
    text = wire_text(kept)
    if report.ok:
        text += render_summary_block(summary).lower()
    return sum(found_in(v, text) for v in gold)


def corpora(limit: int | None) -> dict[str, list[tuple[str, list[Message], list[Gold]]]]:
    """tau-bench airline runs with gold actions (the others would count as retained), LoCoMo
    conversations with their QA answers, BFCL memory scenarios with their questions'."""
    return {
        "tau-bench airline": [case for case in tau_bench(limit) if case[2]],
        "LoCoMo": [(n, m, list(g)) for n, m, g in locomo(limit)],
        "BFCL memory": [(n, m, list(g)) for n, m, g in bfcl(limit)],
    }


async def run(limit: int | None) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for corpus, cases in corpora(limit).items():
        for ratio in RATIOS:
            results[f"{corpus} @ {ratio}x"] = await _corpus_at(cases, ratio)
    return results


async def _corpus_at(
    cases: list[tuple[str, list[Message], list[Gold]]], ratio: int
) -> dict[str, Any]:
    rows = [await measure(name, msgs, gold, ratio) for name, msgs, gold in cases]
    gold = sum(r["gold"] for r in rows)
    ceiling = sum(r["ceiling"] for r in rows)
    attempts = [a for r in rows for a in r["attempts"]]
    origin = sum((r["origins"] for r in rows), Counter())
    stated = sum(r["stated"] for r in rows)
    return {
        "runs": len(rows),
        "gold": gold,
        "ceiling": ceiling / gold,
        "window": sum(r["window"] for r in rows) / gold,
        "v1": sum(r["v1"] for r in rows) / gold,
        "v2": sum(r["v2"] for r in rows) / gold,
        "v2_of_ceiling": sum(r["v2"] for r in rows) / max(ceiling, 1),
        "v2_unmasked": sum(r["v2_unmasked"] for r in rows) / gold,
        "masked_results": sum(r["masked"] for r in rows),
        "origins": {k: origin[k] / gold for k in ("prefix", "pinned", "window", "summary")},
        "compression": statistics.median(r["compression"] for r in rows),
        "gate_pass": attempts.count("SummaryCommitted") / max(len(attempts), 1),
        "protocol_errors": sum(r["protocol_errors"] for r in rows),
        "floored": sum(r["floored"] for r in rows),
        "over_window": sum(r["over_window"] for r in rows),
        "over_v2": sum(r["over_v2"] for r in rows),
        "stated": sum(r["stated"] for r in rows) / gold,
        "window_stated": sum(r["window_stated"] for r in rows) / max(stated, 1),
        "v2_stated": sum(r["v2_stated"] for r in rows) / max(stated, 1),
    }


def report(results: dict[str, Any]) -> str:
    lines = [
        f"{'corpus @ compression':24} {'runs':>4} {'ceiling':>7} {'window':>6} {'v1':>6} "
        f"{'v2':>6} {'v2/ceil':>7} {'from window/summary':>19} {'ratio':>5} {'gate':>5} "
        f"{'split':>5} {'masked':>6} {'v2 unmasked':>11} {'over usable: window/v2':>22} "
        f"{'floored':>7} {'user-stated':>11} {'window':>6} {'v2':>6}"
    ]
    for name, r in results.items():
        origin = r["origins"]
        lines.append(
            f"{name:24} {r['runs']:>4} {r['ceiling']:>7.1%} {r['window']:>6.1%} {r['v1']:>6.1%} "
            f"{r['v2']:>6.1%} {r['v2_of_ceiling']:>7.1%} "
            f"{origin['window']:>9.1%}/{origin['summary']:<9.1%} {r['compression']:>4.1f}x "
            f"{r['gate_pass']:>5.0%} {r['protocol_errors']:>5} {r['masked_results']:>6} "
            f"{r['v2_unmasked']:>11.1%} {r['over_window']:>18}/{r['over_v2']:<3} {r['floored']:>7} "
            f"{r['stated']:>11.1%} {r['window_stated']:>6.1%} {r['v2_stated']:>6.1%}"
        )
    return "\n".join(lines)


def main() -> None:
    script.main(__doc__, run, report, "runs of tau-bench (default: all)")


if __name__ == "__main__":
    main()
