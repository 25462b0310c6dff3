"""Hash spec v1: payload commitments, event hashes and stream genesis (docs/hash-spec.md).

All three use BLAKE3 in ``derive_key`` mode, each with its own context string, so a hash of one
kind can never be mistaken for a hash of another kind. Pure: no I/O.
"""

from __future__ import annotations

import os

from blake3 import blake3

from eventstore.encoding import encode_trusted

__all__ = [
    "EVENT_CONTEXT",
    "GENESIS_CONTEXT",
    "HASH_SIZE",
    "PAYLOAD_CONTEXT",
    "SALT_SIZE",
    "event_hash",
    "genesis_hash",
    "header_bytes",
    "new_salt",
    "payload_hash",
    "snapshot_hash",
]

PAYLOAD_CONTEXT = "ctxledger payload v1"
EVENT_CONTEXT = "ctxledger event v1"
GENESIS_CONTEXT = "ctxledger genesis v1"
SNAPSHOT_CONTEXT = "ctxledger snapshot v1"
HASH_SIZE = 32
SALT_SIZE = 16


def new_salt() -> bytes:
    """Return a fresh random salt for a payload commitment."""
    return os.urandom(SALT_SIZE)


def payload_hash(salt: bytes, payload: bytes) -> bytes:
    """``BLAKE3-derive_key("ctxledger payload v1", salt || payload)``."""
    return blake3(salt + payload, derive_key_context=PAYLOAD_CONTEXT).digest()


def genesis_hash(tenant_id: str, stream_id: str) -> bytes:
    """The ``prev_hash`` of the first event of a stream: binds the chain to tenant and stream."""
    material = tenant_id.encode("utf-8") + b"\x00" + stream_id.encode("utf-8")
    return blake3(material, derive_key_context=GENESIS_CONTEXT).digest()


def header_bytes(
    *,
    tenant_id: str,
    stream_id: str,
    version: int,
    position: int,
    event_id: str,
    type: str,
    schema_version: int,
    recorded_at: str,
    actor: str | None,
    payload_hash: bytes,
    prev_hash: bytes,
) -> bytes:
    """The canonical JSON of an event header: every envelope field except ``hash``.

    The fields are strings, integers and null only (validated before anything is written), so
    they are encoded without the input walk that user data needs.
    """
    return encode_trusted(
        {
            "actor": actor,
            "event_id": event_id,
            "payload_hash": payload_hash.hex(),
            "position": position,
            "prev_hash": prev_hash.hex(),
            "recorded_at": recorded_at,
            "schema_version": schema_version,
            "stream_id": stream_id,
            "tenant_id": tenant_id,
            "type": type,
            "version": version,
        }
    )


def event_hash(prev_hash: bytes, header: bytes) -> bytes:
    """``BLAKE3-derive_key("ctxledger event v1", prev_hash || canonical(header))``."""
    return blake3(prev_hash + header, derive_key_context=EVENT_CONTEXT).digest()


def snapshot_hash(
    tenant_id: str,
    name: str,
    stream_id: str,
    projection_version: int,
    version: int,
    position: int,
    state: bytes,
) -> bytes:
    """The hash that guards a projection snapshot, bound to what it is a snapshot of."""
    identity = encode_trusted(
        {
            "name": name,
            "position": position,
            "projection_version": projection_version,
            "stream_id": stream_id,
            "tenant_id": tenant_id,
            "version": version,
        }
    )
    return blake3(identity + b"\x00" + state, derive_key_context=SNAPSHOT_CONTEXT).digest()
