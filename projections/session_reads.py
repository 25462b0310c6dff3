"""The read side of a session: its state, renders (with recall), time travel and search.

:class:`~projections.ledger.Session` inherits these verbs; they never append.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, TypeVar

from eventstore import EventStore, RecordedEvent
from projections.context.budget import Budget
from projections.context.formats import Format
from projections.context.holes import RowsNotLoaded
from projections.context.messages import Message, text_of
from projections.context.tokens import TokenCounter
from projections.projection import ReadModel
from projections.read_model_runner import ReadModelRunner
from projections.runner import ProjectionRunner
from projections.session.bodies import IndexMismatchError, fetch_bodies
from projections.session.checks import check_groups, check_served
from projections.session.needs import (
    compaction_needs,
    group_indexes,
    recall_needs,
    served_groups,
    summary_yield_groups,
)
from projections.session.recall_block import (
    RECALL_SHARE,
    Recall,
    RecallHit,
    RecallPlan,
    plan_recall,
)
from projections.session.render import OverBudget, RenderedContext, fit_plan, render
from projections.session.state import Cut, SessionState
from projections.telemetry import conversation, operation

# Recall's modules (the search index, its stemmer, BM25) are imported by the reads that search:
# a plain render never loads them.
if TYPE_CHECKING:
    from projections.recall.rank import Hit
    from projections.recall.search import RecallOptions
    from projections.recall.vectors import VectorIndex

__all__ = [
    "LedgerParts",
    "SearchResult",
    "SessionReads",
    "latest_user_index",
    "latest_user_text",
]

T = TypeVar("T")


class LedgerParts(Protocol):
    """What a session's reads use of its ledger (a :class:`~projections.ledger.Ledger`)."""

    store: EventStore
    sessions: ProjectionRunner[SessionState]
    vectors: VectorIndex | None  # the embedding ranker's read model (None: BM25 alone)

    @property
    def counter(self) -> TokenCounter:
        """The token counter."""
        ...

    def read_model(self, model: ReadModel) -> ReadModelRunner:
        """The runner of a read model with rows of its own."""
        ...


@dataclass(frozen=True)
class SearchResult:
    """A message of the session that matches a query, with its score and matched terms."""

    message: Message
    version: int
    score: float
    matched: tuple[str, ...]


