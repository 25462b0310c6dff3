"""ADK sessions as ctxledger sessions: after a scripted run with ADK's real Runner, the mirror
session ``adk/<app>/<user>/<session>`` holds the conversation as messages (tool calls paired
with their results), so context, pins, compaction, stats, the report and memory proposals
work on it; ADK keeps reading only its own stream; a crash between the two appends is healed;
deleting the ADK session or erasing its user erases the mirror too."""

from __future__ import annotations

import json
from pathlib import Path

from google.adk.events.event import Event
from google.genai import types

from eventstore import EventStore
from projections.context.budget import Budget
from projections.integrations.adk import LedgerSessionService
from projections.integrations.adk_messages import adk_messages
from projections.ledger import Ledger
from tests.projections.integrations.adk_script import run_script
from tests.projections.test_cli import ctxledger

MIRROR = "adk/trips/ana/s1"


async def test_the_mirror_holds_the_conversation_as_messages(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        script = await run_script(LedgerSessionService(store, tenant_id="acme"))
        session = Ledger(store).session("acme", MIRROR)
        state = await session.latest()
        roles = [m.role for m in state.messages]
        assert roles[:4] == ["user", "assistant", "tool", "assistant"]
        assert state.messages[1].tool_calls[0].name == "price"
        assert state.messages[2].tool_call_id == state.messages[1].tool_calls[0].id
        assert json.loads(state.messages[2].content or "") == {"train": "G7311", "price_cny": 73}
        assert state.grouper.issues == []  # every call answered, nothing split
        # One message per ADK event with content; ADK's compaction and rewind markers are none.
        with_content = [e for e in script["events"] if e[1]]
        assert len(state.messages) == len(with_content)
        rendered = await session.render(Budget(context_limit=8_000, max_output_tokens=500))
        assert rendered.manifest.message_ids[0] == state.messages[0].id
        # A pin and a compaction on the mirror; ADK keeps working on its own stream.
        await session.pin([state.messages[0].id], reason="the first request")
        tiny = Budget(context_limit=300, max_output_tokens=50, tool_reserve=0, safety_margin=0)
        outcome = await session.compact(tiny, keep_groups=2)
        assert outcome.summary_version is not None, outcome
        await session.propose_memory(
            key="trip.train",
            value="G123",
            category="preference",
            source_ids=[state.messages[-2].id],
            confidence=0.9,
            user_id="ana",
        )
        service = LedgerSessionService(store, tenant_id="acme")
        adk = await service.get_session(app_name="trips", user_id="ana", session_id="s1")
        assert adk is not None
        assert len(adk.events) == len(script["events"])
        assert (await store.verify("acme")).ok
    stats = ctxledger("stats", "--tenant", "acme", "--json", db=path)
    assert stats.returncode == 0, stats.stderr
    figures = {s["session_id"]: s for s in json.loads(stats.stdout)["sessions"]}
    assert figures[MIRROR]["messages"] == len(with_content)
    context = ctxledger("context", "--tenant", "acme", "--session", MIRROR, "--json", db=path)
    assert context.returncode == 0, context.stderr
    assert json.loads(context.stdout)["manifest"]["message_ids"]


def _event(n: int, text: str) -> Event:
    return Event(
        id=f"e{n}",
        invocation_id=f"inv-{n}",
        author="user",
        timestamp=1_700_000_000.0 + n,
        content=types.Content(role="user", parts=[types.Part(text=text)]),
    )


async def test_a_crash_between_the_appends_is_healed(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        plain = LedgerSessionService(store, tenant_id="acme", mirror=False)  # the crashed one
        session = await plain.create_session(app_name="trips", user_id="ana", session_id="s1")
        await plain.append_event(session, _event(1, "first"))
        mirrored = LedgerSessionService(store, tenant_id="acme")
        session = await mirrored.get_session(app_name="trips", user_id="ana", session_id="s1")
        assert session is not None
        await mirrored.append_event(session, _event(2, "second"))
        await mirrored.append_event(session, _event(3, "third"))
        state = await Ledger(store).session("acme", MIRROR).latest()
        assert [m.content for m in state.messages] == ["first", "second", "third"]


async def test_deleting_the_session_or_its_user_erases_the_mirror(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        service = LedgerSessionService(store, tenant_id="acme")
        for sid in ("s1", "s2"):
            session = await service.create_session(app_name="trips", user_id="ana", session_id=sid)
            await service.append_event(session, _event(1, f"secret of {sid}"))
        await service.delete_session(app_name="trips", user_id="ana", session_id="s1")
        erased = await store.read_stream("acme", f"session/{MIRROR}")
        assert erased
        assert all(e.data is None for e in erased)
        assert (await store.verify("acme")).ok
    gone = ctxledger("erase", "--tenant", "acme", "--user", "ana", "--reason", "art. 17",
                     "--requested-by", "dpo", db=path)  # fmt: skip
    assert gone.returncode == 0, gone.stderr
    async with EventStore.open(path) as store:
        left = await store.read_stream("acme", "session/adk/trips/ana/s2")
        assert left
        assert all(e.data is None for e in left)


def test_the_mapping_of_one_event() -> None:
    calls = {
        "id": "e9",
        "author": "planner",
        "invocation_id": "inv-9",
        "content": {
            "role": "model",
            "parts": [
                {"text": "Checking both."},
                {"function_call": {"id": "c1", "name": "price", "args": {"train": "G1"}}},
                {"function_call": {"id": "c2", "name": "price", "args": {"train": "G2"}}},
            ],
        },
    }
    (message,) = adk_messages(calls)
    assert (message.role, message.content) == ("assistant", "Checking both.")
    assert [(c.id, c.arguments) for c in message.tool_calls] == [
        ("c1", '{"train": "G1"}'),
        ("c2", '{"train": "G2"}'),
    ]
    results = {
        "id": "e10",
        "author": "planner",
        "content": {
            "role": "user",
            "parts": [
                {"function_response": {"id": "c1", "name": "price", "response": {"cny": 1}}},
                {"function_response": {"id": "c2", "name": "price", "response": {"cny": 2}}},
            ],
        },
    }
    assert [(m.id, m.role, m.tool_call_id) for m in adk_messages(results)] == [
        ("e10:0", "tool", "c1"),
        ("e10:1", "tool", "c2"),
    ]
    assert adk_messages({"id": "e11", "author": "planner", "actions": {"state_delta": {}}}) == []
