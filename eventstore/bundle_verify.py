"""Verification of an exported bundle from the bundle alone (see :mod:`eventstore.bundle`)."""

from __future__ import annotations

import base64
import itertools
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from eventstore.bundle_checks import (
    Fail,
    check_checkpoint_events,
    check_erasures,
    check_trusted,
    erasure_names,
)
from eventstore.bundle_range import check_stream_range
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
from eventstore.records import ERASURE_EVENT_TYPE, ERASURE_STREAM

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
    #: for a stream bundle that does not prove both ends of its range: which versions of how
    #: many it holds (it then verifies only with ``allow_partial``)
    partial: str | None = None


def _hex(value: Any, name: str) -> bytes:
    if not isinstance(value, str):
        raise ValueError(f"{name} is not a hex string")
    return bytes.fromhex(value)


def verify_bundle(
    bundle: Any,
    verifiers: Sequence[Verifier] = (),
    trusted: Sequence[str] = (),
    *,
    allow_partial: bool = False,
) -> BundleReport:
    """Verify a bundle offline (see the module's docstring). With ``verifiers``, every
    checkpoint must carry a valid signature of one of them; without, signatures are not
    checked (the report says so) but everything else is. Each of ``trusted`` (a signed
    checkpoint note published earlier) must be extended by the bundle's log. A stream bundle
    must prove its range (:mod:`eventstore.bundle_range`): one that does not is ``partial``
    and not ``ok`` unless ``allow_partial``."""
    failures: list[BundleFailure] = []

    def fail(check: str, detail: str, position: int | None = None) -> None:
        failures.append(BundleFailure(check=check, detail=detail, position=position))

    if not isinstance(bundle, dict) or bundle.get("format") != BUNDLE_FORMAT:
        found = bundle.get("format") if isinstance(bundle, dict) else type(bundle).__name__
        fail("format", f"expected a {BUNDLE_FORMAT} document, found {found!r}")
        return _report(bundle, failures, 0, 0, 0, 0, bool(verifiers))
    algorithm: Algorithm = bundle.get("algorithm", "blake3")
    roots, signed = _check_checkpoints(bundle, verifiers, fail)
    _check_consistency(bundle, roots, algorithm, fail)
    events = bundle.get("events") or []
    full = bundle.get("stream") is None
    erased, leaves = _check_events(bundle, events, roots, fail)
    erasures = [] if full else _check_erasure_events(bundle, roots, fail)
    check_erasures(events, erasure_names([*events, *erasures]), fail)
    if full:
        check_checkpoint_events(events, bundle.get("checkpoints") or [], fail)
        if roots:
            _check_roots(leaves, roots, algorithm, fail)
    partial = None if full else check_stream_range(bundle, events, fail)
    for note in trusted:
        check_trusted(bundle, note, verifiers, roots, leaves if full else None, fail)
    report = _report(bundle, failures, len(events), erased, len(roots), signed, bool(verifiers))
    ok = report.ok and (partial is None or allow_partial)
    return report.model_copy(update={"partial": partial, "ok": ok})


def _check_checkpoints(
    bundle: dict[str, Any], verifiers: Sequence[Verifier], fail: Fail
) -> tuple[dict[int, bytes], int]:
    """Signatures, origin, algorithm and forks of the bundle's checkpoints."""
    roots: dict[int, bytes] = {}
    signed = 0
    for index, note in enumerate(bundle.get("checkpoints") or []):
        try:
            body, names = open_note(note, list(verifiers))
            checkpoint = parse_checkpoint(body)
        except (NoteError, TypeError, AttributeError) as error:
            fail("checkpoint", f"checkpoint {index}: {error}", None)
            continue
        label = f"checkpoint {index}"
        if verifiers and not names:
            fail(
                "signature",
                f"{label} (size {checkpoint.size}) carries no signature of the given keys",
                None,
            )
        signed += bool(names)
        if checkpoint.origin != bundle.get("origin"):
            fail(
                "origin",
                f"{label} is for origin {checkpoint.origin!r}, the bundle for "
                f"{bundle.get('origin')!r}",
                None,
            )
        if checkpoint.algorithm != bundle.get("algorithm", "blake3"):
            fail("checkpoint", f"{label} uses {checkpoint.algorithm}, the bundle another", None)
        known = roots.setdefault(checkpoint.size, checkpoint.root)
        if known != checkpoint.root:
            fail(
                "fork",
                f"two checkpoints for size {checkpoint.size} with different roots "
                f"({known.hex()} and {checkpoint.root.hex()}): the log forked",
                None,
            )
    if not roots:
        fail("checkpoint", "the bundle has no readable checkpoint", None)
    elif bundle.get("tree_size") != max(roots):
        fail(
            "tree size",
            f"the bundle claims tree size {bundle.get('tree_size')}, its newest checkpoint "
            f"says {max(roots)}",
            None,
        )
    return roots, signed


