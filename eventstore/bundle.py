"""Export bundles that an auditor verifies offline, with no access to the database.

A bundle is one JSON document (``ctxledger-bundle/1``): the tenant's event envelopes with their
payloads and salts (erased ones marked erased, payload and salt absent), the signed checkpoints,
the consistency proofs between consecutive checkpoints and, for a one-stream export, an
inclusion proof of every exported event in the newest checkpoint's tree and of the stream's
head in the heads that checkpoint signs (:mod:`eventstore.stream_heads`), which proves the
bundle is the whole stream.

:func:`verify_bundle` checks all of it from the bundle alone: payload commitments, event hashes,
per-stream chains, checkpoint signatures and their origin, forks (two roots for one size),
consistency between checkpoints, and that every event is in the checkpointed tree (a full
export recomputes every checkpoint's root from the events; a stream export checks each event's
inclusion proof). It reports every failure it finds, each with the check, the position and
what was expected against what was found.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Callable
from typing import Any, Protocol, cast

from eventstore.bundle_checks import erasure_names
from eventstore.bundle_verify import BUNDLE_FORMAT, BundleFailure, BundleReport, verify_bundle
from eventstore.errors import LedgerError
from eventstore.merkle import Algorithm, ProofError, verify_consistency
from eventstore.notes import Checkpoint, open_note, parse_checkpoint
from eventstore.records import CHECKPOINT_STREAM, StoredEvent, checkpoint_advice, default_origin
from eventstore.stream_heads import head_proof, heads_at

__all__ = [
    "BUNDLE_FORMAT",
    "BundleFailure",
    "BundleReport",
    "BundleSource",
    "StoreSource",
    "export_bundle",
    "verify_bundle",
]


class BundleSource(Protocol):
    """What the exporter reads: the store, or a wrapper around it (as the adversarial tests
    use to play a malicious store)."""

    async def events(self, tenant_id: str, last: int) -> list[StoredEvent]: ...
    async def checkpoint_notes(self, tenant_id: str) -> list[str]: ...
    async def inclusion_proof(self, tenant_id: str, position: int, size: int) -> list[bytes]: ...
    async def consistency_proof(self, tenant_id: str, size1: int, size2: int) -> list[bytes]: ...


def _b64(raw: bytes | None) -> str | None:
    return None if raw is None else base64.b64encode(raw).decode()


async def export_bundle(
    source: BundleSource,
    tenant_id: str,
    *,
    stream: str | None = None,
    origin: str | None = None,
    trusted_size: int | None = None,
    trusted: Checkpoint | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The bundle of a tenant (or one stream), up to its newest checkpoint.

    ``progress`` is told ``(done, total)`` events as they are read and proved.

    A stream export also carries the ``PayloadErased`` events that explain its erased events
    (``erasures``), with inclusion proofs. With ``trusted_size`` (the size of a checkpoint an
    auditor holds) the bundle carries the consistency proof from it to the newest checkpoint;
    with ``trusted`` (that checkpoint itself) the export first checks that it is a checkpoint
    of this log: same origin and hash, and the log's tree at its size has its root.

    Raises:
        LedgerError: the tenant has no checkpoint yet (run ``ctxledger checkpoint`` first); an
            exported payload is missing and no ``PayloadErased`` up to the newest checkpoint
            names it; ``trusted_size`` is beyond the newest checkpoint; ``trusted`` is not a
            checkpoint of this log.
    """
    notes = await source.checkpoint_notes(tenant_id)
    if not notes:
        raise LedgerError(
            f"tenant {tenant_id!r} has no checkpoint to export against; "
            f"{checkpoint_advice(tenant_id)}"
        )
    checkpoints = [parse_checkpoint(open_note(note, [])[0]) for note in notes]
    newest = max(checkpoints, key=lambda c: c.size)
    entries = [_entry(e) for e in await source.events(tenant_id, newest.size)]
    if progress is not None:
        progress(len(entries) if stream is None else 0, len(entries))
    named = erasure_names(entries)
    _refuse_unexplained(entries, named, stream)
    chosen = entries if stream is None else [e for e in entries if e["stream_id"] == stream]
    erasures = [] if stream is None else _explaining(entries, chosen, named)
    if trusted is not None:
        await _check_trusted_is_ours(source, tenant_id, trusted, newest)
        trusted_size = trusted.size
    sizes = sorted({c.size for c in checkpoints})
    pairs = list(itertools.pairwise(sizes))
    if trusted_size is not None:
        if trusted_size > newest.size:
            raise LedgerError(
                f"the trusted checkpoint covers {trusted_size} events but the log's newest "
                f"checkpoint covers {newest.size}: the log is shorter than what was published "
                f"(truncated or restored from an older copy)"
            )
        pairs.append((trusted_size, newest.size))
    consistency = [
        {
            "from": a,
            "to": b,
            "proof": [p.hex() for p in await source.consistency_proof(tenant_id, a, b)],
        }
        for a, b in dict.fromkeys(pairs)
        if a < b
    ]
    inclusion = {}
    if stream is not None:
        proved = [*chosen, *erasures]
        for done, entry in enumerate(proved, start=1):
            proof = await source.inclusion_proof(tenant_id, entry["position"], newest.size)
            inclusion[str(entry["position"])] = [p.hex() for p in proof]
            if progress is not None:
                progress(done, len(proved))
    bundle = {
        "format": BUNDLE_FORMAT,
        "tenant": tenant_id,
        "stream": stream,
        "origin": origin or newest.origin or default_origin(tenant_id),
        "algorithm": newest.algorithm,
        "tree_size": newest.size,
        "events": chosen,
        "checkpoints": notes,
        "consistency": consistency,
        "inclusion": inclusion,
    }
    if stream is not None:
        bundle["erasures"] = erasures
        if newest.heads is not None and chosen:
            heads = heads_at(_Head.of(e) for e in entries)
            bundle["stream_head"] = head_proof(heads, stream, newest.algorithm)  # type: ignore[arg-type]
    return bundle


