"""The ``ctxledger`` command line: a thin layer over the async API.

Every command takes the database from ``--db`` or ``CTXLEDGER_DB`` (default ``./ctxledger.db``),
prints readable tables for people and, with ``--json``, JSON for machines. Exit codes: 0 success,
1 verification found tampering, 2 bad usage or any other error.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from projections.cli.common import cli

__all__ = ["cli", "load_all", "main"]


def __getattr__(name: str) -> Any:
    # The group is built on first use: ``ctxledger --version`` imports none of it.
    if name == "cli":
        from projections.cli.common import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_all() -> None:
    """Import every command module (commands load lazily otherwise; tools that walk
    ``cli.commands``, like the CLI reference, need them all)."""
    import click

    from projections.cli.catalogue import COMMANDS
    from projections.cli.common import cli

    for name in COMMANDS:
        cli.get_command(click.Context(cli), name)


def _print_version() -> None:
    """``ctxledger --version`` as click's version option prints it, importing nothing else."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("ctxledger")
    except PackageNotFoundError:  # run from a source tree that was never installed
        found = "unknown (not installed: pip install -e .)"
    print(f"ctxledger, version {found}")


def main() -> None:
    """Entry point of the ``ctxledger`` console script.

    Errors the commands do not turn into messages themselves still end as one line on
    standard error and exit 2, never as a traceback (``CTXLEDGER_DEBUG=1`` shows it)."""
    if sys.argv[1:] == ["--version"]:
        _print_version()
        return
    from projections.cli.startup import console_script_started, imports_uncollected

    console_script_started()
    with imports_uncollected():
        from eventstore import LedgerError
        from projections.cli.common import EXIT_ERROR, cli, stderr

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
