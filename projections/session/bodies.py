"""Where a session's message bodies live: not in its state, which is an index over the log.

A :class:`~projections.session.state.SessionState` keeps one row per message (id, version,
event hash, tokens, group); the bodies are the log's. Two places hold them for a while:

- :class:`HeldBodies`, every body a fold saw, in order: pure folds (tests, benchmarks,
  ``Session.state()``) that hold the whole conversation anyway;
- :class:`BodyCache`, owned by the ledger's session runner and bounded in bytes, shared by
  every cached session (a :class:`CachedBodies` view per session). A body missing from it is
  read back from the log by :func:`fetch_bodies`, which checks each event read against the
  hash the index holds, so a forged snapshot can name messages but never supply their text.

Pure except :func:`fetch_bodies`, which reads the store.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from sys import getsizeof
from typing import Protocol

from eventstore import EventStore, RecordedEvent
from eventstore.errors import EventValidationError, LedgerError
from projections.arguments import check_count
from projections.context.messages import Message, text_of
from projections.session.columns import TextColumn, TokenColumn
from projections.text_caches import remembered_object

__all__ = [
    "DEFAULT_BODY_BYTES",
    "DEFAULT_INDEX_BYTES",
    "ERASED",
    "Bodies",
    "BodyCache",
    "BodyNotLoadedError",
    "CachedBodies",
    "HeldBodies",
    "IndexMismatchError",
    "PackedColumn",
    "body_size",
    "erased_message",
    "runs_of",
    "string_size",
]

ERASED = "[erased]"
#: The default bound of a ledger's body cache (``Ledger(body_cache_bytes=...)``).
DEFAULT_BODY_BYTES = 32 * 1024 * 1024
#: The default bound of a ledger's cached session indexes (``Ledger(cached_bytes=...)``).
DEFAULT_INDEX_BYTES = 256 * 1024 * 1024
# A body's Python objects (the model, its dicts, its lists) cost about this much beside its
# strings (tracemalloc over 2,000 messages of the benchmark conversation: 1,225 bytes each);
# counted so that a million one-word messages cannot slip under the bound.
_OVERHEAD = 1200
_PER_CALL = 400  # a ToolCall model and its dict, beside its three strings
#: The header of a compact non-ASCII string (CPython: ``getsizeof("é")`` less its two bytes).
_COMPACT_STR = getsizeof("\u00e9") - 2


class IndexMismatchError(LedgerError):
    """A session's index (a snapshot of it, typically) disagrees with the log: an event read
    back for a message is not the one the index names. The index is rebuilt from the log."""


class BodyNotLoadedError(LedgerError, LookupError):
    """A body was read that nobody fetched: a plan did not name every message it assembles
    (a bug in the caller, never a state of the log)."""


class Bodies(Protocol):
    """The bodies of one session's messages, by message index."""

    def get(self, index: int) -> Message | None:
        """The body of message ``index``, if held."""
        ...

    def put(self, index: int, version: int, message: Message) -> None:
        """Hold the body of message ``index`` (logged at stream ``version``)."""
        ...


def erased_message(version: int) -> Message:
    """What an erased message is served as: its place kept, never its content."""
    return Message(id=f"erased:@{version}", role="user", content=ERASED)


def body_size(message: Message) -> int:
    """A body's cost in memory, in bytes: its strings as Python stores them (see
    :func:`string_size`) and its objects (calibrated with tracemalloc, within 5% on the
    benchmark)."""
    calls = sum(
        string_size(call.arguments) + string_size(call.name) + getsizeof(call.id) + _PER_CALL
        for call in message.tool_calls
    )
    return string_size(text_of(message)) + getsizeof(message.id) + calls + _OVERHEAD


def string_size(text: str) -> int:
    """What ``text`` costs once a render has used it: 1, 2 or 4 bytes a character, and for a
    text that is not ASCII its UTF-8 copy too, which CPython attaches to the string the first
    time C code asks for it (the request hash's ``orjson.dumps``, the tokenizer) and keeps as
    long as the string lives. ``getsizeof`` counts that copy only once it exists, so a body
    measured when fetched was undercounted by about half (tracemalloc: 12.8 MB beyond a 32 MB
    bound, 2026-12-04). A pure function of the text, whether or not the copy exists yet."""
    if text.isascii():
        return getsizeof(text)
    # The widest character's width, from encodings run in C (``max(text)`` walks it in
    # Python objects: a millisecond for a cold render's 80 bodies).
    try:
        text.encode("latin-1")
        width = 1
    except UnicodeEncodeError:
        astral = len(text.encode("utf-16-le", "surrogatepass")) > 2 * len(text)
        width = 4 if astral else 2
    return _COMPACT_STR + (len(text) + 1) * width + len(text.encode("utf-8", "surrogatepass")) + 1


class HeldBodies:
    """Every body, kept in a list (pure folds)."""

    def __init__(self) -> None:
        self.messages: list[Message | None] = []

    def get(self, index: int) -> Message | None:
        """The body of message ``index``, if held."""
        return self.messages[index] if index < len(self.messages) else None

    def put(self, index: int, version: int, message: Message) -> None:
        """Hold a body (bodies arrive in order; a gap is left empty)."""
        missing = index + 1 - len(self.messages)
        if missing > 0:
            self.messages += [None] * missing
        self.messages[index] = message


