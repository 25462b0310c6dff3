"""The optional embedding ranker: a vector per message, kept as rows of a read model in the
store, and a score fusion with BM25.

An :class:`Embedder` turns texts into vectors (any model: ``embed(texts) -> vectors``);
:class:`~projections.recall.embedders.SentenceTransformerEmbedder` wraps a sentence-transformers
model. Give one to the :class:`~projections.ledger.Ledger` and every render with recall ranks
by both signals; without one, recall is BM25 alone and needs nothing but the database.

The vectors are derived data like the search index's terms, with the same guarantees: one row
per readable message of a session stream (:func:`~projections.recall.index.indexed_messages`),
keyed by the message's event id, in the tenant's own rows (a tenant reads only its own),
committed with the read model's checkpoint, and **deleted in the erasure's own transaction when
their message is erased** (the store does that for every read model). A vector is unit length,
quantised to signed bytes (cosine within about 0.01 of the float one) and stored base64 in the
row's JSON. A time-travel render reads only the vectors of the messages its cut holds.

Rows are read by key for the messages of the cut, and held decoded per session
(:mod:`projections.recall.vector_cache`): a render reads only the rows of messages appended
since, and :func:`projections.recall.dense.fuse_held` scores the cut in one matrix product,
giving what :func:`fuse` gives for the same rows.
"""

from __future__ import annotations

import base64
import math
import operator
import statistics
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from eventstore import RecordedEvent
from projections.errors import EmbedderError
from projections.projection import Changes
from projections.recall.index import indexed_messages, message_row
from projections.recall.vector_cache import DEFAULT_VECTOR_BYTES, VectorCache

__all__ = [
    "SCALE",
    "DenseScore",
    "Embedder",
    "VectorIndex",
    "dot_products",
    "fuse",
    "fused_scores",
    "quantised",
]

_MAX_NAME = 48  # "vectors-" + name + ".v1" stays within a read model's 64 characters


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of one dimension, the same text always to the same vector.

    ``name`` identifies the model and its version: vectors of another name are other rows
    (changing the model rebuilds them), never mixed with these.
    """

    @property
    def name(self) -> str:
        """The model's name (1 to 48 letters, digits and ``-_.``)."""
        ...

    def embed(self, texts: Sequence[str]) -> Sequence[Sequence[float]]:
        """One vector per text, in order."""
        ...


def quantised(vector: Sequence[float]) -> bytes:
    """A vector scaled to unit length, as signed bytes (-127..127)."""
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return bytes((round(127 * x / norm)) & 0xFF for x in vector)


class VectorIndex:
    """The read model of one embedder's vectors (see the module docstring)."""

    version = 1
    blocking = True  # a model embeds in a worker thread (ReadModelRunner), not on the loop

    def __init__(self, embedder: Embedder, *, cache_bytes: int = DEFAULT_VECTOR_BYTES) -> None:
        name = embedder.name
        if (
            not isinstance(name, str)
            or not 0 < len(name) <= _MAX_NAME
            or not all(c.isascii() and (c.isalnum() or c in "-_.") for c in name)
        ):
            raise EmbedderError(
                f"an embedder's name is 1 to {_MAX_NAME} ASCII letters, digits, '-', '_' or "
                f"'.', got {name!r}: give the model a short name"
            )
        self.embedder = embedder
        self.name = f"vectors-{name}"
        #: the sessions' decoded vectors (:mod:`projections.recall.vector_cache`)
        self.cache = VectorCache(cache_bytes)

    def changes(self, events: Sequence[RecordedEvent]) -> Changes:
        """One vector row per readable message of a session stream."""
        found = list(indexed_messages(events))
        if not found:
            return Changes()
        vectors = self.embed([text for _, _, text in found])
        return Changes(
            upserts=[
                message_row(
                    event, "", {"id": message.id, "q": base64.b64encode(quantised(vector)).decode()}
                )
                for (event, message, _), vector in zip(found, vectors, strict=True)
            ]
        )

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        """The embedder's vectors for ``texts``, checked: one each, all of one dimension."""
        vectors = list(self.embedder.embed(list(texts)))
        dimensions = {len(vector) for vector in vectors}
        if len(vectors) != len(texts) or len(dimensions) > 1 or 0 in dimensions:
            raise EmbedderError(
                f"embedder {self.embedder.name!r} returned {len(vectors)} vectors of "
                f"dimensions {sorted(dimensions)} for {len(texts)} texts: expected one "
                "non-empty vector per text, all of one dimension"
            )
        return vectors


@dataclass(frozen=True)
class DenseScore:
    """A message (by id) and its vector's cosine with the query."""

    message_id: str
    cosine: float


#: A cosine is the dot product of two quantised vectors divided by this.
SCALE = 127 * 127


def dot_products(asked: bytes, vectors: Sequence[bytes]) -> list[int]:
    """The exact integer dot products of signed-byte vectors: with numpy when it is installed
    (it comes with every embedding model's packages), else in Python; the same integers."""
    try:
        import numpy as np
    except ImportError:
        query = array("b", asked)
        return [sum(map(operator.mul, query, array("b", vector))) for vector in vectors]
    if not vectors:
        return []
    matrix = np.frombuffer(b"".join(vectors), dtype=np.int8).reshape(len(vectors), len(asked))
    products = matrix.astype(np.int32) @ np.frombuffer(asked, dtype=np.int8).astype(np.int32)
    return [int(value) for value in products]


def fuse(
    bm25: dict[str, float], dense: Sequence[DenseScore], weight: float, limit: int
) -> list[tuple[str, float]]:
    """Message ids with fused scores, best first (ties: the id, for the same order everywhere).

    BM25 scores are divided by the query's best; cosines are mapped to [0, 1] between the
    median of the conversation's and its best (below the median: nothing), so a message
    counts for the embedding ranker only when it is nearer the query than most. A message
    scores ``(1 - weight)·bm25 + weight·dense``; the best ``limit`` are kept.
    """
    cosines = [score.cosine for score in dense]
    if not cosines:
        return fused_scores(bm25, [], 0.0, 0.0, weight, limit)
    return fused_scores(bm25, dense, statistics.median(cosines), max(cosines), weight, limit)


def fused_scores(
    bm25: dict[str, float],
    dense: Sequence[DenseScore],
    floor: float,
    top: float,
    weight: float,
    limit: int,
) -> list[tuple[str, float]]:
    """:func:`fuse` with the conversation's median cosine (``floor``) and best (``top``)
    given: ``dense`` may then hold only the scores that can rank (what
    :func:`projections.recall.dense.fuse_held` passes), the result is the same."""
    best = max(bm25.values(), default=0.0) or 1.0
    fused = {message_id: (1 - weight) * score / best for message_id, score in bm25.items()}
    span = top - floor
    for score in dense:
        if span > 0 and score.cosine > floor:
            near = weight * (score.cosine - floor) / span
            fused[score.message_id] = fused.get(score.message_id, 0.0) + near
    ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
    return [(message_id, score) for message_id, score in ranked[:limit] if score > 0]
