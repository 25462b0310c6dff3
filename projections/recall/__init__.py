"""Recall: a search index over every message (a read model in the store's full-text index),
BM25 ranking, and renders that page the best old groups back in for the turn's query.

The names below are imported on first use (PEP 562): a module of the package (the vector
cache's bound, which the ledger reads at start-up) loads without the search and its stemmer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from projections.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from projections.recall.rank import Hit
    from projections.recall.search import RecallOptions

__all__ = ["Hit", "RecallOptions"]

__getattr__, __dir__ = lazy_exports(
    __name__, {"Hit": "projections.recall.rank", "RecallOptions": "projections.recall.search"}
)
