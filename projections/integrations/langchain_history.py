"""LangChain's chat message history on ctxledger: ``LedgerChatMessageHistory`` is a
``BaseChatMessageHistory`` (``pip install 'ctxledger[langchain]'``) for
``RunnableWithMessageHistory`` and anything else that takes one.

Each LangChain message is one ctxledger message of the session (human → user, AI → assistant
with its tool calls, tool → tool answering its call id, system → system), hashed and
verifiable like any other; the LangChain message itself is kept in the message's metadata
(as LangChain's JSON text, so key order survives), so ``messages`` gives back exactly what
was added (type, id, name, tool calls, additional kwargs, response metadata). With
``budget``, ``messages`` is instead the compacted context under it (window, pins and the
validated summary: ``Session.render``), for a long conversation. ``clear`` deletes nothing:
a new, empty generation starts (:mod:`.generations`) and the log keeps the old one.

Sync and async verbs both run on the history's own event loop (:mod:`.loop_thread`), so give
it a store of its own (``LedgerChatMessageHistory.open``), as with ``LedgerSaver``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    message_to_dict,
    messages_from_dict,
)
from uuid_utils.compat import uuid7

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.messages import Message, Role, ToolCall, text_of
from projections.errors import ConfigurationError, MessageValidationError
from projections.integrations.generations import (
    current_generation,
    generation_session,
    start_generation,
)
from projections.integrations.loop_thread import LoopThread
from projections.ledger import Ledger, Session
from projections.recall.search import RecallOptions

__all__ = ["LedgerChatMessageHistory", "from_langchain", "to_langchain"]

_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def from_langchain(message: BaseMessage) -> Message:
    """A LangChain message as a ctxledger message (the original kept in its metadata)."""
    role = _ROLES.get(message.type)
    if role is None:
        raise MessageValidationError(
            f"a {type(message).__name__} (type {message.type!r}) has no ctxledger role; "
            f"expected a human, AI, tool or system message"
        )
    calls = getattr(message, "tool_calls", None) or []
    return Message(
        id=message.id or str(uuid7()),
        role=cast(Role, role),
        content=_content(message.content),
        name=message.name,
        tool_calls=[
            ToolCall(
                id=call["id"] or str(uuid7()), name=call["name"], arguments=json.dumps(call["args"])
            )
            for call in calls
        ],
        tool_call_id=getattr(message, "tool_call_id", None),
        # LangChain's JSON text, not the dict: the log's canonical JSON sorts keys, and a tool
        # call's args are sent back to the model in their order (as for ADK's events).
        metadata={"source": "langchain", "langchain_json": json.dumps(message_to_dict(message))},
    )


def _content(content: str | list[str | dict[Any, Any]]) -> str | list[dict[str, Any]] | None:
    """LangChain's content (text, or blocks some of which are bare strings) as ctxledger's."""
    if isinstance(content, str):
        return content or None
    blocks = [{"type": "text", "text": b} if isinstance(b, str) else dict(b) for b in content]
    return blocks or None


def to_langchain(message: Message) -> BaseMessage:
    """A ctxledger message as LangChain's: the original when LangChain wrote it, else by role
    (a summary, a message another tool appended)."""
    original = message.metadata.get("langchain_json")
    if original is not None:
        restored: BaseMessage = messages_from_dict([json.loads(original)])[0]
        return restored
    text = text_of(message)
    if message.role == "assistant":
        calls = [
            {"id": c.id, "name": c.name, "args": json.loads(c.arguments or "{}")}
            for c in message.tool_calls
        ]
        return AIMessage(content=text, id=message.id, tool_calls=calls)
    if message.role == "tool":
        return ToolMessage(content=text, id=message.id, tool_call_id=message.tool_call_id or "")
    if message.role in ("system", "developer"):
        return SystemMessage(content=text, id=message.id)
    return HumanMessage(content=text, id=message.id)


class LedgerChatMessageHistory(BaseChatMessageHistory):
    """A LangChain chat history on the ctxledger session ``session_id`` (see the module doc).

    Args:
        session_id: the conversation's id (its messages live in ``<id>~<generation>``).
        store: an event store for this history alone (see the module doc).
        tenant_id: the tenant.
        user_id: the user, for memory proposals from the session.
        budget: return the compacted context under this budget instead of every message.
        recall: with ``budget``, page back the best older turns for the latest human
            message (off by default): add the new input before reading ``messages`` for it
            to be the query (``RunnableWithMessageHistory`` reads the history before it adds
            the input, so there the query is the turn before).
    """

    def __init__(
        self,
        session_id: str,
        store: EventStore,
        *,
        tenant_id: str,
        user_id: str | None = None,
        budget: Budget | None = None,
        recall: RecallOptions | None = None,
    ) -> None:
        if recall is not None and budget is None:
            raise ConfigurationError(
                "recall pages older turns into a compacted context: give a budget too "
                "(LedgerChatMessageHistory(..., budget=Budget(...), recall=RecallOptions()))"
            )
        self.session_id = session_id
        self.ledger = Ledger(store)
        self.tenant_id = tenant_id
        self.user_id = user_id
        self.budget = budget
        self.recall = recall
        self._loop = LoopThread()

    @classmethod
    def open(
        cls,
        url: str,
        session_id: str,
        *,
        tenant_id: str,
        user_id: str | None = None,
        budget: Budget | None = None,
        recall: RecallOptions | None = None,
        **store_options: Any,
    ) -> LedgerChatMessageHistory:
        """A history on the database at ``url`` (``store_options`` go to ``EventStore.open``)."""
        store = EventStore.open(url, **store_options)
        return cls(
            session_id, store, tenant_id=tenant_id, user_id=user_id, budget=budget, recall=recall
        )

    def close(self) -> None:
        """Close the store and stop the history's loop."""
        if self._loop.stopped:
            return
        self._loop.call(self.ledger.store.close())
        self._loop.stop()

    def __enter__(self) -> LedgerChatMessageHistory:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- LangChain's verbs -------------------------------------------------------------------

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The conversation (or, with ``budget``, its compacted context)."""
        return self._loop.call(self._messages())

    async def aget_messages(self) -> list[BaseMessage]:
        return await self._loop.run(self._messages())

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self._loop.call(self._add(messages))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await self._loop.run(self._add(messages))

    def clear(self) -> None:
        """Start an empty generation; the log keeps every earlier message."""
        self._loop.call(self._clear())

    async def aclear(self) -> None:
        await self._loop.run(self._clear())

    # -- on the history's loop ---------------------------------------------------------------

    async def session(self) -> Session:
        """The ctxledger session of the current generation (on the history's loop)."""
        generation, _ = await current_generation(self.ledger.store, self.tenant_id, self.session_id)
        return generation_session(
            self.ledger, self.tenant_id, self.session_id, generation, self.user_id
        )

    async def _messages(self) -> list[BaseMessage]:
        session = await self.session()
        if self.budget is None:
            return [to_langchain(m) for m in await session.messages()]
        rendered = await session.render(self.budget, recall=self.recall or False)
        return [to_langchain(m) for m in rendered.messages]

    async def _add(self, messages: Sequence[BaseMessage]) -> None:
        session = await self.session()
        await session.append([from_langchain(m) for m in messages])

    async def _clear(self) -> None:
        _, version = await current_generation(self.ledger.store, self.tenant_id, self.session_id)
        await start_generation(
            self.ledger, self.tenant_id, self.session_id, version=version, reason="clear"
        )