class SessionReads:
    """Reads of the stream ``session/<session_id>`` of a tenant (see the module docstring)."""

    ledger: LedgerParts
    tenant_id: str
    session_id: str
    stream_id: str

    async def latest(self) -> SessionState:
        """The session's latest state, as the ledger keeps it current (O(new events) to catch
        up); read it, never change it. :meth:`state` folds a fresh copy from the log instead."""
        return await self.ledger.sessions.current(self.tenant_id, self.session_id)

    async def messages(self) -> list[Message]:
        """The session's messages, in order (their bodies read from the log, checked)."""

        async def attempt() -> list[Message]:
            return (await self.all_messages()).messages()

        return await self._checked(attempt)

    async def state(
        self,
        *,
        at_version: int | None = None,
        at_position: int | None = None,
        at_time: datetime | None = None,
    ) -> SessionState:
        """The session folded afresh from its events, up to a version, a tenant position or a
        time (the reference that time-travel renders are checked against)."""

        def until(event: RecordedEvent) -> bool:
            return (
                (at_version is None or event.version <= at_version)
                and (at_position is None or event.position <= at_position)
                and (at_time is None or event.recorded_at <= at_time)
            )

        return await self.ledger.sessions.fold(self.tenant_id, self.session_id, until=until)

    async def _cut(
        self, at_version: int | None, at_position: int | None, at_time: datetime | None
    ) -> Cut:
        # A render reads few rows: it may start from a partial index (see ``_checked``).
        state = await self.ledger.sessions.current(self.tenant_id, self.session_id, partial=True)
        version = at_version
        if at_position is not None or at_time is not None:
            version = state.version_at(position=at_position, time=at_time)
            if at_version is not None:
                version = min(version, at_version)
        return state.cut(version)

    async def render(
        self,
        budget: Budget,
        *,
        keep_groups: int = 6,
        fmt: Format = "openai",
        at_version: int | None = None,
        at_position: int | None = None,
        at_time: datetime | None = None,
        recall: RecallOptions | bool = False,
        over_budget: OverBudget = "raise",
        repair: bool = False,
    ) -> RenderedContext:
        """The next request's messages under ``budget``, with its manifest.

        Works on the state the ledger keeps current: a warm render reads only new events and
        touches only the groups it keeps, and an earlier context (time travel by version,
        tenant position or time) is cut out of the same state, never refolded. With
        ``recall`` (True, or :class:`RecallOptions`), the best old groups for the query (by
        default the latest user message) are paged back in; as of an earlier version, recall
        searches only what was logged by then, so a replay gives the same request.

        The request never exceeds ``budget.usable``: recent groups beyond the newest give way
        first; when the prefix, pins, summary and newest turn alone do not fit, it raises
        :class:`ContextOverBudgetError` naming each part (``over_budget="serve"``: serve it,
        flagged ``manifest.over_budget``, to inspect it). With ``repair``, a broken tool
        protocol is repaired in the request, never in the log: a call without a result gets a
        marked placeholder, an orphan result is left out, each listed in
        ``manifest.repairs`` (:mod:`projections.session.repair`).
        """
        repairing = self.ledger.counter.count_message if repair else None
        with operation("render", conversation(self.tenant_id, self.session_id)) as span:

            async def attempt() -> RenderedContext:
                cut = await self._cut(at_version, at_position, at_time)
                plan, _ = fit_plan(cut, budget, keep_groups=keep_groups)
                groups = served_groups(cut, (group for group, _ in plan.chosen))
                needs = group_indexes(cut, groups)
                if not recall:
                    cut = await self.with_bodies(cut, needs)
                    check_groups(cut, groups)
                    return render(
                        cut,
                        budget,
                        keep_groups=keep_groups,
                        fmt=fmt,
                        over_budget=over_budget,
                        repair=repairing,
                    )
                from projections.recall.search import RecallOptions

                options = recall if isinstance(recall, RecallOptions) else RecallOptions()
                found = await self._recall(cut, options)
                more = recall_needs(cut, found, {group for group, _ in plan.chosen})
                if found.summary_yields:  # what the render reads if the summary yields
                    bare, kept = summary_yield_groups(cut, budget, keep_groups)
                    groups |= bare
                    more |= group_indexes(cut, bare) | recall_needs(cut, found, kept)
                cut = await self.with_bodies(cut, needs | more)
                check_groups(cut, groups)
                return render(
                    cut,
                    budget,
                    keep_groups=keep_groups,
                    fmt=fmt,
                    recall=found,
                    count=self.ledger.counter.count_text,
                    over_budget=over_budget,
                    repair=repairing,
                )

            rendered = await self._checked(attempt)
            span.update(
                tokens=rendered.manifest.tokens["total"], over_budget=rendered.manifest.over_budget
            )
        if not getattr(self.ledger.counter, "exact", True):
            manifest = rendered.manifest.model_copy(update={"token_counts": "estimate"})
            rendered = rendered.model_copy(update={"manifest": manifest})
        return rendered

    async def _checked(self, read: Callable[[], Awaitable[T]]) -> T:
        """``read()``, once more on the whole index if it met a row a partial one lacks, and
        on a state rebuilt from the log if the index it read from (a snapshot) disagreed with
        the log: nothing a forged snapshot says is served."""
        try:
            try:
                return await read()
            except RowsNotLoaded:
                await self.ledger.sessions.current(self.tenant_id, self.session_id)
                return await read()
        except IndexMismatchError as error:
            await self.ledger.sessions.distrust(self.tenant_id, self.session_id, str(error))
            return await read()

    async def with_bodies(self, cut: Cut, indexes: Iterable[int]) -> Cut:
        """The cut with the bodies of these messages at hand: from the ledger's body cache,
        else read from the log and checked against the index (:mod:`projections.session.bodies`);
        the served summary and these messages' masks checked against their events first when
        they came from a snapshot (:mod:`projections.session.checks`)."""
        state = cut.state
        indexes = list(indexes)
        store = self.ledger.store
        await check_served(store, self.tenant_id, self.stream_id, cut, indexes)
        held: dict[int, Message] = {}
        missing = []
        for index in indexes:
            body = cut.loaded.get(index) or state.bodies.get(index)
            if body is None:
                missing.append(index)
            else:
                held[index] = body
        if missing:
            found = await fetch_bodies(store, self.tenant_id, self.stream_id, state, missing)
            for index, message in found.items():
                state.bodies.put(index, state.message_versions[index], message)
            held.update(found)
        return cut.with_bodies(held)

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
        return Recall(query, found, options.share, options.neighbours, options.summary_yields)

    async def _fused(
        self,
        vectors: VectorIndex,
        query: str,
        cut: Cut,
        found: list[RecallHit],
        options: RecallOptions,
    ) -> list[RecallHit]:
        """BM25's hits fused with the embedding ranker's cosines over the cut's messages (the
        vectors of later or erased messages are never read)."""
        from projections.recall.vectors import dense_scores, fuse

        runner = self.ledger.read_model(vectors)
        await runner.catch_up(self.tenant_id)
        state = cut.state
        keys = [state.message_event_ids[i] for i in range(cut.count) if i not in state.erased]
        rows = await self.ledger.store.read_models.read(self.tenant_id, runner.name, keys)
        [asked] = await asyncio.to_thread(vectors.embed, [query])  # a model: off the loop
        bm25 = {hit.message_id: hit.score for hit in found}
        fused = fuse(bm25, dense_scores(asked, rows), options.dense_weight, options.candidates)
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

    async def read_message(self, reference: str) -> Message | None:
        """A message of the session by its id or its event's id, whole (even when renders serve
        it masked): what an agent's tool pages in."""

        async def attempt() -> Message | None:
            state = await self.latest()
            index = state.index_of.get(reference)
            if index is None:
                index = state.message_event_ids.find(reference)
            if index is None or index in state.erased:
                return None
            return (await self.with_bodies(state.cut(), [index])).message(index)

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

        if room <= 0 or not query.strip():
            return RecallPlan(None, 0)
        return await self._checked(attempt)

    async def compaction_cut(self) -> Cut:
        """The latest cut with what compaction and masking read at hand: the messages no
        summary covers yet, the prefix, the pins, and what the served summary cites."""
        cut = (await self.latest()).cut()
        return await self.with_bodies(cut, compaction_needs(cut))

    async def all_messages(self, cut: Cut | None = None) -> Cut:
        """The cut (default: the latest) with every message's body at hand: O(history), for
        reports, exports and integrations that hand the whole conversation over."""
        cut = cut if cut is not None else (await self.latest()).cut()
        return await self.with_bodies(cut, range(cut.count))


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
