"""Shared pieces of the ``ctxledger`` command line: the group, the store, output, errors.

Every command takes the database from ``--db`` or ``CTXLEDGER_DB`` (default ``./ctxledger.db``),
prints readable tables for people and, with ``--json``, JSON for machines. Exit codes: 0 success,
1 verification found tampering (or, for ``compact``, the context is still over the trigger),
2 bad usage or any other error, 3 a service ctxledger called could not be used (a summarizer
server unreachable, timing out or refusing the call): nothing was recorded, try again later.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import json
import os
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, NoReturn, TypeVar, cast

import click
from rich.console import Console

from eventstore import EventStore, LedgerError
from projections.cli.startup import imports_uncollected

__all__ = [
    "EXIT_ERROR",
    "EXIT_FAILED_VERIFICATION",
    "EXIT_UNAVAILABLE",
    "cannot_write",
    "cli",
    "json_option",
    "known_stream",
    "known_tenant",
    "open_store",
    "out_file_option",
    "output_format",
    "print_json",
    "run",
    "stderr",
    "stdout",
    "stored_session",
]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_DB = "ctxledger.db"
EXIT_FAILED_VERIFICATION = 1
EXIT_ERROR = 2
EXIT_UNAVAILABLE = 3


def _console(*, stderr: bool = False) -> Console:
    """A console as wide as the terminal, or 120 columns when piped (rich's default of 80
    wraps most tables), unless COLUMNS says otherwise."""
    console = Console(stderr=stderr, highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = 120
    return console


stdout = _console()
stderr = _console(stderr=True)


def run(action: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run one async action; turn ctxledger errors into a message and exit code 2."""
    results: list[T] = []

    async def keep_result() -> None:
        # The task asyncio.run watches returns None: on Python 3.11 its SIGINT check formats
        # the task's repr, result included, which for a rendered context is the whole
        # conversation (5-8 ms on a 1k-message session, for a string nobody reads).
        results.append(await action())

    try:
        asyncio.run(keep_result())
        return results[0]
    except LedgerError as error:
        stderr.print(f"[bold red]error:[/] {error}", markup=True, highlight=False)
        raise SystemExit(EXIT_ERROR) from error
    except ValueError as error:
        stderr.print(f"[bold red]error:[/] {error}")
        raise SystemExit(EXIT_ERROR) from error


def cannot_write(path: object, error: OSError) -> NoReturn:
    """Say that ``path`` could not be written, and exit 2."""
    stderr.print(f"[bold red]error:[/] cannot write {path}: {error.strerror or error}")
    raise SystemExit(EXIT_ERROR) from None


#: The root ``--output`` choices: tables for people, one JSON document, or JSON Lines.
OUTPUTS = ("table", "json", "jsonl")
_OUTPUT_KEY = "ctxledger.output"


def output_format() -> str:
    """The ``--output`` given to ``ctxledger`` (or ``CTXLEDGER_OUTPUT``): table by default."""
    context = click.get_current_context(silent=True)
    if context is None:
        return "table"
    return str(context.find_root().meta.get(_OUTPUT_KEY, "table"))


def json_option(help: str = "Print the result as JSON.") -> Callable[[F], F]:
    """A command's ``--json`` flag; it is on by default under ``ctxledger --output json`` or
    ``--output jsonl``."""
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        default=lambda: output_format() != "table",
        help=f"{help} (default with --output json or jsonl)",
    )


def out_file_option(help_text: str, *, required: bool) -> Callable[[F], F]:
    """A command's ``-o/--out FILE``: the file it writes. ``--output`` is the global format
    (tables, JSON, JSON Lines); the file option's old name ``--output`` is still taken, hidden,
    so that scripts written for it keep working."""

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def merged(*args: Any, out: Path | None, old_output: Path | None, **kwargs: Any) -> Any:
            chosen = out if out is not None else old_output
            if required and chosen is None:
                raise click.UsageError("Missing option '-o' / '--out' (the file to write).")
            return command(*args, output=chosen, **kwargs)

        path = click.Path(dir_okay=False, path_type=Path)
        hidden = click.option("--output", "old_output", type=path, hidden=True, help=help_text)
        shown = click.option("-o", "--out", "out", type=path, help=help_text)
        return cast(F, shown(hidden(merged)))

    return decorate


def print_json(value: Any) -> None:
    """Write JSON to stdout (plain, never styled): one document, or under ``--output jsonl``
    a list as one line per item."""
    if isinstance(value, list) and output_format() == "jsonl":
        for item in value:
            click.echo(json.dumps(item, ensure_ascii=False, sort_keys=True))
        return
    click.echo(json.dumps(value, ensure_ascii=False, sort_keys=True))


