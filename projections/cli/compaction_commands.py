"""Commands on a session's compaction: compact, summaries, rollback."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import click
from rich.table import Table

from projections.cli.budget_options import budget_options, keep_groups_option
from projections.cli.common import (
    EXIT_UNAVAILABLE,
    cli,
    json_option,
    open_store,
    print_json,
    run,
    stderr,
    stdout,
    stored_session,
)
from projections.cli.params import COUNT, POSITIVE, SESSION_HELP, TENANT_HELP
from projections.cli.rows import print_table
from projections.cli.session_commands import show_unreadable
from projections.compactor import CompactionOutcome
from projections.context.budget import Budget
from projections.context.tokens import TiktokenCounter
from projections.ledger import Ledger

__all__: list[str] = []


@cli.command("compact")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--session", "session_id", required=True, help=SESSION_HELP)
@click.option(
    "--summarizer",
    type=click.Choice(["offline", "openai"]),
    default="offline",
    show_default=True,
    help="Offline (deterministic) or an OpenAI-compatible server.",
)
@click.option(
    "--base-url",
    envvar="CTXLEDGER_SUMMARIZER_URL",
    help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1.",
)
@click.option(
    "--summarizer-model",
    envvar="CTXLEDGER_SUMMARIZER_MODEL",
    help="The model name the server expects.",
)
@budget_options
@click.option(
    "--model", default="gpt-4o", show_default=True, help="Sets the default context limit."
)
@click.option(
    "--summary-budget",
    type=POSITIVE,
    help="An upper bound for the summary's tokens (default: a share of the room left).",
)
@keep_groups_option
@click.option(
    "--target",
    type=click.FloatRange(0, 1, min_open=True),
    help="Fill this share of the room the trigger leaves above the prefix, pins and current "
    "turn (default 0.75).",
)
@click.option(
    "--mask/--no-mask",
    default=True,
    show_default=True,
    help="Mask old tool results first (the ladder's cheapest step).",
)
@click.option(
    "--until-under-trigger",
    "until_under",
    is_flag=True,
    help="Go on compacting, one round after another (progress on stderr), until the context "
    "is at or under the trigger or a round makes no progress; one round otherwise.",
)
@json_option()
@click.pass_context
def compact_command(
    context: click.Context,
    tenant: str,
    session_id: str,
    summarizer: str,
    base_url: str | None,
    summarizer_model: str | None,
    budget: Budget,
    model: str,
    summary_budget: int | None,
    keep_groups: int,
    target: float | None,
    mask: bool,
    until_under: bool,
    as_json: bool,
) -> None:
    """Mask old tool results, then summarise what the window leaves out, behind the gate.

    Says whether the context reached the trigger, and why not when it cannot. Exits 0 when the
    context ends at or under the trigger with any new summary served, 1 when it does not (a
    rejection, a context still over the trigger), 2 on an error, 3 when the summarizer server
    could not be used (unreachable, timed out, refused: nothing recorded). With --summarizer
    openai the key comes from OPENAI_API_KEY (local servers accept any).
    """
    chosen: Any = None
    if summarizer == "openai":
        if not base_url or not summarizer_model:
            raise click.UsageError("--summarizer openai needs --base-url and --summarizer-model")
        import os

        from projections.summaries.openai_compat import OpenAICompatibleSummarizer

        chosen = OpenAICompatibleSummarizer(
            base_url=base_url,
            model=summarizer_model,
            api_key=os.environ.get("OPENAI_API_KEY", "unused"),
        )

    async def action() -> Any:
        async with open_store(context) as store:
            stored = await stored_session(store, tenant, session_id)
            session = Ledger(store, counter=TiktokenCounter(model)).session(tenant, stored)

            async def one_round() -> CompactionOutcome:
                return await session.compact(
                    budget,
                    summary_budget=summary_budget,
                    keep_groups=keep_groups,
                    summarizer=chosen,
                    target=target,
                    mask_results=mask,
                )

            if not until_under:
                return await one_round()
            return await _until_under_trigger(one_round, budget, quiet=as_json)

    outcome = run(action)
    if as_json:
        print_json(outcome.model_dump(mode="json", exclude={"events", "mask_event"}))
    else:
        for line in describe_outcome(outcome, budget):
            stdout.print(line, highlight=False)
    if outcome.result == "unavailable":
        raise SystemExit(EXIT_UNAVAILABLE)
    if not compaction_succeeded(outcome):
        raise SystemExit(1)


async def _until_under_trigger(
    one_round: Callable[[], Awaitable[CompactionOutcome]], budget: Budget, *, quiet: bool
) -> CompactionOutcome:
    """Rounds of compaction until the context is at or under the trigger, or a round changes
    nothing (rejected, backing off, unavailable, or the same tokens as before)."""
    outcome, before, rounds = await one_round(), None, 1
    while outcome.reached_trigger is False and outcome.tokens_after != before:
        if not (outcome.summarised or outcome.masked):
            break
        if not quiet:
            stderr.print(
                f"round {rounds}: context {outcome.tokens_after:,} tokens, trigger "
                f"{budget.trigger:,}: going on",
                highlight=False,
            )
        before, rounds = outcome.tokens_after, rounds + 1
        outcome = await one_round()
    return outcome


def compaction_succeeded(outcome: CompactionOutcome) -> bool:
    """Whether ``compact`` ends well: the context is at or under the trigger, and any summary it
    committed is served (exit status 0; else 1, with what happened printed)."""
    if outcome.result in ("rejected", "partial", "unserved"):
        return False
    return outcome.reached_trigger is not False


def describe_outcome(outcome: CompactionOutcome, budget: Budget) -> list[str]:
    """What a compaction did, in words: masking, the summary's verdict, the trigger."""
    lines = []
    if outcome.masked:
        lines.append(
            f"{outcome.masked} old tool result(s) masked, {outcome.tokens_saved:,} tokens saved"
        )
    if outcome.result == "committed":
        lines.append(f"summary version {outcome.summary_version} committed and served")
    elif outcome.result == "partial":
        lines.append(
            f"summary version {outcome.summary_version} committed and served, but the context "
            f"is still over the trigger"
        )
    elif outcome.result == "unserved":
        lines.append(f"summary committed but not served: {outcome.reason}")
    elif outcome.result == "rejected":
        lines.append(
            f"summary rejected by the gate ({', '.join(outcome.failed_checks)}); "
            f"the window is served: {outcome.reason}"
        )
    elif outcome.result in ("not_needed", "backoff", "unavailable"):
        lines.append(f"no summary: {outcome.reason}")
    if outcome.tokens_after is not None:
        verdict = "at or under" if outcome.reached_trigger else "still over"
        lines.append(
            f"context now {outcome.tokens_after:,} tokens, {verdict} the trigger of "
            f"{budget.trigger:,} ({budget.usable:,} usable)"
        )
    if outcome.why_not:
        lines.append(f"why not: {outcome.why_not}")
    return lines


