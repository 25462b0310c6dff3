"""Search and recall over a session: the index's hits, fused with an embedding ranker's when
one is set, and the recalled block on its own.

Recall's modules (the search index, its stemmer, BM25) are imported by the reads that search:
a plain render never loads them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from projections.arguments import check_count, check_text, check_version
from projections.context.messages import Message, text_of
from projections.context.tokens import lines_add_up
from projections.session.needs import recall_needs
from projections.session.recall_block import (
    RECALL_SHARE,
    Recall,
    RecallHit,
    RecallPlan,
    plan_recall,
)
from projections.session.state import Cut
from projections.session_cuts import SessionCuts

if TYPE_CHECKING:
    from eventstore.recorder import Document
    from projections.recall.rank import Hit
    from projections.recall.search import RecallOptions
    from projections.recall.vectors import VectorIndex

__all__ = ["RecallReads", "SearchResult", "latest_user_index", "latest_user_text"]


@dataclass(frozen=True)
class SearchResult:
    """A message of the session that matches a query, with its score and matched terms."""

    message: Message
    version: int
    score: float
    matched: tuple[str, ...]


class RecallReads(SessionCuts):
    """Search and recall over the session's messages (see the module docstring)."""

    async def _recall(self, cut: Cut, options: RecallOptions) -> Recall:
        query = options.query
        if query is None:
            latest = latest_user_index(cut)
            cut = await self.with_bodies(cut, [] if latest is None else [latest])
            query = latest_user_text(cut)
        hits = await self._find(query, cut, limit=options.candidates, expand=options.expand)
        found = [RecallHit(hit.message.message_id, hit.score) for hit in hits]
        vectors = self.ledger.vectors
        if vectors is not None and options.dense_weight > 0 and query.strip():
            found = await self._fused(vectors, query, cut, found, options)
        return Recall(
            query,
            found,
            options.share,
            options.neighbours,
            options.summary_yields,
            lines_add_up(self.ledger.counter),
        )

    async def _fused(
        self,
        vectors: VectorIndex,
        query: str,
        cut: Cut,
        found: list[RecallHit],
        options: RecallOptions,
    ) -> list[RecallHit]:
        """BM25's hits fused with the embedding ranker's cosines over the cut's messages (the
        vectors of later or erased messages are never scored), from the session's vectors
        held decoded in memory: only the rows of messages appended since are read."""
        from projections.recall.dense import CutVectors, fuse_held
        from projections.recall.vector_cache import held_vectors
        from projections.recall.vectors import quantised

        runner = self.ledger.read_model(vectors)
        await runner.catch_up(self.tenant_id)
        [asked] = await asyncio.to_thread(vectors.embed, [query])  # a model: off the loop
        question = quantised(asked)
        read_models, name = self.ledger.store.read_models, runner.name

        async def read(keys: list[str]) -> Sequence[Document]:
            return await read_models.read(self.tenant_id, name, keys)

        state = cut.state
        held = await held_vectors(
            vectors.cache,
            (self.tenant_id, self.stream_id),
            state.message_event_ids,
            cut.count,
            len(question),
            read,
        )
        bm25 = {hit.message_id: hit.score for hit in found}
        vectors_then = CutVectors(held, state.ids, state.index_of, cut.count, state.erased)
        fused = fuse_held(bm25, question, vectors_then, options.dense_weight, options.candidates)
        return [RecallHit(message_id, score) for message_id, score in fused]

    async def _find(
        self, query: str, cut: Cut, *, limit: int | None = None, expand: bool | None = None
    ) -> list[Hit]:
        """The recall index's hits for ``query`` in this session, as of the cut (``limit``
        and ``expand``: recall's defaults when None)."""
        from projections.recall.index import SEARCH_INDEX
        from projections.recall.search import CANDIDATES, EXPAND, find

        return await find(
            self.ledger.read_model(SEARCH_INDEX),
            self.tenant_id,
            query,
            scopes=[self.stream_id],
            max_position=cut.position,
            limit=CANDIDATES if limit is None else limit,
            expand=EXPAND if expand is None else expand,
        )

    async def search(
        self, query: str, k: int = 10, *, at_version: int | None = None
    ) -> list[SearchResult]:
        """The ``k`` messages of the session that best match ``query`` (BM25), as of
        ``at_version`` (None: now)."""
        check_text("query", query)
        check_count("k", k)
        check_version("at_version", at_version)

        async def attempt() -> list[SearchResult]:
            cut = await self._cut(at_version, None, None)
            hits = await self._find(query, cut)
            index_of = cut.state.index_of
            found = [
                (index, hit)
                for hit in hits
                if (index := index_of.get(hit.message.message_id, cut.count)) < cut.count
            ][:k]
            # What a result shows (the message, its version) is the log's, read and checked;
            # the search index contributes the ranking only.
            cut = await self.with_bodies(cut, [index for index, _ in found])
            versions = cut.state.message_versions
            return [
                SearchResult(cut.message(index), versions[index], hit.score, hit.matched)
                for index, hit in found
            ]

        return await self._checked(attempt)

    async def recall_block(
        self, query: str, room: int, served: Iterable[str] = (), *, share: float = RECALL_SHARE
    ) -> RecallPlan:
        """The recalled block for ``query`` on its own, within ``room`` tokens (its message
        counted as the render counts it), leaving out the groups of the messages already
        ``served``: what a framework hook adds beside a context it rendered without recall
        (the Agents SDK session's ``recall_filter``). ``share`` only labels the block."""

        from projections.recall.search import RecallOptions

        async def attempt() -> RecallPlan:
            cut = (await self.latest()).cut()
            index_of = cut.state.index_of
            taken = {cut.state.group_of(i) for i in served if i in index_of}
            found = await self._recall(cut, RecallOptions(query=query, share=share))
            cut = await self.with_bodies(cut, recall_needs(cut, found, taken))
            return plan_recall(cut, found, taken, room, self.ledger.counter.count_text)

        check_text("query", query)
        if room <= 0 or not query.strip():
            return RecallPlan(None, 0)
        return await self._checked(attempt)


def latest_user_index(cut: Cut) -> int | None:
    """The index of the latest user message as of the cut (None when there is none)."""
    roles, erased = cut.state.roles, cut.state.erased
    for index in range(cut.count - 1, -1, -1):
        if roles[index] == "user" and index not in erased:
            return index
    return None


def latest_user_text(cut: Cut) -> str:
    """The text of the latest user message as of the cut ("" when there is none); its body
    must be at hand (:meth:`SessionReads.with_bodies`)."""
    index = latest_user_index(cut)
    return "" if index is None else text_of(cut.message(index))
