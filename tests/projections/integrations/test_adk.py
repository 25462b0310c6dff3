"""Google ADK on ctxledger: the same operations on ADK's own InMemorySessionService (the
reference) and on ``LedgerSessionService`` give the same sessions; a reload in a new store
instance keeps them; delete is an event plus erasure."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.adk.sessions import InMemorySessionService
from google.adk.sessions.base_session_service import BaseSessionService, GetSessionConfig
from google.genai import types

from eventstore import EventStore
from projections.integrations.adk import LedgerSessionService


def event(author: str, text: str, delta: dict[str, Any] | None = None, n: int = 0) -> Event:
    return Event(
        id=f"e{n}",
        invocation_id="inv-1",
        author=author,
        timestamp=1_700_000_000.0 + n,
        content=types.Content(
            role="user" if author == "user" else "model", parts=[types.Part(text=text)]
        ),
        actions=EventActions(state_delta=delta or {}),
    )


async def play(service: BaseSessionService) -> dict[str, Any]:
    """A script of ADK operations; returns what ADK callers observe."""
    session = await service.create_session(
        app_name="trips",
        user_id="ana",
        session_id="s1",
        state={"app:currency": "CNY", "user:lang": "zh", "budget": 200, "temp:draft": 1},
    )
    seen: dict[str, Any] = {"created": dict(session.state)}
    await service.append_event(session, event("user", "Plan Hangzhou", {"step": 1}, 1))
    await service.append_event(
        session,
        event("planner", "G7311 fits", {"temp:scratch": "x", "user:seat": "window", "step": 2}, 2),
    )
    seen["in_memory_after_temp"] = session.state.get("temp:scratch")
    other = await service.create_session(app_name="trips", user_id="bo", session_id="s2")
    await service.append_event(other, event("user", "Hi", {"app:season": "autumn"}, 3))
    loaded = await service.get_session(app_name="trips", user_id="ana", session_id="s1")
    assert loaded is not None
    seen["state"] = dict(loaded.state)
    seen["events"] = [(e.id, e.author, e.content.parts[0].text) for e in loaded.events]  # type: ignore[union-attr,index]
    seen["deltas"] = [dict(e.actions.state_delta) for e in loaded.events]
    recent = await service.get_session(
        app_name="trips",
        user_id="ana",
        session_id="s1",
        config=GetSessionConfig(num_recent_events=1),
    )
    assert recent is not None
    seen["recent"] = [e.id for e in recent.events]
    listed = await service.list_sessions(app_name="trips")
    seen["listed"] = sorted((s.user_id, s.id, len(s.events)) for s in listed.sessions)
    if hasattr(service, "get_user_state"):  # ADK's own services have it in recent releases
        seen["user_state"] = await service.get_user_state(app_name="trips", user_id="ana")
    return seen


async def test_same_behaviour_as_adk_reference(tmp_path: Path) -> None:
    reference = await play(InMemorySessionService())
    async with EventStore.open(tmp_path / "ledger.db") as store:
        ours = await play(LedgerSessionService(store, tenant_id="acme"))
    if "user_state" not in reference:  # an older ADK: compared where it has the verb
        assert ours.pop("user_state") == {"lang": "zh", "seat": "window"}
    assert ours == reference
    assert ours["state"] == {
        "budget": 200,
        "step": 2,
        "app:currency": "CNY",
        "app:season": "autumn",
        "user:lang": "zh",
        "user:seat": "window",
    }
    assert all(not k.startswith("temp:") for d in ours["deltas"] for k in d)


async def test_reload_list_delete_and_verify(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        await play(LedgerSessionService(store, tenant_id="acme"))
    async with EventStore.open(path) as store:
        service = LedgerSessionService(store, tenant_id="acme")
        session = await service.get_session(app_name="trips", user_id="ana", session_id="s1")
        assert session is not None
        assert [e.id for e in session.events] == ["e1", "e2"]
        assert session.state["user:seat"] == "window"
        with pytest.raises(AlreadyExistsError):
            await service.create_session(app_name="trips", user_id="ana", session_id="s1")
        # An equal re-delivery of an event is recorded once.
        await service.append_event(
            session, event("planner", "G7311 fits", {"user:seat": "window", "step": 2}, 2)
        )
        again = await service.get_session(app_name="trips", user_id="ana", session_id="s1")
        assert again is not None
        assert [e.id for e in again.events] == ["e1", "e2"]

        await service.delete_session(app_name="trips", user_id="ana", session_id="s1")
        assert await service.get_session(app_name="trips", user_id="ana", session_id="s1") is None
        listed = await service.list_sessions(app_name="trips", user_id="ana")
        assert listed.sessions == []
        with pytest.raises(SessionNotFoundError):
            await service.append_event(session, event("user", "late", None, 9))
        stream = await store.read_stream("acme", "adk-session/trips/ana/s1")
        assert [e.type for e in stream][-1] == "AdkSessionDeleted"
        assert all(e.erased for e in stream[:-1])  # payloads erased, envelopes kept
        assert (await store.verify("acme")).ok
        # The user's shared state outlives one session, as in ADK.
        assert await service.get_user_state(app_name="trips", user_id="ana") == {
            "lang": "zh",
            "seat": "window",
        }
        recreated = await service.create_session(app_name="trips", user_id="ana", session_id="s1")
        assert recreated.events == []
        assert (await store.verify("acme")).ok


async def test_a_stale_copy_cannot_write(tmp_path: Path) -> None:
    from projections.integrations.adk import StaleSessionError  # ADK's own where it has one

    async with EventStore.open(tmp_path / "ledger.db") as store:
        service = LedgerSessionService(store, tenant_id="acme")
        await service.create_session(app_name="trips", user_id="ana", session_id="s")
        first = await service.get_session(app_name="trips", user_id="ana", session_id="s")
        second = await service.get_session(app_name="trips", user_id="ana", session_id="s")
        assert first is not None
        assert second is not None
        await service.append_event(first, event("user", "from A", None, 1))
        with pytest.raises(StaleSessionError, match="reload it"):
            await service.append_event(second, event("user", "from B", None, 2))
        fresh = await service.get_session(app_name="trips", user_id="ana", session_id="s")
        assert fresh is not None
        await service.append_event(fresh, event("user", "from B", None, 2))
        await service.append_event(fresh, event("user", "again", None, 3))
        final = await service.get_session(app_name="trips", user_id="ana", session_id="s")
        assert final is not None
        assert [e.id for e in final.events] == ["e1", "e2", "e3"]


async def test_an_append_reads_only_what_is_new(tmp_path: Path) -> None:
    """append_event costs the same at event 500 as at event 5: the service keeps each
    session folded and reads only events after what it has (the stream head for staleness)."""
    async with EventStore.open(tmp_path / "ledger.db") as store:
        service = LedgerSessionService(store, tenant_id="acme")
        session = await service.create_session(app_name="trips", user_id="ana", session_id="s")
        read: list[int] = []
        real = store.read_stream

        async def counting(*args: Any, **kwargs: Any) -> Any:
            events = await real(*args, **kwargs)
            read.append(len(events))
            return events

        store.read_stream = counting  # type: ignore[method-assign]
        for n in range(500):
            read.clear()
            await service.append_event(session, event("user", f"m{n}", {"n": n}, n))
            assert sum(read) <= 1, (n, read)
        other = LedgerSessionService(store, tenant_id="acme")  # a cold service still sees all
        loaded = await other.get_session(app_name="trips", user_id="ana", session_id="s")
        assert loaded is not None
        assert len(loaded.events) == 500
        assert loaded.state["n"] == 499


async def test_a_warm_service_never_serves_an_erased_event(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        service = LedgerSessionService(store, tenant_id="acme")
        session = await service.create_session(app_name="trips", user_id="ana", session_id="s")
        await service.append_event(session, event("user", "my passport is E1234567", {}, 1))
        await service.append_event(session, event("user", "hello", {}, 2))
        assert (
            len((await service.get_session(app_name="trips", user_id="ana", session_id="s")).events)
            == 2
        )  # type: ignore[union-attr]
        stored = await store.read_stream("acme", "adk-session/trips/ana/s")
        passport = next(e for e in stored if "E1234567" in str(e.data))
        await store.erase("acme", [passport.event_id], reason="art. 17", requested_by="dpo")
        again = await service.get_session(app_name="trips", user_id="ana", session_id="s")
        assert again is not None
        assert "E1234567" not in str([e.model_dump() for e in again.events])


async def test_a_reader_polling_during_appends_sees_no_duplicates(tmp_path: Path) -> None:
    """``get_session`` while ``append_event`` runs on the same service: every copy read holds
    each event once, in order, and so does a new service on the same file afterwards; a stale
    copy is refused in ADK's own words."""
    from projections.integrations.adk import StaleSessionError

    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        service = LedgerSessionService(store, tenant_id="acme")
        session = await service.create_session(app_name="trips", user_id="ana", session_id="s")
        stale = await service.get_session(app_name="trips", user_id="ana", session_id="s")
        done = asyncio.Event()
        seen: list[list[str]] = []

        async def poll() -> None:
            while not done.is_set():
                copy = await service.get_session(app_name="trips", user_id="ana", session_id="s")
                assert copy is not None
                seen.append([e.id for e in copy.events])
                await asyncio.sleep(0)

        reader = asyncio.create_task(poll())
        for n in range(1, 31):
            await service.append_event(session, event("user", f"turn {n}", {"n": n}, n))
            await asyncio.sleep(0)
        done.set()
        await reader
        expected = [f"e{n}" for n in range(1, 31)]
        assert len(seen) > 5
        assert all(ids == expected[: len(ids)] for ids in seen)  # each once, in order
        final = await service.get_session(app_name="trips", user_id="ana", session_id="s")
        assert final is not None
        assert [e.id for e in final.events] == expected
        assert stale is not None
        with pytest.raises(StaleSessionError, match="modified in storage since it was loaded"):
            await service.append_event(stale, event("user", "late", None, 99))
    async with EventStore.open(path) as store:
        fresh = LedgerSessionService(store, tenant_id="acme")
        again = await fresh.get_session(app_name="trips", user_id="ana", session_id="s")
        assert again is not None
        assert [e.id for e in again.events] == expected
