"""Literal prefilters for regular expressions: which patterns cannot match a text at all.

Python's ``re`` tries every branch of a pattern at every position, and the secret scanners'
patterns (``projections.secrets.text``) are dozens of branches: scanning costs about a
microsecond per character. Most branches need a literal somewhere (``AKIA``, ``eyJ``,
``cloudant`` or ``cl``, ``-----BEGIN``), so a branch whose every required literal is absent
from the text cannot match it and is left out of the scan, with the same result: this is the
literal prefilter of RE2 and Hyperscan, derived here from the parsed pattern itself, so it
needs no list of its own and follows the patterns when detect-secrets changes them.

A requirement is a set of literals, one of which every match contains. It is derived only
where it is certain (a run of literal characters, a group, a repeat taken at least once, an
alternation whose every branch has one); anything else (classes, look-arounds, optional
parts) adds none. It is used on ASCII text only: under ``IGNORECASE``, ``re`` matches
``ı``, ``ſ`` and ``K`` to ASCII letters, which a plain lower-casing would not. Pure.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any

_sre_parse: Any
try:  # the parser's module is private (``re._parser`` since 3.11): without it, no prefilter
    _sre_parse = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - a Python without the module: every pattern runs
    _sre_parse = None

__all__ = ["Alternation", "Prefilter", "Requirement", "may_match", "requirement"]

#: ``(literal, case-insensitive)`` pairs, one of which every match contains; None: unknown.
Requirement = frozenset[tuple[str, bool]] | None

_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def requirement(pattern: re.Pattern[str]) -> Requirement:
    """The literals one of which every match of ``pattern`` contains (None when unknown)."""
    if _sre_parse is None:
        return None
    try:
        parsed = _sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # an unexpected parse: no prefilter, the pattern runs as it is
        return None
    return _of_sequence(list(parsed), bool(pattern.flags & re.IGNORECASE))


def may_match(need: Requirement, text: str, folded: str) -> bool:
    """Whether a pattern with requirement ``need`` can match ``text`` (``folded``: the same
    text lower-cased). Non-ASCII text always may: see the module docstring."""
    return bool(Prefilter((need,)).admitted(text, folded))


class Prefilter:
    """Requirements of several patterns, checked together: each distinct literal is looked
    for once per text (a substring search in C), each requirement is one set test."""

    def __init__(self, needs: Sequence[Requirement]) -> None:
        self.needs = tuple(needs)
        literals = {literal for need in self.needs if need for literal in need}
        self._cased = tuple(sorted(text for text, caseless in literals if not caseless))
        self._caseless = tuple(sorted(text for text, caseless in literals if caseless))

    def admitted(self, text: str, folded: str) -> tuple[int, ...]:
        """The indexes of the requirements ``text`` may meet (``folded``: it lower-cased)."""
        if not text.isascii():
            return tuple(range(len(self.needs)))
        present = {(literal, False) for literal in self._cased if literal in text}
        present.update((literal, True) for literal in self._caseless if literal in folded)
        return tuple(
            index
            for index, need in enumerate(self.needs)
            if need is None or not need.isdisjoint(present)
        )


def _of_sequence(items: Sequence[tuple[Any, Any]], caseless: bool) -> Requirement:
    """The strongest requirement among a sequence's runs of literals and its elements."""
    found: list[frozenset[tuple[str, bool]]] = []
    run: list[str] = []
    for op, argument in items:
        name = str(op)
        # Under IGNORECASE a non-ASCII letter can match an ASCII one (the Kelvin sign ``k``):
        # only a case-sensitive one is certain to be absent from ASCII text.
        if name == "LITERAL" and (argument < 128 or not caseless):
            run.append(chr(argument))
            continue
        _end_run(run, caseless, found)
        need = _of_element(name, argument, caseless)
        if need is not None:
            found.append(need)
    _end_run(run, caseless, found)
    return max(found, key=_strength, default=None)


def _end_run(run: list[str], caseless: bool, found: list[frozenset[tuple[str, bool]]]) -> None:
    if run:
        literal = "".join(run)
        found.append(frozenset({(literal.lower() if caseless else literal, caseless)}))
        run.clear()


def _of_element(name: str, argument: Any, caseless: bool) -> Requirement:
    if name == "SUBPATTERN":
        _group, added, removed, inner = argument
        inner_caseless = (caseless or bool(added & re.IGNORECASE)) and not (removed & re.IGNORECASE)
        return _of_sequence(list(inner), inner_caseless)
    if name == "ATOMIC_GROUP":
        return _of_sequence(list(argument), caseless)
    if name in _REPEATS:
        least, _most, inner = argument
        return _of_sequence(list(inner), caseless) if least >= 1 else None
    if name == "BRANCH":
        return _union(_of_sequence(list(branch), caseless) for branch in argument[1])
    return None  # a class, an anchor, a look-around, a back-reference: no literal for sure


def _union(needs: Iterable[Requirement]) -> Requirement:
    literals: set[tuple[str, bool]] = set()
    for need in needs:
        if need is None:
            return None  # one branch needs nothing: the alternation needs nothing
        literals |= need
    return frozenset(literals) if literals else None


def _strength(need: frozenset[tuple[str, bool]]) -> tuple[int, int]:
    """Prefer the requirement whose shortest literal is longest, then the one with fewer."""
    return min(len(literal) for literal, _ in need), -len(need)


class Alternation:
    """Branches tried as one alternation (one pass over a text), leaving out the branches
    whose literals the text lacks. A branch that cannot match anywhere in a text changes none
    of the alternation's matches there: the result is the full alternation's, leftmost first.

    Args:
        branches: the patterns, each with its own flags (scope them: ``(?i:...)``).
        flags: flags for the whole alternation.
    """

    def __init__(self, branches: Sequence[str], flags: int = 0) -> None:
        self._branches = tuple(branches)
        self._flags = flags
        self._prefilter = Prefilter(
            [requirement(re.compile(branch, flags)) for branch in self._branches]
        )
        self._compiled = lru_cache(maxsize=256)(self._compile)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The matches of the alternation in ``text``, as ``re.finditer`` gives them."""
        active = self._prefilter.admitted(text, text.lower())
        return self._compiled(active).finditer(text) if active else iter(())

    def _compile(self, active: tuple[int, ...]) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{self._branches[i]})" for i in active), self._flags)
