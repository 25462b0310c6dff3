"""What an operation reads of the log: the message bodies a plan names. Pure: no I/O.

A session's state is an index; an operation first plans on it (tokens, groups, pins), then
the facade fetches the bodies named here (:mod:`projections.session.bodies`), then a pure step
assembles. Each function names every message the pure step will read, so a plan never reads
a body nobody fetched.
"""

from __future__ import annotations

from collections.abc import Iterable

from projections.context.budget import Budget
from projections.context.holes import bisect_left
from projections.session.planning import fit_plan
from projections.session.recall_block import Recall, candidate_groups
from projections.session.recall_render import without_summary
from projections.session.state import Cut
from projections.summaries.schema_v2 import CompactionSummaryV2

__all__ = [
    "compaction_needs",
    "group_indexes",
    "recall_needs",
    "served_groups",
    "summary_yield_needs",
]


def group_indexes(cut: Cut, groups: Iterable[int]) -> set[int]:
    """The message indexes of these groups, as of the cut."""
    indexes: set[int] = set()
    for first, end in cut.message_ranges(groups):
        indexes.update(range(first, end))
    return indexes


def served_groups(cut: Cut, groups: Iterable[int]) -> set[int]:
    """A render's: the groups its plan keeps (the prefix and the pins among them), and the
    newest group it left out, whose size decided where the window stops (so every size the
    plan read is checked against the log)."""
    kept = set(groups)
    floor = max(cut.prefix_end, cut.summarised_groups())
    newest_left_out = next((g for g in range(cut.groups - 1, floor - 1, -1) if g not in kept), None)
    return kept if newest_left_out is None else kept | {newest_left_out}


def recall_needs(cut: Cut, recall: Recall, served: set[int]) -> set[int]:
    """A recalled block's candidates, given the groups a plain render of the cut serves
    (``served``, whose bodies are read anyway): the best groups outside them.

    The block is chosen from the best groups outside what its own render keeps, and that
    render keeps a subset of ``served`` (its window is planned with less room, and a window is
    the newest groups that fit). So every group it can choose is either served or among the
    best outside ``served``: a few dozen groups, not every hit's."""
    return group_indexes(cut, (group for group, _ in candidate_groups(cut, recall, served)))


def summary_yield_needs(
    cut: Cut, budget: Budget, keep_groups: int, recall: Recall
) -> tuple[set[int], set[int]]:
    """A render with recall whose summary may yield (:mod:`projections.session.recall_render`):
    the groups the same render without the summary serves (as :func:`served_groups`), and the
    message indexes it reads (those groups' and its block's candidates); both empty when no
    summary is served or it may not yield."""
    if not recall.summary_yields or cut.summary() is None:
        return set(), set()
    bare = without_summary(cut)
    plan, _ = fit_plan(bare, budget, keep_groups=keep_groups)
    kept = {group for group, _ in plan.chosen}
    groups = served_groups(bare, kept)
    return groups, group_indexes(cut, groups) | recall_needs(cut, recall, kept)


def compaction_needs(cut: Cut) -> set[int]:
    """Compaction's and masking's: what no summary covers yet (what they summarise, mask and
    render), the prefix, the pins, and the messages the served summary cites or covers."""
    start = cut.summarised_groups()
    groups = set(range(start, cut.groups)) | set(range(cut.prefix_end)) | cut.pinned_groups()
    indexes = group_indexes(cut, groups)
    active = cut.summary()
    if active is None:
        return indexes
    state = cut.state
    if isinstance(active.summary, CompactionSummaryV2):
        versions = state.message_versions
        for cited in active.summary.cited():
            index = bisect_left(versions, cited)
            if index < len(versions) and versions[index] == cited:
                indexes.add(index)
    else:  # a v1 summary names the messages it covers; its upcast reads them
        indexes.update(
            i for i in map(state.index_of.get, active.summary.source_message_ids) if i is not None
        )
    return {i for i in indexes if i < cut.count}
