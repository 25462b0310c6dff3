"""A session state as snapshot bytes and back: the one serialisation of :class:`SessionState`,
used by snapshots and by the digest that proves a rebuild equals incremental folding.

The index only: ids, versions, event hashes, tokens, groups, pins, masks, the summary chain —
never a message body, which stays in the log (:mod:`projections.session.bodies`).

A snapshot is a *head* and the *parts* it names. Part ``k`` holds the rows of every column
(:mod:`projections.session.segments`) added by versions ``(k·V, (k+1)·V]``: once cut it never
changes, so it is saved once. The head holds what may still change (pins, the summary chain,
erasures, the open tool call) and the rows after its last part, with the BLAKE3 digest of
each part. Saving a head costs O(V), whatever the session's length; opening reads every part
as a copy of packed bytes. Pure: no I/O.
"""

from __future__ import annotations

import base64
import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import astuple
from typing import Any

import orjson
from blake3 import blake3

from eventstore.encoding import canonical_json
from projections.context.grouping import Grouper
from projections.context.holes import Holed, RowsNotLoaded
from projections.session.bodies import Bodies, HeldBodies
from projections.session.columns import (
    EncodingColumn,
    HashColumn,
    IdColumn,
    IdIndex,
    RoleColumn,
)
from projections.session.segments import (
    COLUMN_NAMES,
    LIST_COLUMNS,
    decode_slices,
    encode_slice,
    end_marks,
    join_slice,
    marks_at,
    split_slice,
)
from projections.session.state import SessionState
from projections.summaries.chain import SummaryChain

__all__ = [
    "decode_state",
    "encode_part",
    "encode_state",
    "head_parts",
    "snapshot_from_dict",
    "snapshot_to_dict",
    "state_digest",
    "state_to_dict",
]

_MAGIC = b"ctxledger-index/2\n"
_PART_MAGIC = b"ctxledger-index-part/2\n"


def _fields(state: SessionState) -> dict[str, Any]:
    """What may still change, as JSON-ready data."""
    return {
        "version": state.version,
        "position": state.position,
        "model_calls": state.model_calls,
        "prefix_end": state.prefix_end,
        "pinned": sorted(state.pinned),
        "erased": sorted(state.erased),
        "chain": state.chain.to_dict(),
        "encoding_names": state.encodings.names,
        "grouper": state.grouper.open_state(),
    }


def encode_state(state: SessionState, digests: Sequence[bytes] = (), every: int = 0) -> bytes:
    """A head: a line naming the format, the length of a JSON header, the header (with the
    digests of parts ``0 .. len(digests)`` of ``every`` versions each), then the rows after
    the last part (all of them when there are none)."""
    start = marks_at(state, len(digests) * every)
    fields = {
        **_fields(state),
        "parts": [d.hex() for d in digests],
        "part_versions": every,
        # Each part's end as row counts: a cold open reads the first and last parts only.
        "part_marks": _part_marks(state, len(digests), every),
    }
    return _assemble(fields, encode_slice(state, start, end_marks(state)))


def _part_marks(state: SessionState, count: int, every: int) -> list[tuple[int, ...]]:
    """Where parts ``0 .. count`` end, those computed before taken as they were."""
    known = state.part_marks.setdefault(every, [])
    known += [astuple(marks_at(state, (k + 1) * every)) for k in range(len(known), count)]
    return known[:count]


def encode_part(state: SessionState, part: int, every: int) -> bytes:
    """Part ``part``: the rows added by versions ``(part·every, (part+1)·every]``."""
    first, end = marks_at(state, part * every), marks_at(state, (part + 1) * every)
    return _PART_MAGIC + encode_slice(state, first, end)


def head_parts(data: bytes) -> list[bytes]:
    """The digests of the parts a head names, in order."""
    fields, _ = split_head(data)
    return [bytes.fromhex(d) for d in fields["parts"]]


def _assemble(fields: dict[str, Any], rows: bytes) -> bytes:
    header = orjson.dumps(fields)
    return b"".join([_MAGIC, len(header).to_bytes(8, "little"), header, rows])


