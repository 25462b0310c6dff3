"""The window policy: which groups go into the next request. Pure: no I/O, no tokenizer.

Keeps, in original order: the prefix (leading system/developer messages), every group holding a
pinned message, and the most recent groups, at least ``keep_groups`` of them and then as many
older ones as fit. It never splits a group and never drops the prefix, a pin or one of the last
``keep_groups`` groups; when those alone exceed the budget the plan says ``over_budget``.

:func:`plan_groups` works on group indexes and sizes and touches only the groups it keeps (plus
the pinned ones), so planning costs O(window), not O(history); :func:`plan_window` is the same
policy over a list of :class:`Group`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Literal

from projections.context.grouping import Group

__all__ = [
    "GroupPlan",
    "Section",
    "WindowPlan",
    "fit_groups",
    "kept_groups",
    "plan_groups",
    "plan_window",
]

Section = Literal["prefix", "pinned", "window"]


@dataclass(frozen=True)
class _Figures:
    tokens: int
    limit: int
    dropped_groups: int  # groups left out, whether a summary covers them or not
    uncovered_groups: int = 0  # groups left out that no summary covers (lost to the model)

    @property
    def over_budget(self) -> bool:
        """Whether the groups that must stay exceed the limit."""
        return self.tokens > self.limit


@dataclass(frozen=True)
class GroupPlan(_Figures):
    """The chosen group indexes with their sections, in order, and the token figures."""

    chosen: tuple[tuple[int, Section], ...] = ()


@dataclass(frozen=True)
class WindowPlan(_Figures):
    """:class:`GroupPlan` with the groups themselves."""

    groups: tuple[tuple[Group, Section], ...] = ()


def plan_groups(
    group_count: int,
    size: Callable[[int], int],
    prefix_end: int,
    pinned_groups: Iterable[int],
    limit: int,
    *,
    keep_groups: int = 6,
    fixed_tokens: int = 0,
    summarised: int = 0,
) -> GroupPlan:
    """Choose groups by index.

    Args:
        group_count: the number of groups in the session.
        size: tokens of group ``i``.
        prefix_end: groups ``0 .. prefix_end - 1`` are the prefix.
        pinned_groups: indexes of groups holding a pinned message.
        limit: tokens available for the input.
        keep_groups: the number of most recent groups always kept.
        fixed_tokens: tokens spent outside the groups (reply priming, a summary).
        summarised: groups before this index are covered by the active summary: they stay
            out of the window (a pinned one still comes verbatim).
    """
    sections: dict[int, Section] = dict.fromkeys(range(prefix_end), "prefix")
    for index in pinned_groups:
        if index >= prefix_end:
            sections[index] = "pinned"
    floor = max(prefix_end, summarised)
    for index in range(max(floor, group_count - keep_groups), group_count):
        sections.setdefault(index, "window")
    total = fixed_tokens + sum(size(index) for index in sections)
    # Older groups join from the newest backwards while they fit, so the window is a suffix.
    for index in range(group_count - keep_groups - 1, floor - 1, -1):
        if index in sections:
            continue
        tokens = size(index)
        if total + tokens > limit:
            break
        sections[index] = "window"
        total += tokens
    chosen = tuple((index, sections[index]) for index in sorted(sections))
    uncovered = group_count - floor - sum(1 for index in sections if index >= floor)
    return GroupPlan(total, limit, group_count - len(chosen), max(uncovered, 0), chosen)


def fit_groups(
    group_count: int,
    size: Callable[[int], int],
    prefix_end: int,
    pinned_groups: Iterable[int],
    limit: int,
    *,
    keep_groups: int = 6,
    fixed_tokens: int = 0,
    summarised: int = 0,
) -> tuple[GroupPlan, int]:
    """:func:`plan_groups` with the budget as the rule: when the last ``keep_groups`` groups do
    not fit next to the prefix and pins, fewer are kept, down to the newest one. Returns the
    plan (``over_budget`` only when even that does not fit) and the groups kept."""
    pinned = list(pinned_groups)

    def planned(keep: int) -> GroupPlan:
        return plan_groups(
            group_count,
            size,
            prefix_end,
            pinned,
            limit,
            keep_groups=keep,
            fixed_tokens=fixed_tokens,
            summarised=summarised,
        )

    plan = planned(keep_groups)
    if not plan.over_budget or keep_groups <= 1:
        return plan, keep_groups
    keep, _ = kept_groups(
        group_count,
        size,
        prefix_end,
        pinned,
        limit,
        keep_groups=keep_groups,
        fixed_tokens=fixed_tokens,
        summarised=summarised,
    )
    return planned(keep), keep


def kept_groups(
    group_count: int,
    size: Callable[[int], int],
    prefix_end: int,
    pinned_groups: Iterable[int],
    limit: int,
    *,
    keep_groups: int = 6,
    fixed_tokens: int = 0,
    summarised: int = 0,
) -> tuple[int, int]:
    """The recent groups a plan under ``limit`` keeps (``keep_groups``, or fewer down to the
    newest one when they do not fit next to the prefix and pins) and the tokens of what it
    must then serve, found without walking the window: a plan is over ``limit`` exactly when
    what it must serve is."""
    pinned = list(pinned_groups)
    keep = keep_groups
    while True:
        floor = plan_groups(
            group_count,
            size,
            prefix_end,
            pinned,
            0,  # no room: only what must be served
            keep_groups=keep,
            fixed_tokens=fixed_tokens,
            summarised=summarised,
        ).tokens
        if floor <= limit or keep <= 1:
            return keep, floor
        keep -= 1


def plan_window(
    groups: Sequence[Group],
    pinned: Set[str],
    tokens: Mapping[str, int],
    limit: int,
    *,
    keep_groups: int = 6,
    fixed_tokens: int = 0,
) -> WindowPlan:
    """:func:`plan_groups` over a list of groups, pins by message id and tokens by message id."""
    prefix_end = 0
    while prefix_end < len(groups) and all(
        m.role in ("system", "developer") for m in groups[prefix_end].messages
    ):
        prefix_end += 1
    pinned_groups = [i for i, g in enumerate(groups) if any(m.id in pinned for m in g.messages)]
    plan = plan_groups(
        len(groups),
        lambda index: sum(tokens[m.id] for m in groups[index].messages),
        prefix_end,
        pinned_groups,
        limit,
        keep_groups=keep_groups,
        fixed_tokens=fixed_tokens,
    )
    chosen = tuple((groups[index], section) for index, section in plan.chosen)
    return WindowPlan(plan.tokens, plan.limit, plan.dropped_groups, plan.uncovered_groups, chosen)
