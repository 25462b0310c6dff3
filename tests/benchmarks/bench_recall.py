"""Benchmark of recall: search latency and render-with-recall against a plain warm render, as
sessions grow (figures for docs/benchmarks.md).

    python -m tests.benchmarks.bench_recall            # sessions of 10k and 100k messages
    python -m tests.benchmarks.bench_recall --quick    # 1k and 5k messages (a smoke run)
    python -m tests.benchmarks.bench_recall --phases   # and each step of a render with recall
    python -m tests.benchmarks.bench_recall --vectors  # with the embedding ranker (dialogue)

Two corpora, in a SQLite file: real dialogue (the LoCoMo conversations' turns, cycled to the
size with fresh ids, queried with LoCoMo's own questions; skipped when ../shared/corpora is
absent), and the context benchmark's synthetic 1-2 KB messages (the same trip talk over and
over, so that every query term is in most messages: a worst case for any inverted index).
The search index is caught up once (its build rate is printed), then each turn appends one
message (not timed) and measures, in the same run: a plain warm render, a render with recall
for the query (it catches the index up with the new message, searches the session, ranks by
BM25 and plans the block), and a search alone. Nothing here asserts a time.

With ``--vectors`` the ledger has an embedding ranker: a hashing embedder (384 dimensions,
a text's vector drawn from a generator seeded by its BLAKE2 digest), so that the figures are
the ranker's own cost as the session grows (reading, scoring and fusing every message's
vector), not a model's: embedding the query with all-MiniLM-L6-v2 adds a few milliseconds on
this CPU whatever the session's size.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.messages import Message, text_of
from projections.context.tokens import TiktokenCounter
from projections.ledger import Ledger
from projections.recall.index import SEARCH_INDEX
from projections.recall.search import RecallOptions
from tests.benchmarks.bench_context import conversation, ingest
from tests.benchmarks.corpora import locomo_questions
from tests.benchmarks.payloads import percentile
from tests.benchmarks.recall_phases import PHASES, Phases, timed_phases

BUDGET = Budget(context_limit=32_000, max_output_tokens=4_000)
SMALL = 1000  # the small session measured last, in the tenant that holds the large ones


class HashingEmbedder:
    """Vectors of 384 dimensions drawn from a generator seeded by each text's digest: the same
    text always gives the same vector, and no model is loaded."""

    name = "hashing-384"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(text) for text in texts]

    @staticmethod
    def _vector(text: str) -> list[float]:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        try:
            import numpy as np
        except ImportError:
            rng = random.Random(seed)
            return [rng.gauss(0.0, 1.0) for _ in range(384)]
        vector: list[float] = np.random.default_rng(seed).standard_normal(384).tolist()
        return vector


def queries(messages: list[Message], count: int) -> list[str]:
    """Queries of two to four words taken from the conversation, the same every run."""
    rng = random.Random(11)
    words = [w for m in messages[:2000] for w in text_of(m).split() if len(w) > 3]
    return [" ".join(rng.sample(words, rng.randint(2, 4))) for _ in range(count)]


def dialogue(count: int, asked: int) -> tuple[list[Message], list[str]] | None:
    """LoCoMo's turns cycled to ``count`` messages, and ``asked`` of its questions."""
    try:
        cases = locomo_questions(None)
    except FileNotFoundError:
        return None
    turns = [m for _, messages, _ in cases for m in messages]
    questions = [q.text for _, _, qs in cases for q in qs]
    messages = [turns[i % len(turns)].model_copy(update={"id": f"d{i}"}) for i in range(count)]
    rng = random.Random(13)
    return messages, rng.sample(questions, asked)


async def turns(
    ledger: Ledger, session_id: str, asked: list[str], phases: Phases | None = None
) -> dict[str, list[float]]:
    session = ledger.session("bench", session_id)
    samples: dict[str, list[float]] = {"plain": [], "recall": [], "search": []}
    for turn, query in enumerate(asked):
        await session.append([Message(id=f"turn{turn}", role="user", content=query)])
        began = time.perf_counter()
        await session.render(BUDGET)
        samples["plain"].append(time.perf_counter() - began)
        if phases is not None:
            phases.take()  # what the plain render spent is not recall's
        began = time.perf_counter()
        await session.render(BUDGET, recall=RecallOptions(query=query))
        samples["recall"].append(time.perf_counter() - began)
        if phases is not None:
            for phase, seconds in phases.take().items():
                samples.setdefault(f"phase {phase}", []).append(seconds)
        began = time.perf_counter()
        await session.search(query, 10)
        samples["search"].append(time.perf_counter() - began)
    return samples


def material(corpus: str, size: int, count: int) -> tuple[list[Message], list[str]]:
    """A session's messages and the queries asked of it."""
    if corpus == "dialogue":
        found = dialogue(size, count)
        assert found is not None
        return found
    messages = conversation(size)
    return messages, queries(messages, count)


