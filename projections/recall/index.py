"""The search index: a read model of every message of every session, in the store's own
full-text index (SQLite FTS5, PostgreSQL ``tsvector`` + GIN, or the memory backend's).

Each ``MessageAppended`` event of a ``session/…`` stream becomes one row: key and event id the
event's id, scope the stream, position the event's tenant position, terms its
:func:`~projections.recall.terms.search_terms`, data the message id, session version and role.
The rows are derived data: rebuilt from the log they are the same, the runner commits them with
their checkpoint in one transaction, and erasing an event deletes its row in the erasure's own
transaction (the store does that for every read model).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import ValidationError

from eventstore import RecordedEvent
from eventstore.recorder import Document
from projections.context.messages import Message, text_of
from projections.projection import Changes
from projections.recall.terms import search_terms
from projections.session.events import MessageAppended

__all__ = [
    "SEARCH_INDEX",
    "IndexedMessage",
    "SearchIndex",
    "indexed_messages",
    "message_row",
    "searchable_text",
]


@dataclass(frozen=True)
class IndexedMessage:
    """What a search row says about its message."""

    message_id: str
    version: int
    role: str
    stream_id: str
    position: int

    @classmethod
    def of(cls, document: Document) -> IndexedMessage:
        """The message a row stands for."""
        data = orjson.loads(document.data)
        return cls(data["id"], data["v"], data["role"], document.scope, document.position)


def searchable_text(message: Message) -> str:
    """The text a message is found by: its content, and its tool calls' names and arguments."""
    calls = " ".join(f"{call.name} {call.arguments}" for call in message.tool_calls)
    return f"{text_of(message)} {calls}".strip()


class SearchIndex:
    """The read model (see the module docstring)."""

    name = "search"
    version = 2  # 2: the store keeps its corpus figures per scope (rebuilt to fill them)

    def changes(self, events: Sequence[RecordedEvent]) -> Changes:
        """One row per readable message of a session stream; nothing else is indexed."""
        upserts = []
        for event, message, text in indexed_messages(events):
            terms = search_terms(text)
            if not terms:
                continue
            data = {"id": message.id, "v": event.version, "role": message.role}
            upserts.append(message_row(event, " ".join(terms), data))
        return Changes(upserts=upserts)


def message_row(event: RecordedEvent, terms: str, data: dict[str, Any]) -> Document:
    """A recall read model's row for a message's event: keyed by the event's id (so erasing
    the event deletes it), scoped to its session stream, at its tenant position."""
    return Document(
        key=str(event.event_id),
        scope=event.stream_id,
        event_id=str(event.event_id),
        position=event.position,
        terms=terms,
        data=orjson.dumps(data),
    )


def indexed_messages(
    events: Iterable[RecordedEvent],
) -> Iterator[tuple[RecordedEvent, Message, str]]:
    """The readable messages of session streams among ``events``, each with its event and
    :func:`searchable_text`: what every recall read model (terms, vectors) indexes."""
    for event in events:
        if event.type != "MessageAppended" or event.data is None:
            continue
        if not event.stream_id.startswith("session/"):
            continue
        try:
            message = MessageAppended.model_validate(event.data).message
        except ValidationError:
            continue  # an unreadable payload is reported by the session fold, not here
        yield event, message, searchable_text(message)


SEARCH_INDEX = SearchIndex()
