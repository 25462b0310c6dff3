"""Ranking search rows: Okapi BM25 over the store's candidates, computed here from the
corpus figures the store reports within the same bounds, so every backend ranks alike and a
search as of an earlier position ranks as it did then. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from eventstore.recorder import Document, DocumentStats
from projections.recall.index import IndexedMessage

__all__ = ["Hit", "bm25"]

K1 = 1.2  # term-frequency saturation (the usual value)
B = 0.75  # length normalisation (the usual value)


@dataclass(frozen=True)
class Hit:
    """A message found by a query, with its BM25 score and the terms it matched."""

    message: IndexedMessage
    score: float
    matched: tuple[str, ...]


def bm25(terms: Sequence[str], documents: Sequence[Document], stats: DocumentStats) -> list[Hit]:
    """The candidates scored for ``terms``, best first (ties: newest first)."""
    if not documents or stats.count == 0:
        return []
    average = max(stats.total_length / stats.count, 1.0)
    weights = {
        term: math.log(1 + (stats.count - df + 0.5) / (df + 0.5))
        for term in dict.fromkeys(terms)
        if (df := stats.frequencies.get(term, 0)) > 0
    }
    hits = []
    for document in documents:
        words = document.terms.split()
        norm = K1 * (1 - B + B * len(words) / average)
        score, matched = 0.0, []
        for term, weight in weights.items():  # summed in the query's order, as before
            if n := words.count(term):
                score += weight * n * (K1 + 1) / (n + norm)
                matched.append(term)
        if matched:
            hits.append(Hit(IndexedMessage.of(document), score, tuple(matched)))
    hits.sort(key=lambda hit: (-hit.score, -hit.message.position))
    return hits