async def measure(
    store: EventStore,
    session_id: str,
    messages: list[Message],
    asked: list[str],
    phases: Phases | None = None,
    embedder: HashingEmbedder | None = None,
) -> dict[str, float]:
    """Ingest a session, catch the index up (timed), then time the turns."""
    await ingest(store, session_id, messages)
    ledger = Ledger(store, embedder=embedder)
    began = time.perf_counter()
    await ledger.read_model(SEARCH_INDEX).catch_up("bench")
    built = time.perf_counter() - began
    session = ledger.session("bench", session_id)
    await session.render(BUDGET)  # warm the cache
    if embedder is not None:  # every message embedded, the vectors held: not a turn's cost
        await session.render(BUDGET, recall=RecallOptions(query=asked[0]))
    samples = await turns(ledger, session_id, asked, phases)
    figures = {"index_messages_per_s": len(messages) / built}
    for kind, values in samples.items():
        figures[f"{kind}_p50_ms"] = statistics.median(values) * 1e3
        figures[f"{kind}_p95_ms"] = percentile(values, 0.95) * 1e3
    figures["recall_vs_plain_p95"] = figures["recall_p95_ms"] / figures["plain_p95_ms"]
    return figures


async def run(
    sizes: list[int],
    count: int,
    corpus: str,
    phases: Phases | None = None,
    embedder: HashingEmbedder | None = None,
) -> dict[str, Any]:
    """Sessions of each size in one tenant, then a small session in that same tenant (which
    then holds every larger one too)."""
    label = corpus if embedder is None else f"{corpus}, with the embedding ranker"
    results: dict[str, Any] = {"corpus": label, "sizes": {}}
    TiktokenCounter()  # load the BPE ranks before anything is timed
    with tempfile.TemporaryDirectory(prefix="ctxledger-bench-") as name:
        async with EventStore.open(Path(name) / "ledger.db") as store:
            for size in sizes:
                messages, asked = material(corpus, size, count)
                found = await measure(store, f"s{size}", messages, asked, phases, embedder)
                results["sizes"][size] = found
            messages, asked = material(corpus, SMALL, count)
            small = [m.model_copy(update={"id": f"small-{m.id}"}) for m in messages]
            results["small"] = await measure(store, "small", small, asked, phases, embedder)
    first, last = results["sizes"][sizes[0]], results["sizes"][sizes[-1]]
    results["recall_growth"] = last["recall_p95_ms"] / first["recall_p95_ms"]
    results["others"] = sum(sizes) + 2 * count * len(sizes)
    return results


def report(results: dict[str, Any]) -> str:
    lines = [
        f"{results['corpus']}:",
        f"{'messages':>9} {'index/s':>8} {'plain p50':>9} {'p95':>6} {'recall p50':>10} "
        f"{'p95':>6} {'search p50':>10} {'p95':>6} {'recall/plain p95':>16}  (ms)",
    ]
    rows = [*results["sizes"].items(), (f"{SMALL} + others", results["small"])]
    for size, f in rows:
        lines.append(
            f"{size!s:>9} {f['index_messages_per_s']:>8.0f} {f['plain_p50_ms']:>9.2f} "
            f"{f['plain_p95_ms']:>6.2f} {f['recall_p50_ms']:>10.2f} {f['recall_p95_ms']:>6.2f} "
            f"{f['search_p50_ms']:>10.2f} {f['search_p95_ms']:>6.2f} "
            f"{f['recall_vs_plain_p95']:>15.2f}x"
        )
    sizes = list(results["sizes"])
    last = results["sizes"][sizes[-1]]
    lines.append(
        f"render with recall p95 / plain warm render p95 at {sizes[-1]}: "
        f"{last['recall_vs_plain_p95']:.2f}x (target <= 3)"
    )
    lines.append(
        f"render with recall p95, {sizes[-1]} / {sizes[0]} messages: "
        f"{results['recall_growth']:.2f}x (target <= 1.3)"
    )
    lines.append(
        f"render with recall p95 / plain, a {SMALL}-message session in a tenant holding "
        f"{results['others']} other messages: {results['small']['recall_vs_plain_p95']:.2f}x "
        "(target <= 3)"
    )
    if any(f"phase {PHASES[0]}_p50_ms" in f for _, f in rows):
        lines += phase_report(rows)
    return "\n".join(lines)


def phase_report(rows: list[tuple[Any, dict[str, float]]]) -> list[str]:
    """Each step of a render with recall, p50 / p95 ms (``--phases``)."""
    head = " ".join(f"{phase:>15}" for phase in PHASES)
    lines = [
        "where a render with recall spends its time, p50 / p95 ms:",
        f"{'messages':>14} {head}",
    ]
    for size, f in rows:
        cells = " ".join(
            f"{f[f'phase {p}_p50_ms']:>7.2f} /{f[f'phase {p}_p95_ms']:>6.2f}" for p in PHASES
        )
        lines.append(f"{size!s:>14} {cells}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--phases", action="store_true", help="also time each step of a render with recall"
    )
    parser.add_argument(
        "--vectors",
        action="store_true",
        help="the dialogue corpus with the embedding ranker (a hashing embedder)",
    )
    args = parser.parse_args()
    # 240 turns a size: a p95 of 60 was the third-largest sample, and one hiccup of this VM
    # moved the ratio by half a point from run to run.
    sizes, count = ([1_000, 5_000], 20) if args.quick else ([10_000, 100_000], 240)
    corpora = ["dialogue", "synthetic"] if dialogue(10, 1) is not None else ["synthetic"]
    if args.vectors:
        print(report(asyncio.run(run(sizes, count, corpora[0], embedder=HashingEmbedder()))))
        return
    for corpus in corpora:
        if args.phases:
            with timed_phases() as phases:
                print(report(asyncio.run(run(sizes, count, corpus, phases))))
        else:
            print(report(asyncio.run(run(sizes, count, corpus))))


if __name__ == "__main__":
    main()
