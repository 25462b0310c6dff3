"""The literal prefilter never rules out a pattern that matches (``projections.secrets.prefilter``):
every string generated from a secret pattern passes its own prefilter, and the scanner finds
the same spans with the prefilter as with every branch run."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections.secrets.prefilter import Alternation, may_match, requirement
from projections.secrets.rules import RULES
from projections.secrets.text import _library, _library_alternation


def _secret_patterns() -> list[re.Pattern[str]]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    patterns = [rule.pattern for rule in RULES]
    for plugin in get_mapping_from_secret_type_to_class().values():
        if issubclass(plugin, RegexBasedDetector):
            patterns += list(plugin.denylist)
    return patterns


PATTERNS = _secret_patterns()


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.pattern[:40])
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_match_always_passes_its_prefilter(pattern: re.Pattern[str], data: st.DataObject) -> None:
    # Hypothesis generates from every one of these patterns, and what it generates matches
    # (measured: 66 patterns, no string that fails to match): a failure here is a real one.
    text = data.draw(st.from_regex(pattern))
    assert pattern.search(text) is not None
    assert may_match(requirement(pattern), text, text.lower())


@pytest.mark.parametrize(
    ("pattern", "literals"),
    [
        (r"AKIA[0-9A-Z]{16}", {("AKIA", False)}),
        (r"(?i)\bbearer\s+\w+", {("bearer", True)}),
        (r"(?:foo|barbaz)\d", {("foo", False), ("barbaz", False)}),
        (r"(?:foo|\d)x", {("x", False)}),  # one branch needs no literal: the run after counts
        (r"(?:abc)?\d+", None),  # optional: nothing is certain
        (r"(?i:Key)=(?-i:ID)", {("key", True)}),
    ],
)
def test_requirements_are_the_certain_literals(
    pattern: str, literals: set[tuple[str, bool]] | None
) -> None:
    need = requirement(re.compile(pattern))
    assert need == (frozenset(literals) if literals is not None else None)


def test_a_caseless_non_ascii_literal_is_not_required_of_ascii_text() -> None:
    pattern = re.compile("(?i)\u212aey=")  # the Kelvin sign matches "k" under IGNORECASE
    assert pattern.search("key=1")
    assert may_match(requirement(pattern), "key=1", "key=1")
    case_sensitive = re.compile("\u6708\\d")  # a CJK literal cannot be in ASCII text
    assert not may_match(requirement(case_sensitive), "12 3", "12 3")


def test_non_ascii_text_is_never_ruled_out() -> None:
    # Under IGNORECASE re matches the dotless i to "i": lower-casing would not.
    pattern = re.compile(r"(?i)api_key=\w+")
    text = "apı_key=abcdef"
    assert pattern.search(text)
    assert may_match(requirement(pattern), text, text.lower())


def test_the_library_scan_runs_only_the_branches_a_text_admits() -> None:
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    text = f"the key {key} leaked"
    assert [(f.start, f.end, f.kind) for f in _library(text)] == [(8, 8 + len(key), "provider_key")]
    plain = "a plain sentence with nothing in it"
    assert _library_alternation()._prefilter.admitted(plain, plain) == ()
    assert _library(plain) == []


def test_an_alternation_finds_what_the_full_pattern_finds() -> None:
    branches = [r"\bfoo\d+", r"(?i:BAR)baz", r"\d{3}x", r"quux|foo1"]
    full = re.compile("|".join(f"(?:{b})" for b in branches))
    alternation = Alternation(branches)
    for text in ["foo12 barbaz 123x", "BARbaz quux", "nothing", "foo1 quux 999x", "ıbarbaz"]:
        expected = [(m.start(), m.end()) for m in full.finditer(text)]
        assert [(m.start(), m.end()) for m in alternation.finditer(text)] == expected
