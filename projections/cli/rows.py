"""Long listings as aligned plain rows: one line per item, the last column cut to the width.

Rich's ``Table`` measures and wraps every cell; for the thousand messages of a long session's
``context`` that took 0.8 s of CPU, most of the command. A listing whose cells are one line
each (ids, roles, counts, a preview already cut to a few dozen characters) needs none of it:
columns are as wide as their widest cell, the last takes what is left of the console's width
and is cut with "…". Cells are stored data: control characters are escaped (never sent to the
terminal), and the text is written as it is, never read as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.console import Console

from projections.render import printable

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["print_rows", "print_table"]

_GAP = "  "
_NARROWEST_LAST = 12


def print_rows(
    console: Console, title: str, headers: Sequence[str], rows: Sequence[Sequence[str]]
) -> None:
    """Print ``rows`` under ``title`` and ``headers`` on ``console``, one line each."""
    cells = [[printable(cell) for cell in row] for row in rows]
    widths = _widths(headers, cells, console.width)
    lines = [title, _line(headers, widths), _GAP.join("─" * width for width in widths)]
    lines += [_line(row, widths) for row in cells]
    console.file.write("\n".join(line.rstrip() for line in lines) + "\n")
    console.file.flush()


def print_table(console: Console, table: Table, empty: str) -> None:
    """Print ``table``, or ``empty`` instead when it has no row: an empty table's frame tells a
    user nothing, a sentence says what is missing and what to do."""
    console.print(table if table.row_count else empty)


def _widths(headers: Sequence[str], cells: list[list[str]], total: int) -> list[int]:
    """Each column as wide as its widest cell; the last gets the rest of ``total``."""
    widths = [cell_len(header) for header in headers]
    for row in cells:
        widths = [max(width, cell_len(cell)) for width, cell in zip(widths, row, strict=True)]
    fixed = sum(widths[:-1]) + len(_GAP) * (len(widths) - 1)
    widths[-1] = max(_NARROWEST_LAST, min(widths[-1], total - fixed))
    return widths


def _line(row: Sequence[str], widths: list[int]) -> str:
    parts = []
    for cell, width in zip(row, widths, strict=True):
        if cell_len(cell) > width:
            cell = set_cell_size(cell, width - 1) + "…"
        parts.append(set_cell_size(cell, width))
    return _GAP.join(parts)
