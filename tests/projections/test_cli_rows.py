"""Long listings as plain rows: aligned, cut to the console's width (wide characters counted
as two cells), stored text never read as markup and its control characters escaped."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console

from projections.cli.rows import print_rows


def printed(width: int, rows: list[tuple[str, ...]]) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=width)
    print_rows(console, "title", ("id", "role", "content"), rows)
    return out.getvalue().splitlines()


def test_rows_are_aligned_and_cut_to_the_width() -> None:
    lines = printed(40, [("m1", "user", "short"), ("m22", "assistant", "x" * 200)])
    assert lines[0] == "title"
    assert lines[1].split() == ["id", "role", "content"]
    assert lines[3].startswith("m1   user       short")
    assert lines[4].startswith("m22  assistant  xxx")
    assert lines[4].endswith("…")
    assert max(map(cell_len, lines)) <= 40


def test_wide_characters_take_two_cells() -> None:
    chinese = "到杭州的直达高铁，单程不超过两百元，二十日下午六点前回到上海"
    lines = printed(30, [("m1", "user", chinese)])
    assert max(map(cell_len, lines)) <= 30
    assert lines[3].endswith("…")


def test_stored_text_is_neither_markup_nor_control() -> None:
    lines = printed(80, [("m1", "user", "[bold red]hi[/] \x1b[2J \u202eevil")])
    assert "[bold red]hi[/]" in lines[3]
    assert "\x1b" not in lines[3]
    assert "\\x1b" in lines[3]
    assert "\u202e" not in lines[3]
    assert "\\u202e" in lines[3]
