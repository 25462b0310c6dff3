"""The corpus figures of read-model rows, kept per scope as the rows change.

Ranking needs, within a search's scopes: how many rows, their total length and, for each
asked term, in how many rows it occurs. Counting those over a full-text index on every search
costs the size of the whole index (every tenant and session). Instead every backend keeps
them per ``(tenant, read model, scope)`` — one row of totals per scope, one row per scope and
term — changed in the transaction that adds or deletes the rows (commits, erasures, resets),
so a search reads one row per scope and asked term.

A search as of an earlier position takes the figures of now and takes away the rows after
that position (read from the rows themselves): exact, and as cheap as the rows since then.

Pure: no I/O; the backends apply the changes computed here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from eventstore.recorder import DocumentStats

__all__ = ["StatChanges", "rarest_terms", "stat_changes", "without_rows"]

#: A row as the figures see it: its scope and its terms (separated by spaces).
Row = tuple[str, str]


@dataclass(frozen=True)
class StatChanges:
    """What adding and deleting some rows changes: per scope, rows and total length; per
    scope and term, the rows holding the term. Sorted, so that every backend applies them in
    one order (on PostgreSQL, concurrent writers then lock the rows in the same order)."""

    scopes: list[tuple[str, int, int]] = field(default_factory=list)  # scope, rows, length
    terms: list[tuple[str, str, int]] = field(default_factory=list)  # scope, term, rows

    def __bool__(self) -> bool:
        return bool(self.scopes or self.terms)


def stat_changes(added: Iterable[Row], removed: Iterable[Row] = ()) -> StatChanges:
    """The changes to the figures when ``added`` rows come in and ``removed`` rows go."""
    scopes: dict[str, list[int]] = {}
    terms: dict[tuple[str, str], int] = {}
    for sign, rows in ((1, added), (-1, removed)):
        for scope, text in rows:
            words = text.split()
            totals = scopes.setdefault(scope, [0, 0])
            totals[0] += sign
            totals[1] += sign * len(words)
            for term in set(words):
                terms[scope, term] = terms.get((scope, term), 0) + sign
    return StatChanges(
        scopes=[
            (s, rows, length) for s, (rows, length) in sorted(scopes.items()) if rows or length
        ],
        terms=[(s, t, n) for (s, t), n in sorted(terms.items()) if n],
    )


def without_rows(stats: DocumentStats, later: Sequence[str]) -> DocumentStats:
    """The figures of ``stats`` without the rows whose terms are ``later`` (the rows after a
    search's position, which the figures of now include)."""
    frequencies = dict(stats.frequencies)
    asked = frequencies.keys()
    total = stats.total_length
    for text in later:
        words = text.split()
        total -= len(words)
        for term in asked & set(words):
            frequencies[term] -= 1
    return DocumentStats(stats.count - len(later), total, frequencies)


def rarest_terms(terms: Sequence[str], frequencies: dict[str, int], limit: int) -> list[str]:
    """The rarest of ``terms`` whose rows together fit ``limit`` (at least the rarest one
    that occurs): a search's pre-filter then finds every row of those terms, so its order
    cuts nothing relevant, and a row holding only common terms would rank low anyway. The
    choice depends only on the figures within the search's bounds, so a search as of an
    earlier position chooses as it did then."""
    chosen: list[str] = []
    total = 0
    for term in sorted((t for t in terms if frequencies.get(t)), key=lambda t: frequencies[t]):
        if chosen and total + frequencies[term] > limit:
            break
        chosen.append(term)
        total += frequencies[term]
    return chosen
