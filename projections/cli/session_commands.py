"""Commands on sessions: ingest, pin, unpin, context."""

from __future__ import annotations

import json
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any

import click

from projections.cli.budget_options import (
    budget_options,
    context_limit_for,
    describe_budget,
    format_option,
    keep_groups_option,
)
from projections.cli.common import (
    cli,
    json_option,
    open_store,
    print_json,
    run,
    stderr,
    stdout,
    stored_session,
)
from projections.cli.params import COUNT, SESSION_HELP, TENANT_HELP
from projections.cli.progress import task_progress
from projections.cli.rows import print_rows
from projections.context.budget import Budget
from projections.context.formats import Format, to_messages
from projections.context.messages import Message, shown_text
from projections.context.tokens import TiktokenCounter
from projections.errors import MessageValidationError
from projections.ledger import Ledger
from projections.session.render import RenderedContext

if TYPE_CHECKING:  # imported by a context with --recall or --query only
    from projections.recall.search import RecallOptions

__all__ = ["context_limit_for", "show_unreadable"]

_INGEST_BATCH = 500


def _loads(text: str) -> Any:
    """``json.loads`` that turns the decoder's limits into a usage error."""
    try:
        return json.loads(text)
    except RecursionError:
        raise click.UsageError(
            "the input nests arrays or objects too deeply to be a conversation (over 1,000 levels)"
        ) from None
    except ValueError as error:
        if isinstance(error, json.JSONDecodeError):
            raise
        raise click.UsageError(f"the input holds a value ctxledger cannot read: {error}") from None


def read_payload(source: IO[str], fmt: Format) -> Any:
    """A JSON document, or JSON Lines (one item per line) for the list formats."""
    name = getattr(source, "name", "the input")
    try:
        text = source.read()
    except UnicodeDecodeError as error:
        raise click.UsageError(
            f"{name} is not UTF-8 text ({error.reason} at byte {error.start}); save it as "
            f"UTF-8 and try again"
        ) from None
    try:
        whole = _loads(text)
    except json.JSONDecodeError:
        items = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    items.append(_loads(line))
                except json.JSONDecodeError as error:
                    raise click.UsageError(
                        f"line {number} is not JSON ({error}); give a JSON array or JSON Lines"
                    ) from error
        return items
    if fmt != "anthropic" and isinstance(whole, dict) and len(text.strip().splitlines()) == 1:
        return [whole]  # JSON Lines of one line: one message
    return whole


@cli.command("ingest")
@click.argument("source", type=click.File("r", encoding="utf-8"), metavar="FILE")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--session", "session_id", required=True, help=SESSION_HELP)
@format_option
@click.option("--model", default="gpt-4o", show_default=True, help="Chooses the tokenizer.")
@json_option()
@click.pass_context
def ingest_command(
    context: click.Context,
    source: IO[str],
    tenant: str,
    session_id: str,
    fmt: Format,
    model: str,
    as_json: bool,
) -> None:
    """Append the messages of FILE (a JSON array or JSON Lines; '-' for stdin) to a session.

    A message's 'id' is kept when present; one without (OpenAI exports carry none) is keyed
    by its position in FILE and its content. Each batch of 500 messages is one transaction.
    Messages the session already holds are skipped, so running the same import again adds
    nothing, finishes an interrupted one, and adds only what a grown file added; an id held
    with other content, or a file changed since it was ingested, is refused (naming the
    message) before anything is written. Tool-protocol issues (a result without its call, a
    call without its result) are reported on stderr and recorded.
    """
    try:
        messages = to_messages(fmt, read_payload(source, fmt))
    except MessageValidationError as error:
        raise click.UsageError(str(error)) from error

    from projections.ingest import IngestReport, ingest  # the other commands never ingest

    async def action() -> IngestReport:
        async with open_store(context, create=True) as store:
            session = Ledger(store, counter=TiktokenCounter(model)).session(tenant, session_id)
            with task_progress("ingesting", enabled=not as_json) as progress:
                return await ingest(session, messages, batch_size=_INGEST_BATCH, progress=progress)

    report = run(action)
    for issue in report.protocol_issues:  # served only after repair: say so where it comes in
        stderr.print(f"[yellow]tool protocol:[/] {issue}", highlight=False)
    if as_json:
        print_json(
            {
                "appended": report.appended,
                "skipped": report.skipped,
                "protocol_issues": len(report.protocol_issues),
                "session_version": report.version,
            }
        )
    else:
        skipped = f", skipped {report.skipped} already there" if report.skipped else ""
        issues = len(report.protocol_issues)
        found = f", {issues} tool-protocol issue(s) recorded (above)" if issues else ""
        stdout.print(
            f"appended {report.appended} messages to {tenant}/session/{session_id}{skipped}"
            f"{found} (now at version {report.version})"
        )


