"""Exits that tell the truth, through the real console script: a summarizer server that cannot
be reached is not a gate decision (nothing recorded, its own exit status, out of the gate's
metrics)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from tests.projections.test_cli import ctxledger

BUDGET = ["--context-limit", "2000", "--max-output", "200", "--tool-reserve", "0",
          "--safety-margin", "0"]  # fmt: skip


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_summarizer_exits_3_and_records_nothing(tmp_path: Path) -> None:
    db, lines = tmp_path / "ledger.db", tmp_path / "long.jsonl"
    rows = [
        {"id": f"m{i}", "role": "user" if i % 2 == 0 else "assistant",
         "content": f"Turn {i}: the booking reference is ZX{i:04d} for seat {i}A. " * 4}
        for i in range(60)
    ]  # fmt: skip
    lines.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    where = ["--tenant", "acme", "--session", "long"]
    assert ctxledger("ingest", str(lines), *where, db=db).returncode == 0
    before = ctxledger("log", "--tenant", "acme", "--json", db=db).stdout.count("\n")

    down = ctxledger(
        "compact", *where, *BUDGET, "--summarizer", "openai", "--summarizer-model", "m",
        "--base-url", f"http://127.0.0.1:{closed_port()}/v1", db=db,
        env={"OPENAI_API_KEY": "unused"},
    )  # fmt: skip
    assert down.returncode == 3, down.stdout + down.stderr
    assert "the summarizer is unavailable (SummarizerUnavailableError" in down.stdout
    assert "APIConnectionError" in down.stdout
    assert "nothing was recorded" in down.stdout
    assert "Traceback" not in down.stderr
    after = ctxledger("log", "--tenant", "acme", "--json", db=db).stdout.count("\n")
    assert after == before  # no SummaryRejected: the gate never saw a summary
    stats = json.loads(ctxledger("stats", "--tenant", "acme", "--json", db=db).stdout)
    assert stats["totals"].get("summaries_rejected", 0) == 0

    offline = ctxledger("compact", *where, *BUDGET, db=db)
    assert offline.returncode == 0, offline.stdout + offline.stderr


def test_compact_until_under_trigger_goes_on_round_after_round(tmp_path: Path) -> None:
    """One round covers at most a few chunks of 500 messages: a long ingested session needs
    several, which --until-under-trigger runs, saying so, until the trigger is reached."""
    db, lines = tmp_path / "ledger.db", tmp_path / "long.jsonl"
    rows = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Note {i}: seat {i}A."}
        for i in range(3_000)
    ]
    lines.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    where = ["--tenant", "acme", "--session", "long"]
    assert ctxledger("ingest", str(lines), *where, db=db).returncode == 0
    budget = ["--context-limit", "8000", "--max-output", "1000"]
    rounds = ctxledger("compact", *where, *budget, "--until-under-trigger", db=db)
    assert rounds.returncode == 0, rounds.stdout + rounds.stderr
    progress = [line for line in rounds.stderr.splitlines() if line.startswith("round ")]
    assert progress, rounds.stderr  # one round was not enough: it went on
    assert all("going on" in line for line in progress)
    assert "at or under the trigger" in rounds.stdout
    again = ctxledger("compact", *where, *budget, "--json", db=db)
    assert again.returncode == 0, again.stdout  # nothing left to do
    assert json.loads(again.stdout)["reached_trigger"] is True
