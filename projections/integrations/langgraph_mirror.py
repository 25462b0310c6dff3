"""LangGraph threads mirrored into ctxledger sessions, so that context, pins, compaction,
search, stats, the report and memory proposals work on a graph's conversation, as ADK's
sessions are mirrored (:mod:`.adk_mirror`).

The thread's stream stays the source of truth and LangGraph reads only it. After each
checkpoint of the root namespace, the messages of its ``messages`` channel (the convention of
``MessagesState`` and ``add_messages``) that the session lacks are appended to the session
``langgraph-<thread id>``, converted as ``LedgerChatMessageHistory`` converts them; a message
id already there is never appended twice, so a crash between the two appends is healed by
the next checkpoint. What LangGraph edits or removes later (``add_messages`` replacing by id,
``RemoveMessage``) stays in the mirror's history as it was first seen: ctxledger never
rewrites history. ``delete_thread`` erases the mirror with the thread.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from blake3 import blake3
from langchain_core.messages import BaseMessage, message_to_dict

from eventstore import EventStore
from projections.integrations.langchain_history import from_langchain
from projections.ledger import Ledger

__all__ = ["ThreadMirror", "mirror_session_id"]

CHANNEL = "messages"


def mirror_session_id(thread_id: str) -> str:
    """The ctxledger session a LangGraph thread is mirrored into."""
    return "langgraph-" + quote(str(thread_id), safe="")


class ThreadMirror:
    """Keeps the mirror session of each LangGraph thread of one tenant current."""

    def __init__(self, store: EventStore, tenant_id: str) -> None:
        self.ledger = Ledger(store)
        self.tenant_id = tenant_id
        # The ids each thread's mirror is known to hold: a checkpoint that brings none new
        # (every one holds the whole list) costs a set lookup per message, not a read.
        self._mirrored: dict[str, set[str]] = {}

    async def catch_up(self, thread_id: str, ns: str, values: dict[str, Any]) -> int:
        """Append the checkpoint's messages the mirror lacks; how many were appended."""
        messages = values.get(CHANNEL)
        if ns or not isinstance(messages, list):
            return 0
        seen = self._mirrored.get(thread_id, set())
        keyed = [
            (_id_of(message, position), message)
            for position, message in enumerate(messages)
            if isinstance(message, BaseMessage)
        ]
        fresh = [(key, message) for key, message in keyed if key not in seen]
        if not fresh:
            return 0
        session = self.ledger.session(self.tenant_id, mirror_session_id(thread_id))
        known = (await session.latest()).index_of  # the log decides: another writer may have
        new = [
            from_langchain(message).model_copy(update={"id": key})
            for key, message in fresh
            if key not in known
        ]
        if new:
            await session.append(new)
        self._mirrored[thread_id] = {*known, *(message.id for message in new)}
        return len(new)

    async def event_ids(self, thread_id: str) -> list[str]:
        """The ids of the mirror's readable events (to erase them with the thread)."""
        stream = f"session/{mirror_session_id(thread_id)}"
        events = await self.ledger.store.read_stream(self.tenant_id, stream)
        return [str(event.event_id) for event in events if event.data is not None]


def _id_of(message: BaseMessage, position: int) -> str:
    """The message's id, or for one without (a channel without ``add_messages``) its
    position and a digest of its content: the same on every checkpoint."""
    if message.id:
        return str(message.id)
    digest = blake3(repr(message_to_dict(message)).encode()).hexdigest()[:16]
    return f"langgraph-{position}-{digest}"
