"""The ``ctxledger`` command line: a thin layer over the async API.

Every command takes the database from ``--db`` or ``CTXLEDGER_DB`` (default ``./ctxledger.db``),
prints readable tables for people and, with ``--json``, JSON for machines. Exit codes: 0 success,
1 verification found tampering, 2 bad usage or any other error.
"""

from __future__ import annotations

import os

from eventstore import LedgerError
from projections.cli import (
    audit_commands,
    compaction_commands,
    consent_commands,
    consistency_commands,
    log_commands,
    mcp_commands,
    memory_commands,
    recall_commands,
    report_commands,
    session_commands,
    verify_commands,
)
from projections.cli.common import EXIT_ERROR, cli, stderr

__all__ = ["cli", "main"]

# Imported for their @cli.command decorators.
_COMMAND_MODULES = (
    log_commands,
    session_commands,
    compaction_commands,
    memory_commands,
    report_commands,
    audit_commands,
    compaction_commands,
    consent_commands,
    recall_commands,
    consistency_commands,
    verify_commands,
    mcp_commands,
)


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


if __name__ == "__main__":
    main()
