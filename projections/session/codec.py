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
from projections.session.columns import HashColumn, IdColumn, int_column, int_column_text
from projections.session.state import Mask, SessionState, Unreadable
from projections.summaries.chain import SummaryChain

__all__ = ["decode_state", "encode_state", "state_digest", "state_to_dict"]

# Roles as one character each: one short string for the whole column, decoded into the same
# five shared strings (100,000 messages: one 100 kB string, not 100,000 objects).
_ROLE_CODES = {"system": "s", "developer": "d", "user": "u", "assistant": "a", "tool": "t"}
_ROLES = {code: role for role, code in _ROLE_CODES.items()}


def state_to_dict(state: SessionState) -> dict[str, Any]:
    """Everything the state holds, as JSON-ready data."""
    return {
        "ids": state.ids,
        "roles": "".join(_ROLE_CODES[role] for role in state.roles),
        "tokens": int_column_text(state.tokens.counts),
        "encoding_of": state.encoding_of,
        "pinned": sorted(state.pinned),
        "grouper": state.grouper.to_dict(),
        "group_tokens": state.group_tokens,
        "prefix_end": state.prefix_end,
        "version": state.version,
        "position": state.position,
        "model_calls": state.model_calls,
        "message_versions": int_column_text(state.message_versions),
        "message_hashes": state.message_hashes.to_text(),
        "issue_counts": state.issue_counts,
        "pin_log": [[at, pin, list(ids)] for at, pin, ids in state.pin_log],
        "event_positions": int_column_text(state.event_positions),
        "event_times": int_column_text(state.event_times),
        "model_call_versions": state.model_call_versions,
        "chain": state.chain.to_dict(),
        "unreadable": [u.as_dict() for u in state.unreadable],
        "erased": sorted(state.erased),
        "message_event_ids": state.message_event_ids.to_text(),
        "masks": [mask.as_dict() for mask in state.masks.values()],
    }


def encode_state(state: SessionState) -> bytes:
    """The state as snapshot bytes."""
    return orjson.dumps(state_to_dict(state))


def decode_state(data: bytes, bodies: Bodies | None = None) -> SessionState:
    """A state saved by :func:`encode_state`, its bodies to come from ``bodies`` (default:
    none held; a caller reads them from the log)."""
    raw = orjson.loads(data)
    ids: list[str] = raw["ids"]
    state = SessionState(
        ids=ids,
        roles=[_ROLES[code] for code in raw["roles"]],
        bodies=bodies if bodies is not None else HeldBodies(),
        token_counts=int_column(raw["tokens"]),
        encoding_of=raw["encoding_of"],
        index_of={message_id: i for i, message_id in enumerate(ids)},
        pinned=set(raw["pinned"]),
        grouper=Grouper.from_dict(raw["grouper"]),
        group_tokens=raw["group_tokens"],
        prefix_end=raw["prefix_end"],
        version=raw["version"],
        position=raw["position"],
        model_calls=raw["model_calls"],
        message_versions=int_column(raw["message_versions"]),
        message_hashes=HashColumn(base64.b64decode(raw["message_hashes"])),
        issue_counts=raw["issue_counts"],
        pin_log=[(at, pin, tuple(ids)) for at, pin, ids in raw["pin_log"]],
        event_positions=int_column(raw["event_positions"]),
        event_times=int_column(raw["event_times"]),
        model_call_versions=raw["model_call_versions"],
        chain=SummaryChain.from_dict(raw["chain"]),
        unreadable=[Unreadable(**u) for u in raw["unreadable"]],
        erased=set(raw["erased"]),
        message_event_ids=IdColumn(base64.b64decode(raw["message_event_ids"])),
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