def _check_consistency(
    bundle: dict[str, Any], roots: dict[int, bytes], algorithm: Algorithm, fail: Fail
) -> None:
    """Each checkpoint extends the one before it."""
    proofs = {(p.get("from"), p.get("to")): p.get("proof") for p in bundle.get("consistency") or []}
    for a, b in itertools.pairwise(sorted(roots)):
        proof = proofs.get((a, b))
        if proof is None:
            fail("consistency", f"no consistency proof from size {a} to {b}", None)
            continue
        try:
            hashes = [_hex(p, "proof") for p in proof]
            verify_consistency(a, b, roots[a], roots[b], hashes, algorithm)
        except (ProofError, ValueError) as error:
            fail("consistency", f"{a} → {b}: {error}", None)


def _check_events(
    bundle: dict[str, Any], events: list[Any], roots: dict[int, bytes], fail: Fail
) -> tuple[int, list[bytes]]:
    """Commitments, hashes, chains, order and membership; returns (erased, leaves)."""
    erased = 0
    heads: dict[str, tuple[int, bytes]] = {}
    leaves: list[bytes] = []
    last_position = 0
    for raw in events:
        position = raw.get("position") if isinstance(raw, dict) else None
        try:
            erased += _check_event(raw, bundle.get("tenant"), heads, fail)
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
            if bundle.get("stream") is None and position != last_position + 1:
                fail(
                    "missing",
                    f"positions {last_position + 1}..{position - 1} are missing",
                    position,
                )
            last_position = position
        leaves.append(digest)
        if bundle.get("stream") is not None:
            _check_inclusion(bundle, position, digest, roots, fail)
    return erased, leaves


def _check_erasure_events(bundle: dict[str, Any], roots: dict[int, bytes], fail: Fail) -> list[Any]:
    """The ``PayloadErased`` events a stream export carries to explain its erased events:
    each verified like an event, and included in the checkpointed tree."""
    erasures = bundle.get("erasures") or []
    heads: dict[str, tuple[int, bytes]] = {}
    for raw in erasures:
        position = raw.get("position") if isinstance(raw, dict) else None
        try:
            if raw["stream_id"] != ERASURE_STREAM or raw["type"] != ERASURE_EVENT_TYPE:
                fail("erasure", "an entry of 'erasures' is not a PayloadErased event", position)
                continue
            heads.pop(ERASURE_STREAM, None)  # not consecutive: links are not checked
            _check_event(raw, bundle.get("tenant"), heads, fail)
            _check_inclusion(bundle, position, _hex(raw["hash"], "hash"), roots, fail)
        except (KeyError, ValueError, TypeError) as error:
            fail("erasure", f"malformed erasure event: {error}", position)
    return list(erasures)


def _check_inclusion(
    bundle: dict[str, Any], position: Any, digest: bytes, roots: dict[int, bytes], fail: Fail
) -> None:
    if not roots or not isinstance(position, int):
        return
    newest = max(roots)
    proof = (bundle.get("inclusion") or {}).get(str(position))
    if proof is None:
        fail("inclusion", "no inclusion proof", position)
        return
    algorithm: Algorithm = bundle.get("algorithm", "blake3")
    try:
        hashes = [_hex(p, "proof") for p in proof]
        verify_inclusion(
            position - 1, newest, leaf_hash(digest, algorithm), hashes, roots[newest], algorithm
        )
    except (ProofError, ValueError) as error:
        fail("inclusion", str(error), position)


def _check_event(
    raw: dict[str, Any], tenant: Any, heads: dict[str, tuple[int, bytes]], fail: Fail
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
    leaves: list[bytes], roots: dict[int, bytes], algorithm: Algorithm, fail: Fail
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
