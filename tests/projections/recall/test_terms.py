"""Search terms: words stemmed, identifiers split, stop words out, CJK as bigrams."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from projections.recall.terms import query_terms, search_terms


def test_words_are_stemmed_and_stop_words_left_out() -> None:
    assert search_terms("Why did you exclude the paintings?") == ["exclud", "paint"]
    assert search_terms("She paints; he painted.") == ["paint", "paint"]


def test_identifiers_split_into_letters_and_digits_runs() -> None:
    assert search_terms("omar_davis_3817 HAT170 2026-09-19") == [
        "omar", "davi", "3817", "hat170", "2026", "09", "19",
    ]  # fmt: skip


def test_text_without_spaces_becomes_bigrams() -> None:
    assert search_terms("为什么排除G123") == ["为什", "什么", "么排", "排除", "g123"]
    assert "排除" in search_terms("我排除了G123：到达太晚。")
    assert search_terms("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
    assert search_terms("한국어") == ["한국", "국어"]
    assert search_terms("元") == ["元"]


def test_query_terms_are_distinct_in_order() -> None:
    assert query_terms("G123 or g123, G123?") == ["g123"]


@given(st.text(max_size=200))
def test_terms_are_what_every_backend_indexes_as_is(text: str) -> None:
    # FTS5 unicode61 and PostgreSQL's simple configuration split on anything but letters and
    # digits: a term must be one token to them, lower case, never empty.
    for term in search_terms(text):
        assert term
        assert term == term.lower()
        assert all(ch.isalnum() for ch in term), term
