"""Validation of the names that key the log: tenants, streams, event types and actors.

These names are part of every hashed envelope and of every database key, so they are checked
before anything is written. The rules are deliberately strict and simple to state (they are
repeated in docs/hash-spec.md): 1 to ``limit`` characters, not only white space, no control or
format characters (Unicode categories Cc and Cf), no lone surrogates, no unassigned code points.
"""

from __future__ import annotations

import unicodedata

from eventstore.errors import InvalidNameError

__all__ = [
    "MAX_ACTOR_LENGTH",
    "MAX_EVENT_TYPE_LENGTH",
    "MAX_STREAM_LENGTH",
    "MAX_TENANT_LENGTH",
    "RESERVED_STREAM_PREFIX",
    "validate_actor",
    "validate_event_type",
    "validate_stream",
    "validate_tenant",
]

MAX_TENANT_LENGTH = 128
MAX_STREAM_LENGTH = 256
MAX_EVENT_TYPE_LENGTH = 128
MAX_ACTOR_LENGTH = 256

#: Streams under this prefix belong to the store itself (for example ``ledger/erasures``).
RESERVED_STREAM_PREFIX = "ledger/"

_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Cn"})
_CATEGORY_NAMES = {
    "Cc": "a control character",
    "Cf": "a format character",
    "Cs": "a lone surrogate",
    "Cn": "an unassigned code point",
}


def _check(kind: str, value: object, limit: int) -> str:
    if not isinstance(value, str):
        raise InvalidNameError(f"{kind} must be a string, got {type(value).__name__}")
    if not value or value.isspace():
        raise InvalidNameError(f"{kind} must not be empty or only white space, got {value!r}")
    if len(value) > limit:
        raise InvalidNameError(
            f"{kind} is {len(value)} characters long, the limit is {limit}: "
            f"use a shorter {kind} ({value[:40]!r}…)"
        )
    # ASCII printable names (the common case) need no per-character lookup.
    if not (value.isascii() and value.isprintable()):
        for index, char in enumerate(value):
            category = unicodedata.category(char)
            if category in _FORBIDDEN_CATEGORIES:
                raise InvalidNameError(
                    f"{kind} {value!r} has {_CATEGORY_NAMES[category]} "
                    f"(U+{ord(char):04X}) at index {index}: names may hold only printable "
                    f"characters"
                )
    return value


def validate_tenant(tenant_id: object) -> str:
    """Return ``tenant_id`` if it is a valid tenant name, else raise :class:`InvalidNameError`."""
    return _check("tenant", tenant_id, MAX_TENANT_LENGTH)


def validate_stream(stream_id: object, *, allow_reserved: bool = False) -> str:
    """Return ``stream_id`` if it is a valid stream name, else raise :class:`InvalidNameError`.

    Streams starting with ``ledger/`` are reserved for the store unless ``allow_reserved``.
    """
    name = _check("stream", stream_id, MAX_STREAM_LENGTH)
    if not allow_reserved and name.startswith(RESERVED_STREAM_PREFIX):
        raise InvalidNameError(
            f"stream {name!r} is reserved: streams starting with {RESERVED_STREAM_PREFIX!r} "
            f"are written only by the store itself (erasures); choose another stream name"
        )
    return name


def validate_event_type(event_type: object) -> str:
    """Return ``event_type`` if it is a valid event type name, else raise."""
    return _check("event type", event_type, MAX_EVENT_TYPE_LENGTH)


def validate_actor(actor: object) -> str | None:
    """Return ``actor`` (``None`` allowed) if it is a valid actor name, else raise."""
    if actor is None:
        return None
    return _check("actor", actor, MAX_ACTOR_LENGTH)