async def _check_trusted_is_ours(
    source: BundleSource, tenant_id: str, trusted: Checkpoint, newest: Checkpoint
) -> None:
    """Refuse a checkpoint of another log (origin, hash mode or root differ)."""
    problem = None
    if trusted.origin != newest.origin:
        problem = f"it is for origin {trusted.origin!r}, this log is {newest.origin!r}"
    elif trusted.algorithm != newest.algorithm:
        problem = f"it uses {trusted.algorithm}, this log {newest.algorithm}"
    elif 0 < trusted.size <= newest.size:
        proof = await source.consistency_proof(tenant_id, trusted.size, newest.size)
        try:
            algorithm = cast(Algorithm, newest.algorithm)
            verify_consistency(
                trusted.size, newest.size, trusted.root, newest.root, proof, algorithm
            )
        except ProofError:
            problem = f"this log's tree of {trusted.size} events has another root"
    if problem is not None:
        raise LedgerError(
            f"the checkpoint given is not a checkpoint of tenant {tenant_id}'s log: {problem}; "
            f"give a checkpoint this log published (ctxledger checkpoint prints one)"
        )


class _Head:
    """An exported entry as :func:`heads_at` reads it."""

    def __init__(self, stream_id: str, version: int, event_hash: bytes) -> None:
        self.stream_id, self.version, self.hash = stream_id, version, event_hash

    @classmethod
    def of(cls, entry: dict[str, Any]) -> _Head:
        return cls(entry["stream_id"], entry["version"], bytes.fromhex(entry["hash"]))


def _entry(e: StoredEvent) -> dict[str, Any]:
    return {
        "tenant_id": e.tenant_id,
        "stream_id": e.stream_id,
        "version": e.version,
        "position": e.position,
        "event_id": e.event_id,
        "type": e.type,
        "schema_version": e.schema_version,
        "recorded_at": e.recorded_at,
        "actor": e.actor,
        "payload_hash": e.payload_hash.hex(),
        "prev_hash": e.prev_hash.hex(),
        "hash": e.hash.hex(),
        "payload": _b64(e.payload),
        "salt": _b64(e.salt),
        "erased": e.payload is None,
    }


def _refuse_unexplained(
    entries: list[dict[str, Any]], named: dict[str, int], stream: str | None
) -> None:
    for entry in entries:
        if entry["payload"] is None and entry["event_id"] not in named:
            if stream is not None and entry["stream_id"] != stream:
                continue
            raise LedgerError(
                f"event {entry['event_id']} (position {entry['position']}) has no payload and "
                f"no PayloadErased up to the newest checkpoint names it. If it was erased "
                f"since, record a checkpoint and export again; otherwise its payload was "
                f"deleted behind the store's back: run 'ctxledger verify'"
            )


def _explaining(
    entries: list[dict[str, Any]], chosen: list[dict[str, Any]], named: dict[str, int]
) -> list[dict[str, Any]]:
    """The erasure events that name the erased events among ``chosen``."""
    wanted = {named[e["event_id"]] for e in chosen if e["payload"] is None}
    return [e for e in entries if e["position"] in wanted]


class StoreSource:
    """The :class:`BundleSource` of an :class:`~eventstore.store.EventStore`."""

    def __init__(self, store: Any, algorithm: Algorithm = "blake3") -> None:
        self.store = store
        self.algorithm: Algorithm = algorithm

    async def events(self, tenant_id: str, last: int) -> list[StoredEvent]:
        found: list[StoredEvent] = []
        cursor = 0
        while cursor < last:
            batch = await self.store.recorder.read_log(tenant_id, cursor, 1000, last)
            if not batch:
                break
            found += batch
            cursor = batch[-1].position
        return found

    async def checkpoint_notes(self, tenant_id: str) -> list[str]:
        events = await self.store.read_stream(tenant_id, CHECKPOINT_STREAM)
        return [e.data["note"] for e in events if e.data]

    async def inclusion_proof(self, tenant_id: str, position: int, size: int) -> list[bytes]:
        proof: list[bytes] = await self.store.tree(tenant_id, self.algorithm).inclusion_proof(
            position, size
        )
        return proof

    async def consistency_proof(self, tenant_id: str, size1: int, size2: int) -> list[bytes]:
        proof: list[bytes] = await self.store.tree(tenant_id, self.algorithm).consistency_proof(
            size1, size2
        )
        return proof
