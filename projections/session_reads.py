"""The read side of a session: its state, renders (with recall), time travel and search.

:class:`~projections.ledger.Session` inherits these verbs; they never append.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from eventstore import RecordedEvent
from projections.context.budget import Budget
from projections.context.formats import Format
from projections.context.messages import Message, text_of
from projections.recall.search import RecallOptions, find
from projections.session.recall_block import Recall, RecallHit
from projections.session.render import OverBudget, RenderedContext, render
from projections.session.state import Cut, SessionState
from projections.telemetry import conversation, operation

if TYPE_CHECKING:
    from projections.ledger import Ledger

__all__ = ["SearchResult", "SessionReads"]


@dataclass(frozen=True)
class SearchResult:
    """A message of the session that matches a query, with its score and matched terms."""

    message: Message
    version: int
    score: float
    matched: tuple[str, ...]


class SessionReads:
    """Reads of the stream ``session/<session_id>`` of a tenant (see the module docstring)."""

    ledger: Ledger
    tenant_id: str
    session_id: str
    stream_id: str

    async def latest(self) -> SessionState:
        """The session's latest state, as the ledger keeps it current (O(new events) to catch
        up); read it, never change it. :meth:`state` folds a fresh copy from the log instead."""
        return await self.ledger.sessions.current(self.tenant_id, self.session_id)

    async def messages(self) -> list[Message]:
        """The session's messages, in order (from :meth:`latest`)."""
        return list((await self.latest()).messages)

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
        state = await self.latest()
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
        flagged ``manifest.over_budget``, to inspect it).
        """
        with operation("render", conversation(self.tenant_id, self.session_id)) as span:
            cut = await self._cut(at_version, at_position, at_time)
            if not recall:
                rendered = render(
                    cut, budget, keep_groups=keep_groups, fmt=fmt, over_budget=over_budget
                )
            else:
                options = recall if isinstance(recall, RecallOptions) else RecallOptions()
                plan = await self._recall(cut, options)
                count = self.ledger.counter.count_text
                rendered = render(
                    cut,
                    budget,
                    keep_groups=keep_groups,
                    fmt=fmt,
                    recall=plan,
                    count=count,
                    over_budget=over_budget,
                )
            span.update(
                tokens=rendered.manifest.tokens["total"], over_budget=rendered.manifest.over_budget
            )
        if not getattr(self.ledger.counter, "exact", True):
            manifest = rendered.manifest.model_copy(update={"token_counts": "estimate"})
            rendered = rendered.model_copy(update={"manifest": manifest})
        return rendered

    async def _recall(self, cut: Cut, options: RecallOptions) -> Recall:
        query = options.query if options.query is not None else latest_user_text(cut)
        hits = await find(
            self.ledger,
            self.tenant_id,
            query,
            scopes=[self.stream_id],
            max_position=cut.position,
            limit=options.candidates,
            expand=options.expand,
        )
        found = [RecallHit(hit.message.message_id, hit.score) for hit in hits]
        return Recall(query, found, options.share, options.neighbours)

    async def search(
        self, query: str, k: int = 10, *, at_version: int | None = None
    ) -> list[SearchResult]:
        """The ``k`` messages of the session that best match ``query`` (BM25), as of
        ``at_version`` (None: now)."""
        cut = await self._cut(at_version, None, None)
        hits = await find(
            self.ledger, self.tenant_id, query, scopes=[self.stream_id], max_position=cut.position
        )
        state = cut.state
        results = []
        for hit in hits:
            index = state.index_of.get(hit.message.message_id)
            if index is not None and index < cut.count:
                results.append(
                    SearchResult(state.messages[index], hit.message.version, hit.score, hit.matched)
                )
        return results[:k]

    async def read_message(self, reference: str) -> Message | None:
        """A message of the session by its id or its event's id, whole (even when renders serve
        it masked): what an agent's tool pages in."""
        state = await self.latest()
        index = state.index_of.get(reference)
        if index is None and reference in state.message_event_ids:
            index = state.message_event_ids.index(reference)
        if index is None or index in state.erased:
            return None
        return state.messages[index]


def latest_user_text(cut: Cut) -> str:
    """The text of the latest user message as of the cut ("" when there is none)."""
    messages = cut.state.messages
    for index in range(cut.count - 1, -1, -1):
        if messages[index].role == "user" and index not in cut.state.erased:
            return text_of(messages[index])
    return ""