def _mark_command(name: str, verb: str) -> Any:
    @cli.command(name, help=f"{verb} messages of a session by id.")
    @click.option("--tenant", required=True, help=TENANT_HELP)
    @click.option("--session", "session_id", required=True, help=SESSION_HELP)
    @click.argument("message_ids", nargs=-1, required=True)
    @click.option("--reason", required=True, help="Why, recorded with the event.")
    @json_option("Print the result as JSON.")
    @click.pass_context
    def command(
        context: click.Context,
        tenant: str,
        session_id: str,
        message_ids: tuple[str, ...],
        reason: str,
        as_json: bool,
    ) -> None:
        async def action() -> int:
            async with open_store(context) as store:
                stored = await stored_session(store, tenant, session_id)
                session = Ledger(store).session(tenant, stored)
                mark = session.pin if name == "pin" else session.unpin
                return (await mark(list(message_ids), reason=reason)).version

        version = run(action)
        if as_json:
            print_json({f"{name}ned": list(message_ids), "session_version": version})
            return
        stdout.print(f"{name}ned {len(message_ids)} message(s) (session version {version})")

    return command


_mark_command("pin", "Pin")
_mark_command("unpin", "Unpin")


@cli.command("context")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--session", "session_id", required=True, help=SESSION_HELP)
@budget_options
@click.option(
    "--model", default="gpt-4o", show_default=True, help="Sets the default context limit."
)
@keep_groups_option
@click.option("--at-version", type=COUNT, help="The context as it was at this session version.")
@click.option(
    "--at-time",
    type=click.DateTime(["%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S"]),
    help="The context as it was at this time (ISO 8601, UTC if no offset).",
)
@format_option
@click.option(
    "--recall", "with_recall", is_flag=True, help="Page the best old groups back in for a query."
)
@click.option("--query", help="What recall searches for (default: the latest user message).")
@click.option(
    "--recall-share",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.5,  # recall_block.RECALL_SHARE, not imported for --help (a test keeps them equal)
    show_default=True,
    help="The share of usable the recalled block may take.",
)
@click.option(
    "--keep-summary",
    is_flag=True,
    help="With recall: serve the summary even when the best hit does not fit beside it "
    "(by default the summary then yields its room, and the view says so).",
)
@click.option(
    "--repair",
    is_flag=True,
    help="Serve a request a provider accepts when the tool protocol is broken: a call "
    "without a result gets a marked placeholder, an orphan result is left out (the log is "
    "never changed; manifest.repairs lists each change).",
)
@json_option('{"messages": [...], "manifest": {...}} (anthropic: "system" beside them)')
@click.pass_context
def context_command(
    context: click.Context,
    tenant: str,
    session_id: str,
    budget: Budget,
    model: str,
    keep_groups: int,
    at_version: int | None,
    at_time: datetime | None,
    fmt: Format,
    with_recall: bool,
    query: str | None,
    recall_share: float,
    keep_summary: bool,
    repair: bool,
    as_json: bool,
) -> None:
    """Render the messages of the session's next request within the budget.

    With --recall (or --query), the best old groups for the query come back in a recalled
    block, whole, with their ids and scores. Tool-protocol problems are named on stderr in
    every view; with --repair the request is repaired so that a provider accepts it.
    """
    if at_time is not None and at_time.tzinfo is None:
        from datetime import UTC

        at_time = at_time.replace(tzinfo=UTC)
    recall: RecallOptions | bool = False
    if with_recall or query is not None:
        from projections.recall.search import RecallOptions

        recall = RecallOptions(query=query, share=recall_share, summary_yields=not keep_summary)

    async def action() -> RenderedContext:
        async with open_store(context) as store:
            stored = await stored_session(store, tenant, session_id)
            return (
                await Ledger(store)
                .session(tenant, stored)
                .render(
                    budget,
                    keep_groups=keep_groups,
                    fmt=fmt,
                    at_version=at_version,
                    at_time=at_time,
                    recall=recall,
                    over_budget="serve",  # shown, flagged and explained below
                    repair=repair,
                )
            )

    rendered = run(action)
    show_protocol(rendered, repair)
    if as_json:
        # The request body as the provider takes it (Anthropic's is an object with its own
        # "messages"), with the manifest beside it: "messages" is always the list.
        wire = rendered.wire
        body = dict(wire) if isinstance(wire, dict) else {"messages": wire}
        print_json({**body, "manifest": rendered.manifest.model_dump()})
        return
    show_context(rendered, budget)


