"""Canonical JSON: one byte string per value, and a clear refusal of what JSON cannot hold."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventstore import EventValidationError
from eventstore.encoding import canonical_json

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values)
def test_canonical_form_is_a_fixed_point(value: Any) -> None:
    encoded = canonical_json(value)
    assert canonical_json(json.loads(encoded)) == encoded


@given(st.dictionaries(st.text(max_size=6), st.integers(-(2**63), 2**63), max_size=6))
def test_key_order_does_not_matter(mapping: dict[str, int]) -> None:
    reversed_mapping = dict(reversed(list(mapping.items())))
    assert canonical_json(mapping) == canonical_json(reversed_mapping)


def test_exact_bytes() -> None:
    value = {"b": [1, 2.5, None, True], "a": '日本 "q" \\ \n', "é": {}}
    assert canonical_json(value) == (
        '{"a":"日本 \\"q\\" \\\\ \\n","b":[1,2.5,null,true],"é":{}}'.encode()
    )


def test_keys_sort_by_code_point() -> None:
    # U+FF21 (fullwidth A) sorts after U+1F600 in UTF-16 order but before it by code point.
    assert canonical_json({"\U0001f600": 1, "\uff21": 2}) == '{"Ａ":2,"😀":1}'.encode()


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"a": [1, {"b": float("nan")}]}, "$.a[1].b"),
        ({"a": {2: 1}}, "$.a"),
        ({"when": __import__("datetime").date(2026, 9, 19)}, "$.when"),
        ({"big": [2**64]}, "$.big[0]"),
    ],
)
def test_errors_name_the_path(value: Any, path: str) -> None:
    with pytest.raises(EventValidationError) as caught:
        canonical_json(value)
    assert path in str(caught.value)


def test_circular_reference_is_refused() -> None:
    value: dict[str, Any] = {}
    value["self"] = value
    with pytest.raises(EventValidationError):
        canonical_json(value)
