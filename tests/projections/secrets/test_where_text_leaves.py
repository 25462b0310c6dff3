"""Secrets never leave the log for a model or a derived store: the gate refuses a summary that
carries one, a memory proposal is redacted by its key and its structure (API and MCP server),
the summarizer's input holds none, and the report shows none."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from eventstore import EventStore
from projections.context.messages import Message
from projections.ledger import Ledger
from projections.memory import LongTermMemory
from projections.summaries.gate_v2 import validate_summary_v2
from projections.summaries.offline_v2 import summarize_v2
from projections.summaries.schema_v2 import Coverage, FactV2
from projections.summaries.summarizer import SummaryRequest
from tests.projections.test_cli import SCRIPT, ctxledger

TOKEN = "ya29.a0AfB_byCq9Xv7Lm2NpQ4rS8tUw1Yz3Bd5Fg"
PASSWORD = "Tr0ub4dor&3"


def test_the_gate_refuses_a_summary_that_carries_a_secret() -> None:
    # the summarizer given unsanitised text (as a careless model might echo it)
    messages = [Message(id="u", role="user", content=f"My calendar token is {TOKEN}.")]
    coverage = Coverage(ranges=[(1, 1)], count=1, digest="0" * 64)
    request = SummaryRequest(
        previous=None,
        chunk=messages,
        budget_tokens=10_000,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        count_tokens=lambda text: len(text.split()),
        versions=[1],
        coverage=coverage,
    )
    fact = FactV2(key="calendar.token", value=f"token {TOKEN}", src=[1], speaker="user")
    summary = summarize_v2(request).model_copy(update={"facts": [fact]})
    report = validate_summary_v2(summary, {1: messages[0]}, coverage=coverage)
    assert "no_secrets" in report.failed()
    assert TOKEN not in json.dumps(report.model_dump())  # named by kind, never quoted


async def test_compaction_never_shows_the_summarizer_a_password_a_tool_was_given() -> None:
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "s")
        call = {
            "id": "c1",
            "name": "login",
            "arguments": json.dumps({"user": "ana", "password": PASSWORD}),
        }
        result = {"id": "t0", "role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'}
        turns = [{"id": "u0", "role": "user", "content": f"log me in, password {PASSWORD}"},
                 {"id": "a0", "role": "assistant", "tool_calls": [call]}, result]  # fmt: skip
        turns += [{"id": f"f{i}", "role": "user", "content": f"Filler turn {i} about trains. " * 8}
                  for i in range(12)]  # fmt: skip
        await session.append(turns)
        seen: list[str] = []

        async def summarizer(request: SummaryRequest) -> object:
            seen.append(json.dumps([m.model_dump(mode="json") for m in request.chunk]))
            return summarize_v2(request)

        from projections.context.budget import Budget

        budget = Budget(context_limit=500, max_output_tokens=0, tool_reserve=0, safety_margin=0)
        outcome = await session.compact(budget, summarizer=summarizer, keep_groups=1)  # type: ignore[arg-type]
        assert outcome.summarised
        assert seen
        assert not any(PASSWORD in chunk for chunk in seen)
        assert PASSWORD not in json.dumps(outcome.event.data)


async def test_memory_proposals_are_redacted_by_key_and_structure() -> None:
    async with EventStore.open("memory://") as store:
        said = await Ledger(store).session("acme", "s").append([{"role": "user", "content": "x"}])
        memory = LongTermMemory(store)
        how = {"category": "preference", "confidence": 1.0, "source_event_ids": [said[0].event_id]}
        await memory.propose("acme", "ana", key="wifi password", value="sunshine", **how)
        await memory.propose("acme", "ana", key="calendar", value=f"token {TOKEN}", **how)
        await memory.propose(
            "acme",
            "ana",
            key="login",
            value=json.dumps({"user": "ana", "password": PASSWORD}),
            **how,
        )
        stored = json.dumps([e.data for e in await store.read_stream("acme", "memory/ana")])
        for secret in ("sunshine", TOKEN, PASSWORD):
            assert secret not in stored
        assert "ana" in stored


async def test_an_oauth_token_proposed_through_the_mcp_server_is_not_stored(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ledger.db"
    async with EventStore.open(db) as store:
        session = Ledger(store).session("acme", "trip", user_id="ana")
        await session.append([{"id": "m1", "role": "user", "content": f"use {TOKEN}"}])
    assert SCRIPT
    server = StdioServerParameters(
        command=SCRIPT,
        args=["--db", str(db), "mcp", "--tenant", "acme", "--session", "trip", "--user", "ana"],
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        proposal = {"key": "google.token", "value": TOKEN, "category": "preference",
                    "source_message_ids": ["m1"], "confidence": 0.9}  # fmt: skip
        await client.call_tool("propose_memory", proposal)
    async with EventStore.open(db) as store:
        (candidate,) = await LongTermMemory(store).candidates("acme", "ana")
        assert TOKEN not in json.dumps(candidate.model_dump(mode="json"))


def test_the_report_shows_no_secret(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    arguments = json.dumps({"password": PASSWORD})
    call = {"id": "c1", "type": "function", "function": {"name": "login", "arguments": arguments}}
    result = {"id": "m2", "role": "tool", "tool_call_id": "c1", "content": f"ok, token {TOKEN}"}
    lines = [{"id": "m1", "role": "assistant", "tool_calls": [call]}, result]
    source = tmp_path / "s.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert (
        ctxledger("ingest", str(source), "--tenant", "acme", "--session", "s", db=db).returncode
        == 0
    )
    out = tmp_path / "report.html"
    made = ctxledger("report", "--tenant", "acme", "--session", "s", "--output", str(out), db=db)
    assert made.returncode == 0, made.stderr
    page = out.read_text(encoding="utf-8")
    assert PASSWORD not in page
    assert TOKEN not in page
