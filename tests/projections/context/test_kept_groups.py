"""How many recent groups a plan keeps is found without walking the window
(``window.kept_groups``), and it is what the full plan keeps: ``fit_groups`` and a render with
recall (which sets room aside before planning) agree on it, and on when nothing fits."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from projections.context.window import fit_groups, kept_groups

_SIZES = st.lists(st.integers(0, 400), min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(
    sizes=_SIZES,
    prefix=st.integers(0, 3),
    pins=st.sets(st.integers(0, 39), max_size=4),
    limit=st.integers(0, 3000),
    keep=st.integers(0, 8),
    fixed=st.integers(0, 300),
    summarised=st.integers(0, 10),
)
def test_kept_groups_is_what_the_full_plan_keeps(
    sizes: list[int],
    prefix: int,
    pins: set[int],
    limit: int,
    keep: int,
    fixed: int,
    summarised: int,
) -> None:
    count = len(sizes)
    prefix_end, pinned = min(prefix, count), {p for p in pins if p < count}
    plan, planned_keep = fit_groups(
        count, sizes.__getitem__, prefix_end, pinned, limit,
        keep_groups=keep, fixed_tokens=fixed, summarised=summarised,
    )  # fmt: skip
    found_keep, floor = kept_groups(
        count, sizes.__getitem__, prefix_end, pinned, limit,
        keep_groups=keep, fixed_tokens=fixed, summarised=summarised,
    )  # fmt: skip
    assert found_keep == planned_keep
    assert (floor > limit) == plan.over_budget
    assert floor <= plan.tokens  # what must be served is part of every plan
