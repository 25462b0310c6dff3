"""Verification of an exported bundle from the bundle alone (see :mod:`eventstore.bundle`)."""

from __future__ import annotations

import base64
import itertools
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from eventstore.hashing import event_hash, genesis_hash, header_bytes, payload_hash
from eventstore.merkle import (
    Algorithm,
    ProofError,
    leaf_hash,
    prefix_roots,
    verify_consistency,
    verify_inclusion,
)
from eventstore.notes import NoteError, Verifier, open_note, parse_checkpoint

__all__ = ["BUNDLE_FORMAT", "BundleFailure", "BundleReport", "verify_bundle"]

BUNDLE_FORMAT = "ctxledger-bundle/1"


class BundleFailure(BaseModel):
    """One thing that did not verify."""

    model_config = ConfigDict(frozen=True)

    check: str
    detail: str
    position: int | None = None


class BundleReport(BaseModel):
    """What ``verify_bundle`` checked and found."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    tenant: str | None
    stream: str | None
    tree_size: int | None
    events: int
    erased: int
    checkpoints: int
    signatures_verified: int
    signatures_checked: bool
    failures: list[BundleFailure]


def _hex(value: Any, name: str) -> bytes:
    if not isinstance(value, str):
        raise ValueError(f"{name} is not a hex string")
    return bytes.fromhex(value)


def verify_bundle(bundle: Any, verifiers: Sequence[Verifier] = ()) -> BundleReport:
    """Verify a bundle offline (see the module's docstring). With ``verifiers``, every
    checkpoint must carry a valid signature of one of them; without, signatures are not
    checked (the report says so) but everything else is."""
    failures: list[BundleFailure] = []

    def fail(check: str, detail: str, position: int | None = None) -> None:
        failures.append(BundleFailure(check=check, detail=detail, position=position))

    if not isinstance(bundle, dict) or bundle.get("format") != BUNDLE_FORMAT:
        found = bundle.get("format") if isinstance(bundle, dict) else type(bundle).__name__
        fail("format", f"expected a {BUNDLE_FORMAT} document, found {found!r}")
        return _report(bundle, failures, 0, 0, 0, 0, bool(verifiers))
    tenant = bundle.get("tenant")
    algorithm: Algorithm = bundle.get("algorithm", "blake3")
    origin = bundle.get("origin")
    stream = bundle.get("stream")

    # Checkpoints: signatures, origin, algorithm, forks.
    roots: dict[int, bytes] = {}
    signed = 0
    for index, note in enumerate(bundle.get("checkpoints") or []):
        try:
            body, names = open_note(note, list(verifiers))
            checkpoint = parse_checkpoint(body)
        except (NoteError, TypeError, AttributeError) as error:
            fail("checkpoint", f"checkpoint {index}: {error}")
            continue
        if verifiers and not names:
            fail(
                "signature",
                f"checkpoint {index} (size {checkpoint.size}) carries no "
                f"signature of the given keys",
            )
        signed += bool(names)
        if checkpoint.origin != origin:
            fail(
                "origin",
                f"checkpoint {index} is for origin {checkpoint.origin!r}, the "
                f"bundle for {origin!r}",
            )
        if checkpoint.algorithm != algorithm:
            fail(
                "checkpoint",
                f"checkpoint {index} uses {checkpoint.algorithm}, the bundle {algorithm}",
            )
        known = roots.get(checkpoint.size)
        if known is not None and known != checkpoint.root:
            fail(
                "fork",
                f"two checkpoints for size {checkpoint.size} with different roots "
                f"({known.hex()} and {checkpoint.root.hex()}): the log forked",
            )
        roots.setdefault(checkpoint.size, checkpoint.root)
    if not roots:
        fail("checkpoint", "the bundle has no readable checkpoint")
    tree_size = bundle.get("tree_size")
    if roots and tree_size != max(roots):
        fail(
            "tree size",
            f"the bundle claims tree size {tree_size}, its newest checkpoint says {max(roots)}",
        )

    # Consistency between consecutive checkpoints.
    sizes = sorted(roots)
    proofs = {(p.get("from"), p.get("to")): p.get("proof") for p in bundle.get("consistency") or []}
    for a, b in itertools.pairwise(sizes):
        proof = proofs.get((a, b))
        if proof is None:
            fail("consistency", f"no consistency proof from size {a} to {b}")
            continue
        try:
            verify_consistency(
                a, b, roots[a], roots[b], [_hex(p, "proof") for p in proof], algorithm
            )
        except (ProofError, ValueError) as error:
            fail("consistency", f"{a} → {b}: {error}")

    # Events: commitments, hashes, chains, membership.
    events = bundle.get("events") or []
    erased = 0
    heads: dict[str, tuple[int, bytes]] = {}
    leaves: list[bytes] = []
    last_position = 0
    for raw in events:
        position = raw.get("position") if isinstance(raw, dict) else None
        try:
            erased += _check_event(raw, tenant, heads, fail)
            digest = _hex(raw["hash"], "hash")
        except (KeyError, ValueError, TypeError) as error:
            fail("event", f"malformed event: {error}", position)
            continue
        if not isinstance(position, int) or position <= last_position:
            fail(
                "order",
                f"event at position {position} comes after position "
                f"{last_position}: events are missing their order",
                position,
            )
        else:
            if stream is None and position != last_position + 1:
                fail(
                    "missing",
                    f"positions {last_position + 1}..{position - 1} are missing",
                    position,
                )
            last_position = position
        leaves.append(digest)
        if stream is not None and roots and isinstance(position, int):
            newest = max(roots)
            proof = (bundle.get("inclusion") or {}).get(str(position))
            if proof is None:
                fail("inclusion", "no inclusion proof", position)
                continue
            try:
                verify_inclusion(
                    position - 1,
                    newest,
                    leaf_hash(digest, algorithm),
                    [_hex(p, "proof") for p in proof],
                    roots[newest],
                    algorithm,
                )
            except (ProofError, ValueError) as error:
                fail("inclusion", str(error), position)
    if stream is None and roots:
        _check_roots(leaves, roots, algorithm, fail)
    return _report(bundle, failures, len(events), erased, len(roots), signed, bool(verifiers))


def _check_event(
    raw: dict[str, Any], tenant: Any, heads: dict[str, tuple[int, bytes]], fail: Any
) -> int:
    """Check one event's commitment, hash and chain link; returns 1 if it is erased."""
    position = raw["position"]
    commitment = _hex(raw["payload_hash"], "payload_hash")
    is_erased = raw.get("payload") is None
    if raw.get("erased") != is_erased:
        fail("payload", "the erased flag disagrees with the payload", position)
    if not is_erased:
        payload = base64.b64decode(raw["payload"], validate=True)
        salt = base64.b64decode(raw.get("salt") or "", validate=True)
        if payload_hash(salt, payload) != commitment:
            fail("payload", "the payload does not match its commitment: it was rewritten", position)
    if raw["tenant_id"] != tenant:
        fail("tenant", f"event of tenant {raw['tenant_id']!r} in a bundle of {tenant!r}", position)
    stream_id = raw["stream_id"]
    prev = _hex(raw["prev_hash"], "prev_hash")
    version, expected_prev = heads.get(stream_id, (0, genesis_hash(raw["tenant_id"], stream_id)))
    if raw["version"] == version + 1 and prev != expected_prev:
        fail("chain", f"{stream_id} v{raw['version']} does not link to v{version}", position)
    elif raw["version"] != version + 1 and version:
        fail("chain", f"{stream_id} jumps from v{version} to v{raw['version']}", position)
    header = header_bytes(
        tenant_id=raw["tenant_id"],
        stream_id=stream_id,
        version=raw["version"],
        position=position,
        event_id=raw["event_id"],
        type=raw["type"],
        schema_version=raw["schema_version"],
        recorded_at=raw["recorded_at"],
        actor=raw["actor"],
        payload_hash=commitment,
        prev_hash=prev,
    )
    digest = _hex(raw["hash"], "hash")
    if event_hash(prev, header) != digest:
        fail("event hash", "the envelope does not match its hash: it was edited", position)
    heads[stream_id] = (raw["version"], digest)
    return int(is_erased)


def _check_roots(
    leaves: list[bytes], roots: dict[int, bytes], algorithm: Algorithm, fail: Any
) -> None:
    """Recompute the root at every checkpointed size from the events (a full export)."""
    for size in sorted(roots):
        if size > len(leaves):
            fail(
                "tree size",
                f"checkpoint size {size} is beyond the {len(leaves)} exported events",
            )
    for size, top in prefix_roots(leaves, roots.keys(), algorithm).items():
        if top != roots[size]:
            fail(
                "root",
                f"the events give root {top.hex()} for size {size}, the checkpoint says "
                f"{roots[size].hex()}",
            )


def _report(
    bundle: Any,
    failures: list[BundleFailure],
    events: int,
    erased: int,
    checkpoints: int,
    signed: int,
    checked: bool,
) -> BundleReport:
    known = bundle if isinstance(bundle, dict) else {}
    return BundleReport(
        ok=not failures,
        tenant=known.get("tenant"),
        stream=known.get("stream"),
        tree_size=known.get("tree_size"),
        events=events,
        erased=erased,
        checkpoints=checkpoints,
        signatures_verified=signed,
        signatures_checked=checked,
        failures=failures,
    )
