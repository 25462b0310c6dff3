"""Searching a tenant's messages: the index caught up, the store's full-text pre-filter, BM25
from the store's corpus figures within the same bounds (so a search as of a position ranks as
it did then)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from projections.recall.index import SEARCH_INDEX
from projections.recall.rank import Hit, bm25
from projections.recall.terms import query_terms

if TYPE_CHECKING:
    from projections.ledger import Ledger

__all__ = ["CANDIDATES", "RecallOptions", "find"]

#: Rows the store's own ranking passes on to BM25 here (ranking is exact within them).
CANDIDATES = 500


@dataclass(frozen=True)
class RecallOptions:
    """How a render recalls.

    Args:
        query: what to search for (None: the latest user message of the context rendered).
        share: the share of usable the recalled block may take.
        neighbours: page in the other party's neighbouring turn of a hit when there is room
            (helps dialogue; one-speaker logs have no other party, so it costs them nothing).
        candidates: rows the store's pre-filter passes to BM25.
    """

    query: str | None = None
    share: float = 0.4
    neighbours: bool = True
    candidates: int = 200

    def __post_init__(self) -> None:
        if not 0 < self.share < 1:
            raise ValueError(f"the recall share is a share of usable in (0, 1), got {self.share}")


async def find(
    ledger: Ledger,
    tenant_id: str,
    query: str,
    *,
    scopes: Sequence[str] | None = None,
    max_position: int | None = None,
    limit: int = CANDIDATES,
) -> list[Hit]:
    """The messages of ``scopes`` (session streams; None: every session of the tenant) that
    match ``query``, best first, as of ``max_position`` (None: now)."""
    terms = query_terms(query)
    if not terms:
        return []
    runner = ledger.read_model(SEARCH_INDEX)
    await runner.catch_up(tenant_id)
    models = ledger.store.read_models
    stats = await models.stats(
        tenant_id, runner.name, terms, scopes=scopes, max_position=max_position
    )
    finding = _finding_terms(terms, stats.frequencies, limit)
    if not finding:
        return []
    documents = await models.search(
        tenant_id, runner.name, finding, scopes=scopes, limit=limit, max_position=max_position
    )
    return bm25(terms, documents, stats)


def _finding_terms(terms: Sequence[str], frequencies: dict[str, int], limit: int) -> list[str]:
    """The rarest terms whose rows together fit ``limit``: the rows found are every row of
    those terms, so nothing relevant is cut by the pre-filter's order; a row holding only
    common terms would rank low anyway (it is still scored on every term). At least the
    rarest term is kept. The choice depends only on the counts within the search's bounds,
    so a search as of an earlier position chooses as it did then."""
    chosen: list[str] = []
    total = 0
    for term in sorted((t for t in terms if frequencies.get(t)), key=lambda t: frequencies[t]):
        if chosen and total + frequencies[term] > limit:
            break
        chosen.append(term)
        total += frequencies[term]
    return chosen
