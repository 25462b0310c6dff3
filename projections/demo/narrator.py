"""Narration for the demos: rich panels for people, a list of steps for ``--json``."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.text import Text

__all__ = ["Narrator", "budget_bar"]


class Narrator:
    """Collects the steps of a demo and, with a console, prints them as they happen."""

    def __init__(self, console: Console | None) -> None:
        self.console = console
        self.steps: list[dict[str, Any]] = []

    def step(self, title: str, text: str, **facts: Any) -> None:
        """One numbered step: a panel for people, a dict (title, text, facts) for machines."""
        self.steps.append({"step": title, "text": text, **facts})
        if self.console is not None:
            self.console.print(Panel(text, title=f"[bold]{len(self.steps)}. {title}", expand=False))

    def show(self, renderable: Any) -> None:
        """Print a table or bar (people only)."""
        if self.console is not None:
            self.console.print(renderable)


def budget_bar(tokens: int, usable: int, trigger: int, label: str) -> Group:
    """The input tokens against the usable budget, with the compaction trigger marked."""
    share = tokens / usable
    colour = "red" if tokens > trigger else "green"
    bar = ProgressBar(
        total=usable,
        completed=min(tokens, usable),
        width=50,
        complete_style=colour,
        finished_style="red",
    )
    text = Text(
        f"{label}: {tokens:,} of {usable:,} usable tokens ({share:.0%}); compaction at "
        f"{trigger:,} ({trigger / usable:.0%})",
        style=colour,
    )
    return Group(text, bar, Text(""))
