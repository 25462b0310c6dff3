"""A session state as JSON and back: the one serialisation of :class:`SessionState`, used by
snapshots (bytes) and by the digest that proves a rebuild equals incremental folding.
Pure: no I/O."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from blake3 import blake3
from pydantic import TypeAdapter

from eventstore.encoding import canonical_json
from projections.context.grouping import Grouper
from projections.context.messages import Message
from projections.session.state import Mask, SessionState, Unreadable
from projections.summaries.chain import SummaryChain

__all__ = ["decode_state", "encode_state", "state_digest", "state_to_dict"]

# The message list converted in one call each way: pydantic-core walks it in Rust, where a
# Python loop over model_dump / model_validate paid per message (100,000 messages: dump
# 0.72 s -> 0.08 s, validate 1.03 s -> 0.76 s, the same values).
_MESSAGES: TypeAdapter[list[Message]] = TypeAdapter(list[Message])


def state_to_dict(state: SessionState) -> dict[str, Any]:
    """Everything the state holds, as JSON-ready data."""
    return {
        "messages": _MESSAGES.dump_python(state.messages, mode="json"),
        "tokens": [state.tokens[m.id] for m in state.messages],
        "encoding_of": state.encoding_of,
        "pinned": sorted(state.pinned),
        "grouper": state.grouper.to_dict(state.index_of),
        "group_tokens": state.group_tokens,
        "prefix_end": state.prefix_end,
        "version": state.version,
        "position": state.position,
        "model_calls": state.model_calls,
        "message_versions": state.message_versions,
        "message_hashes": state.message_hashes,
        "issue_counts": state.issue_counts,
        "pin_log": [[at, pin, list(ids)] for at, pin, ids in state.pin_log],
        "event_positions": state.event_positions,
        "event_times": [moment.isoformat() for moment in state.event_times],
        "model_call_versions": state.model_call_versions,
        "chain": state.chain.to_dict(),
        "unreadable": [u.as_dict() for u in state.unreadable],
        "erased": sorted(state.erased),
        "message_event_ids": state.message_event_ids,
        "masks": [mask.as_dict() for mask in state.masks.values()],
    }


def encode_state(state: SessionState) -> bytes:
    """The state as snapshot bytes."""
    return orjson.dumps(state_to_dict(state))


def decode_state(data: bytes) -> SessionState:
    """A state saved by :func:`encode_state`."""
    raw = orjson.loads(data)
    messages = _MESSAGES.validate_python(raw["messages"])
    state = SessionState(
        messages=messages,
        tokens={m.id: n for m, n in zip(messages, raw["tokens"], strict=True)},
        encoding_of=raw["encoding_of"],
        index_of={m.id: i for i, m in enumerate(messages)},
        pinned=set(raw["pinned"]),
        grouper=Grouper.from_dict(raw["grouper"], messages),
        group_tokens=raw["group_tokens"],
        prefix_end=raw["prefix_end"],
        version=raw["version"],
        position=raw["position"],
        model_calls=raw["model_calls"],
        message_versions=raw["message_versions"],
        message_hashes=raw["message_hashes"],
        issue_counts=raw["issue_counts"],
        pin_log=[(at, pin, tuple(ids)) for at, pin, ids in raw["pin_log"]],
        event_positions=raw["event_positions"],
        event_times=[datetime.fromisoformat(t) for t in raw["event_times"]],
        model_call_versions=raw["model_call_versions"],
        chain=SummaryChain.from_dict(raw["chain"]),
        unreadable=[Unreadable(**u) for u in raw["unreadable"]],
        erased=set(raw["erased"]),
        message_event_ids=raw["message_event_ids"],
    )
    for mask in raw["masks"]:
        state.add_mask(Mask(**mask))
    return state


def state_digest(state: SessionState) -> str:
    """A hash of everything the state holds: equal states, equal digests."""
    return blake3(canonical_json(state_to_dict(state))).hexdigest()
