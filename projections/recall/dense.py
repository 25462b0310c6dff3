"""The embedding ranker's scores over a session's held vectors, fused with BM25's.

:func:`fuse_held` gives exactly what :func:`projections.recall.vectors.fuse` gives for the
same rows (a hypothesis test compares them), without a Python object per message: the dot
products of the whole cut are one matrix product, and only the scores that can rank become
:class:`~projections.recall.vectors.DenseScore`. Which can rank: every BM25 hit's, and of the
others the ``limit + len(bm25)`` nearest the query (ties at that boundary included), since a
message that is neither scores ``weight·near`` below at least ``limit`` others.

The products are exact integers either way: signed bytes multiplied and summed in float32 stay
below 2**24 (384 dimensions × 127² = 6.2 million; up to 1,040 dimensions), where every integer
is a float32, so the order BLAS sums in does not matter; wider vectors are summed in int64.
Without numpy the reference path scores row by row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from projections.recall.vector_cache import SessionVectors
from projections.recall.vectors import SCALE, DenseScore, dot_products, fuse, fused_scores

if TYPE_CHECKING:
    import numpy

__all__ = ["CutVectors", "fuse_held"]

_EXACT_IN_FLOAT32 = 2**24 // SCALE  # dimensions whose products sum exactly in float32
_CHUNK = 8192  # rows converted at a time (a 384-dimension chunk: 12 MB as float32)


@dataclass(frozen=True)
class CutVectors:
    """The held vectors of a cut: its first ``count`` messages less the ``erased``, with the
    session index's message ids by index (``ids``) and indexes by id (``index_of``)."""

    held: SessionVectors
    ids: Sequence[str]
    index_of: Mapping[str, int]
    count: int
    erased: set[int]


def fuse_held(
    bm25: dict[str, float], asked: bytes, cut: CutVectors, weight: float, limit: int
) -> list[tuple[str, float]]:
    """BM25's scores fused with the cosines of ``asked`` (a quantised query vector) and the
    cut's held vectors: what :func:`~projections.recall.vectors.fuse` gives for those rows'
    dense scores."""
    held, count, erased = cut.held, cut.count, cut.erased
    try:
        import numpy as np
    except ImportError:
        return fuse(bm25, _reference_scores(asked, cut), weight, limit)
    if len(asked) != held.dimension:  # another model's query: no row is comparable
        return fuse(bm25, [], weight, limit)
    cosines = _cosines(np, asked, held, count)
    valid = np.frombuffer(held.present, dtype=np.bool_, count=count).copy()
    if erased:
        valid[[index for index in erased if index < count]] = False
    chosen = cosines[valid]
    if not len(chosen):
        return fuse(bm25, [], weight, limit)
    floor, top = _median(np, chosen), float(chosen.max())
    ranking = _ranking(np, cosines, valid, chosen, limit + len(bm25))
    ranking.update(_bm25_indexes(bm25, cut, valid))
    ids = cut.ids
    dense = [DenseScore(ids[i], float(cosines[i])) for i in sorted(ranking)]
    return fused_scores(bm25, dense, floor, top, weight, limit)


def _reference_scores(asked: bytes, cut: CutVectors) -> list[DenseScore]:
    held = cut.held
    if len(asked) != held.dimension:
        return []
    indexes = held.rows(cut.count, cut.erased)
    products = dot_products(asked, [held.vector(index) for index in indexes])
    pairs = zip(indexes, products, strict=True)
    return [DenseScore(cut.ids[index], dot / SCALE) for index, dot in pairs]


def _cosines(np: Any, asked: bytes, held: SessionVectors, count: int) -> numpy.ndarray:
    """Each of the first ``count`` held vectors' cosine with ``asked`` (0 where none)."""
    dimension = held.dimension
    matrix = np.frombuffer(held.matrix, dtype=np.int8, count=count * dimension)
    matrix = matrix.reshape(count, dimension)
    kind = np.float32 if dimension <= _EXACT_IN_FLOAT32 else np.int64
    query = np.frombuffer(asked, dtype=np.int8).astype(kind)
    products = np.empty(count, dtype=np.float64)
    for start in range(0, count, _CHUNK):
        block = matrix[start : start + _CHUNK].astype(kind)
        products[start : start + len(block)] = block @ query
    cosines: numpy.ndarray = products / SCALE  # exact integers over SCALE, as int / int
    return cosines


def _median(np: Any, values: numpy.ndarray) -> float:
    """``statistics.median`` of ``values``, computed as it computes it."""
    size = len(values)
    middle = size // 2
    if size % 2:
        return float(np.partition(values, middle)[middle])
    parted = np.partition(values, [middle - 1, middle])
    return (float(parted[middle - 1]) + float(parted[middle])) / 2


def _ranking(
    np: Any, cosines: numpy.ndarray, valid: numpy.ndarray, chosen: numpy.ndarray, keep: int
) -> set[int]:
    """The valid indexes whose cosine is among the ``keep`` best (ties at the edge too)."""
    if len(chosen) <= keep:
        return {int(i) for i in np.flatnonzero(valid)}
    edge = np.partition(chosen, len(chosen) - keep)[len(chosen) - keep]
    return {int(i) for i in np.flatnonzero(valid & (cosines >= edge))}


def _bm25_indexes(bm25: dict[str, float], cut: CutVectors, valid: numpy.ndarray) -> set[int]:
    """The indexes of BM25's hits that have a valid vector in the cut."""
    found = (cut.index_of.get(message_id) for message_id in bm25)
    return {i for i in found if i is not None and i < cut.count and bool(valid[i])}
