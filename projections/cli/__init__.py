"""The ``ctxledger`` command line: a thin layer over the async API.

Every command takes the database from ``--db`` or ``CTXLEDGER_DB`` (default ``./ctxledger.db``),
prints readable tables for people and, with ``--json``, JSON for machines. Exit codes: 0 success,
1 verification found tampering, 2 bad usage or any other error.
"""

from __future__ import annotations

import os

import click

from eventstore import LedgerError
from projections.cli.common import EXIT_ERROR, cli, stderr

__all__ = ["cli", "load_all", "main"]


def load_all() -> None:
    """Import every command module (commands load lazily otherwise; tools that walk
    ``cli.commands``, like the CLI reference, need them all)."""
    from projections.cli.catalogue import COMMANDS

    for name in COMMANDS:
        cli.get_command(click.Context(cli), name)


def main() -> None:
    """Entry point of the ``ctxledger`` console script.

    Errors the commands do not turn into messages themselves still end as one line on
    standard error and exit 2, never as a traceback (``CTXLEDGER_DEBUG=1`` shows it)."""
    try:
        cli(prog_name="ctxledger")
    except (LedgerError, ValueError, OverflowError, RecursionError, OSError) as error:
        if os.environ.get("CTXLEDGER_DEBUG"):
            raise
        kind = "" if isinstance(error, LedgerError) else f"{type(error).__name__}: "
        stderr.print(f"[bold red]error:[/] {kind}{error}", markup=True, highlight=False)
        raise SystemExit(EXIT_ERROR) from None
    except Exception as error:  # a bug: still one line, and how to see more
        if os.environ.get("CTXLEDGER_DEBUG"):
            raise
        stderr.print(
            f"[bold red]internal error:[/] {type(error).__name__}: {error} — this is a bug in "
            f"ctxledger; run again with CTXLEDGER_DEBUG=1 for the traceback and report it",
            markup=True,
            highlight=False,
        )
        raise SystemExit(EXIT_ERROR) from None


if __name__ == "__main__":
    main()
