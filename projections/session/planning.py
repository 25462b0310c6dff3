"""Which groups a render keeps under a budget, planned on the index alone. Pure: no I/O.

The plan (``context.window.plan_groups``) keeps the prefix, the pinned groups and the most
recent groups, with the served summary's message (or a size to plan as if one were served) and
any other fixed part (a recalled block, a repair's placeholders) set aside first.
"""

from __future__ import annotations

from projections.context.accounting import REPLY_PRIMING_TOKENS
from projections.context.budget import Budget
from projections.context.window import GroupPlan, fit_groups
from projections.session.state import Cut

__all__ = ["fit_plan", "plan_render"]


def plan_render(
    cut: Cut,
    budget: Budget,
    *,
    keep_groups: int,
    summary_tokens: int | None = None,
    extra_tokens: int = 0,
) -> GroupPlan:
    """The groups a render keeps, with the served summary's message set aside (or
    ``summary_tokens``, to plan as if a summary message of that size were served) and
    ``extra_tokens`` (a recalled block); fewer than ``keep_groups`` recent groups when they
    do not fit (:func:`fit_plan`)."""
    return fit_plan(
        cut,
        budget,
        keep_groups=keep_groups,
        summary_tokens=summary_tokens,
        extra_tokens=extra_tokens,
    )[0]


def fit_plan(
    cut: Cut,
    budget: Budget,
    *,
    keep_groups: int,
    summary_tokens: int | None = None,
    extra_tokens: int = 0,
) -> tuple[GroupPlan, int]:
    """The plan for ``keep_groups`` recent groups, or for fewer, down to the newest one, when
    they do not fit under usable (the ladder's step before an error); and the groups kept."""
    active = cut.summary()
    if summary_tokens is None:
        summary_tokens = active.message_tokens if active else 0
    return fit_groups(
        cut.groups,
        cut.group_sizes(),
        cut.prefix_end,
        cut.pinned_groups(),
        budget.usable,
        keep_groups=keep_groups,
        fixed_tokens=REPLY_PRIMING_TOKENS + summary_tokens + extra_tokens,
        summarised=cut.summarised_groups(),
    )
