"""Progress bars for long commands: on standard error, only when it is a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from projections.cli.common import stderr

__all__ = ["task_progress"]


@contextmanager
def task_progress(
    description: str, *, enabled: bool = True
) -> Iterator[Callable[[int, int], None] | None]:
    """A ``(done, total)`` callback drawing a bar, or None when not on a terminal (or when
    ``enabled`` is False, e.g. with ``--json``)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    # Imported only when a bar is drawn: piped and --json runs never load it.
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn(description), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=stderr, transient=True) as progress:
        task = progress.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield update
