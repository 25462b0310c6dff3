"""The statements the SQLite recorder runs: SQL text compiled from the Core tables ahead of
time (:mod:`eventstore.sql.sqlite.statement_source`), so that nothing here imports SQLAlchemy."""

from __future__ import annotations

from collections.abc import Sequence

from eventstore.sql.sqlite.compiled import DDL, Statements

__all__ = ["DDL", "Statements", "scope_clause", "statements"]

_STATEMENTS = Statements()


def statements() -> Statements:
    """The statements."""
    return _STATEMENTS


def scope_clause(scopes: Sequence[str] | None, alias: str = "d.") -> tuple[str, list[str]]:
    """The ``{scopes}`` clause of a read-model statement and its arguments: ``AND
    <alias>scope IN (?, ...)``, or nothing for every scope (None). ``alias`` names the table,
    or is SQLite's unary ``+`` to keep the column off its indexes."""
    if scopes is None:
        return "", []
    return f"AND {alias}scope IN ({','.join('?' * len(scopes))})", list(scopes)
