"""The value ledger's scan: what reading every typed value of a turn costs, and where it goes.

    python -m tests.benchmarks.bench_values            # the first 6,000 turns of the corpora
    python -m tests.benchmarks.bench_values --quick    # a smoke run (also run by the tests)

Prints the scan of the turns (``values._typed_values``, best of three rounds), the same scan
with every pattern run on every turn (the prefilter off: the baseline, in the same process),
and per pattern its time over all turns and how many turns the prefilter admits it to. A
pattern whose every branch opens with a word boundary or a letter is searched for its first
character by Python's ``re``; one that opens with a lookbehind is tried at every position,
and a branch whose literal is common ("at") admits its pattern almost everywhere: these two
columns show both (docs/quality.md, "Task requests the corpora do not hold").
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable, Iterable

from projections.context.messages import text_of
from projections.summaries import values
from projections.summaries.value_patterns import VALUE_PATTERNS
from tests.benchmarks.corpora import bfcl, locomo, tau_bench

ROUNDS = 3


def corpus_turns(limit: int) -> list[str]:
    """The text of the first ``limit`` turns of tau-bench, LoCoMo and BFCL memory, in order."""
    texts: list[str] = []
    for load in (tau_bench, locomo, bfcl):
        for _, messages, _ in load(None):
            texts.extend(text for text in map(text_of, messages) if text)
    return texts[:limit]


def best_of(rounds: int, work: Callable[[], object]) -> float:
    """The fastest of ``rounds`` runs of ``work``, in seconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def scan(texts: Iterable[str]) -> None:
    for text in texts:
        list(values._typed_values(text))


def scan_every_pattern(texts: Iterable[str]) -> None:
    for text in texts:
        for _, pattern in VALUE_PATTERNS:
            list(pattern.finditer(text))


def report(texts: list[str], rounds: int) -> str:
    admitted: Counter[int] = Counter()
    for text in texts:
        admitted.update(values._NEEDS.admitted(text, text.lower()))
    filtered = best_of(rounds, lambda: scan(texts))
    unfiltered = best_of(rounds, lambda: scan_every_pattern(texts))
    lines = [
        f"turns: {len(texts)}, patterns: {len(VALUE_PATTERNS)}, best of {rounds}",
        f"scan (values._typed_values): {filtered:.2f} s",
        f"every pattern on every turn (no prefilter): {unfiltered:.2f} s "
        f"(scan / this: {filtered / unfiltered:.2f}x)",
        f"{'#':>3} {'kind':9} {'ms, all turns':>13} {'admitted':>9}  pattern",
    ]
    for index, (kind, pattern) in enumerate(VALUE_PATTERNS):
        alone = best_of(rounds, lambda p=pattern: [list(p.finditer(t)) for t in texts])
        opening = pattern.pattern[:48].replace("\n", " ")
        lines.append(f"{index:>3} {kind:9} {alone * 1000:>13.0f} {admitted[index]:>9}  {opening}")
    return "\n".join(lines)


#: Texts of one word repeated, the shapes a pattern could read again from every word (a run
#: of capitalised words never ending in a joiner once took seconds at 4,000 words).
LONG_RUNS = (
    "Abc", "ABC", "Abc ABC", "Abc of", "Abc-Abc", "O'Abc", "Abc,", "the 5th", "12-",
    # initials inside a name; a name cut short by a value taken before it
    "A. Abc", "A.", "Abc of Abc on Monday", "the 5th floor",
    # clock times and days in words, a weekday abbreviated
    "at eight thirty", "Sat the", "the fourteenth",
)  # fmt: skip


def long_runs(short: int = 1000, long: int = 4000) -> str:
    """Each shape's scan at ``short`` and ``long`` words, and the ratio (4 when linear)."""
    lines = [f"worst-case shapes, {short:,} and {long:,} words (ratio 4 when linear):"]
    for shape in LONG_RUNS:
        texts = [" ".join([shape] * n) for n in (short, long)]
        times = [best_of(3, lambda text=text: list(values._typed_values(text))) for text in texts]
        lines.append(
            f"  {shape!r:24} {times[0] * 1000:7.1f} ms {times[1] * 1000:8.1f} ms "
            f"{times[1] / max(times[0], 1e-9):5.1f}x"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--turns", type=int, default=6000)
    parser.add_argument("--quick", action="store_true", help="300 turns, one round")
    args = parser.parse_args()
    texts = corpus_turns(300 if args.quick else args.turns)
    print(report(texts, 1 if args.quick else ROUNDS))
    print(long_runs(100, 400) if args.quick else long_runs())


if __name__ == "__main__":
    main()