class LazyGroup(click.Group):
    """The ``ctxledger`` group: a command's module is imported when the command is used, and
    the command list is written from :mod:`projections.cli.catalogue`, so ``--help`` and
    ``--version`` import nothing of the commands (start-up under 300 ms)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from projections.cli.catalogue import COMMANDS

        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        from projections.cli.catalogue import COMMANDS

        if cmd_name not in self.commands and cmd_name in COMMANDS:
            with imports_uncollected():
                importlib.import_module(f"projections.cli.{COMMANDS[cmd_name][0]}")
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from projections.cli.catalogue import COMMANDS

        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names), default=0)
        rows = []
        for name in names:
            loaded = self.commands.get(name)
            text = (
                loaded.get_short_help_str(limit)
                if loaded is not None
                else _short_help(COMMANDS[name][1], limit)
            )
            rows.append((name, text))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _short_help(text: str, limit: int) -> str:
    """click's own shortening of a help text (the same as a loaded command's)."""
    from click.utils import make_default_short_help

    shortened: str = make_default_short_help(text, limit)  # type: ignore[operator,unused-ignore]
    return shortened


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    envvar="CTXLEDGER_DB",
    default=DEFAULT_DB,
    show_default=True,
    help="Database URL or SQLite file path (or set CTXLEDGER_DB).",
)
@click.option(
    "--width",
    type=click.IntRange(40, 1000),
    envvar="CTXLEDGER_WIDTH",
    help="Width of tables and text (default: the terminal's; 120 when output is piped).",
)
@click.option(
    "--output",
    type=click.Choice(OUTPUTS),
    envvar="CTXLEDGER_OUTPUT",
    default="table",
    show_default=True,
    help="How commands print: tables, JSON (as --json), or JSON Lines (a list one item per "
    "line); or set CTXLEDGER_OUTPUT.",
)
@click.version_option(package_name="ctxledger")
@click.pass_context
def cli(context: click.Context, db: str, width: int | None, output: str) -> None:
    """ctxledger: an event-sourced, tamper-evident memory store for LLM agents."""
    context.obj = db
    context.meta[_OUTPUT_KEY] = output
    if width is not None:
        stdout.width = stderr.width = width


def open_store(
    context: click.Context, *, create: bool = False, read_only: bool = False
) -> EventStore:
    """The store named by ``--db``, knowing every ctxledger event type (so an invalid payload
    of one is refused); only commands that write may create a new database, and commands that
    only read open a SQLite file read-only (``mode=ro``: nothing written, read-only media
    work)."""
    from projections.events import ledger_registry

    url = str(context.obj)
    options: dict[str, Any] = {"create": create}
    if read_only and _is_sqlite(url):
        options["read_only"] = True
    return EventStore.open(url, registry=ledger_registry(), **options)


def _is_sqlite(url: str) -> bool:
    return url.startswith("sqlite") or "://" not in url


async def known_tenant(store: EventStore, tenant: str) -> None:
    """Raise a :class:`LedgerError` naming the known tenants unless ``tenant`` has events: a
    mistyped tenant must not read as an empty log (the one rule of every read command)."""
    if await store.tenant_position(tenant):
        return
    tenants = await store.tenants()
    hint = ", ".join(tenants[:10]) + (" …" if len(tenants) > 10 else "") if tenants else "none"
    raise LedgerError(
        f"no tenant {tenant!r} in this database (tenants: {hint}); check --tenant and --db"
    )


async def stored_session(store: EventStore, tenant: str, session_id: str) -> str:
    """The stored id of session ``session_id``: itself, or for an Agents SDK session (whose
    items live in generations ``<id>~<n>``) its current generation. Raises a
    :class:`LedgerError` naming the known tenants or sessions when there is none: a mistyped
    id must not read as an empty session."""
    if (await store.stream_head(tenant, f"session/{session_id}")).version:
        return session_id
    await known_tenant(store, tenant)
    generation = await _agents_generation(store, tenant, session_id)
    if generation is not None:
        return generation
    streams = await store.streams(tenant)
    known = [s.stream_id[8:] for s in streams if s.stream_id.startswith("session/")]
    hint = ", ".join(known[:10]) + (" …" if len(known) > 10 else "") if known else "none"
    raise LedgerError(
        f"tenant {tenant!r} has no session {session_id!r} (sessions: {hint}); check --tenant, "
        f"--session and --db"
    )


async def known_stream(store: EventStore, tenant: str, stream_id: str) -> None:
    """Raise a :class:`LedgerError` naming the tenant's streams unless ``stream_id`` is one."""
    if (await store.stream_head(tenant, stream_id)).version:
        return
    streams = [s.stream_id for s in await store.streams(tenant)]
    hint = ", ".join(streams[:10]) + (" …" if len(streams) > 10 else "") if streams else "none"
    raise LedgerError(
        f"tenant {tenant!r} has no stream {stream_id!r} (streams: {hint}); check --tenant, "
        f"--stream and --db"
    )


async def _agents_generation(store: EventStore, tenant: str, session_id: str) -> str | None:
    """The stored id of an Agents SDK session's current generation, if it has one."""
    from projections.integrations.generations import current_generation

    generation, control = await current_generation(store, tenant, session_id)
    stored = f"{session_id}~{generation}"
    if control or (await store.stream_head(tenant, f"session/{stored}")).version:
        return stored
    return None
