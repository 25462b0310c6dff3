"""Columns of an index opened without its middle: what a cold open reads of a long session.

A render reads the prefix, the pins and the newest groups, so a cold open reads the snapshot's
head, its first part and its last parts, not the parts between (:func:`decode_partial
<projections.session.codec.decode_partial>`). Each column of such an index is a
:class:`Holed` column: the rows before and after the hole, addressed by their absolute
indexes, and any read that would need a row of the hole (or an operation the column does not
translate) raises :class:`RowsNotLoaded`. Whoever holds the partial state catches it, has the
whole index loaded and reads again (``SessionReads._checked``), so a read is either made from
loaded rows only or made again on the whole index: never from a guess. Pure: no I/O.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, MutableSet, Sequence
from itertools import chain
from typing import Any

from eventstore import LedgerError

__all__ = ["Holed", "HoledSet", "RowsNotLoaded", "bisect_left", "bisect_right", "missing_rows"]


class RowsNotLoaded(LedgerError):
    """A read needed rows a partially loaded index does not hold (internal: the reader loads
    the whole index and reads again, so it does not reach a caller)."""


class Holed:
    """A column whose rows ``[start, start + missing)`` are not loaded; ``inner`` holds the
    others in order. Reads by absolute index; anything it cannot answer from ``inner`` raises
    :class:`RowsNotLoaded` (unknown attributes included, so no reader gets a wrong answer)."""

    __slots__ = ("inner", "missing", "start")

    def __init__(self, inner: Any, start: int, missing: int) -> None:
        self.inner = inner
        self.start = start
        self.missing = missing

    def __len__(self) -> int:
        return len(self.inner) + self.missing

    def _at(self, index: int) -> int:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"row {index} out of a column of {len(self)}")
        if index < self.start:
            return index
        if index < self.start + self.missing:
            raise RowsNotLoaded(f"row {index} is in rows [{self.start}, +{self.missing})")
        return index - self.missing

    def _range(self, key: slice) -> slice:
        first, end, step = key.indices(len(self))
        if step != 1:
            raise RowsNotLoaded("a strided read")
        if end <= first:
            return slice(0, 0)
        if end <= self.start:
            return slice(first, end)
        if first >= self.start + self.missing:
            return slice(first - self.missing, end - self.missing)
        raise RowsNotLoaded(f"rows [{first}, {end}) reach rows [{self.start}, +{self.missing})")

    def __getitem__(self, key: int | slice) -> Any:
        if isinstance(key, slice):
            return self.inner[self._range(key)]
        if key >= self.start + self.missing:  # after the hole, where a window's rows are
            return self.inner[key - self.missing]
        return self.inner[self._at(key)]

    def __setitem__(self, index: int, value: Any) -> None:
        self.inner[self._at(index)] = value

    def __iter__(self) -> Iterator[Any]:
        if self.missing:
            raise RowsNotLoaded(f"every row of a column without [{self.start}, +{self.missing})")
        return iter(self.inner)

    def __iadd__(self, rows: Any) -> Holed:
        self.inner += rows
        return self

    def append(self, value: Any) -> None:
        """Append a row (after the hole: rows are only ever appended)."""
        self.inner.append(value)

    def loaded(self) -> Iterator[tuple[int, Any]]:
        """The rows held, with their absolute indexes (before the hole, then after it)."""
        end = self.start + self.missing
        return zip(chain(range(self.start), range(end, len(self))), self.inner, strict=True)

    def raw(self, index: int) -> Any:
        """A packed column's bytes of row ``index``."""
        return self.inner.raw(self._at(index))

    def find(self, value: str) -> int | None:
        """A packed id column's row holding ``value``."""
        found: int | None = self.inner.find(value)
        if found is None:
            if self.missing:
                raise RowsNotLoaded(f"{value!r} may be in the rows not loaded")
            return None
        return found if found < self.start else found + self.missing

    def __getattr__(self, name: str) -> Any:
        # Any other use reads the column as a whole: the reader must load it first.
        raise RowsNotLoaded(f"{name} of a column without rows [{self.start}, +{self.missing})")

    def bisect(self, value: Any, side: Callable[..., int]) -> int:
        """``side`` (``bisect.bisect_left`` or ``bisect_right``) over the whole sorted column,
        answered from the loaded rows when the answer cannot lie in the hole."""
        inner, start = self.inner, self.start
        if not self.missing:
            return side(inner, value)
        right = side is bisect.bisect_right
        # The hole's values lie between its neighbours: an answer is known when the value
        # lies strictly outside them (ties may continue into the hole).
        if start and (value < inner[start - 1] if right else value <= inner[start - 1]):
            return side(inner, value, 0, start)
        if len(inner) > start and (value >= inner[start] if right else value > inner[start]):
            return side(inner, value, start) + self.missing
        raise RowsNotLoaded(f"{value!r} falls among rows [{start}, +{self.missing})")


def bisect_right(column: Sequence[Any], value: Any) -> int:
    """:func:`bisect.bisect_right` over a column, holed or not."""
    if isinstance(column, Holed):
        return column.bisect(value, bisect.bisect_right)
    return bisect.bisect_right(column, value)


def bisect_left(column: Sequence[Any], value: Any) -> int:
    """:func:`bisect.bisect_left` over a column, holed or not."""
    if isinstance(column, Holed):
        return column.bisect(value, bisect.bisect_left)
    return bisect.bisect_left(column, value)


def missing_rows(column: object) -> int:
    """How many rows of a column are not loaded (0 for a whole one)."""
    return column.missing if isinstance(column, Holed) else 0


class HoledSet(MutableSet[str]):
    """A set of which only some members are loaded: a value not among them may be in the
    rest, so asking for it raises :class:`RowsNotLoaded`."""

    def __init__(self, loaded: set[str], complete: bool) -> None:
        self.loaded = loaded
        self.complete = complete

    def __contains__(self, value: object) -> bool:
        if value in self.loaded:
            return True
        if not self.complete:
            raise RowsNotLoaded(f"{value!r} may be among the members not loaded")
        return False

    def __iter__(self) -> Iterator[str]:
        if not self.complete:
            raise RowsNotLoaded("every member of a set not wholly loaded")
        return iter(self.loaded)

    def __len__(self) -> int:
        if not self.complete:
            raise RowsNotLoaded("the size of a set not wholly loaded")
        return len(self.loaded)

    def add(self, value: str) -> None:
        self.loaded.add(value)

    def discard(self, value: str) -> None:
        if value in self.loaded:
            self.loaded.discard(value)
        elif not self.complete:
            raise RowsNotLoaded(f"{value!r} may be among the members not loaded")
