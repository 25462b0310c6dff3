"""Rich renderings shared by the CLI commands and the demo."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from eventstore import VerificationFailure

__all__ = ["failure_table"]


def failure_table(failures: list[VerificationFailure]) -> Table:
    """A table of verification failures: where, and what is wrong."""
    table = Table()
    for column in ("position", "stream", "version", "event id", "reason"):
        table.add_column(column, overflow="fold")
    for failure in failures:
        table.add_row(
            str(failure.position or ""),
            Text(failure.stream),
            str(failure.version or ""),
            Text(failure.event_id or ""),
            Text(failure.reason),
        )
    return table