def show_context(rendered: RenderedContext, budget: Budget) -> None:
    manifest = rendered.manifest
    rows = []
    masked = set(manifest.masked)
    shown_rows = zip(rendered.messages, manifest.sections, manifest.message_tokens, strict=True)
    for message, section, tokens in shown_rows:
        shown = f"{section} (masked)" if message.id in masked else section
        if section == "recalled":
            shown = f"recalled ({len(manifest.recalled)} messages)"
        rows.append((message.id, shown, message.role, str(tokens), _preview(message)))
    title = f"next request (as of version {manifest.as_of_version})"
    print_rows(stdout, title, ("id", "section", "role", "tokens", "content"), rows)
    used = manifest.tokens["total"]
    width = 40
    filled = min(width, round(width * used / budget.usable))
    bar = "█" * filled + "░" * (width - filled)
    verdict = "[bold red]OVER BUDGET[/]" if manifest.over_budget else "within budget"
    stdout.print(
        f"{bar} {used}/{budget.usable} tokens usable ({describe_budget(budget)}) — {verdict}; "
        f"{manifest.dropped_groups} older group(s) left out ({manifest.uncovered_groups} not "
        f"covered by a summary), {len(masked)} tool result(s) masked"
    )
    if manifest.summary_yielded is not None:
        stdout.print(
            f"summary version {manifest.summary_yielded} yielded its room to recall: the best "
            f"hit did not fit beside it (--keep-summary serves it)"
        )
    show_unreadable(manifest.unreadable)
    if manifest.over_budget:
        stderr.print(f"[bold red]over budget:[/] {manifest.over_why}")
        raise SystemExit(1)


def show_protocol(rendered: RenderedContext, repaired: bool) -> None:
    """Name (on stderr) the tool-protocol problems of the session, or what a repair did."""
    manifest = rendered.manifest
    for change in manifest.repairs:
        stderr.print(
            f"[yellow]repaired:[/] {change['kind'].replace('_', ' ')}: call "
            f"{change['tool_call_id']!r} (message {change['message_id']!r})",
            highlight=False,
        )
    if repaired:
        return
    for issue in manifest.protocol_issues:
        stderr.print(
            f"[yellow]tool protocol:[/] {issue['kind']}: {issue['detail']} (a provider refuses "
            f"such a request: --repair serves one it accepts)",
            highlight=False,
        )


def show_unreadable(unreadable: list[dict[str, Any]]) -> None:
    """Warn (on stderr) about stored events the projections could not read."""
    for item in unreadable:
        stderr.print(
            f"[yellow]warning:[/] {item['type']} at version {item['version']} (position "
            f"{item['position']}) is unreadable and was left out: {item['reason']}",
            markup=True,
            highlight=False,
        )


def _preview(message: Message, width: int = 70) -> str:
    text = " ".join(shown_text(message).split())
    return text if len(text) <= width else text[: width - 1] + "…"