class BodyCache:
    """Bodies of many sessions, least recently used out, within ``max_bytes``."""

    def __init__(self, max_bytes: int = DEFAULT_BODY_BYTES) -> None:
        check_count("body_cache_bytes", max_bytes)
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: OrderedDict[tuple[str, str, int], tuple[Message, int]] = OrderedDict()
        remembered_object(self)  # an erasure anywhere in this process empties it

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple[str, str, int]) -> Message | None:
        """A body by ``(tenant, stream, version)``, if held (it becomes the most recent)."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: tuple[str, str, int], message: Message) -> None:
        """Hold a body, dropping the least recently used ones beyond the bound."""
        size = body_size(message)
        old = self._entries.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        if size > self.max_bytes:
            return
        self._entries[key] = (message, size)
        self.bytes += size
        while self.bytes > self.max_bytes:
            _, (_, dropped) = self._entries.popitem(last=False)
            self.bytes -= dropped

    def forget(self, tenant_id: str) -> None:
        """Drop every body of a tenant (an erasure happened: they may hold erased text)."""
        for key in [key for key in self._entries if key[0] == tenant_id]:
            self.bytes -= self._entries.pop(key)[1]

    def cache_clear(self) -> None:
        """Drop every body (an erasure was seen: see :mod:`projections.text_caches`)."""
        self._entries.clear()
        self.bytes = 0


class CachedBodies:
    """One session's view of a :class:`BodyCache` (message index -> stream version)."""

    def __init__(
        self, cache: BodyCache, tenant_id: str, stream_id: str, versions: Sequence[int]
    ) -> None:
        self.cache = cache
        self.tenant_id = tenant_id
        self.stream_id = stream_id
        self._versions = versions  # the state's own message_versions list, shared

    def get(self, index: int) -> Message | None:
        """The body of message ``index``, if the cache holds it."""
        if index >= len(self._versions):
            return None
        return self.cache.get((self.tenant_id, self.stream_id, self._versions[index]))

    def put(self, index: int, version: int, message: Message) -> None:
        """Offer a body to the cache."""
        self.cache.put((self.tenant_id, self.stream_id, version), message)


class PackedColumn(TextColumn, Protocol):
    """A column of fixed-width values, read as text or as its packed bytes."""

    def raw(self, index: int) -> bytes: ...


class IndexRows(Protocol):
    """What :func:`fetch_bodies` checks a read event against: the index's rows."""

    @property
    def message_versions(self) -> Sequence[int]: ...
    @property
    def message_hashes(self) -> PackedColumn: ...
    @property
    def message_event_ids(self) -> PackedColumn: ...
    @property
    def tokens(self) -> TokenColumn: ...
    @property
    def ids(self) -> Sequence[str]: ...


# Each read is a hop to the database's worker thread (SQLite) or a round trip (PostgreSQL):
# a recalled block's few dozen scattered groups cost one read together, not one each.
_RANGE_AT_LEAST = 8


async def fetch_bodies(
    store: EventStore,
    tenant_id: str,
    stream_id: str,
    rows: IndexRows,
    indexes: Iterable[int],
) -> dict[int, Message]:
    """The bodies of messages ``indexes``, read from the log: runs of nearby messages as
    ranges of the stream, the scattered rest (recall's candidates) by event id in one read;
    each event read must be the one the index names (its stream, version, event id and hash;
    the message's id and tokens), else :class:`IndexMismatchError`."""
    wanted = sorted(set(indexes))
    found: dict[int, Message] = {}
    scattered: list[int] = []
    for first, last in runs_of(wanted):
        members = wanted[bisect_left(wanted, first) : bisect_right(wanted, last)]
        if len(members) < _RANGE_AT_LEAST:
            scattered += members
            continue
        low, high = rows.message_versions[first], rows.message_versions[last]
        events = await store.read_stream(tenant_id, stream_id, from_version=low, to_version=high)
        found.update(_checked_bodies(rows, members, events))
    if scattered:
        ids = [rows.message_event_ids[index] for index in scattered]
        try:
            read = await store.read_events(tenant_id, ids)
        except EventValidationError as error:  # an index (a snapshot) naming a non-id
            raise IndexMismatchError(f"the index names a malformed event id: {error}") from None
        events = [event for event in read if event.stream_id == stream_id]
        found.update(_checked_bodies(rows, scattered, events))
    return found


def _checked_bodies(
    rows: IndexRows, indexes: list[int], events: list[RecordedEvent]
) -> dict[int, Message]:
    by_version = {event.version: event for event in events}
    return {index: _checked_body(rows, index, by_version) for index in indexes}


def runs_of(indexes: list[int], gap: int = 8) -> list[tuple[int, int]]:
    """Sorted indexes as ``(first, last)`` runs, runs closer than ``gap`` as one (``gap=1``:
    runs of consecutive indexes)."""
    runs: list[tuple[int, int]] = []
    for index in indexes:
        if runs and index - runs[-1][1] <= gap:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


def _checked_body(rows: IndexRows, index: int, by_version: dict[int, RecordedEvent]) -> Message:
    version = rows.message_versions[index]
    event = by_version.get(version)
    # Compared as the packed bytes the index holds (no hex or UUID text made per row).
    if (
        event is None
        or event.type != "MessageAppended"
        or event.event_id.bytes != rows.message_event_ids.raw(index)
        or bytes.fromhex(event.hash) != rows.message_hashes.raw(index)
    ):
        found = event and str(event.event_id)
        raise IndexMismatchError(
            f"message {index} of the index names event {rows.message_event_ids[index]} (hash "
            f"{rows.message_hashes[index][:16]}…) at version {version}; the log holds "
            f"{found} there",
        )
    if event.data is None:
        return erased_message(version)
    message = Message.model_validate(event.data["message"])
    tokens = event.data.get("tokens")
    # By row, not by id: a freshly opened index has not built its dict of ids.
    if message.id != rows.ids[index] or tokens != rows.tokens.counts[index]:
        raise IndexMismatchError(
            f"message {index} of the index says id {rows.ids[index]!r} with "
            f"{rows.tokens.counts[index]} tokens; the log says {message.id!r} with {tokens}"
        )
    return message
