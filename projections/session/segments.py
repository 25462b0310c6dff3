"""A session index's columns cut into slices between versions: what a snapshot part holds.

Every growing part of the index is a column that only ever gets rows appended: messages'
ids, roles, tokens, versions, hashes and event ids; each event's position and time; group
starts and closed groups' tokens; protocol issues; pins; model calls; unreadable events;
masks; tool-call ids seen. :func:`marks_at` says how many rows of each existed as of a
version, so the slice between two versions is a pure function of the log: any process cuts
the same bytes, and a slice once saved never changes. Pure: no I/O.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from projections.context.grouping import ProtocolIssue
from projections.session.columns import packed_bytes, unpacked
from projections.session.marks import Mask, Unreadable
from projections.session.state import SessionState

__all__ = [
    "COLUMN_NAMES",
    "LIST_COLUMNS",
    "MARK_OF",
    "Marks",
    "decode_slices",
    "encode_slice",
    "end_marks",
    "join_slice",
    "marks_at",
    "split_slice",
]


@dataclass(frozen=True)
class Marks:
    """How many rows of each column exist as of a version."""

    events: int
    messages: int
    groups: int
    group_tokens: int  # the last group's count may still grow: final ones only, but at the end
    issues: int
    pins: int
    calls: int
    unreadable: int
    masks: int
    seen: int


#: Which count of :class:`Marks` says how many rows of each column there are.
MARK_OF = {
    **dict.fromkeys(
        ("ids", "roles", "tokens", "message_versions", "message_hashes", "message_event_ids"),
        "messages",
    ),
    "encoding_codes": "messages",
    "event_positions": "events",
    "event_times": "events",
    "starts": "groups",
    "group_tokens": "group_tokens",
    "issues": "issues",
    "issue_counts": "issues",
    "pin_log": "pins",
    "model_call_versions": "calls",
    "unreadable": "unreadable",
    "masks": "masks",
    "seen_calls": "seen",
    "seen_at": "seen",
}


def marks_at(state: SessionState, version: int) -> Marks:
    """The rows as of ``version`` that can no longer change (the last group's tokens can)."""
    messages = bisect_right(state.message_versions, version)
    groups = bisect_right(state.grouper.starts, messages - 1) if messages else 0
    return Marks(
        events=version,
        messages=messages,
        groups=groups,
        group_tokens=max(groups - 1, 0),
        issues=bisect_right(state.issue_counts, messages),
        pins=bisect_right(state.pin_log, version, key=lambda entry: entry[0]),
        calls=bisect_right(state.model_call_versions, version),
        unreadable=bisect_right(state.unreadable, version, key=lambda u: u.version),
        masks=bisect_right(list(state.masks.values()), version, key=lambda m: m.version),
        seen=bisect_left(state.grouper.seen_at, messages),
    )


def end_marks(state: SessionState) -> Marks:
    """Every row the state holds."""
    return Marks(
        events=len(state.event_positions),
        messages=len(state.ids),
        groups=len(state.grouper.starts),
        group_tokens=len(state.group_tokens),
        issues=len(state.grouper.issues),
        pins=len(state.pin_log),
        calls=len(state.model_call_versions),
        unreadable=len(state.unreadable),
        masks=len(state.masks),
        seen=len(state.grouper.seen_order),
    )


def _ints(values: Iterable[int]) -> bytes:
    return packed_bytes(array("q", values))


def _columns(state: SessionState, a: Marks, b: Marks) -> dict[str, bytes]:
    """Each column's rows ``[a, b)`` as bytes."""
    m, e = slice(a.messages, b.messages), slice(a.events, b.events)
    masks = list(state.masks.values())[a.masks : b.masks]
    pins = state.pin_log[a.pins : b.pins]
    unreadable = state.unreadable[a.unreadable : b.unreadable]
    return {
        "ids": orjson.dumps(state.ids[m]),
        "roles": bytes(state.roles.codes[m]),
        "tokens": packed_bytes(state.tokens.counts[m]),
        "message_versions": packed_bytes(state.message_versions[m]),
        "message_hashes": state.message_hashes.rows_bytes(a.messages, b.messages),
        "message_event_ids": state.message_event_ids.rows_bytes(a.messages, b.messages),
        "encoding_codes": packed_bytes(state.encodings.codes[m]),
        "event_positions": packed_bytes(state.event_positions[e]),
        "event_times": packed_bytes(state.event_times[e]),
        "starts": _ints(state.grouper.starts[a.groups : b.groups]),
        "group_tokens": _ints(state.group_tokens[a.group_tokens : b.group_tokens]),
        "issues": orjson.dumps([i.as_dict() for i in state.grouper.issues[a.issues : b.issues]]),
        "issue_counts": _ints(state.issue_counts[a.issues : b.issues]),
        "pin_log": orjson.dumps([[at, pin, list(ids)] for at, pin, ids in pins]),
        "model_call_versions": _ints(state.model_call_versions[a.calls : b.calls]),
        "unreadable": orjson.dumps([u.as_dict() for u in unreadable]),
        "masks": orjson.dumps([mask.as_dict() for mask in masks]),
        "seen_calls": orjson.dumps(state.grouper.seen_order[a.seen : b.seen]),
        "seen_at": _ints(state.grouper.seen_at[a.seen : b.seen]),
    }  # fmt: skip


def encode_slice(state: SessionState, a: Marks, b: Marks) -> bytes:
    """Rows ``[a, b)`` of every column, framed by :func:`join_slice`."""
    return join_slice(_columns(state, a, b))


def join_slice(columns: dict[str, bytes]) -> bytes:
    """Columns' bytes as one slice: the length of a JSON header naming each column's byte
    count, the header, then the columns' bytes (decoding them is a copy, not parsing)."""
    header = orjson.dumps({name: len(data) for name, data in columns.items()})
    return b"".join([len(header).to_bytes(8, "little"), header, *columns.values()])


def split_slice(data: bytes | memoryview) -> dict[str, memoryview]:
    """Each column's bytes in a slice from :func:`encode_slice` (views, not copies)."""
    view = memoryview(data)
    size = int.from_bytes(view[:8], "little")
    lengths: dict[str, int] = orjson.loads(view[8 : 8 + size])
    at, columns = 8 + size, {}
    for name, length in lengths.items():
        columns[name] = view[at : at + length]
        at += length
    if at != len(view):
        raise ValueError(f"a slice of {len(view)} bytes holds {at}")
    return columns


_PACKED = {
    "tokens": "q",
    "message_versions": "q",
    "encoding_codes": "H",
    "event_positions": "q",
    "event_times": "q",
    "starts": "q",
    "group_tokens": "q",
    "issue_counts": "q",
    "model_call_versions": "q",
    "seen_at": "q",
}
_RAW = ("roles", "message_hashes", "message_event_ids")
_ROWS: dict[str, Callable[[Any], Any]] = {
    "ids": str,
    "issues": lambda raw: ProtocolIssue(**raw),
    "pin_log": lambda raw: (raw[0], raw[1], tuple(raw[2])),
    "unreadable": lambda raw: Unreadable(**raw),
    "masks": lambda raw: Mask(**raw),
    "seen_calls": str,
}
#: The columns whose rows are JSON values (the others are packed bytes), and all of them.
LIST_COLUMNS = frozenset(_ROWS)
COLUMN_NAMES = (*_PACKED, *_RAW, *_ROWS)


def decode_slices(slices: Iterable[bytes | memoryview]) -> dict[str, Any]:
    """The columns of consecutive slices joined: packed integers as arrays, hashes, ids and
    roles as bytearrays, the rest as lists of their rows."""
    parts = [split_slice(data) for data in slices]
    joined: dict[str, Any] = {}
    for name, typecode in _PACKED.items():
        joined[name] = unpacked(typecode, b"".join(part[name] for part in parts))
    for name in _RAW:
        joined[name] = bytearray().join(part[name] for part in parts)
    for name, row in _ROWS.items():
        rows: list[Any] = []
        for part in parts:
            rows.extend(orjson.loads(part[name]))
        joined[name] = rows if row is str else [row(raw) for raw in rows]
    return joined
