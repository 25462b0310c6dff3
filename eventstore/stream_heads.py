"""Stream heads committed by a checkpoint, so that a one-stream bundle proves its range.

A tenant's Merkle tree proves that an event is in the log, not that a stream has no later
event: a bundle of versions 3–7 of a stream verified event by event. So a checkpoint also
signs the heads of every stream at its tree size: the sorted ``(stream, version, event hash)``
of each stream's last event, as the leaves of a second Merkle tree (same hash mode), whose
leaf count and root the note carries in the extension line ``ctxledger-heads: <n> <root>``.
A stream bundle then carries the inclusion proof of its last event's head leaf: with it, and
its first event linking to the stream's genesis, the bundle is the whole stream at that
checkpoint (hash spec: docs/hash-spec.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from eventstore.merkle import Algorithm, inclusion_proof, leaf_hash, root, verify_inclusion

__all__ = ["Head", "head_leaf", "head_proof", "heads_at", "heads_root", "verify_head"]

Head = tuple[str, int, bytes]  # stream id, version, event hash


def head_leaf(stream_id: str, version: int, event_hash: bytes) -> bytes:
    """The leaf data of a stream head: the stream id's UTF-8 length (4 bytes, big-endian) and
    bytes, the version (8 bytes, big-endian) and the 32-byte event hash."""
    name = stream_id.encode()
    return len(name).to_bytes(4, "big") + name + version.to_bytes(8, "big") + event_hash


def heads_at(events: Iterable[Any]) -> list[Head]:
    """The last event of each stream among ``events`` (records with ``stream_id``, ``version``
    and ``hash``), sorted by stream id."""
    last: dict[str, Head] = {}
    for event in events:
        known = last.get(event.stream_id)
        if known is None or event.version > known[1]:
            last[event.stream_id] = (event.stream_id, event.version, bytes(event.hash))
    return [last[name] for name in sorted(last)]


def heads_root(heads: Sequence[Head], algorithm: Algorithm = "blake3") -> bytes:
    """The root of the heads tree."""
    return root([head_leaf(*head) for head in heads], algorithm)


def head_proof(heads: Sequence[Head], stream_id: str, algorithm: Algorithm) -> dict[str, Any]:
    """The inclusion proof of ``stream_id``'s head (index, count and hex proof nodes)."""
    leaves = [head_leaf(*head) for head in heads]
    index = next(i for i, head in enumerate(heads) if head[0] == stream_id)
    proof = inclusion_proof(index, len(leaves), lambda lo, hi: root(leaves[lo:hi], algorithm))
    return {"index": index, "count": len(leaves), "proof": [node.hex() for node in proof]}


def verify_head(
    head: Head, proof: dict[str, Any], count: int, expected: bytes, algorithm: Algorithm
) -> None:
    """Check that ``head`` is in the heads tree of ``count`` leaves with root ``expected``
    (raises :class:`~eventstore.merkle.ProofError` or ValueError saying what failed)."""
    if proof.get("count") != count:
        raise ValueError(f"the proof is for {proof.get('count')} heads, the checkpoint has {count}")
    nodes = [bytes.fromhex(node) for node in proof.get("proof") or []]
    leaf = leaf_hash(head_leaf(*head), algorithm)
    verify_inclusion(int(proof.get("index", -1)), count, leaf, nodes, expected, algorithm)
