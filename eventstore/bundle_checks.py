"""The checks of a bundle that need more than one event: erasures must be explained, every
checkpoint event of a full export must be in it, and a trusted checkpoint must be extended.

They close what a hash chain leaves open. A payload can be deleted behind the store's back and
the event marked ``erased``: the commitment still verifies, so only the absence of a
``PayloadErased`` naming the event betrays the censorship. A checkpoint can be dropped from a
bundle (or its event erased) so that the bundle ends at an older one. And a bundle cut from an
old copy of the log verifies on its own: only a checkpoint published earlier, held by the
auditor, shows that it ends too soon.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from eventstore.encoding import decode_json
from eventstore.merkle import Algorithm, ProofError, prefix_roots, verify_consistency
from eventstore.notes import NoteError, Verifier, open_note, parse_checkpoint
from eventstore.records import (
    CHECKPOINT_EVENT_TYPE,
    CHECKPOINT_STREAM,
    ERASURE_EVENT_TYPE,
    ERASURE_STREAM,
)

__all__ = ["Fail", "check_checkpoint_events", "check_erasures", "check_trusted", "erasure_names"]


class Fail(Protocol):
    """Records one failure of a check, at an event's position when there is one."""

    def __call__(self, check: str, detail: str, position: int | None = None) -> None: ...


def erasure_names(events: Sequence[Any]) -> dict[str, int]:
    """Event id → position of the first ``PayloadErased`` among ``events`` that names it.

    Only erasure events whose payload is present are read; their commitments are checked with
    the other events, so a forged one fails there."""
    named: dict[str, int] = {}
    for raw in events:
        if not isinstance(raw, dict) or not _is(raw, ERASURE_STREAM, ERASURE_EVENT_TYPE):
            continue
        try:
            ids = decode_json(base64.b64decode(raw["payload"], validate=True))["event_ids"]
        except (KeyError, TypeError, ValueError, binascii.Error):
            continue
        for event_id in ids if isinstance(ids, list) else ():
            named.setdefault(str(event_id), raw.get("position", 0))
    return named


def check_erasures(events: Sequence[Any], named: Mapping[str, int], fail: Fail) -> None:
    """Every event without a payload must be named by an earlier-verified ``PayloadErased``
    recorded after it."""
    for raw in events:
        if not isinstance(raw, dict) or raw.get("payload") is not None:
            continue
        position = raw.get("position")
        erased_by = named.get(str(raw.get("event_id")))
        if _is(raw, CHECKPOINT_STREAM, CHECKPOINT_EVENT_TYPE):
            fail(
                "erasure",
                "a checkpoint event has no payload: checkpoints are never erased",
                position,
            )
        elif erased_by is None:
            fail(
                "erasure",
                f"event {raw.get('event_id')} has no payload and no PayloadErased in the "
                f"bundle names it: the payload was deleted behind the store (censorship)",
                position,
            )
        elif isinstance(position, int) and erased_by <= position:
            fail(
                "erasure",
                f"the PayloadErased naming it (position {erased_by}) precedes it",
                position,
            )


def check_checkpoint_events(events: Sequence[Any], notes: Sequence[Any], fail: Fail) -> None:
    """In a full export, the checkpoint notes are exactly those of its checkpoint events."""
    logged = []
    for raw in events:
        if isinstance(raw, dict) and _is(raw, CHECKPOINT_STREAM, CHECKPOINT_EVENT_TYPE):
            try:
                logged.append(decode_json(base64.b64decode(raw["payload"]))["note"])
            except (KeyError, TypeError, ValueError, binascii.Error):
                continue  # an erased or unreadable checkpoint fails elsewhere
    missing = [note for note in logged if note not in notes]
    if missing:
        fail(
            "checkpoint",
            f"{len(missing)} checkpoint(s) recorded in the log are not among the bundle's "
            f"checkpoints: a checkpoint was dropped",
            None,
        )


def check_trusted(
    bundle: Mapping[str, Any],
    note: str,
    verifiers: Sequence[Verifier],
    roots: Mapping[int, bytes],
    leaves: Sequence[bytes] | None,
    fail: Fail,
) -> None:
    """Prove that the bundle's log extends a checkpoint published earlier.

    Args:
        roots: the bundle's own checkpointed roots by size (already checked).
        leaves: the event hashes of a full export (None for a stream export).
    """
    try:
        body, names = open_note(note, list(verifiers))
        trusted = parse_checkpoint(body)
    except NoteError as error:
        fail("trusted checkpoint", str(error), None)
        return
    if verifiers and not names:
        fail("trusted checkpoint", "it carries no valid signature of the given keys", None)
        return
    size, newest = trusted.size, max(roots, default=0)
    algorithm: Algorithm = bundle.get("algorithm", "blake3")
    if trusted.algorithm != algorithm:
        fail("trusted checkpoint", f"it uses {trusted.algorithm}, the bundle {algorithm}", None)
    elif size > newest:
        fail(
            "trusted checkpoint",
            f"it covers {size} events but the bundle's log ends at {newest}: the log was "
            f"truncated or restored from an older copy",
            None,
        )
    elif size in roots:
        if roots[size] != trusted.root:
            fail("trusted checkpoint", f"the log's root at size {size} differs: it forked", None)
    elif leaves is not None:
        if prefix_roots(leaves, {size}, algorithm).get(size) != trusted.root:
            fail("trusted checkpoint", f"the events do not give its root at size {size}", None)
    else:
        _check_trusted_proof(bundle, size, newest, trusted.root, roots[newest], algorithm, fail)


def _check_trusted_proof(
    bundle: Mapping[str, Any],
    size: int,
    newest: int,
    trusted_root: bytes,
    newest_root: bytes,
    algorithm: Algorithm,
    fail: Fail,
) -> None:
    proofs = {(p.get("from"), p.get("to")): p.get("proof") for p in bundle.get("consistency") or []}
    proof = proofs.get((size, newest))
    if proof is None:
        fail(
            "trusted checkpoint",
            f"the bundle holds no consistency proof from size {size} to {newest}; export it "
            f"with --checkpoint FILE",
            None,
        )
        return
    try:
        hashes = [bytes.fromhex(p) for p in proof]
        verify_consistency(size, newest, trusted_root, newest_root, hashes, algorithm)
    except (ProofError, ValueError, TypeError) as error:
        fail("trusted checkpoint", f"{size} → {newest}: {error}", None)


def _is(raw: Mapping[str, Any], stream: str, type_: str) -> bool:
    return raw.get("stream_id") == stream and raw.get("type") == type_
