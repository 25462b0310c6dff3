"""The budget options every command that renders or compacts takes, and the one rule for
turning them into a :class:`~projections.context.budget.Budget`: a budget that leaves no room
is a usage error in one line (what each part takes, and what to change), never a pydantic
report."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click
from pydantic import ValidationError

from projections.cli.common import stderr
from projections.cli.params import COUNT, POSITIVE
from projections.context.budget import Budget
from projections.context.formats import FORMATS
from projections.context.models import model_info

__all__ = [
    "budget_options",
    "context_limit_for",
    "describe_budget",
    "format_option",
    "keep_groups_option",
]

# The library's defaults, so the command line and the API agree on the same budget.
_DEFAULT_RESERVE = Budget.model_fields["tool_reserve"].default
_DEFAULT_MARGIN = Budget.model_fields["safety_margin"].default

#: ``--keep-groups``, the same on every command that renders or compacts.
keep_groups_option = click.option(
    "--keep-groups",
    type=COUNT,
    default=6,
    show_default=True,
    help="The most recent groups always kept verbatim.",
)
#: ``--format``, the wire format of the messages a command reads or prints.
format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="openai",
    show_default=True,
    help="The wire format of the messages.",
)

_OPTIONS = (
    click.option(
        "--context-limit",
        type=POSITIVE,
        help="Tokens of the model's context window (default: the --model's, from the model table).",
    ),
    click.option(
        "--max-output",
        type=COUNT,
        default=4_000,
        show_default=True,
        help="Tokens kept free for the model's reply.",
    ),
    click.option(
        "--tool-reserve",
        type=COUNT,
        default=_DEFAULT_RESERVE,
        show_default=True,
        help="Tokens kept free for what is sent beside the messages (tool schemas, instructions).",
    ),
    click.option(
        "--safety-margin",
        type=COUNT,
        default=_DEFAULT_MARGIN,
        show_default=True,
        help="Tokens kept free for counting differences between tokenizers.",
    ),
)


def budget_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the budget options to a command, which receives ``budget`` (built from them and
    its ``model`` option) instead."""

    @functools.wraps(command)
    def with_budget(
        *args: Any,
        context_limit: int | None,
        max_output: int,
        tool_reserve: int,
        safety_margin: int,
        **options: Any,
    ) -> Any:
        limit = context_limit or context_limit_for(options["model"])
        options["budget"] = budget_from(limit, max_output, tool_reserve, safety_margin)
        return command(*args, **options)

    decorated: Callable[..., Any] = with_budget
    for option in reversed(_OPTIONS):
        decorated = option(decorated)
    return decorated


def budget_from(context_limit: int, max_output: int, tool_reserve: int, margin: int) -> Budget:
    """The budget, or a one-line usage error naming each part and what to change."""
    try:
        return Budget(
            context_limit=context_limit,
            max_output_tokens=max_output,
            tool_reserve=tool_reserve,
            safety_margin=margin,
        )
    except ValidationError:
        usable = context_limit - max_output - tool_reserve - margin
        raise click.UsageError(
            f"the budget leaves no room for input: --context-limit {context_limit:,} - "
            f"--max-output {max_output:,} - --tool-reserve {tool_reserve:,} - --safety-margin "
            f"{margin:,} = {usable:,} tokens; raise --context-limit (or pick a --model with a "
            f"larger window) or lower the others"
        ) from None


def describe_budget(budget: Budget) -> str:
    """How usable was reached, for table footers."""
    return (
        f"limit {budget.context_limit:,} - output {budget.max_output_tokens:,} - tools "
        f"{budget.tool_reserve:,} - margin {budget.safety_margin:,}"
    )


def context_limit_for(model: str) -> int:
    """The context window of ``model`` from the model table (``projections.context.models``;
    128,000 when the model is not known), and a note on standard error when its token counts
    are estimates or its window is assumed."""
    info = model_info(model)
    if not info.known:
        stderr.print(
            f"[yellow]note:[/] model {model!r} is not in the model table: assuming a "
            f"{info.window:,}-token window (give --context-limit, or add it to CTXLEDGER_MODELS)"
        )
    elif not info.exact:
        stderr.print(
            f"[yellow]note:[/] token counts for {model!r} are estimates ({info.encoding}; its "
            f"own tokenizer is not available offline)"
        )
    return info.window
