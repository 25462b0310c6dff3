"""One message, named by either of its ids: the commands that want an event (``erase``,
``memory propose --source``, ``consent grant --evidence``) also take the message id that
``context``, ``search``, ``pin`` and MCP show, and say which they found.

An event id (a UUID) is looked up among the tenant's events; anything else, or a UUID that is
no event, is looked up as a message id in the tenant's sessions. A message id held by two
sessions is ambiguous and refused, naming both.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from eventstore import EventStore, LedgerError
from projections.cli.common import stderr
from projections.ledger import Ledger

__all__ = ["Resolved", "event_ids_of", "resolve_events", "resolved_saying"]


@dataclass(frozen=True)
class Resolved:
    """What an id named: the event, and the message it holds when it was a message id."""

    given: str
    event_id: str
    message_id: str | None = None
    session_id: str | None = None

    def said(self) -> str | None:
        """A line saying which kind was found, for a message id (None for an event id)."""
        if self.message_id is None:
            return None
        return f"message {self.message_id} of session {self.session_id} is event {self.event_id}"


async def resolve_events(store: EventStore, tenant: str, ids: tuple[str, ...]) -> list[Resolved]:
    """Each id as the event it names (see the module docstring).

    Raises:
        LedgerError: an id names no event and no message of the tenant, or a message id that
            two sessions hold; the message says which ids the commands show.
    """
    events = {str(e.event_id) for e in await store.read_events(tenant, _uuids(ids))}
    wanted = [i for i in ids if _canonical(i) not in events]
    messages = await _messages(store, tenant, set(wanted)) if wanted else {}
    resolved = []
    for given in ids:
        if _canonical(given) in events:
            resolved.append(Resolved(given, _canonical(given) or given))
            continue
        held = messages.get(given, [])
        if not held:
            raise LedgerError(
                f"no event and no message with id {given!r} in tenant {tenant!r}: event ids "
                f"are in 'ctxledger log', message ids in 'ctxledger context' and 'search'"
            )
        if len(held) > 1:
            sessions = ", ".join(session for session, _ in held)
            raise LedgerError(
                f"message id {given!r} is in several sessions of tenant {tenant!r} ({sessions}):"
                f" pass its event id instead (see 'ctxledger log --stream session/<id>')"
            )
        session_id, event_id = held[0]
        resolved.append(Resolved(given, event_id, given, session_id))
    return resolved


async def resolved_saying(store: EventStore, tenant: str, ids: tuple[str, ...]) -> list[Resolved]:
    """:func:`resolve_events`, saying on stderr which event each message id was found as."""
    resolved = await resolve_events(store, tenant, ids)
    for item in resolved:
        if (line := item.said()) is not None:
            stderr.print(line, highlight=False)
    return resolved


async def event_ids_of(store: EventStore, tenant: str, ids: tuple[str, ...]) -> list[str]:
    """The event ids ``ids`` name (see :func:`resolved_saying`)."""
    return [item.event_id for item in await resolved_saying(store, tenant, ids)]


def _canonical(raw: str) -> str | None:
    try:
        return str(UUID(raw))
    except ValueError:
        return None


def _uuids(ids: tuple[str, ...]) -> list[str]:
    return [canonical for raw in ids if (canonical := _canonical(raw)) is not None]


async def _messages(
    store: EventStore, tenant: str, wanted: set[str]
) -> dict[str, list[tuple[str, str]]]:
    """Message id -> (session, event id) of every session of the tenant holding it."""
    ledger = Ledger(store)
    found: dict[str, list[tuple[str, str]]] = {}
    for stream in await store.streams(tenant):
        if not stream.stream_id.startswith("session/"):
            continue
        session_id = stream.stream_id.removeprefix("session/")
        state = await ledger.session(tenant, session_id).latest()
        for message_id in wanted:
            index = state.index_of.get(message_id)
            if index is not None and state.message_event_ids[index]:
                found.setdefault(message_id, []).append(
                    (session_id, state.message_event_ids[index])
                )
    return found
