"""Commands on the log itself: log, verify, erase, append, streams, tenants, demo."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any
from uuid import UUID

import click
from rich.table import Table

from eventstore import NewEvent, RecordedEvent
from projections.cli.common import (
    cli,
    json_option,
    known_stream,
    known_tenant,
    open_store,
    print_json,
    run,
    stderr,
    stdout,
)
from projections.cli.ids import event_ids_of
from projections.cli.params import COUNT, POSITIVE, TENANT_HELP
from projections.cli.rows import print_table
from projections.erasure import CascadedErasure, erase_events, erase_sessions, erase_users
from projections.render import literal

__all__ = ["describe_data"]


# -- log ---------------------------------------------------------------------------------------


@cli.command("log")
@click.option("--tenant", required=True, help="The tenant whose log to show.")
@click.option("--stream", help="Only this stream (in version order).")
@click.option(
    "--after",
    "after",
    type=COUNT,
    default=0,
    show_default=True,
    help="Only events after this position.",
)
@click.option("--limit", type=POSITIVE, help="At most this many events.")
@json_option("One JSON object per event (JSON Lines).")
@click.pass_context
def log_command(
    context: click.Context,
    tenant: str,
    stream: str | None,
    after: int,
    limit: int | None,
    as_json: bool,
) -> None:
    """Show a tenant's events in position order (or one stream's, in version order)."""

    async def action() -> list[RecordedEvent]:
        async with open_store(context, read_only=True) as store:
            await known_tenant(store, tenant)
            if stream is not None:
                await known_stream(store, tenant, stream)
                events = await store.read_stream(tenant, stream)
                return [e for e in events if e.position > after][:limit]
            collected: list[RecordedEvent] = []
            async for event in store.read_log(tenant, after_position=after):
                if limit is not None and len(collected) >= limit:
                    break
                collected.append(event)
            return collected

    events = run(action)
    if as_json:
        for event in events:
            click.echo(event.model_dump_json())
        return
    table = Table(title=f"tenant {tenant}" + (f", stream {stream}" if stream else ""))
    for column in ("pos", "stream", "ver", "type", "actor", "recorded at", "hash", "data"):
        table.add_column(column, overflow="fold")
    for event in events:
        # literal() cells: stored data is shown literally, never read as rich markup.
        table.add_row(
            str(event.position),
            literal(event.stream_id),
            str(event.version),
            literal(event.type),
            literal(event.actor or ""),
            event.recorded_at.strftime("%Y-%m-%d %H:%M:%S"),
            event.hash[:12],
            literal(describe_data(event)),
        )
    where = f" in stream {stream}" if stream else ""
    print_table(stdout, table, f"no events{where} after position {after}")


def describe_data(event: RecordedEvent, width: int = 60) -> str:
    """A one-line preview of an event's data: a message as ``role: text`` (its id, and its
    tool calls), anything else as its JSON; cut at ``width`` characters."""
    if event.erased:
        return f"[erased by #{event.erased_by}]"
    message = (event.data or {}).get("message")
    if isinstance(message, dict) and "role" in message:
        text = f"{message.get('id', '')} {message['role']}: {_message_text(message)}"
    else:
        text = json.dumps(event.data, ensure_ascii=False, sort_keys=True)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        content = " ".join(
            str(p.get("text", f"[{p.get('type')}]")) for p in content if isinstance(p, dict)
        )
    calls = [
        f"{c.get('name')}({c.get('arguments', '')})"
        for c in message.get("tool_calls") or []
        if isinstance(c, dict)
    ]
    return " ".join(part for part in (str(content or ""), *calls) if part)


# -- erase -------------------------------------------------------------------------------------


@cli.command("erase")
@click.option("--tenant", required=True, help="The tenant that owns the events.")
@click.argument("event_ids", nargs=-1, metavar="[ID]...")
@click.option("--session", "sessions", multiple=True, help="Erase everything of this session.")
@click.option(
    "--user", "users", multiple=True, help="Erase this user's memory, consents, ADK data."
)
@click.option("--reason", required=True, help="Why, e.g. 'GDPR art. 17 request #123'.")
@click.option("--requested-by", required=True, help="Who asked for the erasure.")
@click.option(
    "--dry-run",
    is_flag=True,
    help="List what would be erased, derived events included; erase nothing.",
)
@json_option("Print the receipt as JSON.")
@click.pass_context
def erase_command(
    context: click.Context,
    tenant: str,
    event_ids: tuple[str, ...],
    sessions: tuple[str, ...],
    users: tuple[str, ...],
    reason: str,
    requested_by: str,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Erase the payloads of events (by event id, or by the message id 'context' and 'search'
    show) and of every event derived from them (summaries that
    quote them, masked digests, copies, memory proposals), or everything of sessions
    (--session) or users (--user), in one recorded step; the hashed envelopes and the proof
    stay, and verification stays green. Each derived event is listed with the reason.

    Exits 1 when the erasure is recorded but a reader held the old bytes on disk past the
    busy timeout (the warning says what remains): run the same command again to finish.
    """
    if sum(map(bool, (event_ids, sessions, users))) != 1:
        raise click.UsageError("give event ids, or --session, or --user (one of them)")

    async def action() -> Any:
        async with open_store(context) as store:
            erase = erase_sessions if sessions else erase_users if users else erase_events
            named = event_ids
            if event_ids:  # event ids, or the message ids the other commands show
                await known_tenant(store, tenant)
                named = tuple(await event_ids_of(store, tenant, event_ids))
            return await erase(
                store,
                tenant,
                sessions or users or named,
                reason=reason,
                requested_by=requested_by,
                dry_run=dry_run,
            )

    receipt = run(action)
    if as_json:
        print_json(receipt.model_dump(mode="json") | {"dry_run": dry_run})
    else:
        _print_erasure(receipt, dry_run)
    if receipt.residue is not None:
        stderr.print(f"[bold yellow]warning:[/] not yet off the disk: {receipt.residue}")
        context.exit(1)


