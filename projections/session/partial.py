"""A cold open of a long session: the snapshot's first and last parts, not its middle.

A render reads the prefix (in the first part), the pins and the newest groups. So when a
snapshot's head names more parts than :data:`KEEP_PARTS` + 1, a cold open reads the head, part
0 and the last :data:`KEEP_PARTS` parts, and the state's columns hold the rows between as a
hole (:mod:`projections.context.holes`): a read that needs one of them raises
``RowsNotLoaded`` and the reader loads the whole index and reads again. The head says where
each part ends in rows of every column (``part_marks``), so the hole's size is known without
reading it. A hole holding protocol issues or unreadable events (which every cut lists) is
not worth opening around: the whole index is read. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

from projections.session.bodies import Bodies
from projections.session.codec import check_every, decode_head, split_head
from projections.session.segments import MARK_OF, Marks
from projections.session.state import SessionState

__all__ = ["KEEP_PARTS", "decode_partial", "partial_parts"]

#: The parts a cold open reads from the end of the index (1,024 versions each by default):
#: enough for a window of about 2,000 messages, twice a 128k-token window of short ones.
KEEP_PARTS = 2


def _marks(fields: Mapping[str, object]) -> list[Marks] | None:
    raw = fields.get("part_marks")
    return [Marks(*row) for row in raw] if isinstance(raw, list) else None


def partial_parts(data: bytes, keep: int = KEEP_PARTS) -> list[int] | None:
    """The parts of a head to read for a partial open (the first, then the last ``keep``);
    None when the whole index is to be read (few parts, no marks, or a hole that holds
    protocol issues or unreadable events)."""
    fields, _ = split_head(data)
    marks = _marks(fields)
    count = len(fields["parts"])
    first_kept = count - keep
    if marks is None or len(marks) != count or first_kept <= 1:
        return None
    start, end = marks[0], marks[first_kept - 1]
    if end.issues != start.issues or end.unreadable != start.unreadable:
        return None
    return [0, *range(first_kept, count)]


def decode_partial(
    data: bytes, parts: Mapping[int, bytes], bodies: Bodies | None = None, every: int = 0
) -> SessionState:
    """A state from a head and the parts :func:`partial_parts` named (by index), the rows of
    the others as a hole. Raises ValueError when the parts are not those, a part differs from
    its digest, or the columns' lengths disagree with each other."""
    fields, rows = split_head(data)
    check_every(fields, every)
    count = len(fields["parts"])
    marks = _marks(fields)
    wanted = sorted(parts)
    if marks is None or len(wanted) < 2 or wanted != [0, *range(wanted[1], count)]:
        raise ValueError(f"parts {wanted} are not the first and the last of {count}")
    start, end = marks[0], marks[wanted[1] - 1]
    holes = {
        name: (getattr(start, mark), getattr(end, mark) - getattr(start, mark))
        for name, mark in MARK_OF.items()
    }
    state = decode_head(fields, rows, parts, bodies, holes)
    state.partial = True
    if holes["masks"][1]:
        state.masks_unknown_below = end.groups
    return state
