"""Searching a tenant's messages: the index caught up, the store's full-text pre-filter, BM25
from the store's corpus figures within the same bounds (so a search as of a position ranks as
it did then)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from eventstore import EventStore
from eventstore.recorder import Document, DocumentStats
from projections.errors import ConfigurationError
from projections.read_model_runner import ReadModelRunner
from projections.recall.rank import Hit, bm25
from projections.recall.terms import query_terms
from projections.session.recall_block import RECALL_SHARE

__all__ = ["CANDIDATES", "DENSE_WEIGHT", "EXPAND", "RECALL_SHARE", "RecallOptions", "find"]

#: Rows the store's own ranking passes on to BM25 here (ranking is exact within them).
CANDIDATES = 500
#: Expand queries by pseudo-relevance feedback (see :func:`find`).
EXPAND = False
#: With a ledger's embedder, the share of a recall score that comes from the embedding ranker
#: (the rest is BM25's), chosen by measurement on LoCoMo (docs/quality.md, "The embedding
#: ranker").
DENSE_WEIGHT = 0.3


@dataclass(frozen=True)
class RecallOptions:
    """How a render recalls.

    Args:
        query: what to search for (None: the latest user message of the context rendered).
        share: the share of usable the recalled block may take.
        neighbours: let the groups one and two away from a hit compete for the block at
            part of its score (``NEARBY_WEIGHTS``: the answer is often the reply to the turn
            that matched, or the same speaker's next turn): +3.7 points of LoCoMo evidence
            at 8x, none lost on BFCL memory (docs/quality.md, "Turns near a hit").
        candidates: rows the store's pre-filter passes to BM25.
        expand: expand the query by pseudo-relevance feedback (terms the best three hits
            share, weighted 0.3): +1.2 to +1.6 points of LoCoMo evidence, but the shared terms
            are often common ones (a speaker's name) whose counts cost: render with recall
            went from 44 to 139 ms at 100k messages. Off by default.
        dense_weight: with a ledger's embedder, the share of a recall score that comes from
            the embedding ranker (:data:`DENSE_WEIGHT`; 0: BM25 alone). Without an embedder
            it is not used.
        summary_yields: when the best hit does not fit beside the served summary (a small
            budget), serve the render without the summary if that serves the hit; the
            manifest's ``summary_yielded`` names the summary version. BFCL memory at 4x:
            89.1% -> 97.3% of the ceiling; LoCoMo unchanged (docs/recall.md). False: the
            summary is always served.
    """

    query: str | None = None
    share: float = RECALL_SHARE
    neighbours: bool = True
    candidates: int = 200
    expand: bool = EXPAND
    dense_weight: float = DENSE_WEIGHT
    summary_yields: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.dense_weight <= 1:
            raise ConfigurationError(f"the dense weight is in [0, 1], got {self.dense_weight}")
        if not 0 < self.share < 1:
            raise ConfigurationError(
                f"the recall share is a share of usable in (0, 1), got {self.share}"
            )


async def find(
    index: ReadModelRunner,
    tenant_id: str,
    query: str,
    *,
    scopes: Sequence[str] | None = None,
    max_position: int | None = None,
    limit: int = CANDIDATES,
    expand: bool = EXPAND,
) -> list[Hit]:
    """The messages of ``scopes`` (session streams; None: every session of the tenant) that
    match ``query``, best first, as of ``max_position`` (None: now). ``index``: the runner of
    the search index's read model (``ledger.read_model(SEARCH_INDEX)``), caught up first."""
    terms = query_terms(query)
    if not terms:
        return []
    await index.catch_up(tenant_id)
    search = _Search(index.store, tenant_id, index.name, scopes, max_position, limit)
    documents, stats = await search.rows(terms)
    hits = bm25(terms, documents, stats)
    if not expand or not hits:
        return hits
    extra = _expansion(terms, documents, hits)
    if not extra:
        return hits
    more, more_stats = await search.rows(extra)
    return _fused(hits, bm25(extra, [*documents, *more], more_stats))


_FEEDBACK = 3  # the best hits that suggest expansion terms
_EXPANSION = 5  # terms added
_EXPANSION_WEIGHT = 0.3


@dataclass(frozen=True)
class _Search:
    store: EventStore
    tenant_id: str
    name: str
    scopes: Sequence[str] | None
    max_position: int | None
    limit: int

    async def rows(self, terms: Sequence[str]) -> tuple[list[Document], DocumentStats]:
        """The corpus figures and the rows of the rarest terms whose rows fit the limit (so
        nothing relevant is cut by the pre-filter's order: a row holding only common terms
        would rank low anyway; it is still scored on every term), in one read."""
        return await self.store.read_models.find(
            self.tenant_id,
            self.name,
            terms,
            scopes=self.scopes,
            limit=self.limit,
            max_position=self.max_position,
        )


def _expansion(
    terms: Sequence[str], documents: Sequence[Document], hits: Sequence[Hit]
) -> list[str]:
    """Pseudo-relevance feedback: terms that at least two of the best hits share and the query
    lacks, most shared first (ties: first seen)."""
    by_key = {(d.scope, d.position): d for d in documents}
    asked = set(terms)
    counts: dict[str, int] = {}
    for hit in hits[:_FEEDBACK]:
        document = by_key.get((hit.message.stream_id, hit.message.position))
        if document is None:
            continue
        for term in dict.fromkeys(document.terms.split()):
            if term not in asked:
                counts[term] = counts.get(term, 0) + 1
    shared = [t for t, n in sorted(counts.items(), key=lambda i: -i[1]) if n >= 2]
    return shared[:_EXPANSION]


def _fused(hits: Sequence[Hit], expanded: Sequence[Hit]) -> list[Hit]:
    """The query's scores plus a share of the expansion's, best first."""
    scores = {(h.message.stream_id, h.message.position): h for h in hits}
    total = {key: hit.score for key, hit in scores.items()}
    for hit in expanded:
        key = (hit.message.stream_id, hit.message.position)
        total[key] = total.get(key, 0.0) + _EXPANSION_WEIGHT * hit.score
        scores.setdefault(key, hit)
    fused = [Hit(scores[key].message, score, scores[key].matched) for key, score in total.items()]
    fused.sort(key=lambda hit: (-hit.score, -hit.message.position))
    return fused
