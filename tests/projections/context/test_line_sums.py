"""A recalled block's tokens are the sum of its lines' when the counter says its counts add up
(``lines_add_up``): a render then never counts the joined block again, so this must hold on
any text a message can hold, in every encoding it is claimed for."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections.context.tokens import TiktokenCounter, lines_add_up
from projections.session.recall_block import _OPEN, _PREAMBLE, RECALL_CLOSE
from projections.summaries.block_v2 import escaped_line

# Letters, marks, digits, punctuation, symbols, spaces of every kind, emoji and CJK, with the
# characters the regexes treat specially ('s contractions, newlines, '/' after punctuation).
_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(list("'s\n\r\t /.[]<>!?")),
    ),
    max_size=60,
)
_ENCODINGS = ["o200k_base", "cl100k_base"]


def _line(identifier: str, version: int, text: str) -> str:
    # The form of projections.session.recall_block._line: "[id @version role] text".
    return f"[{escaped_line(identifier)} @{version} user] {escaped_line(text)}"


@pytest.mark.parametrize("encoding", _ENCODINGS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(_TEXT, st.integers(0, 10**6), _TEXT), max_size=8))
def test_a_block_counts_as_the_sum_of_its_lines(
    encoding: str, rows: list[tuple[str, int, str]]
) -> None:
    counter = TiktokenCounter(encoding=encoding)
    assert lines_add_up(counter)
    lines = [_line(identifier, version, text) for identifier, version, text in rows]
    block = "\n".join([_OPEN, _PREAMBLE, *lines, RECALL_CLOSE])
    summed = (
        counter.count_text(f"{_OPEN}\n{_PREAMBLE}\n")
        + sum(counter.count_text(f"{line}\n") for line in lines)
        + counter.count_text(RECALL_CLOSE)
    )
    assert summed == counter.count_text(block)


def test_only_tiktoken_itself_is_trusted_to_add_up() -> None:
    class Counting(TiktokenCounter):
        def count_text(self, text: str) -> int:
            return len(text) // 4

    assert not lines_add_up(Counting())
    assert not lines_add_up(object())
