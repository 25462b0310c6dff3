"""The newest rows matching a query, read off the full-text index newest first.

A search wants the ``limit`` newest rows of its scope that match any term. The two plans of
:func:`~eventstore.sql.sqlite.documents.search_documents` either look every match up by rowid
and sort them, or walk the scope's rows newest first testing each against the whole set of
matches; both cost O(matches) when a term is common (4-20 ms for 1,000-2,000 matches in a
100k-row session). The full-text index can do better: FTS5 walks a term's rowids in either
direction and stops, and a read model's rowids run in position order.

Why they do: ctxledger's read models insert their rows in the order of the events they derive
from (their catch-up folds tenant positions in order), never update them, and delete them only
by an erasure or a reset; SQLite gives a new row a rowid above every row the table holds. So
rowid order is position order. A read model written through the public API may insert rows out
of that order (a row for an older position, committed later): each commit notes whether the
read model's rows are still in position order (:func:`note_order`, a flag in ``ledger_meta``
kept in the commit's transaction; a read model that has none yet is checked once, whole), and
a search walks only a read model whose flag says so.

The walk is bounded: it looks at the matches between the scope's first row and its newest row
within the bound (the rows of other tenants and sessions in between are skipped by rowid), at
most :data:`WINDOW` of them. If they hold ``limit`` rows of the scope, or are every match in
that range, its answer is exact; otherwise (a scope whose rows are a thin share of the matches
around them) it answers None and the caller uses its other plans.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from eventstore.recorder import Document
from eventstore.sql.sqlite.statements import scope_clause, statements

__all__ = ["WINDOW", "newest_matches", "note_order", "reset_order"]

#: Matches a walk may look at per row asked for before it gives up (a look-up and a test each,
#: about 1 us): past it, the plan driven by the scope's own rows is cheaper.
WINDOW = 4


def newest_matches(
    db: sqlite3.Connection,
    match: str,
    tenant_id: str,
    name: str,
    scopes: Sequence[str] | None,
    limit: int,
    max_position: int,
) -> list[Any] | None:
    """The ``limit`` newest rows of the scopes (None: the whole read model of the tenant)
    matching ``match`` at positions up to ``max_position``, newest first, as raw rows of
    ``key, scope, event_id, position, terms, data``; None when the walk would be long."""
    if _order(db, tenant_id, name) != _ORDERED:
        return None
    span = _rowid_span(db, tenant_id, name, scopes, max_position)
    if span is None:
        return []
    first, last = span
    sql = statements()
    nth = db.execute(sql.nth_newest_match, (match, first, last, WINDOW * limit - 1)).fetchone()
    start = first if nth is None else int(nth[0])  # None: the window holds every match
    clause, scope_args = scope_clause(scopes, alias="d.")
    statement = sql.newest_matches.format(scopes=clause)
    arguments = (match, start, last, tenant_id, name, max_position, *scope_args, limit)
    rows = db.execute(statement, arguments).fetchall()
    if len(rows) < limit and nth is not None:
        return None  # the window held too few of the scope's rows, and more matches follow
    return rows


_ORDERED, _UNORDERED = "1", "0"


def note_order(
    db: sqlite3.Connection, tenant_id: str, name: str, upserts: Sequence[Document]
) -> None:
    """Before ``upserts`` are inserted, in the commit's transaction: note whether the read
    model's rows stay in position order (each row at or after every row already held, in the
    order given). A read model with no note yet is checked whole, once."""
    sql = statements()
    noted = state = _order(db, tenant_id, name)
    if state == _UNORDERED:
        return
    (newest,) = db.execute(sql.newest_position, (tenant_id, name)).fetchone()
    if state is None and newest is not None:
        (disorder,) = db.execute(sql.rows_out_of_order, (tenant_id, name)).fetchone()
        state = _UNORDERED if disorder else _ORDERED
    positions = [document.position for document in upserts]
    if newest is not None:
        positions.insert(0, int(newest))
    in_order = all(before <= after for before, after in itertools.pairwise(positions))
    state = _ORDERED if state != _UNORDERED and in_order else _UNORDERED
    if state != noted:
        db.execute(sql.meta_put, (_order_key(tenant_id, name), state))


def reset_order(db: sqlite3.Connection, tenant_id: str, name: str) -> None:
    """A reset read model holds no rows: in order."""
    db.execute(statements().meta_put, (_order_key(tenant_id, name), _ORDERED))


def _order(db: sqlite3.Connection, tenant_id: str, name: str) -> str | None:
    row = db.execute(statements().meta_get, (_order_key(tenant_id, name),)).fetchone()
    return str(row[0]) if row else None


def _order_key(tenant_id: str, name: str) -> str:
    return "documents in position order " + json.dumps([tenant_id, name])


def _rowid_span(
    db: sqlite3.Connection,
    tenant_id: str,
    name: str,
    scopes: Sequence[str] | None,
    max_position: int,
) -> tuple[int, int] | None:
    """The rowids of the scopes' first row and of their newest row within the bound; None
    when they hold no row there."""
    sql = statements()
    if scopes is None:
        ends = [_ends(db, sql.first_row, sql.last_row, (tenant_id, name), max_position)]
    else:
        ends = [
            _ends(db, sql.first_row_of_scope, sql.last_row_of_scope, (tenant_id, name, scope),
                  max_position)
            for scope in dict.fromkeys(scopes)
        ]  # fmt: skip
    found = [span for span in ends if span is not None]
    if not found:
        return None
    return min(first for first, _ in found), max(last for _, last in found)


def _ends(
    db: sqlite3.Connection, first_sql: str, last_sql: str, where: tuple[str, ...], bound: int
) -> tuple[int, int] | None:
    first = db.execute(first_sql, where).fetchone()
    last = db.execute(last_sql, (*where, bound)).fetchone()
    return (int(first[0]), int(last[0])) if first and last else None
