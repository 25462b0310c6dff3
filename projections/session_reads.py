"""The read side of a session: its state, renders (with recall), time travel and search.

:class:`~projections.ledger.Session` inherits these verbs; they never append. The base
(cuts, bodies from the log) is :mod:`projections.session_cuts`, search and recall
:mod:`projections.session_recall`.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from eventstore import RecordedEvent
from projections.arguments import (
    check_budget,
    check_count,
    check_recall,
    check_text,
    check_version,
)
from projections.context.budget import Budget
from projections.context.formats import Format
from projections.context.messages import Message
from projections.session.checks import check_groups
from projections.session.needs import (
    group_indexes,
    recall_needs,
    served_groups,
    summary_yield_needs,
)
from projections.session.render import OverBudget, RenderedContext, fit_plan, render
from projections.session.state import SessionState
from projections.session_cuts import LedgerParts, check_reached
from projections.session_recall import (
    RecallReads,
    SearchResult,
    latest_user_index,
    latest_user_text,
)
from projections.telemetry import conversation, operation

if TYPE_CHECKING:
    from projections.recall.search import RecallOptions

__all__ = [
    "LedgerParts",
    "SearchResult",
    "SessionReads",
    "latest_user_index",
    "latest_user_text",
]


class SessionReads(RecallReads):
    """Reads of the stream ``session/<session_id>`` of a tenant (see the module docstring)."""

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
        time (the reference that time-travel renders are checked against). A version the
        session has not reached is refused, as renders refuse it."""
        check_version("at_version", at_version)
        check_version("at_position", at_position)

        def until(event: RecordedEvent) -> bool:
            return (
                (at_version is None or event.version <= at_version)
                and (at_position is None or event.position <= at_position)
                and (at_time is None or event.recorded_at <= at_time)
            )

        folded = await self.ledger.sessions.fold(self.tenant_id, self.session_id, until=until)
        check_reached(self.session_id, folded.version, at_version)
        return folded

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
        check_budget(budget)
        check_count("keep_groups", keep_groups)
        check_version("at_version", at_version)
        check_version("at_position", at_position)
        check_recall(recall)
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
                bare, yielded = summary_yield_needs(cut, budget, keep_groups, found)
                groups |= bare
                cut = await self.with_bodies(cut, needs | more | yielded)
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

    async def read_message(self, reference: str) -> Message | None:
        """A message of the session by its id or its event's id, whole (even when renders serve
        it masked): what an agent's tool pages in."""
        check_text("reference", reference)

        async def attempt() -> Message | None:
            state = await self.latest()
            index = state.index_of.get(reference)
            if index is None:
                index = state.message_event_ids.find(reference)
            if index is None or index in state.erased:
                return None
            return (await self.with_bodies(state.cut(), [index])).message(index)

        return await self._checked(attempt)
