"""A body's size is what its strings cost once a render has used them: CPython attaches a
UTF-8 copy to a non-ASCII string the first time C code asks for one (the request hash's
``orjson.dumps``, the tokenizer), so a size taken from ``getsizeof`` when the body is fetched
undercounts it, and the body cache's byte bound with it."""

from __future__ import annotations

import sys

import orjson
from hypothesis import given
from hypothesis import strategies as st

from projections.context.messages import Message
from projections.context.tokens import TiktokenCounter
from projections.session.bodies import body_size, string_size


def fresh(text: str) -> str:
    """A new string object with the same characters (no UTF-8 copy attached yet)."""
    return text.encode("utf-8").decode("utf-8")


@given(st.text())
def test_a_string_costs_what_getsizeof_reads_after_a_render_used_it(text: str) -> None:
    text = fresh(text)
    before = string_size(text)
    orjson.dumps(text)
    assert before == string_size(text) == sys.getsizeof(text)


def test_the_tokenizer_attaches_the_same_copy() -> None:
    text = fresh("naïve café, 中文 and 😀 " * 20)
    before = string_size(text)
    assert sys.getsizeof(text) < before  # nothing attached yet: getsizeof alone undercounts
    TiktokenCounter().count_text(text)
    assert sys.getsizeof(text) == before


def test_a_body_of_the_same_length_costs_more_when_it_is_not_ascii() -> None:
    ascii_body = Message(id="m", role="user", content="cafe " * 200)
    accented = Message(id="m", role="user", content="café " * 200)
    assert body_size(accented) - body_size(ascii_body) >= len("café " * 200)
