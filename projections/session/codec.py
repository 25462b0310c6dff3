"""A session state as JSON and back: the one serialisation of :class:`SessionState`, used by
snapshots (bytes) and by the digest that proves a rebuild equals incremental folding.

The index only: ids, versions, event hashes, tokens, groups, pins, masks, the summary chain —
never a message body, which stays in the log (:mod:`projections.session.bodies`).
Pure: no I/O."""

from __future__ import annotations

import base64
from typing import Any

import orjson
from blake3 import blake3

from eventstore.encoding import canonical_json
from projections.context.grouping import Grouper
from projections.session.bodies import Bodies, HeldBodies
from projections.session.columns import (
    EncodingColumn,
    HashColumn,
    IdColumn,
    packed_bytes,
    unpacked,
)
from projections.session.state import Mask, SessionState, Unreadable
from projections.summaries.chain import SummaryChain

__all__ = [
    "decode_state",
    "encode_state",
    "snapshot_from_dict",
    "snapshot_to_dict",
    "state_digest",
    "state_to_dict",
]

# Roles as one character each: one short string for the whole column, decoded into the same
# five shared strings (100,000 messages: one 100 kB string, not 100,000 objects).
_ROLE_CODES = {"system": "s", "developer": "d", "user": "u", "assistant": "a", "tool": "t"}
_ROLES = {code: role for role, code in _ROLE_CODES.items()}


# The packed columns, in the order a snapshot stores them after its header.
_COLUMNS = (
    "tokens",
    "message_versions",
    "message_hashes",
    "event_positions",
    "event_times",
    "message_event_ids",
    "encoding_codes",
)
_MAGIC = b"ctxledger-index/1\n"


def _fields(state: SessionState) -> dict[str, Any]:
    """Everything but the packed columns, as JSON-ready data."""
    return {
        "ids": state.ids,
        "roles": "".join(_ROLE_CODES[role] for role in state.roles),
        "encoding_names": state.encodings.names,
        "pinned": sorted(state.pinned),
        "grouper": state.grouper.to_dict(),
        "group_tokens": state.group_tokens,
        "prefix_end": state.prefix_end,
        "version": state.version,
        "position": state.position,
        "model_calls": state.model_calls,
        "issue_counts": state.issue_counts,
        "pin_log": [[at, pin, list(ids)] for at, pin, ids in state.pin_log],
        "model_call_versions": state.model_call_versions,
        "chain": state.chain.to_dict(),
        "unreadable": [u.as_dict() for u in state.unreadable],
        "erased": sorted(state.erased),
        "masks": [mask.as_dict() for mask in state.masks.values()],
    }


def _columns(state: SessionState) -> dict[str, bytes]:
    """The packed columns as little-endian bytes."""
    return {
        "tokens": packed_bytes(state.tokens.counts),
        "message_versions": packed_bytes(state.message_versions),
        "message_hashes": state.message_hashes.to_bytes(),
        "event_positions": packed_bytes(state.event_positions),
        "event_times": packed_bytes(state.event_times),
        "message_event_ids": state.message_event_ids.to_bytes(),
        "encoding_codes": packed_bytes(state.encodings.codes),
    }


def state_to_dict(state: SessionState) -> dict[str, Any]:
    """Everything the state holds, as JSON-ready data (each packed column as base64 text)."""
    columns = {
        name: base64.b64encode(data).decode("ascii") for name, data in _columns(state).items()
    }
    return {**_fields(state), **columns}


def encode_state(state: SessionState) -> bytes:
    """The state as snapshot bytes: a line naming the format, the length of a JSON header,
    the header, then each packed column's bytes (decoding them is a copy, not base64)."""
    return _assemble(_fields(state), _columns(state))


def snapshot_to_dict(data: bytes) -> dict[str, Any]:
    """Snapshot bytes as :func:`state_to_dict` shows them (for audits, and for tests that
    edit a snapshot as an attacker would)."""
    fields, columns = _split(data)
    return {**fields, **{n: base64.b64encode(c).decode("ascii") for n, c in columns.items()}}