def split_head(data: bytes) -> tuple[dict[str, Any], memoryview]:
    """A head's fields and its rows' slice."""
    if not data.startswith(_MAGIC):
        raise ValueError("not a session index snapshot (its first line differs)")
    at = len(_MAGIC)
    size = int.from_bytes(data[at : at + 8], "little")
    fields: dict[str, Any] = orjson.loads(data[at + 8 : at + 8 + size])
    return fields, memoryview(data)[at + 8 + size :]


def _part_rows(part: bytes, index: int, digest: bytes) -> memoryview:
    if not part.startswith(_PART_MAGIC):
        raise ValueError(f"part {index} is not a session index part (its first line differs)")
    if blake3(part).digest() != digest:
        raise ValueError(f"part {index} differs from the digest its head names")
    return memoryview(part)[len(_PART_MAGIC) :]


def decode_state(
    data: bytes, parts: Sequence[bytes] = (), bodies: Bodies | None = None, every: int = 0
) -> SessionState:
    """A state saved as a head (:func:`encode_state`) and the parts it names, in order, its
    bodies to come from ``bodies`` (default: none held; a caller reads them from the log).
    Raises ValueError when a part is missing or differs from its digest, or (``every``
    given) when the parts were cut every other number of versions (a later save could not
    add to them)."""
    fields, rows = split_head(data)
    if len(parts) != len(fields["parts"]):
        raise ValueError(f"the head names {len(fields['parts'])} parts, {len(parts)} were given")
    check_every(fields, every)
    return decode_head(fields, rows, dict(enumerate(parts)), bodies)


def decode_head(
    fields: dict[str, Any],
    rows: memoryview,
    parts: Mapping[int, bytes],
    bodies: Bodies | None = None,
    holes: Mapping[str, tuple[int, int]] | None = None,
) -> SessionState:
    """A state from a head split by :func:`split_head` and the parts it names, by index
    (each checked against its digest), the rows ``holes`` names not loaded."""
    digests = [bytes.fromhex(d) for d in fields["parts"]]
    with _collector_paused():
        slices = [_part_rows(parts[index], index, digests[index]) for index in sorted(parts)]
        columns = decode_slices([*slices, rows])
        state = _state(fields, columns, bodies if bodies is not None else HeldBodies(), holes)
    return _distrusted(state)


def _distrusted(state: SessionState) -> SessionState:
    """A state just decoded from a snapshot, its columns' lengths checked and what it serves
    marked to be checked against the log: its summaries and masks are derived again from
    their events before first use (message bodies are not in a snapshot at all)."""
    _check_lengths(state)
    commits = {state.chain.committed_at(version) for version in state.chain.committed}
    state.unchecked = {at for at in commits if at is not None}
    state.unchecked.update(mask.version for mask in state.masks.values())
    state.snapshot_groups = len(state.grouper.starts)
    return state