def _print_erasure(receipt: CascadedErasure, dry_run: bool) -> None:
    if dry_run:
        stdout.print(f"would erase {len(receipt.erased)} payload(s); nothing was erased")
    elif receipt.erasure is not None:
        stdout.print(
            f"erased {len(receipt.erased)} payload(s); recorded as PayloadErased at position "
            f"{receipt.erasure.position} ({receipt.erasure.event_id})"
        )
    for derived in receipt.derived:
        stdout.print(
            f"  with {derived.type} {derived.stream_id} v{derived.version} ({derived.event_id}):"
            f" {derived.because}",
            highlight=False,
        )
    for event_id, position in receipt.already_erased.items():
        stdout.print(f"{event_id} was already erased by position {position}")


# -- append, streams, tenants ------------------------------------------------------------------


@cli.command("append")
@click.option("--tenant", required=True, help=TENANT_HELP)
@click.option("--stream", required=True, help="The stream to append to, e.g. session/42.")
@click.option("--type", "event_type", required=True, help="The event type.")
@click.option("--data", default=None, help="The payload as a JSON object (default {}).")
@click.option(
    "--data-file",
    type=click.File("r", encoding="utf-8"),
    help="Read the JSON payload from a file ('-' for standard input).",
)
@click.option("--actor", help="Who caused the event.")
@click.option("--event-id", help="A UUID for idempotent retries.")
@click.option("--expected-version", type=COUNT, help="Fail unless the stream is at this version.")
@json_option("Print the recorded event as JSON.")
@click.pass_context
def append_command(
    context: click.Context,
    tenant: str,
    stream: str,
    event_type: str,
    data: str | None,
    data_file: Any,
    actor: str | None,
    event_id: str | None,
    expected_version: int | None,
    as_json: bool,
) -> None:
    """Append one event to a stream."""
    if data is not None and data_file is not None:
        raise click.UsageError("give --data or --data-file, not both")
    text = data_file.read() if data_file is not None else (data or "{}")
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as error:
        raise click.UsageError(f"the payload is not JSON: {error}") from error
    if not isinstance(payload, dict):
        raise click.UsageError(f"the payload must be a JSON object, got {type(payload).__name__}")
    try:
        identifier = UUID(event_id) if event_id else None
    except ValueError as error:
        raise click.UsageError(f"--event-id {event_id!r} is not a UUID") from error
    event = NewEvent(type=event_type, data=payload, actor=actor)
    if identifier is not None:
        event = event.model_copy(update={"event_id": identifier})

    async def action() -> list[RecordedEvent]:
        async with open_store(context, create=True) as store:
            return await store.append(tenant, stream, [event], expected_version=expected_version)

    (recorded,) = run(action)
    if as_json:
        click.echo(recorded.model_dump_json())
    else:
        stdout.print(
            f"appended {recorded.type} to {tenant}/{stream} at version {recorded.version}, "
            f"position {recorded.position} ({recorded.event_id})"
        )


