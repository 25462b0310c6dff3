"""``--json`` on every command that reports something: export, keygen, pin, unpin, rollback,
report (the others are tested with their commands)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from projections.demo import run_demo
from tests.projections.test_cli import ctxledger


def test_every_reporting_command_speaks_json(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    asyncio.run(run_demo(db))
    key = tmp_path / "k.pem"
    made = ctxledger("keygen", "--name", "k", "-o", str(key), "--json")
    assert json.loads(made.stdout)["verifier"].startswith("k+")
    signed = ctxledger(
        "checkpoint", "--tenant", "acme", "--key", str(key), "--key-name", "k", db=db
    )
    assert signed.returncode == 0, signed.stderr
    exported = ctxledger(
        "export", "--tenant", "acme", "-o", str(tmp_path / "b.json"), "--json", db=db
    )
    assert json.loads(exported.stdout)["tree_size"] > 0
    session = ("--tenant", "acme", "--session", "trip-hangzhou")
    pinned = ctxledger("pin", *session, "sys", "--reason", "r", "--json", db=db)
    assert json.loads(pinned.stdout)["pinned"] == ["sys"]
    unpinned = ctxledger("unpin", *session, "sys", "--reason", "r", "--json", db=db)
    assert json.loads(unpinned.stdout)["unpinned"] == ["sys"]
    rolled = ctxledger("rollback", *session, "--reason", "r", "--json", db=db)
    assert rolled.returncode == 0, rolled.stderr
    assert "summary_head" in json.loads(rolled.stdout)
    reported = ctxledger("report", *session, "-o", str(tmp_path / "r.html"), "--json", db=db)
    assert json.loads(reported.stdout)["bytes"] > 0


def test_output_json_and_jsonl_for_every_command(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    asyncio.run(run_demo(db))
    table = ctxledger("streams", "--tenant", "acme", db=db)
    assert "session/trip-hangzhou" in table.stdout
    assert not table.stdout.lstrip().startswith(("[", "{"))
    as_json = ctxledger("--output", "json", "streams", "--tenant", "acme", db=db)
    streams = json.loads(as_json.stdout)
    assert as_json.stdout == ctxledger("streams", "--tenant", "acme", "--json", db=db).stdout
    lines = ctxledger("--output", "jsonl", "streams", "--tenant", "acme", db=db).stdout
    assert [json.loads(line) for line in lines.splitlines()] == streams
    env = {"CTXLEDGER_OUTPUT": "jsonl"}
    summaries = ctxledger(
        "summaries", "--tenant", "acme", "--session", "trip-hangzhou", db=db, env=env
    ).stdout.splitlines()
    assert len(summaries) > 1
    assert all(json.loads(line)["version"] >= 1 for line in summaries)
    one = ctxledger("--output", "jsonl", "verify", "--tenant", "acme", db=db)
    assert json.loads(one.stdout)["ok"] is True  # a single document stays one line
    bad = ctxledger("--output", "yaml", "tenants", db=db)
    assert bad.returncode == 2
    assert "'yaml' is not one of 'table', 'json', 'jsonl'" in bad.stderr
