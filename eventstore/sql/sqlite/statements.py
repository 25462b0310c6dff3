"""The statements the SQLite recorder runs: SQL text compiled from the Core tables ahead of
time (:mod:`eventstore.sql.sqlite.statement_source`), so that nothing here imports SQLAlchemy."""

from __future__ import annotations

from eventstore.sql.sqlite.compiled import DDL, Statements

__all__ = ["DDL", "Statements", "statements"]

_STATEMENTS = Statements()


def statements() -> Statements:
    """The statements."""
    return _STATEMENTS