def snapshot_from_dict(raw: dict[str, Any]) -> bytes:
    """Snapshot bytes from data in the form :func:`snapshot_to_dict` gives."""
    columns = {name: base64.b64decode(raw[name]) for name in _COLUMNS}
    return _assemble({k: v for k, v in raw.items() if k not in columns}, columns)


def _assemble(fields: dict[str, Any], columns: dict[str, bytes]) -> bytes:
    header = orjson.dumps({**fields, "columns": {name: len(columns[name]) for name in _COLUMNS}})
    body = [columns[name] for name in _COLUMNS]
    return b"".join([_MAGIC, len(header).to_bytes(8, "little"), header, *body])


def _split(data: bytes) -> tuple[dict[str, Any], dict[str, bytes]]:
    """A snapshot's header fields and its columns' bytes."""
    if not data.startswith(_MAGIC):
        raise ValueError("not a session index snapshot (its first line differs)")
    at = len(_MAGIC)
    size = int.from_bytes(data[at : at + 8], "little")
    fields: dict[str, Any] = orjson.loads(data[at + 8 : at + 8 + size])
    at += 8 + size
    view, columns = memoryview(data), {}
    for name in _COLUMNS:
        length = fields["columns"][name]
        columns[name] = bytes(view[at : at + length])
        at += length
    if at != len(data):
        raise ValueError(f"a session index snapshot of {len(data)} bytes holds {at}")
    del fields["columns"]
    return fields, columns


def decode_state(data: bytes, bodies: Bodies | None = None) -> SessionState:
    """A state saved by :func:`encode_state`, its bodies to come from ``bodies`` (default:
    none held; a caller reads them from the log)."""
    raw, columns = _split(data)
    ids: list[str] = raw["ids"]
    state = SessionState(
        ids=ids,
        roles=list(map(_ROLES.__getitem__, raw["roles"])),
        bodies=bodies if bodies is not None else HeldBodies(),
        token_counts=unpacked("q", columns["tokens"]),
        encodings=EncodingColumn(raw["encoding_names"], unpacked("H", columns["encoding_codes"])),
        index_of=dict(zip(ids, range(len(ids)), strict=True)),
        pinned=set(raw["pinned"]),
        grouper=Grouper.from_dict(raw["grouper"]),
        group_tokens=raw["group_tokens"],
        prefix_end=raw["prefix_end"],
        version=raw["version"],
        position=raw["position"],
        model_calls=raw["model_calls"],
        message_versions=unpacked("q", columns["message_versions"]),
        message_hashes=HashColumn(columns["message_hashes"]),
        issue_counts=raw["issue_counts"],
        pin_log=[(at, pin, tuple(ids)) for at, pin, ids in raw["pin_log"]],
        event_positions=unpacked("q", columns["event_positions"]),
        event_times=unpacked("q", columns["event_times"]),
        model_call_versions=raw["model_call_versions"],
        chain=SummaryChain.from_dict(raw["chain"]),
        unreadable=[Unreadable(**u) for u in raw["unreadable"]],
        erased=set(raw["erased"]),
        message_event_ids=IdColumn(columns["message_event_ids"]),
    )
    for mask in raw["masks"]:
        state.add_mask(Mask(**mask))
    # Nothing a snapshot says is served unchecked: its summaries and masks are derived again
    # from their events before first use; message bodies are not in it at all.
    commits = {state.chain.committed_at(version) for version in state.chain.committed}
    state.unchecked = {at for at in commits if at is not None}
    state.unchecked.update(mask.version for mask in state.masks.values())
    state.snapshot_groups = len(state.grouper.starts)
    return state


def state_digest(state: SessionState) -> str:
    """A hash of everything the state holds: equal states, equal digests."""
    return blake3(canonical_json(state_to_dict(state))).hexdigest()
