"""A deterministic embedder for tests: a bag of concepts, where a few words share one (so the
embedding ranker finds what shares no term with the query), hashed into 32 dimensions."""

from __future__ import annotations

from collections.abc import Sequence

from blake3 import blake3

from projections.recall.terms import search_terms

SYNONYMS = {"kid": "child", "children": "child", "child": "child", "destress": "relax"}
DIMENSIONS = 32


class ConceptEmbedder:
    """Each text as counts of its concepts (a term, or the concept it shares)."""

    name = "concepts-test"

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._vector(text) for text in texts]

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * DIMENSIONS
        for term in search_terms(text):
            concept = SYNONYMS.get(term, term)
            vector[blake3(concept.encode()).digest()[0] % DIMENSIONS] += 1.0
        return vector if any(vector) else [1.0] + [0.0] * (DIMENSIONS - 1)
