"""A render's plan with a recalled block, and when the served summary yields its room to it.
Pure: no I/O (the token counter is passed in).

The block takes its share of usable after the prefix, the pins, the summary and the newest
groups (:func:`plan_with_recall`). At a small budget that share can be too small for the one
group the question needs most while a query-blind summary takes a third of the room: the
notetaker scenario of BFCL memory at 4x compression (218 usable tokens, a 115-token summary)
answered 7 of its 22 attainable questions. Then, unless the caller said otherwise
(``Recall.summary_yields``), the render is planned again without the summary, and served so
when that serves the best hit the first plan left out; the manifest names the summary that
yielded (``summary_yielded``), so nothing is dropped without saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from projections.context.budget import Budget
from projections.context.window import GroupPlan
from projections.session.planning import fit_keep, fit_plan, plan_render
from projections.session.recall_block import Recall, RecallPlan, candidate_groups, plan_recall
from projections.session.state import Cut

__all__ = ["RecallRender", "plan_with_recall", "without_summary"]


@dataclass(frozen=True)
class RecallRender:
    """What a render with recall serves: the cut (its summary hidden when it yielded), the
    groups, the recent groups kept, the block, and the summary version that yielded."""

    cut: Cut
    plan: GroupPlan
    keep: int
    recalled: RecallPlan
    yielded: int | None = None


def without_summary(cut: Cut) -> Cut:
    """The same cut, serving no summary (the window and recall take its room)."""
    return replace(cut, summary_head=None)


@dataclass(frozen=True)
class _Asked:
    """What a render with recall was asked for."""

    budget: Budget
    keep_groups: int
    recall: Recall
    count: Callable[[str], int]
    held: int


def plan_with_recall(
    cut: Cut,
    budget: Budget,
    keep_groups: int,
    recall: Recall,
    count: Callable[[str], int],
    held: int = 0,
) -> RecallRender:
    """The render's plan with the recalled block, ``held`` tokens set aside (a repair's
    placeholders); without the summary when it yields (see the module's docstring)."""
    asked = _Asked(budget, keep_groups, recall, count, held)
    first = _planned(cut, asked)
    active = cut.summary()
    if active is None or not recall.summary_yields or first.plan.over_budget:
        return first
    best = _best_left_out(first, recall)
    if best is None:
        return first
    bare = _planned(without_summary(cut), asked)
    if bare.plan.over_budget or best not in _served(bare):
        return first
    return replace(bare, yielded=active.version)


def _planned(cut: Cut, asked: _Asked) -> RecallRender:
    # The recent groups kept, and what the render must serve, without planning the window.
    budget, keep_groups, held = asked.budget, asked.keep_groups, asked.held
    keep, floor = fit_keep(cut, budget, keep_groups=keep_groups, extra_tokens=held)
    if floor > budget.usable:  # even the newest group alone does not fit: nothing to recall
        plan, keep = fit_plan(cut, budget, keep_groups=keep_groups, extra_tokens=held)
        return RecallRender(cut, plan, keep, RecallPlan(None, 0))
    plan, recalled = _with_share(cut, replace(asked, keep_groups=keep), floor)
    return RecallRender(cut, plan, keep, recalled)


def _best_left_out(planned: RecallRender, recall: Recall) -> int | None:
    """The best candidate group when the render serves neither it in its window nor in its
    block (None: it is served, or there is no candidate)."""
    taken = {group for group, _ in planned.plan.chosen}
    best = candidate_groups(planned.cut, recall, taken)
    if not best or best[0][0] in _served(planned):
        return None
    return best[0][0]


def _served(planned: RecallRender) -> set[int]:
    """The groups a planned render serves, in its window or in its block."""
    recalled = {entry["group"] for entry in planned.recalled.entries}
    return {group for group, _ in planned.plan.chosen} | recalled


def _with_share(cut: Cut, asked: _Asked, floor: int) -> tuple[GroupPlan, RecallPlan]:
    """The window planned with the recall share set aside, the block chosen in it, then the
    window planned again with the block's real size (a group the wider window now holds is
    left out of the block). ``floor``: what the render must serve (``planning.fit_keep``)."""
    # The block takes its share, and never more than the prefix, pins, summary and the last
    # groups leave: recall never pushes a render over usable.
    budget, keep_groups, recall, count, held = (
        asked.budget,
        asked.keep_groups,
        asked.recall,
        asked.count,
        asked.held,
    )
    usable = budget.usable
    share = max(0, min(int(recall.share * usable), usable - floor))
    plan = plan_render(cut, budget, keep_groups=keep_groups, extra_tokens=share + held)
    recalled = plan_recall(cut, recall, {g for g, _ in plan.chosen}, share, count)
    if recalled.message is None:
        return plan_render(cut, budget, keep_groups=keep_groups, extra_tokens=held), recalled
    extra = recalled.tokens + held
    wider = plan_render(cut, budget, keep_groups=keep_groups, extra_tokens=extra)
    taken = {g for g, _ in wider.chosen}
    if taken & {entry["group"] for entry in recalled.entries}:
        recalled = plan_recall(cut, recall, taken, recalled.tokens, count)
        extra = recalled.tokens + held
        wider = plan_render(cut, budget, keep_groups=keep_groups, extra_tokens=extra)
    return wider, recalled
