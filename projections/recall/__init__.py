"""Recall: a search index over every message (a read model in the store's full-text index),
BM25 ranking, and renders that page the best old groups back in for the turn's query."""

from projections.recall.rank import Hit
from projections.recall.search import RecallOptions

__all__ = ["Hit", "RecallOptions"]
