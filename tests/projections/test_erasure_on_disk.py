"""Erasure leaves no byte of the erased text on disk: not in the main file, its free pages, the
WAL or the search index, with another process holding the database open, and not in a memory
proposal derived from the erased message."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.projections.test_cli import ctxledger

MARKER = "Zebraquokka4417"
HOLDER = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1])
connection.execute("SELECT count(*) FROM events").fetchone()
print("open", flush=True)
time.sleep(60)
"""


def _on_disk(db: Path) -> list[str]:
    found = []
    for path in (db, db.with_name(db.name + "-wal")):
        if path.exists() and MARKER.lower().encode() in path.read_bytes().lower():
            found.append(path.name)
    return found


def test_erased_text_leaves_the_files(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    lines = [
        {"id": "m1", "role": "user", "content": f"my locker code is {MARKER}, keep it"},
        {"id": "m2", "role": "assistant", "content": "Noted."},
    ]
    source = tmp_path / "m.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert (
        ctxledger("ingest", str(source), "--tenant", "acme", "--session", "s", db=db).returncode
        == 0
    )
    assert ctxledger("search", "--tenant", "acme", MARKER, db=db).returncode == 0  # index built
    log = ctxledger("log", "--tenant", "acme", "--json", db=db)
    events = [json.loads(line) for line in log.stdout.splitlines()]
    message = next(e for e in events if MARKER in json.dumps(e["data"]))
    proposed = ctxledger(
        "memory", "propose", "--tenant", "acme", "--user", "ana", "--key", "locker",
        "--value", f"locker code {MARKER}", "--category", "preference",
        "--source", message["event_id"], "--confidence", "1", db=db,
    )  # fmt: skip
    assert proposed.returncode == 0, proposed.stderr
    assert _on_disk(db)

    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "open"
        erased = ctxledger(
            "erase", "--tenant", "acme", message["event_id"], "--reason", "art. 17",
            "--requested-by", "dpo", "--json", db=db,
        )  # fmt: skip
        assert erased.returncode == 0, erased.stderr
        assert len(json.loads(erased.stdout)["erased"]) == 2  # the message and the proposal
        time.sleep(0.1)
        assert _on_disk(db) == []
    finally:
        holder.kill()
        holder.wait()
    assert ctxledger("verify", "--tenant", "acme", db=db).returncode == 0
    after = ctxledger("log", "--tenant", "acme", "--json", db=db)
    assert MARKER not in after.stdout


READER = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN")
connection.execute("SELECT count(*) FROM events").fetchone()  # holds a read snapshot
print("reading", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _ingest_marker(tmp_path: Path, db: Path) -> str:
    source = tmp_path / "m.jsonl"
    lines = [{"id": "m1", "role": "user", "content": f"my locker code is {MARKER}"}]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    ingested = ctxledger("ingest", str(source), "--tenant", "acme", "--session", "s", db=db)
    assert ingested.returncode == 0, ingested.stderr
    log = ctxledger("log", "--tenant", "acme", "--json", db=db)
    return str(json.loads(log.stdout.splitlines()[0])["event_id"])


def test_a_reader_holding_a_snapshot_is_reported_and_a_rerun_finishes(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    event_id = _ingest_marker(tmp_path, db)
    how = ("--tenant", "acme", event_id, "--reason", "art. 17", "--requested-by", "dpo")
    preview = ctxledger("erase", *how, "--dry-run", "--json", db=db)
    assert preview.returncode == 0, preview.stderr
    assert json.loads(preview.stdout)["erased"] == [event_id]
    assert _on_disk(db)
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(db), "4"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert reader.stdout is not None
        assert reader.stdout.readline().strip() == "reading"
        short = f"sqlite:///{db}?busy_timeout=0.5"
        held = subprocess.run(
            [*ctxledger_command(short), "erase", *how], capture_output=True, text=True
        )
        assert held.returncode == 1, held.stderr
        said = " ".join(held.stderr.split())
        assert "not yet off the disk" in said
        assert "run the same erasure again" in said
        assert _on_disk(db)  # honest: the old pages are still there
    finally:
        reader.wait(timeout=30)
    again = ctxledger("erase", *how, db=db)
    assert again.returncode == 0, again.stderr
    assert "already erased" in again.stdout
    assert _on_disk(db) == []


def ctxledger_command(url: str) -> list[str]:
    from tests.projections.test_cli import SCRIPT

    assert SCRIPT
    return [SCRIPT, "--db", url]
