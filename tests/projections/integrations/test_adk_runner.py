"""Google ADK's real ``Runner`` on ``LedgerSessionService``: tools writing session, user and
app state, ADK's own event compaction and a rewind give the same results as on ADK's
``InMemorySessionService``, and the ledger verifies afterwards (see ``adk_script``)."""

from __future__ import annotations

from pathlib import Path

from google.adk.sessions import InMemorySessionService

from eventstore import EventStore
from projections.integrations.adk import LedgerSessionService
from tests.projections.integrations.adk_script import run_script


async def test_runner_tools_state_compaction_and_rewind_as_adk(tmp_path: Path) -> None:
    reference = await run_script(InMemorySessionService())
    async with EventStore.open(tmp_path / "ledger.db") as store:
        ours = await run_script(LedgerSessionService(store, tenant_id="acme"))
        assert (await store.verify("acme")).ok
    assert ours == reference
    events = ours["events"]
    assert any(summary for _, _, summary, _, _ in events)  # ADK compacted
    assert any(rewound for _, _, _, rewound, _ in events)  # and rewound
    assert ours["state"]["last_train"] == "G123"
    assert ours["state"]["user:trains_asked"][:2] == ["G7311", "G123"]
    assert "temp:scratch" not in ours["state"]
    # After compaction the model saw ADK's summary instead of the compacted turns.
    assert any("Summary: the user compared" in line for call in ours["model_saw"] for line in call)


async def test_a_reloaded_service_continues_the_same_session(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        first = await run_script(LedgerSessionService(store, tenant_id="acme"))
    async with EventStore.open(path) as store:  # a new process would see the same
        service = LedgerSessionService(store, tenant_id="acme")
        session = await service.get_session(app_name="trips", user_id="ana", session_id="s1")
        assert session is not None
        assert dict(session.state) == first["state"]
        assert len(session.events) == len(first["events"])
