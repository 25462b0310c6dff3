"""The window policy: which groups go into the next request. Pure: no I/O, no tokenizer.

Keeps, in original order: the prefix (leading system/developer messages), every group holding a
pinned message, and the most recent groups, at least ``keep_groups`` of them and then as many
older ones as fit. It never splits a group and never drops the prefix, a pin or one of the last
``keep_groups`` groups; when those alone exceed the budget the plan says ``over_budget``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Literal

from projections.context.grouping import Group

__all__ = ["Section", "WindowPlan", "plan_window"]

Section = Literal["prefix", "pinned", "window"]


@dataclass(frozen=True)
class WindowPlan:
    """The groups to render with their sections, in original order, and the token figures."""

    groups: tuple[tuple[Group, Section], ...]
    tokens: int
    limit: int
    dropped_groups: int

    @property
    def over_budget(self) -> bool:
        """Whether the groups that must stay exceed the limit."""
        return self.tokens > self.limit


def plan_window(
    groups: Sequence[Group],
    pinned: Set[str],
    tokens: Mapping[str, int],
    limit: int,
    *,
    keep_groups: int = 6,
    fixed_tokens: int = 0,
) -> WindowPlan:
    """Choose the groups of the next request.

    Args:
        groups: the session's groups in order.
        pinned: ids of pinned messages.
        tokens: tokens of each message by id.
        limit: tokens available for the input.
        keep_groups: the number of most recent groups always kept.
        fixed_tokens: tokens spent outside the groups (reply priming, a summary).
    """
    prefix_end = 0
    while prefix_end < len(groups) and all(
        m.role in ("system", "developer") for m in groups[prefix_end].messages
    ):
        prefix_end += 1
    sections: dict[int, Section] = dict.fromkeys(range(prefix_end), "prefix")
    for index in range(prefix_end, len(groups)):
        if any(m.id in pinned for m in groups[index].messages):
            sections[index] = "pinned"
    for index in range(max(prefix_end, len(groups) - keep_groups), len(groups)):
        sections.setdefault(index, "window")

    def size(index: int) -> int:
        return sum(tokens[m.id] for m in groups[index].messages)

    total = fixed_tokens + sum(size(index) for index in sections)
    # Older groups join from the newest backwards while they fit, so the window is a suffix.
    for index in range(len(groups) - keep_groups - 1, prefix_end - 1, -1):
        if index in sections:
            continue
        if total + size(index) > limit:
            break
        sections[index] = "window"
        total += size(index)
    chosen = tuple((groups[index], sections[index]) for index in sorted(sections))
    return WindowPlan(chosen, total, limit, len(groups) - len(chosen))
