"""Which groups a render keeps under a budget, planned on the index alone. Pure: no I/O.

The plan (``context.window.plan_groups``) keeps the prefix, the pinned groups and the most
recent groups, with the served summary's message (or a size to plan as if one were served) and
any other fixed part (a recalled block, a repair's placeholders) set aside first.
"""

from __future__ import annotations

from typing import NamedTuple

from projections.context.accounting import REPLY_PRIMING_TOKENS
from projections.context.budget import Budget
from projections.context.window import GroupPlan, fit_groups, kept_groups
from projections.session.state import Cut

__all__ = ["fit_keep", "fit_plan", "plan_render"]


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
    at = _Layout.of(cut, summary_tokens, extra_tokens)
    return fit_groups(
        cut.groups,
        cut.group_sizes(),
        cut.prefix_end,
        at.pinned,
        budget.usable,
        keep_groups=keep_groups,
        fixed_tokens=at.fixed_tokens,
        summarised=at.summarised,
    )


def fit_keep(
    cut: Cut, budget: Budget, *, keep_groups: int, extra_tokens: int = 0
) -> tuple[int, int]:
    """The recent groups :func:`fit_plan` keeps and the tokens of what the render must then
    serve (prefix, pins, summary, those groups, ``extra_tokens``), without planning the
    window: where a plan that sets room aside (a recalled block) starts."""
    at = _Layout.of(cut, None, extra_tokens)
    return kept_groups(
        cut.groups,
        cut.group_sizes(),
        cut.prefix_end,
        at.pinned,
        budget.usable,
        keep_groups=keep_groups,
        fixed_tokens=at.fixed_tokens,
        summarised=at.summarised,
    )


class _Layout(NamedTuple):
    """What the window planner takes of a cut beside its groups: the pinned groups, the
    fixed tokens (reply priming, the served summary's message or ``summary_tokens``, the
    extra) and the groups a summary covers."""

    pinned: set[int]
    fixed_tokens: int
    summarised: int

    @classmethod
    def of(cls, cut: Cut, summary_tokens: int | None, extra_tokens: int) -> _Layout:
        if summary_tokens is None:
            active = cut.summary()
            summary_tokens = active.message_tokens if active else 0
        fixed = REPLY_PRIMING_TOKENS + summary_tokens + extra_tokens
        return cls(cut.pinned_groups(), fixed, cut.summarised_groups())
