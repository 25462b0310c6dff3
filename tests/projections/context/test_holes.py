"""A column with rows not loaded answers every read from the rows it holds exactly as the
whole column would, or raises RowsNotLoaded: never a different answer."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from projections.context.holes import (
    Holed,
    HoledSet,
    RowsNotLoaded,
    bisect_left,
    bisect_right,
)

_column = st.lists(st.integers(0, 40), max_size=30).map(sorted)


@st.composite
def _holed(draw: st.DrawFn) -> tuple[list[int], Holed]:
    whole = draw(_column)
    start = draw(st.integers(0, len(whole)))
    missing = draw(st.integers(0, len(whole) - start))
    return whole, Holed(whole[:start] + whole[start + missing :], start, missing)


def _same(whole: Callable[[], Any], holed: Callable[[], Any]) -> None:
    try:
        found = holed()
    except RowsNotLoaded:
        return
    assert found == whole()


@given(_holed(), st.integers(-45, 45), st.integers(-45, 45), st.integers(-1, 42))
def test_reads_are_the_whole_columns_or_raise(
    pair: tuple[list[int], Holed], a: int, b: int, value: int
) -> None:
    whole, holed = pair
    assert len(holed) == len(whole)
    if -len(whole) <= a < len(whole):
        _same(lambda: whole[a], lambda: holed[a])
    _same(lambda: whole[a:b], lambda: holed[a:b])
    _same(lambda: bisect.bisect_right(whole, value), lambda: bisect_right(holed, value))
    _same(lambda: bisect.bisect_left(whole, value), lambda: bisect_left(holed, value))
    _same(lambda: list(whole), lambda: list(holed))
    gap = range(holed.start, holed.start + holed.missing)
    assert list(holed.loaded()) == [(i, v) for i, v in enumerate(whole) if i not in gap]


@given(_holed())
def test_a_column_answers_from_loaded_rows_when_the_answer_is_outside_the_hole(
    pair: tuple[list[int], Holed],
) -> None:
    whole, holed = pair
    if holed.start + holed.missing < len(whole):
        last = whole[-1] + 1  # past every value: the answer is the end, known without the hole
        assert bisect_right(holed, last) == len(whole)
        assert holed[-1] == whole[-1]


def test_any_other_use_of_a_holed_column_raises_rows_not_loaded() -> None:
    holed = Holed([1, 2], 1, 3)
    for read in (lambda: holed.tolist(), lambda: holed[0:3], lambda: holed[2], lambda: sum(holed)):
        with pytest.raises(RowsNotLoaded):
            read()


def test_a_set_not_wholly_loaded_answers_only_for_its_loaded_members() -> None:
    seen = HoledSet({"call_1"}, complete=False)
    assert "call_1" in seen
    for read in (lambda: "call_2" in seen, lambda: len(seen), lambda: list(seen)):
        with pytest.raises(RowsNotLoaded):
            read()
