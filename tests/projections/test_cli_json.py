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
