"""One rule for names that are not in the database, on every read command and the MCP server:
an unknown tenant, session or stream is an error (exit 2) that names what the database holds,
never an empty table, a table of zeros or a server that answers nothing forever."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.projections.test_cli import ctxledger
from tests.projections.test_cli_papercuts import trip

__all__ = ["trip"]

SESSION = ["--session", "trip"]
USER = ["--user", "ana"]
READS_OF_A_TENANT = [
    ["log"],
    ["streams"],
    ["stats"],
    ["search", "Hangzhou"],
    ["memory", "candidates", *USER],
    ["memory", "recall", *USER],
    ["consent", "list", *USER],
    ["context", *SESSION],
    ["summaries", *SESSION],
    ["report", *SESSION],
    ["mcp", *SESSION],
]


@pytest.mark.parametrize("command", READS_OF_A_TENANT, ids=lambda c: " ".join(c[:2]))
def test_an_unknown_tenant_is_an_error_naming_the_tenants(trip: Path, command: list[str]) -> None:
    if command[0] == "report":
        command = [*command, "-o", str(trip.parent / "report.html")]
    result = ctxledger(*command, "--tenant", "acne", db=trip)
    assert result.returncode == 2, result.stdout
    assert "no tenant 'acne' in this database (tenants: acme)" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    "command",
    [["context"], ["search", "Hangzhou"], ["stats"], ["mcp"]],
    ids=lambda c: c[0],
)
def test_an_unknown_session_is_an_error_naming_the_sessions(trip: Path, command: list[str]) -> None:
    result = ctxledger(*command, "--tenant", "acme", "--session", "trp", db=trip)
    assert result.returncode == 2, result.stdout
    assert "tenant 'acme' has no session 'trp' (sessions: trip)" in result.stderr


def test_an_unknown_stream_is_an_error_naming_the_streams(trip: Path) -> None:
    result = ctxledger("log", "--tenant", "acme", "--stream", "session/trp", db=trip)
    assert result.returncode == 2
    assert "has no stream 'session/trp' (streams: session/trip)" in result.stderr


def test_metrics_of_a_named_unknown_tenant_is_an_error(trip: Path) -> None:
    result = ctxledger("metrics", "--tenant", "acne", db=trip)
    assert result.returncode == 2
    assert "no tenant 'acne'" in result.stderr
