"""Search as a verb: ``ctxledger search`` and ``context --recall`` through the real console
script, and the two tools an agent calls to page history in itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.errors import MessageValidationError
from projections.ledger import Ledger
from projections.recall.tools import RECALL_TOOLS, call_recall_tool
from tests.projections.test_cli import ctxledger
from tests.projections.test_masking import lookup

MESSAGES = [
    {"id": "m1", "role": "user", "content": "我们不要 G123，到达太晚了。"},
    {"id": "m2", "role": "assistant", "content": "好的，已排除 G123：12:40 才到。"},
    *[
        {"id": f"f{i}", "role": "user", "content": f"Chat turn {i} about the weather. " * 6}
        for i in range(30)
    ],
    {"id": "q", "role": "user", "content": "为什么排除 G123？"},
]


def test_search_and_recall_through_the_console_script(tmp_path: Path) -> None:
    db = tmp_path / "recall.db"
    source = tmp_path / "m.json"
    source.write_text(json.dumps(MESSAGES, ensure_ascii=False), encoding="utf-8")
    assert (
        ctxledger("ingest", str(source), "--tenant", "t", "--session", "s", db=db).returncode == 0
    )
    found = ctxledger("search", "已排除 G123", "--tenant", "t", "--k", "3", "--json", db=db)
    assert found.returncode == 0, found.stderr
    hits = [json.loads(line) for line in found.stdout.splitlines()]
    assert hits[0]["message_id"] == "m2"
    assert {hit["message_id"] for hit in hits} == {"m1", "m2", "q"}
    assert {"session", "version", "role", "score", "matched", "text"} <= hits[0].keys()
    table = ctxledger("search", "weather", "--tenant", "t", "--session", "s", db=db)
    assert table.returncode == 0, table.stderr
    assert "f29" in table.stdout  # equal scores: the newest first
    nothing = ctxledger("search", "zebra", "--tenant", "t", db=db)
    assert "no message matches 'zebra' in t (any session)" in nothing.stdout
    assert "┏" not in nothing.stdout  # no empty table
    limits = ("--context-limit", "2500", "--max-output", "500", "--keep-groups", "2")
    where = ("--tenant", "t", "--session", "s")
    rendered = ctxledger("context", *where, *limits, "--recall", "--json", db=db)
    assert rendered.returncode == 0, rendered.stderr
    manifest = json.loads(rendered.stdout)["manifest"]
    assert manifest["recall_query"] == "为什么排除 G123？"
    assert "m2" in [entry["message_id"] for entry in manifest["recalled"]]
    shown = ctxledger("context", *where, *limits, "--query", "G123", db=db)
    assert "recalled (" in shown.stdout
    bad = ctxledger("context", *where, *limits, "--recall", "--recall-share", "2", db=db)
    assert bad.returncode == 2
    assert "recall-share" in bad.stderr


async def test_an_agent_pages_a_masked_result_back_in(tmp_path: Path) -> None:
    assert [tool["function"]["name"] for tool in RECALL_TOOLS] == ["search_history", "read_message"]
    async with EventStore.open(tmp_path / "ledger.db") as store:
        session = Ledger(store).session("acme", "agent")
        for index in range(8):
            await session.append(lookup(index))
        budget = Budget(context_limit=3000, max_output_tokens=0, tool_reserve=0, safety_margin=0)
        outcome = await session.compact(budget, keep_groups=2)
        assert outcome.mask_event is not None
        assert outcome.mask_event.data is not None
        masked = outcome.mask_event.data["results"][0]
        found = json.loads(
            await call_recall_tool(session, "search_history", {"query": "RX0003Q", "k": 3})
        )
        assert found["results"][0]["id"] == "t3"
        whole = json.loads(
            await call_recall_tool(session, "read_message", json.dumps({"id": masked["event_id"]}))
        )
        assert whole["message"]["id"] == masked["message_id"]
        assert "seat map" in whole["message"]["content"]  # the full result, not the digest
        missing = json.loads(await call_recall_tool(session, "read_message", {"id": "nope"}))
        assert "no readable message" in missing["error"]
        with pytest.raises(MessageValidationError, match="not a recall tool call"):
            await call_recall_tool(session, "delete_everything", {})
        with pytest.raises(MessageValidationError, match="k is an integer"):
            await call_recall_tool(session, "search_history", {"query": "x", "k": 99})
        with pytest.raises(MessageValidationError, match="a JSON object"):
            await call_recall_tool(session, "search_history", "[1]")


def test_the_clis_recall_share_is_the_librarys() -> None:
    from projections.cli.session_commands import context_command as context
    from projections.recall.search import RECALL_SHARE, RecallOptions
    from projections.session.recall_block import Recall

    [option] = [p for p in context.params if p.name == "recall_share"]
    assert option.default == RECALL_SHARE == RecallOptions().share == Recall("q", []).share


CALLS = [
    {"id": "u1", "role": "user", "content": "Weather in Hangzhou on Saturday?"},
    {
        "id": "a1",
        "role": "assistant",
        "tool_calls": [{"id": "k1", "name": "get_weather", "arguments": '{"city": "Lanzhou"}'}],
    },
    {"id": "r1", "role": "tool", "tool_call_id": "k1", "content": "sunny, 24 C"},
]


async def test_a_hit_on_a_call_shows_the_call(tmp_path: Path) -> None:
    """An assistant turn that only called a tool is found by its arguments; the result shows
    the call, not an empty text (to the agent's tool and to the CLI)."""
    async with EventStore.open(tmp_path / "calls.db") as store:
        session = Ledger(store).session("t", "s")
        await session.append(CALLS)
        found = json.loads(await call_recall_tool(session, "search_history", {"query": "Lanzhou"}))
    [hit] = found["results"]
    assert (hit["id"], hit["text"]) == ("a1", 'calls get_weather({"city": "Lanzhou"})')
    shown = ctxledger("search", "Lanzhou", "--tenant", "t", "--json", db=tmp_path / "calls.db")
    assert json.loads(shown.stdout)["text"] == 'calls get_weather({"city": "Lanzhou"})'


def test_a_query_without_words_is_named(tmp_path: Path) -> None:
    source = tmp_path / "m.json"
    source.write_text(json.dumps(CALLS[:1]), encoding="utf-8")
    db = tmp_path / "q.db"
    assert (
        ctxledger("ingest", str(source), "--tenant", "t", "--session", "s", db=db).returncode == 0
    )
    for query in ("", " ... "):
        refused = ctxledger("search", query, "--tenant", "t", db=db)
        assert refused.returncode == 2
        assert "has no word to search for" in refused.stderr
        assert "Traceback" not in refused.stderr
