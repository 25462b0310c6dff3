"""The ``ctxledger`` CLI, run through its installed console script in a real subprocess."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = shutil.which("ctxledger", path=str(Path(sys.executable).parent)) or shutil.which(
    "ctxledger"
)


def ctxledger(
    *args: str, db: Path | None = None, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    assert SCRIPT, "the ctxledger console script is not installed (pip install -e '.[dev]')"
    command = [SCRIPT, *(["--db", str(db)] if db else []), *args]
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        command, capture_output=True, text=True, input=stdin, env=full_env, timeout=120, check=False
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    for i in range(3):
        result = ctxledger(
            "append",
            "--tenant",
            "acme",
            "--stream",
            "session/1",
            "--type",
            "Note",
            "--data",
            json.dumps({"content": f"消息 {i}"}),
            "--json",
            db=path,
        )
        assert result.returncode == 0, result.stderr
    return path


def test_append_and_log(db: Path) -> None:
    result = ctxledger("log", "--tenant", "acme", "--json", db=db)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["position"] for e in events] == [1, 2, 3]
    assert events[0]["data"] == {"content": "消息 0"}
    table = ctxledger("log", "--tenant", "acme", "--stream", "session/1", db=db)
    assert table.returncode == 0
    assert "Note" in table.stdout
    assert "消息 2" in table.stdout


def test_verify_json_and_exit_codes(db: Path) -> None:
    ok = ctxledger("verify", "--tenant", "acme", "--json", db=db)
    assert ok.returncode == 0, ok.stderr
    report = json.loads(ok.stdout)
    assert {k: report[k] for k in ("ok", "checked", "erased", "failures")} == {
        "ok": True,
        "checked": 3,
        "erased": 0,
        "failures": [],
    }
    assert report["tenants"][0]["checkpoints"] == 0
    every = ctxledger("verify", db=db)
    assert every.returncode == 0
    assert "tenant acme: ok" in every.stdout
    assert "no signed checkpoint" in every.stdout
    mistyped = ctxledger("verify", "--tenant", "acme-typo", db=db)
    assert mistyped.returncode == 2
    assert "tenant 'acme-typo' has no events" in mistyped.stderr
    assert "acme" in mistyped.stderr

    connection = sqlite3.connect(db, isolation_level=None)
    connection.execute("DROP TRIGGER events_no_update")
    connection.execute("UPDATE events SET type = 'Forged' WHERE position = 2")
    connection.close()
    bad = ctxledger("verify", "--tenant", "acme", "--json", db=db)
    assert bad.returncode == 1
    report = json.loads(bad.stdout)
    assert report["ok"] is False
    (failure,) = report["failures"]
    assert set(failure) == {"tenant", "stream", "version", "position", "event_id", "reason"}
    assert (failure["tenant"], failure["stream"], failure["position"]) == ("acme", "session/1", 2)
    human = ctxledger("verify", db=db)
    assert human.returncode == 1
    assert "FAILED" in human.stdout


def test_erase(db: Path) -> None:
    events = [
        json.loads(line)
        for line in ctxledger("log", "--tenant", "acme", "--json", db=db).stdout.splitlines()
    ]
    target = events[1]["event_id"]
    result = ctxledger(
        "erase",
        "--tenant",
        "acme",
        target,
        "--reason",
        "GDPR art. 17",
        "--requested-by",
        "dpo@acme.example",
        "--json",
        db=db,
    )
    assert result.returncode == 0, result.stderr
    receipt = json.loads(result.stdout)
    assert receipt["erased"] == [target]
    verify = json.loads(ctxledger("verify", "--tenant", "acme", "--json", db=db).stdout)
    assert (verify["ok"], verify["erased"], verify["checked"]) == (True, 1, 4)
    log = ctxledger("log", "--tenant", "acme", "--stream", "session/1", db=db)
    assert "[erased by #4]" in log.stdout


def test_database_from_environment(db: Path) -> None:
    result = ctxledger("tenants", "--json", env={"CTXLEDGER_DB": str(db)})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["acme"]
    streams = ctxledger("streams", "--tenant", "acme", "--json", db=db)
    assert json.loads(streams.stdout)[0]["version"] == 3


def test_errors_exit_2_with_a_message(tmp_path: Path, db: Path) -> None:
    missing = ctxledger("verify", "--tenant", "acme", db=tmp_path / "typo.db")
    assert missing.returncode == 2
    assert "there is no database" in missing.stderr
    assert not (tmp_path / "typo.db").exists()
    usage = ctxledger("verify", "--stream", "s", db=db)
    assert usage.returncode == 2
    assert "--stream needs --tenant" in usage.stderr
    unknown = ctxledger(
        "erase",
        "--tenant",
        "acme",
        "0190f2c4-6a7e-7c3b-9d2e-5f1a2b3c4d5e",
        "--reason",
        "r",
        "--requested-by",
        "x",
        db=db,
    )
    assert unknown.returncode == 2
    assert "no event and no message with id" in unknown.stderr
    conflict = ctxledger(
        "append",
        "--tenant",
        "acme",
        "--stream",
        "session/1",
        "--type",
        "T",
        "--expected-version",
        "0",
        db=db,
    )
    assert conflict.returncode == 2
    assert "found 3" in conflict.stderr
    bad_json = ctxledger(
        "append", "--tenant", "acme", "--stream", "s", "--type", "T", "--data", "{nope", db=db
    )
    assert bad_json.returncode == 2
    assert "not JSON" in bad_json.stderr


def test_append_from_stdin(db: Path) -> None:
    result = ctxledger(
        "append",
        "--tenant",
        "acme",
        "--stream",
        "s2",
        "--type",
        "T",
        "--data-file",
        "-",
        "--json",
        db=db,
        stdin='{"from": "stdin"}',
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["data"] == {"from": "stdin"}


def test_tour_runs_and_shows_tampering_caught(tmp_path: Path) -> None:
    result = ctxledger("tour", "--json", "--db", str(tmp_path / "demo.db"))
    assert result.returncode == 0, result.stderr
    transcript = json.loads(result.stdout)
    steps = {step["step"]: step for step in transcript["steps"]}
    assert steps["verify"]["ok"] is True
    assert steps["erasure"]["ok"] is True
    assert steps["erasure"]["erased"] == 1
    assert steps["tampering"]["ok"] is False
    assert steps["tampering"]["failure"]["position"] == 5
    assert "expected stream session/trip-42" in steps["optimistic concurrency"]["conflict"]
    human = ctxledger("tour")
    assert human.returncode == 0, human.stderr
    assert "tampering" in human.stdout


def test_help_lists_every_command() -> None:
    result = ctxledger("--help")
    assert result.returncode == 0
    for command in (
        "append",
        "compact",
        "consent",
        "context",
        "demo",
        "erase",
        "ingest",
        "log",
        "memory",
        "pin",
        "promote",
        "rollback",
        "streams",
        "summaries",
        "tenants",
        "tour",
        "unpin",
        "verify",
    ):
        assert command in result.stdout


def test_session_commands(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    lines = tmp_path / "messages.jsonl"
    lines.write_text(
        "\n".join(
            json.dumps(m)
            for m in [
                {"id": "m1", "role": "system", "content": "You plan trips."},
                {"id": "m2", "role": "user", "content": "≤ 200 CNY, leave 2026-09-19."},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "search", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "G7311"},
            ]
        ),
        encoding="utf-8",
    )
    ingest = ctxledger(
        "ingest", str(lines), "--tenant", "acme", "--session", "trip", "--json", db=db
    )
    assert ingest.returncode == 0, ingest.stderr
    assert json.loads(ingest.stdout) == {
        "appended": 4, "skipped": 0, "protocol_issues": 0, "session_version": 4
    }  # fmt: skip
    pin = ctxledger(
        "pin", "--tenant", "acme", "--session", "trip", "m2", "--reason", "budget", db=db
    )
    assert pin.returncode == 0, pin.stderr
    result = ctxledger(
        "context",
        "--tenant",
        "acme",
        "--session",
        "trip",
        "--json",
        "--context-limit",
        "8000",
        "--max-output",
        "500",
        db=db,
    )
    assert result.returncode == 0, result.stderr
    rendered = json.loads(result.stdout)
    manifest = rendered["manifest"]
    assert len(manifest["message_ids"]) == len(rendered["messages"]) == 4
    assert manifest["sections"][:2] == ["prefix", "pinned"]
    before = ctxledger(
        "context",
        "--tenant",
        "acme",
        "--session",
        "trip",
        "--json",
        "--at-version",
        "2",
        "--format",
        "anthropic",
        db=db,
    )
    body = json.loads(before.stdout)
    assert body["system"] == "You plan trips."  # Anthropic's body, the manifest beside it
    assert body["messages"] == [{"role": "user", "content": "≤ 200 CNY, leave 2026-09-19."}]
    unknown = ctxledger(
        "pin", "--tenant", "acme", "--session", "trip", "nope", "--reason", "r", db=db
    )
    assert unknown.returncode == 2
    assert "has no message 'nope'" in unknown.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('[{"role": "wizard", "content": "x"}]', encoding="utf-8")
    refused = ctxledger("ingest", str(bad), "--tenant", "acme", "--session", "trip", db=db)
    assert refused.returncode == 2
    assert "unknown role 'wizard'" in refused.stderr


def test_compact_summaries_rollback(tmp_path: Path) -> None:
    db = tmp_path / "compact.db"
    messages = tmp_path / "m.json"
    messages.write_text(
        json.dumps(
            [
                {"id": "m1", "role": "system", "content": "You plan train trips."},
                {
                    "id": "m2",
                    "role": "user",
                    "content": "2026 年 9 月 19 日出发，单程不超过 200 元。",
                },
                *[
                    {
                        "id": f"f{i}",
                        "role": "user",
                        "content": f"Chat turn {i} about the weather. " * 8,
                    }
                    for i in range(10)
                ],
            ]
        ),
        encoding="utf-8",
    )
    assert (
        ctxledger("ingest", str(messages), "--tenant", "t", "--session", "s", db=db).returncode == 0
    )
    limits = ("--context-limit", "3900", "--max-output", "2000", "--keep-groups", "2")
    compacted = ctxledger("compact", "--tenant", "t", "--session", "s", *limits, "--json", db=db)
    assert compacted.returncode == 0, compacted.stderr
    assert json.loads(compacted.stdout)["result"] == "committed"
    rendered = json.loads(
        ctxledger("context", "--tenant", "t", "--session", "s", "--json", *limits, db=db).stdout
    )
    assert rendered["manifest"]["summary_version"] == 1
    assert rendered["manifest"]["sections"][:2] == ["prefix", "summary"]
    listed = json.loads(
        ctxledger("summaries", "--tenant", "t", "--session", "s", "--json", db=db).stdout
    )
    assert [(row["version"], row["status"]) for row in listed] == [(1, "active")]
    back = ctxledger("rollback", "--tenant", "t", "--session", "s", "--reason", "test", db=db)
    assert back.returncode == 0, back.stderr
    assert "none (the window)" in back.stdout


def test_compact_says_where_the_context_ended_and_why_not(tmp_path: Path) -> None:
    db = tmp_path / "why.db"
    messages = tmp_path / "m.json"
    pinned = "Keep every one of these rules verbatim. " * 60  # ~480 tokens, pinned below
    chat = [
        {"id": f"f{i}", "role": "user", "content": f"Chat turn {i} about the weather. " * 8}
        for i in range(10)
    ]
    messages.write_text(
        json.dumps([{"id": "rules", "role": "user", "content": pinned}, *chat]), encoding="utf-8"
    )
    ingest = ("ingest", str(messages), "--tenant", "t", "--session", "s")
    assert ctxledger(*ingest, db=db).returncode == 0
    where = ("--tenant", "t", "--session", "s")
    limits = ("--context-limit", "4100", "--max-output", "2000", "--keep-groups", "2")
    fits = ctxledger("compact", *where, "--context-limit", "100000", db=db)
    assert fits.returncode == 0, fits.stderr
    assert "no summary: the context" in fits.stdout
    assert "at or under the aim" in fits.stdout
    pin = ctxledger("pin", *where, "rules", "--reason", "the user's rules", db=db)
    assert pin.returncode == 0, pin.stderr
    compacted = ctxledger("compact", *where, *limits, db=db)
    # The pin and the current turn alone pass usable: no summary could fit beside them, so
    # none is made (a useless one was before), and the command says so and fails.
    assert compacted.returncode == 1, compacted.stderr
    assert "no summary: no room for a summary" in compacted.stdout
    assert "take 617 of the 600 usable tokens" in compacted.stdout
    assert "still over the trigger of 480 (600 usable)" in compacted.stdout
    assert "why not: the prefix, the pins and the current turn alone take" in compacted.stdout
    as_json = json.loads(ctxledger("compact", *where, *limits, "--json", db=db).stdout)
    assert as_json["reached_trigger"] is False
    assert "unpin messages" in as_json["why_not"]
