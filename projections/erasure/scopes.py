"""Erasure by owner: everything of sessions or of users.

:func:`erase_sessions` and :func:`erase_users` erase everything of sessions or users in one
recorded step (one ``PayloadErased``, GDPR art. 17): for a session, its stream, the Agents SDK
generations and control stream of that id, and the memory proposals derived from them; for a
user, their memory and consent streams and their ADK sessions and user state. Ledger sessions
are not tied to a user in the log: name them with ``erase_sessions`` as well.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from eventstore import EventStore, LedgerError
from projections.adk_ids import adk_name
from projections.erasure.cascade import CascadedErasure, erase_events

__all__ = ["erase_sessions", "erase_users"]


async def erase_sessions(
    store: EventStore,
    tenant_id: str,
    session_ids: Iterable[str],
    *,
    reason: str,
    requested_by: str,
    dry_run: bool = False,
) -> CascadedErasure:
    """Erase every event of the sessions (and what was derived from them) in one erasure.

    Raises:
        LedgerError: a session has no events (nothing is erased).
    """

    def missing(session_id: str) -> str:
        return (
            f"tenant {tenant_id!r} has no session {session_id!r} to erase; nothing was erased "
            f"(ctxledger streams --tenant {tenant_id} lists them)"
        )

    return await _erase_owned(
        store, tenant_id, session_ids, _of_session, missing, reason, requested_by, dry_run
    )


async def erase_users(
    store: EventStore,
    tenant_id: str,
    user_ids: Iterable[str],
    *,
    reason: str,
    requested_by: str,
    dry_run: bool = False,
) -> CascadedErasure:
    """Erase every event of the users' memory, consents and ADK sessions in one erasure.

    Raises:
        LedgerError: a user has no events (nothing is erased).
    """

    def missing(user_id: str) -> str:
        return (
            f"tenant {tenant_id!r} holds no memory, consent or ADK session of user "
            f"{user_id!r}; nothing was erased"
        )

    return await _erase_owned(
        store, tenant_id, user_ids, _of_user, missing, reason, requested_by, dry_run
    )


async def _erase_owned(
    store: EventStore,
    tenant_id: str,
    owners: Iterable[str],
    owns: Callable[[str, str], bool],
    missing: Callable[[str], str],
    reason: str,
    requested_by: str,
    dry_run: bool,
) -> CascadedErasure:
    """Erase every stream some owner ``owns`` (one erasure); refuse if an owner has none."""
    wanted = list(owners)
    heads = await store.streams(tenant_id)
    streams = [h.stream_id for h in heads if any(owns(h.stream_id, o) for o in wanted)]
    for owner in wanted:
        if not any(owns(stream, owner) for stream in streams):
            raise LedgerError(missing(owner))
    ids = await _readable(store, tenant_id, streams)
    return await erase_events(
        store, tenant_id, ids, reason=reason, requested_by=requested_by, dry_run=dry_run
    )


def _of_session(stream: str, session_id: str) -> bool:
    return stream in (f"session/{session_id}", f"agents/{session_id}") or stream.startswith(
        f"session/{session_id}~"
    )


def _of_user(stream: str, user_id: str) -> bool:
    if stream in (f"memory/{user_id}", f"consent/{user_id}"):
        return True
    parts = stream.split("/")
    user_id = adk_name(user_id)  # ADK streams hold ids encoded (see projections.adk_ids)
    return (
        (parts[0] == "adk-user" and parts[2:] == [user_id])
        or (parts[0] == "adk-session" and len(parts) == 4 and parts[2] == user_id)
        # an ADK session's ctxledger mirror: session/adk/<app>/<user>/<session>
        or (parts[:2] == ["session", "adk"] and len(parts) == 5 and parts[3] == user_id)
    )


async def _readable(store: EventStore, tenant_id: str, streams: Iterable[str]) -> list[str]:
    ids: list[str] = []
    for stream in streams:
        ids += [
            str(e.event_id)
            for e in await store.read_stream(tenant_id, stream)
            if e.data is not None
        ]
    return ids
