"""Rich renderings shared by the CLI commands and the demo."""

from __future__ import annotations

import re

from rich.table import Table
from rich.text import Text

from eventstore import VerificationFailure

__all__ = ["failure_table", "literal", "printable"]

# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides and
# isolates that reorder what a terminal shows ("Trojan Source").
_UNPRINTABLE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def printable(text: str) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``, ``\\u202e``):
    stored content must never clear a screen, set a title or recolour a terminal."""
    return _UNPRINTABLE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def literal(value: object) -> Text:
    """A table cell of stored data: shown as it is, never read as markup, controls escaped."""
    return Text(printable(str(value)))


def failure_table(failures: list[VerificationFailure]) -> Table:
    """A table of verification failures: where, and what is wrong."""
    table = Table()
    for column in ("position", "stream", "version", "event id", "reason"):
        table.add_column(column, overflow="fold")
    for failure in failures:
        table.add_row(
            str(failure.position or ""),
            literal(failure.stream),
            str(failure.version or ""),
            literal(failure.event_id or ""),
            literal(failure.reason),
        )
    return table
