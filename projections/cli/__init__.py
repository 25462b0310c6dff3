"""The ``ctxledger`` command line: a thin layer over the async API.

Every command takes the database from ``--db`` or ``CTXLEDGER_DB`` (default ``./ctxledger.db``),
prints readable tables for people and, with ``--json``, JSON for machines. Exit codes: 0 success,
1 verification found tampering, 2 bad usage or any other error.
"""

from __future__ import annotations

from projections.cli import (
    audit_commands,
    compaction_commands,
    consent_commands,
    consistency_commands,
    log_commands,
    memory_commands,
    recall_commands,
    report_commands,
    session_commands,
)
from projections.cli.common import cli

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
)


def main() -> None:
    """Entry point of the ``ctxledger`` console script."""
    cli(prog_name="ctxledger")


if __name__ == "__main__":
    main()
