"""Ingest: idempotent when repeated, refused up front when it cannot finish, honest about
what it committed when it stops part-way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eventstore import EventStore, StorageError
from projections.context.messages import Message
from projections.errors import IngestInterruptedError
from projections.ingest import ingest
from projections.ledger import Ledger
from tests.projections.test_cli import ctxledger


def _lines(path: Path, messages: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def _chat(count: int) -> list[dict[str, Any]]:
    return [
        {"id": f"m{i}", "role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"}
        for i in range(count)
    ]


def test_reingest_is_idempotent_and_conflicts_are_named(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    source = _lines(tmp_path / "a.jsonl", _chat(3))
    first = ctxledger("ingest", str(source), "--tenant", "t", "--session", "s", "--json", db=db)
    again = ctxledger("ingest", str(source), "--tenant", "t", "--session", "s", "--json", db=db)
    assert json.loads(first.stdout) == {
        "appended": 3, "skipped": 0, "protocol_issues": 0, "session_version": 3
    }  # fmt: skip
    assert json.loads(again.stdout) == {
        "appended": 0, "skipped": 3, "protocol_issues": 0, "session_version": 3
    }  # fmt: skip
    changed = _lines(tmp_path / "b.jsonl", [{"id": "m1", "role": "assistant", "content": "x"}])
    conflict = ctxledger("ingest", str(changed), "--tenant", "t", "--session", "s", db=db)
    assert conflict.returncode == 2
    assert "message id 'm1' is already in session s with other content" in conflict.stderr


def test_a_file_without_ids_is_keyed_by_position_and_content(tmp_path: Path) -> None:
    """OpenAI exports carry no ids: a re-run adds nothing, a grown file adds what it added,
    a changed file is refused naming the first message that differs."""
    db, where = tmp_path / "ledger.db", ["--tenant", "t", "--session", "s", "--json"]
    rows = [{k: v for k, v in m.items() if k != "id"} for m in _chat(6)]
    source = _lines(tmp_path / "export.jsonl", rows[:4])
    first = json.loads(ctxledger("ingest", str(source), *where, db=db).stdout)
    again = json.loads(ctxledger("ingest", str(source), *where, db=db).stdout)
    assert (first["appended"], again["appended"], again["skipped"]) == (4, 0, 4)
    grown = json.loads(ctxledger("ingest", str(_lines(source, rows)), *where, db=db).stdout)
    assert (grown["appended"], grown["skipped"], grown["session_version"]) == (2, 4, 6)
    rows[2]["content"] = "turn 2, edited"
    changed = ctxledger("ingest", str(_lines(source, rows)), *where, db=db)
    assert changed.returncode == 2
    assert "message 3 of the input differs from message 3 of an earlier ingest" in changed.stderr
    log = ctxledger("log", "--tenant", "t", "--json", db=db).stdout.splitlines()
    assert len(log) == 6  # nothing duplicated, nothing half-written


def test_protocol_issues_are_reported_at_ingest(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    rows = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "c9", "content": "sunny"},
    ]  # fmt: skip
    source = _lines(tmp_path / "broken.jsonl", rows)
    done = ctxledger("ingest", str(source), "--tenant", "t", "--session", "s", db=db)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("tool protocol:") == 2  # the call without a result, the orphan
    assert "c9" in done.stderr
    assert "2 tool-protocol issue(s) recorded" in done.stdout


def test_an_oversized_message_late_in_the_file_is_refused_before_any_write(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ledger.db"
    messages = _chat(700)
    messages[600]["content"] = "x" * (2 * 1024 * 1024)
    source = _lines(tmp_path / "big.jsonl", messages)
    result = ctxledger("ingest", str(source), "--tenant", "t", "--session", "s", db=db)
    assert result.returncode == 2
    assert "message 601 (id 'm600')" in result.stderr
    assert "nothing was ingested" in result.stderr
    assert not db.exists() or "m0" not in ctxledger("log", "--tenant", "t", db=db).stdout


async def test_an_interrupted_ingest_says_what_it_committed_and_resumes(tmp_path: Path) -> None:
    messages = [Message.model_validate(m) for m in _chat(12)]
    async with EventStore.open(tmp_path / "ledger.db") as store:
        session = Ledger(store).session("t", "s")
        real_append = store.append
        calls = 0

        async def failing_second_batch(*args: Any, **kwargs: Any) -> Any:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise StorageError("disk full")
            return await real_append(*args, **kwargs)

        store.append = failing_second_batch  # type: ignore[method-assign]
        with pytest.raises(IngestInterruptedError, match="committing 5 message") as caught:
            await ingest(session, messages, batch_size=5)
        assert caught.value.committed == 5
        store.append = real_append  # type: ignore[method-assign]
        report = await ingest(session, messages, batch_size=5)
        assert (report.appended, report.skipped, report.version) == (7, 5, 12)
