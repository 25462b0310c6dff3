"""The integrations keep no folds of their own: ADK's session and state folds and LangGraph's
thread folds live on a projection runner (bounded, dropped on erasure), and LangGraph's events
are typed and registered, so a malformed payload is refused at append."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.events.event import Event

from eventstore import EventStore, EventValidationError, NewEvent
from projections.integrations.adk import LedgerSessionService
from projections.integrations.langgraph import LedgerSaver


async def test_adk_folds_live_on_the_ledgers_runner(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "adk.db") as store:
        service = LedgerSessionService(store, tenant_id="acme", mirror=False)
        session = await service.create_session(app_name="app", user_id="u", state={"a": 1})
        await service.append_event(session, Event(author="user", invocation_id="i1"))
        cached = [key for _, key in service._folds.cached_keys()]
        assert cached == [f"adk-session/app/u/{session.id}"]
        fold = service._folds.cached("acme", cached[0])
        assert fold is not None
        assert len(fold.events) == 1
        again = await service.get_session(app_name="app", user_id="u", session_id=session.id)
        assert again is not None
        assert len(again.events) == 1


def test_langgraph_events_are_typed_and_checked_at_append(tmp_path: Path) -> None:
    saver = LedgerSaver.open(str(tmp_path / "graph.db"), tenant_id="acme")
    try:
        store = saver.store
        broken = NewEvent(type="LangGraphCheckpointSaved", data={"ns": "", "id": "c1"})
        with pytest.raises(EventValidationError, match="checkpoint"):
            saver._call(store.append("acme", "langgraph/t", [broken]))
        assert [key for _, key in saver._threads.cached_keys()] == []
    finally:
        saver.close()
