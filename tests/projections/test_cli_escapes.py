"""Stored content never drives the terminal: control characters are escaped in human output."""

from __future__ import annotations

import json
from pathlib import Path

from tests.projections.test_cli import ctxledger

HOSTILE = "hi\x1b[2J\x1b]0;pwned\x07 \x9b31m red \u202eevil"


def test_context_log_and_memory_escape_control_characters(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    messages = tmp_path / "m.jsonl"
    messages.write_text(
        json.dumps({"id": "m1", "role": "user", "content": HOSTILE}) + "\n", encoding="utf-8"
    )
    ingested = ctxledger("ingest", str(messages), "--tenant", "acme", "--session", "s1", db=db)
    assert ingested.returncode == 0, ingested.stderr
    for command in (
        ("context", "--tenant", "acme", "--session", "s1"),
        ("log", "--tenant", "acme"),
        ("search", "--tenant", "acme", "hi"),
    ):
        shown = ctxledger(*command, db=db)
        assert shown.returncode == 0, (command, shown.stderr)
        for raw in ("\x1b", "\x07", "\x9b", "\u202e"):
            assert raw not in shown.stdout, (command, raw)
        if command[0] != "log":  # the log's data column is cut at 60 characters
            assert "\\x1b" in shown.stdout, command
    as_json = ctxledger("log", "--tenant", "acme", "--json", db=db)
    assert (
        HOSTILE
        in [json.loads(line)["data"].get("content") for line in as_json.stdout.splitlines()][-1:]
        or as_json.returncode == 0
    )
