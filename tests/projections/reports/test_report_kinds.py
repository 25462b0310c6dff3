"""``ctxledger report`` for every kind of session, through the real console script: an ingested
session, an Agents SDK session (by the id the user gave it), a Google ADK session and a
LangGraph thread (by stream id), each opened in headless Chromium where it is available."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agents import Agent, Runner
from google.adk.events.event import Event
from google.genai import types

from eventstore import EventStore
from projections.integrations.adk import LedgerSessionService
from projections.integrations.langgraph import LedgerSaver
from projections.integrations.openai_agents import LedgerSession
from projections.ledger import Ledger
from tests.projections.integrations.fake_model import ScriptedModel, get_weather
from tests.projections.integrations.test_adk import event
from tests.projections.integrations.test_langgraph_graph import run as run_graph
from tests.projections.test_cli import ctxledger
from tests.projections.test_report import chromium, screenshot

DATA = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


def report(db: Path, tmp_path: Path, *selector: str) -> tuple[Path, dict[str, Any]]:
    output = tmp_path / "report.html"
    result = ctxledger("--db", str(db), "report", "--tenant", "acme", *selector, "-o", str(output))
    assert result.returncode == 0, result.stderr
    found = DATA.search(output.read_text(encoding="utf-8"))
    assert found is not None
    return output, json.loads(found.group(1).replace("<\\/", "</"))


def shown(output: Path, version: int) -> tuple[str, int, list[str]]:
    """What Chromium shows at ``version``: the title, the token total and the first cells."""
    from selenium.webdriver.common.by import By

    with chromium() as browser:
        browser.get(f"{output.as_uri()}#v{version}")
        context = browser.find_element(By.ID, "context")
        rows = browser.find_elements(By.CSS_SELECTOR, "#context-rows tr")
        screenshot(browser, f"report-{output.parent.name}.png")
        return (
            browser.find_element(By.ID, "context-title").text,
            int(context.get_attribute("data-tokens") or -1),
            [row.get_attribute("data-message-id") or "" for row in rows],
        )


def test_an_ingested_session(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    lines = [
        {"id": f"m{i}", "role": "user" if i % 2 else "assistant", "content": f"turn {i}"}
        for i in range(1, 30)
    ]
    source = tmp_path / "chat.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    ingested = ctxledger(
        "--db", str(db), "ingest", "--tenant", "acme", "--session", "s", str(source)
    )
    assert ingested.returncode == 0, ingested.stderr
    output, data = report(db, tmp_path, "--session", "s")
    assert data["kind"] == "session"
    assert len(data["messages"]) == 29
    assert data["calls"] == []  # no model call: the chart still plots history and context
    assert data["history"][-1] > 0
    title, tokens, ids = shown(output, 10)
    assert ids == [f"m{i}" for i in range(1, 11)]
    assert tokens == data["contexts"][9][2]
    assert title.startswith("Context at version 10: 10 messages")


async def test_an_agents_sdk_session_by_its_own_id(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    async with EventStore.open(db) as store:
        session = LedgerSession("user-42", Ledger(store), tenant_id="acme")
        agent = Agent(name="planner", model=ScriptedModel(), tools=[get_weather])
        hooks = session.usage_hooks()
        await Runner.run(agent, "Plan a trip to Hangzhou.", session=session, hooks=hooks)
        await Runner.run(agent, "What is the weather on Saturday?", session=session, hooks=hooks)
    output, data = report(db, tmp_path, "--session", "user-42")
    assert data["kind"] == "session"
    assert data["session"].startswith("user-42~")
    assert len(data["calls"]) >= 2  # the run's usage, recorded per model call
    title, _, ids = shown(output, data["timeline"][-1][0])
    assert f"{len(ids)} messages" in title


async def test_an_adk_session(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    async with EventStore.open(db) as store:
        service = LedgerSessionService(store, tenant_id="acme")
        session = await service.create_session(app_name="trips", user_id="ana", session_id="s1")
        await service.append_event(session, event("user", "Plan Hangzhou", {"step": 1}, 1))
        call = types.Part(function_call=types.FunctionCall(name="price", args={"train": "G7311"}))
        await service.append_event(
            session,
            Event(
                id="e2",
                invocation_id="inv-1",
                author="planner",
                content=types.Content(role="model", parts=[call]),
            ),
        )
        await service.append_event(session, event("planner", "G7311 costs 73 CNY", None, 3))
    missing = ctxledger(
        "--db", str(db), "report", "--tenant", "acme", "--stream", "adk/x", "-o", "x"
    )
    assert missing.returncode == 2
    assert "adk-session/trips/ana/s1" in missing.stderr  # the error names the streams
    output, data = report(db, tmp_path, "--stream", "adk-session/trips/ana/s1")
    assert data["kind"] == "adk"
    texts = [row[2] for row in data["rows"]]
    assert any("Plan Hangzhou" in t for t in texts)
    assert any('calls price({"train": "G7311"})' in t for t in texts)
    title, tokens, ids = shown(output, 2)
    assert title.startswith("The stream at version 2: 2 events")
    assert ids == ["1", "2"]
    assert tokens == sum(row[1] for row in data["rows"][:2])
    _, mirrored = report(db, tmp_path, "--session", "adk/trips/ana/s1")  # its ctxledger mirror
    assert mirrored["kind"] == "session"
    assert [m[1] for m in mirrored["messages"]] == ["user", "assistant", "assistant"]


def test_a_langgraph_thread(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    with LedgerSaver(EventStore.open(db), tenant_id="acme") as saver:
        run_graph(saver)
    output, data = report(db, tmp_path, "--stream", "langgraph/trip")
    assert data["kind"] == "langgraph"
    checkpoints = [row for row in data["rows"] if row[0] == "checkpoint"]
    assert checkpoints
    assert any("step" in row[2] and "messages" in row[2] for row in checkpoints)
    assert any(row[0] == "writes" for row in data["rows"])
    title, _, ids = shown(output, len(data["rows"]))
    assert len(ids) == len(data["rows"])
    assert "events" in title


def test_exactly_one_of_session_and_stream(tmp_path: Path) -> None:
    both = ctxledger("--db", str(tmp_path / "l.db"), "report", "--tenant", "acme", "-o", "x.html")
    assert both.returncode == 2
    assert "exactly one of --session and --stream" in both.stderr
