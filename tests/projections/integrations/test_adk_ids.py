"""ADK ids are compared exactly as ADK's own ``InMemorySessionService`` compares them: user
ids and app names as given (surrounding spaces, tabs, non-breaking spaces, case, ``/`` and
``%`` all make another user), session ids stripped. The same script on both services gives
the same isolation; a look-alike user never reads or overwrites another's sessions or state,
also after a reload from the database and through ``erase --user``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.sessions import InMemorySessionService
from google.adk.sessions.base_session_service import BaseSessionService

from eventstore import EventStore
from projections.adk_ids import adk_id, adk_name
from projections.erasure import erase_users
from projections.integrations.adk import LedgerSessionService

USERS = ["alice", "alice ", " alice", "alice\t", "alice\u00a0", "Alice", "al/ice", "al%2Fice",
         "alice\u200b", ""]  # fmt: skip
SESSIONS = ["s", " s", "s ", "s\u00a0", "s/1", "S"]
APP = "trips"


async def script(service: BaseSessionService) -> dict[str, Any]:
    """What a caller observes: per user, their state and sessions; per session id, whether a
    second create collided."""
    seen: dict[str, Any] = {}
    for index, user in enumerate(USERS):
        await service.create_session(
            app_name=APP, user_id=user, session_id="s", state={"user:n": index, "k": index}
        )
    for session_id in SESSIONS[1:]:
        try:
            await service.create_session(app_name=APP, user_id="alice", session_id=session_id)
            seen[f"create {session_id!r}"] = "created"
        except AlreadyExistsError:
            seen[f"create {session_id!r}"] = "exists"
    for user in USERS:
        session = await service.get_session(app_name=APP, user_id=user, session_id="s")
        assert session is not None
        listed = await service.list_sessions(app_name=APP, user_id=user)
        seen[f"user {user!r}"] = (
            session.state.get("user:n"),
            sorted(s.id for s in listed.sessions),
            sorted({s.user_id for s in listed.sessions}),
        )
    everyone = await service.list_sessions(app_name=APP)
    seen["all"] = sorted((s.user_id, s.id) for s in everyone.sessions)
    return seen


def stripping(seen: dict[str, Any]) -> dict[str, Any]:
    """The session-id outcomes: ADK strips session ids since after 1.26 (its floor here
    keeps ``" s"`` apart from ``"s"``); ctxledger strips them at every version."""
    return {key: value for key, value in seen.items() if key.startswith("create ")}


async def test_look_alike_ids_are_kept_apart_as_adk_keeps_them(tmp_path: Path) -> None:
    reference = await script(InMemorySessionService())
    async with EventStore.open(tmp_path / "ledger.db") as store:
        ours = await script(LedgerSessionService(store, tenant_id="acme"))
        users = {key: value for key, value in ours.items() if not key.startswith("create ")}
        assert users == {k: v for k, v in reference.items() if not k.startswith("create ")}
        if reference["create ' s'"] == "exists":  # this ADK strips session ids
            assert stripping(ours) == stripping(reference)
        assert ours["create ' s'"] == ours["create " + repr(SESSIONS[3])] == "exists"
        reloaded = LedgerSessionService(store, tenant_id="acme")
        for user in USERS:
            session = await reloaded.get_session(app_name=APP, user_id=user, session_id=" s ")
            assert session is not None
            assert session.user_id == user
            assert session.state["user:n"] == USERS.index(user)
        await erase_users(store, "acme", ["alice "], reason="r", requested_by="dpo")
        gone = await store.read_stream("acme", f"adk-session/{APP}/alice /s")
        assert gone
        assert all(e.data is None for e in gone)  # "alice " erased
        after = LedgerSessionService(store, tenant_id="acme")
        kept = await after.get_session(app_name=APP, user_id="alice", session_id="s")
        assert kept is not None
        assert kept.state["user:n"] == 0


def test_the_name_encoding_is_one_to_one() -> None:
    names = [adk_name(user) for user in USERS]
    assert len(set(names)) == len(USERS)
    assert all("/" not in name for name in names)
    assert [adk_id(name) for name in names] == USERS
    assert adk_name("alice") == "alice"  # plain ids keep their streams' names
