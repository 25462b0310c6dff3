"""Event ids: canonical UUID text in the API and the hash, 16 raw bytes in the database.

Both directions are plain hex slicing, several times cheaper than building ``uuid.UUID``
objects, which matters on every row of an append and of a verification. Pure: no I/O.
"""

from __future__ import annotations

__all__ = ["id_bytes", "id_text"]


def id_bytes(event_id: str) -> bytes:
    """The 16 bytes of a canonical (lower-case, hyphenated) UUID string."""
    return bytes.fromhex(event_id.replace("-", ""))


def id_text(raw: object) -> str:
    """The canonical UUID string of 16 stored bytes; a marked repr for anything else."""
    if isinstance(raw, bytes) and len(raw) == 16:
        h = raw.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    # A tampered id: keep something printable so verification can name it.
    return f"invalid-event-id:{raw!r}"