@cli.command("summaries")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--session", "session_id", required=True, help=SESSION_HELP)
@json_option()
@click.pass_context
def summaries_command(context: click.Context, tenant: str, session_id: str, as_json: bool) -> None:
    """The summary chain of a session: every version with its status and parent."""

    async def action() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        async with open_store(context) as store:
            stored = await stored_session(store, tenant, session_id)
            state = await Ledger(store).session(tenant, stored).state()
            return state.summary_chain(), [u.as_dict() for u in state.unreadable]

    chain, unreadable = run(action)
    show_unreadable(unreadable)
    if as_json:
        print_json(chain)
        return
    table = Table(title=f"summaries of {tenant}/session/{session_id}")
    for column in ("version", "status", "parent", "covered", "tokens", "failed checks"):
        table.add_column(column)
    for row in chain:
        table.add_row(
            str(row["version"]),
            row["status"],
            str(row.get("parent") or ""),
            str(row.get("covered", "")),
            str(row.get("tokens", "")),
            ", ".join(row.get("failed_checks", [])),
        )
    empty = f"no summary yet in {tenant}/session/{session_id}: 'ctxledger compact' writes one"
    print_table(stdout, table, empty)


@cli.command("rollback")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--session", "session_id", required=True, help=SESSION_HELP)
@click.option(
    "--to",
    "--to-version",
    "to_version",
    type=COUNT,
    help="The summary version to restore (default: the active summary's parent).",
)
@click.option("--reason", required=True, help="Why, recorded with the event.")
@json_option("Print the result as JSON.")
@click.pass_context
def rollback_command(
    context: click.Context,
    tenant: str,
    session_id: str,
    to_version: int | None,
    reason: str,
    as_json: bool,
) -> None:
    """Move the summary head back; the restored version is validated again."""

    async def action() -> Any:
        async with open_store(context) as store:
            stored = await stored_session(store, tenant, session_id)
            session = Ledger(store).session(tenant, stored)
            return await session.rollback(to_version=to_version, reason=reason)

    event = run(action)
    head = (event.data or {}).get("to_version")
    if as_json:
        print_json(
            {"summary_head": head, "position": event.position, "event_id": str(event.event_id)}
        )
        return
    stdout.print(f"summary head is now {head if head is not None else 'none (the window)'}")