def check_every(fields: Mapping[str, Any], every: int) -> None:
    """Raise ValueError when a head's parts were cut every other number of versions than
    ``every`` (0: any): a later save could not add to them."""
    if every and fields["parts"] and fields["part_versions"] != every:
        raise ValueError(f"parts of {fields['part_versions']} versions, not {every}")


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while an index is decoded: it makes no cycles, yet
    its views and lists set off collections that walk the young objects (decoding 100,000
    messages: 18 ms paused against 28–33 ms, best of five in one process)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _state(
    fields: dict[str, Any],
    columns: dict[str, Any],
    bodies: Bodies,
    holes: Mapping[str, tuple[int, int]] | None = None,
) -> SessionState:
    """A state from a head's fields and decoded columns; ``holes`` names, per column, the rows
    ``(start, count)`` not loaded (:mod:`projections.context.holes`)."""
    holes = holes or {}

    def held(name: str, column: Any) -> Any:
        start, missing = holes.get(name, (0, 0))
        return Holed(column, start, missing) if missing else column

    ids = held("ids", columns["ids"])
    roles = RoleColumn(columns["roles"])
    roles.codes = held("roles", roles.codes)
    seen_calls = held("seen_calls", columns["seen_calls"])
    state = SessionState(
        ids=ids,
        roles=roles,
        bodies=bodies,
        token_counts=held("tokens", columns["tokens"]),
        encodings=EncodingColumn(
            fields["encoding_names"], held("encoding_codes", columns["encoding_codes"])
        ),
        index_of=IdIndex(ids),
        pinned=set(fields["pinned"]),
        grouper=Grouper.restore(
            fields["grouper"],
            held("starts", columns["starts"]),
            held("issues", columns["issues"]),
            seen_calls,
            held("seen_at", columns["seen_at"].tolist()),
        ),
        group_tokens=held("group_tokens", columns["group_tokens"]),
        prefix_end=fields["prefix_end"],
        version=fields["version"],
        position=fields["position"],
        model_calls=fields["model_calls"],
        message_versions=held("message_versions", columns["message_versions"]),
        message_hashes=held("message_hashes", HashColumn(columns["message_hashes"])),
        issue_counts=held("issue_counts", columns["issue_counts"].tolist()),
        pin_log=held("pin_log", columns["pin_log"]),
        event_positions=held("event_positions", columns["event_positions"]),
        event_times=held("event_times", columns["event_times"]),
        model_call_versions=held("model_call_versions", columns["model_call_versions"].tolist()),
        chain=SummaryChain.from_dict(fields["chain"]),
        unreadable=held("unreadable", columns["unreadable"]),
        erased=set(fields["erased"]),
        message_event_ids=held("message_event_ids", IdColumn(columns["message_event_ids"])),
    )
    for mask in columns["masks"]:
        try:
            state.add_mask(mask)
        except RowsNotLoaded:
            continue  # its message is among the rows not loaded: no read reaches it unloaded
    return state


def _check_lengths(state: SessionState) -> None:
    """Columns that must be as long as each other are (a forged or damaged snapshot may not
    be: then it is not used)."""
    messages = {
        "ids": len(state.ids),
        "roles": len(state.roles),
        "tokens": len(state.tokens.counts),
        "versions": len(state.message_versions),
        "hashes": len(state.message_hashes),
        "event ids": len(state.message_event_ids),
        "tokenizers": len(state.encodings),
        "grouped": state.grouper.count,
    }
    events = {"positions": len(state.event_positions), "times": len(state.event_times)}
    groups = {"starts": len(state.grouper.starts), "group sizes": len(state.group_tokens)}
    for kind, counts, expected in (
        ("messages", messages, len(state.ids)),
        ("events", events, state.version),
        ("groups", groups, len(state.grouper.starts)),
    ):
        if any(count != expected for count in counts.values()):
            raise ValueError(f"the snapshot's columns of {kind} differ in length: {counts}")


def _as_data(columns: dict[str, memoryview]) -> dict[str, Any]:
    """Columns as JSON-ready data: lists of rows as they are, packed bytes as base64."""
    return {
        name: orjson.loads(data) if name in LIST_COLUMNS else base64.b64encode(data).decode("ascii")
        for name, data in columns.items()
    }


def state_to_dict(state: SessionState) -> dict[str, Any]:
    """Everything the state holds, as JSON-ready data (packed columns as base64 text)."""
    rows = split_slice(encode_slice(state, marks_at(state, 0), end_marks(state)))
    return {**_fields(state), **_as_data(rows)}


def snapshot_to_dict(data: bytes) -> dict[str, Any]:
    """A head as :func:`state_to_dict` shows a state, with the parts it names (for audits,
    and for tests that edit a snapshot as an attacker would)."""
    fields, rows = split_head(data)
    return {**fields, **_as_data(split_slice(rows))}


def snapshot_from_dict(raw: dict[str, Any]) -> bytes:
    """Head bytes from data in the form :func:`snapshot_to_dict` gives."""
    columns = {
        name: orjson.dumps(raw[name]) if name in LIST_COLUMNS else base64.b64decode(raw[name])
        for name in COLUMN_NAMES
    }
    return _assemble({k: v for k, v in raw.items() if k not in columns}, join_slice(columns))


def state_digest(state: SessionState) -> str:
    """A hash of everything the state holds: equal states, equal digests."""
    return blake3(canonical_json(state_to_dict(state))).hexdigest()