@cli.command("streams")
@click.option("--tenant", required=True, help=TENANT_HELP)
@json_option()
@click.pass_context
def streams_command(context: click.Context, tenant: str, as_json: bool) -> None:
    """List a tenant's streams with their head version and hash."""

    async def action() -> list[Any]:
        async with open_store(context, read_only=True) as store:
            await known_tenant(store, tenant)
            return await store.streams(tenant)

    heads = run(action)
    if as_json:
        print_json([head.model_dump() for head in heads])
        return
    table = Table(title=f"streams of {tenant}")
    for column in ("stream", "version", "head hash"):
        table.add_column(column)
    for head in heads:
        table.add_row(literal(head.stream_id), str(head.version), head.hash)
    stdout.print(table)


@cli.command("tenants")
@json_option()
@click.pass_context
def tenants_command(context: click.Context, as_json: bool) -> None:
    """List the tenants that have events."""

    async def action() -> list[str]:
        async with open_store(context, read_only=True) as store:
            return await store.tenants()

    names = run(action)
    if as_json:
        print_json(names)
    else:
        for name in names:
            stdout.print(name)


_NARRATED_DB = click.option(
    "--db",
    "database",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write its log here (default: the global --db when given, else a fresh temporary "
    "file); on a file that holds an earlier run the demo plays in a new tenant (acme-2…).",
)
_NARRATED_JSON = json_option("A machine-readable transcript.")


def _narrate(
    play: Callable[..., Coroutine[Any, Any, Any]], database: Path | None, as_json: bool
) -> None:
    """Run a narrated walk-through: panels for people, or the transcript as JSON. Its own
    ``--db``, else the global ``--db`` (or CTXLEDGER_DB) when one was given, else a fresh
    temporary file."""
    if database is None:
        root = click.get_current_context().find_root()
        if root.get_parameter_source("db") is not click.core.ParameterSource.DEFAULT:
            given = str(root.obj)
            if "://" in given:
                raise click.UsageError(
                    f"the walk-throughs write a SQLite file; --db {given!r} is a database URL: "
                    f"give a file path"
                )
            database = Path(given)
    transcript = run(lambda: play(database, console=None if as_json else stdout))
    if as_json:
        print_json(transcript)


@cli.command("demo")
@_NARRATED_DB
@_NARRATED_JSON
def demo_command(database: Path | None, as_json: bool) -> None:
    """The Shanghai→Hangzhou weekend trip, end to end: pins, tool calls, compaction behind the
    gate, rollback, evidence, consent-gated memory, verify, time travel."""
    from projections.demo import run_demo

    _narrate(run_demo, database, as_json)


@cli.command("tour")
@_NARRATED_DB
@_NARRATED_JSON
def tour_command(database: Path | None, as_json: bool) -> None:
    """A guided tour of the log: append, retry, conflict, erase, verify, catch tampering."""
    from projections.demo.tour import run_tour

    _narrate(run_tour, database, as_json)
