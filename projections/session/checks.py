"""What a snapshot said, checked against the log before it is served.

A state decoded from a snapshot holds derived text besides the index: the summaries of its
chain and the digests of masked tool results. Before a render serves one of them (or
compaction rolls a summary forward from it), :func:`check_served` reads the event it was
derived from and derives it again; a difference raises
:class:`~projections.session.bodies.IndexMismatchError`, and the session is rebuilt from the
log. Message bodies are checked as they are fetched (:func:`~projections.session.bodies.
fetch_bodies`). What a fold of the log derived itself is never checked again.
"""

from __future__ import annotations

from collections.abc import Iterable

from eventstore import EventStore, RecordedEvent
from projections.context.grouping import Grouper
from projections.session.bodies import IndexMismatchError, runs_of
from projections.session.events import ResultsMasked, SummaryCommitted
from projections.session.fold import committed_summary, parse_event
from projections.session.state import Cut

__all__ = ["check_groups", "check_served"]


async def check_served(
    store: EventStore, tenant_id: str, stream_id: str, cut: Cut, indexes: Iterable[int]
) -> None:
    """Check the served summary and the masks of messages ``indexes`` against their events,
    when they came from a snapshot and were not checked yet."""
    state = cut.state
    if not state.unchecked:
        return
    wanted: dict[int, str] = {}  # event version -> what it must give
    active = cut.summary()
    if active is not None:
        at = state.chain.committed_at(active.version)
        if at in state.unchecked:
            wanted[at] = "summary"
    for index in indexes:
        mask = cut.mask_of(state.ids[index])
        if mask is not None and mask.version in state.unchecked:
            wanted[mask.version] = "mask"
    for version in sorted(wanted):
        (event,) = await store.read_stream(
            tenant_id, stream_id, from_version=version, to_version=version
        ) or (None,)
        _check(cut, version, event)
        state.unchecked.discard(version)


def _check(cut: Cut, version: int, event: RecordedEvent | None) -> None:
    state = cut.state
    payload = parse_event(event) if event is not None else None
    if isinstance(payload, SummaryCommitted):
        held = state.chain.committed.get(payload.summary_version)
        if held is not None and committed_summary(state, payload) == held:
            return
    elif isinstance(payload, ResultsMasked):
        derived = {r.message_id: (r.text, r.tokens) for r in payload.results}
        held_masks = [m for m in state.masks.values() if m.version == version]
        if all(derived.get(m.message_id) == (m.text, m.tokens) for m in held_masks):
            return
    raise IndexMismatchError(
        f"the session's snapshot serves what the event at version {version} does not give "
        f"(found {event.type if event is not None else 'no event'} there)"
    )


def check_groups(cut: Cut, groups: Iterable[int]) -> None:
    """Check the index's groups among ``groups`` against their fetched bodies: each group's
    tokens are the sum of its messages' (checked at fetch), and consecutive groups regroup
    into the same boundaries (a tool call keeps its results, nothing else joins). A snapshot
    that moves a boundary or a sum would otherwise change which groups fit."""
    state = cut.state
    wanted = set(groups)
    unchecked = {g for g in wanted if g < state.snapshot_groups} - state.checked_groups
    if not unchecked:
        return  # folded from the log (its groups are the log's), or checked already
    for first_group, last_group in runs_of(sorted(wanted), gap=1):
        run = range(first_group, last_group + 1)
        first, end = cut.span(first_group, last_group)
        grouper = Grouper()
        for message in cut.messages(first, end):
            grouper.add(message)
        starts = [first + start for start in grouper.starts]
        expected = list(state.grouper.starts[run[0] : run[-1] + 1])
        sums = [cut.group_tokens(g) + _masked_saving(cut, g) for g in run]
        found = [_sum(cut, g) for g in run]
        if starts != expected or sums != found:
            raise IndexMismatchError(
                f"groups {run[0]}..{run[-1]} of the session's index (starts {expected}, tokens "
                f"{sums}) are not what their messages in the log make (starts {starts}, "
                f"tokens {found})"
            )
    state.checked_groups |= wanted


def _sum(cut: Cut, group: int) -> int:
    first, end = cut.state.grouper.bounds(group)
    return sum(cut.state.tokens.counts[first : min(end, cut.count)])


def _masked_saving(cut: Cut, group: int) -> int:
    return sum(m.saved for m in cut.state.masks_of(group) if m.version <= cut.version)
