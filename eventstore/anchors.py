"""Binding verification to signed checkpoints and to the stored Merkle tree. Pure.

A hash chain alone proves nothing against someone who can write the database: recompute the
payload hash, the event hash, every later ``prev_hash`` and the stream head with the public
hash spec and the chain verifies again. What that person cannot redo is a checkpoint's
signature. :func:`check_anchors` therefore takes the verified event hashes of a whole tenant
(the Merkle leaves) and checks

- every ``CheckpointRecorded`` event of the log: its note opens (with a valid signature of one
  of the given keys, when keys are given), the note agrees with the event's fields, it covers
  only events before it, and the leaves give the root it signed;
- every *trusted* checkpoint (one published earlier, held outside the database): the log still
  holds at least that many events and hashes to that root, so it extends what was published —
  which is how a truncation, or a restore of an older copy, is caught;
- the stored interior nodes of the tree, recomputed from the leaves.

When a root differs, the report bounds the first differing leaf: after the largest
checkpointed size whose root still matches, and within the first 256-event chunk whose stored
node differs from the log (when the stored nodes still hold the original hashes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from eventstore.encoding import decode_json
from eventstore.merkle import ALGORITHMS, Algorithm, node_hash, prefix_roots, root
from eventstore.notes import Checkpoint, NoteError, Verifier, open_note, parse_checkpoint

__all__ = ["AnchorFinding", "AnchorReport", "LoggedCheckpoint", "check_anchors", "perfect_nodes"]

_LOGGED = "ledger/checkpoints"
_TRUSTED = "trusted checkpoint"

#: The level of the smallest stored subtree (256 leaves); see :mod:`eventstore.tree`.
_CHUNK_LEVEL = 8


@dataclass(frozen=True)
class LoggedCheckpoint:
    """A ``CheckpointRecorded`` event as read from the log (payload ``None`` if erased)."""

    position: int
    event_id: str
    payload: bytes | None


@dataclass(frozen=True)
class AnchorFinding:
    """One checkpoint or stored node that does not bind the log.

    ``subject`` is ``ledger/checkpoints`` (a checkpoint of the log), ``trusted checkpoint``
    or ``merkle tree`` (a stored node)."""

    subject: str
    position: int | None
    event_id: str | None
    reason: str


@dataclass(frozen=True)
class AnchorReport:
    """What :func:`check_anchors` checked and found."""

    checkpoints: int
    trusted: int
    signatures_verified: int
    signatures_checked: bool
    tree_nodes: int
    findings: list[AnchorFinding]


@dataclass(frozen=True)
class _Claim:
    label: str
    position: int | None
    event_id: str | None
    checkpoint: Checkpoint


#: Stored perfect subtrees by algorithm, then level, in index order from 0.
StoredNodes = Mapping[Algorithm, Mapping[int, Sequence[bytes]]]


def check_anchors(
    leaves: Sequence[bytes],
    logged: Sequence[LoggedCheckpoint],
    *,
    verifiers: Sequence[Verifier] = (),
    trusted: Sequence[str] = (),
    stored_nodes: StoredNodes | None = None,
) -> AnchorReport:
    """Check the log's checkpoints, the trusted ones and the stored tree against ``leaves``.

    Args:
        leaves: the tenant's event hashes in position order (already chain-verified).
        logged: the tenant's ``CheckpointRecorded`` events.
        verifiers: keys whose signatures are required on every checkpoint, and at least one
            such checkpoint must anchor a non-empty log (none: signatures are not checked,
            which the report says).
        trusted: signed checkpoint notes published earlier, held outside the database.
        stored_nodes: stored perfect subtrees, by algorithm then level, index order.
    """
    findings: list[AnchorFinding] = []
    claims: list[_Claim] = []
    signed = 0
    for entry in logged:
        opened = _open_logged(entry, verifiers, findings)
        if opened is not None:
            claims.append(opened[0])
            signed += opened[1]
    for index, note in enumerate(trusted, start=1):
        opened = _open_note(f"trusted checkpoint {index}", None, None, note, verifiers, findings)
        if opened is not None:
            claims.append(opened[0])
            signed += opened[1]
    if verifiers and leaves and not signed:
        findings.append(
            AnchorFinding(
                _LOGGED,
                None,
                None,
                f"no checkpoint signed by the given keys anchors the log ({len(logged)} "
                f"recorded, {len(trusted)} trusted): without one, a log whose events were "
                f"rewritten and rehashed would verify; restore the checkpoints or pass one you "
                f"hold with --trusted-checkpoint",
            )
        )
    _check_roots(leaves, claims, findings)
    nodes = _check_nodes(leaves, stored_nodes or {}, findings)
    return AnchorReport(
        checkpoints=len(logged),
        trusted=len(trusted),
        signatures_verified=signed,
        signatures_checked=bool(verifiers),
        tree_nodes=nodes,
        findings=findings,
    )


def _open_logged(
    entry: LoggedCheckpoint, verifiers: Sequence[Verifier], findings: list[AnchorFinding]
) -> tuple[_Claim, int] | None:
    label = f"checkpoint at position {entry.position}"
    if entry.payload is None:
        findings.append(
            AnchorFinding(
                _LOGGED,
                entry.position,
                entry.event_id,
                f"{label} has no payload: checkpoints cannot be erased, so it was deleted",
            )
        )
        return None
    try:
        data = decode_json(entry.payload)
        note = data["note"]
    except (ValueError, KeyError, TypeError):
        findings.append(
            AnchorFinding(_LOGGED, entry.position, entry.event_id, f"{label} has no note")
        )
        return None
    opened = _open_note(label, entry.position, entry.event_id, note, verifiers, findings)
    if opened is None:
        return None
    checkpoint = opened[0].checkpoint
    if (data.get("size"), data.get("root")) != (checkpoint.size, checkpoint.root.hex()):
        findings.append(
            AnchorFinding(
                _LOGGED,
                entry.position,
                entry.event_id,
                f"{label}: its size and root fields disagree with its signed note",
            )
        )
    if checkpoint.size >= entry.position:
        findings.append(
            AnchorFinding(
                _LOGGED,
                entry.position,
                entry.event_id,
                f"{label} claims size {checkpoint.size}, but only {entry.position - 1} events "
                f"precede it",
            )
        )
        return None
    return opened


def _open_note(
    label: str,
    position: int | None,
    event_id: str | None,
    note: object,
    verifiers: Sequence[Verifier],
    findings: list[AnchorFinding],
) -> tuple[_Claim, int] | None:
    try:
        if not isinstance(note, str):
            raise NoteError(f"the note is {type(note).__name__}, not text")
        body, names = open_note(note, list(verifiers))
        checkpoint = parse_checkpoint(body)
    except NoteError as error:
        findings.append(AnchorFinding(_subject(position), position, event_id, f"{label}: {error}"))
        return None
    if checkpoint.algorithm not in ALGORITHMS:
        findings.append(
            AnchorFinding(
                _subject(position),
                position,
                event_id,
                f"{label}: unknown algorithm {checkpoint.algorithm}",
            )
        )
        return None
    if verifiers and not names:
        findings.append(
            AnchorFinding(
                _subject(position),
                position,
                event_id,
                f"{label} (size {checkpoint.size}) carries no valid signature of the given "
                f"keys: it was forged or signed by a key you do not trust",
            )
        )
        return None
    return _Claim(label, position, event_id, checkpoint), int(bool(names))


def _subject(position: int | None) -> str:
    return _TRUSTED if position is None else _LOGGED


def _check_roots(
    leaves: Sequence[bytes], claims: Sequence[_Claim], findings: list[AnchorFinding]
) -> None:
    for algorithm in ALGORITHMS:
        mine = [c for c in claims if c.checkpoint.algorithm == algorithm]
        if not mine:
            continue
        sizes = {c.checkpoint.size for c in mine if c.checkpoint.size <= len(leaves)}
        roots = prefix_roots(leaves, sizes, algorithm)
        matching = [
            c.checkpoint.size for c in mine if roots.get(c.checkpoint.size) == c.checkpoint.root
        ]
        for claim in mine:
            size = claim.checkpoint.size
            if size > len(leaves):
                findings.append(
                    AnchorFinding(
                        _subject(claim.position),
                        claim.position,
                        claim.event_id,
                        f"{claim.label} covers {size} events but the log holds {len(leaves)}: "
                        f"the log was truncated or restored from an older copy",
                    )
                )
            elif roots[size] != claim.checkpoint.root:
                after = max((s for s in matching if s < size), default=0)
                findings.append(
                    AnchorFinding(
                        _subject(claim.position),
                        claim.position,
                        claim.event_id,
                        f"{claim.label}: the log's events give root {roots[size].hex()} for "
                        f"size {size}, the signed checkpoint says "
                        f"{claim.checkpoint.root.hex()}: an event at a position in "
                        f"{after + 1}..{size} was rewritten (hashes recomputed)",
                    )
                )


def perfect_nodes(leaves: Sequence[bytes], algorithm: Algorithm, level: int) -> list[bytes]:
    """The hashes of the complete perfect subtrees of ``2 ** level`` leaves, in order."""
    width = 1 << min(level, _CHUNK_LEVEL)
    nodes = [
        root(leaves[i : i + width], algorithm) for i in range(0, len(leaves) - width + 1, width)
    ]
    for _ in range(_CHUNK_LEVEL, level):
        nodes = _parents(nodes, algorithm)
    return nodes


def _parents(nodes: Sequence[bytes], algorithm: Algorithm) -> list[bytes]:
    return [node_hash(nodes[i], nodes[i + 1], algorithm) for i in range(0, len(nodes) - 1, 2)]


def _check_nodes(
    leaves: Sequence[bytes], stored: StoredNodes, findings: list[AnchorFinding]
) -> int:
    """Compare stored nodes, lowest level first, with the log; report the first that differs."""
    checked = 0
    for algorithm, levels in stored.items():
        expected = perfect_nodes(leaves, algorithm, _CHUNK_LEVEL)
        for level in range(_CHUNK_LEVEL, max(levels, default=0) + 1):
            if level > _CHUNK_LEVEL:
                expected = _parents(expected, algorithm)
            nodes = levels.get(level, ())
            checked += len(nodes)
            bad = next(
                (i for i, node in enumerate(nodes) if i >= len(expected) or node != expected[i]),
                None,
            )
            if bad is not None:
                findings.append(_node_finding(algorithm, level, bad, len(leaves)))
                break
    return checked


def _node_finding(algorithm: str, level: int, index: int, size: int) -> AnchorFinding:
    width = 1 << level
    if (index + 1) * width > size:
        return AnchorFinding(
            "merkle tree",
            None,
            None,
            f"a stored {algorithm} tree node covers positions {index * width + 1}.."
            f"{(index + 1) * width} but the log ends at position {size}: events were deleted "
            f"from the end (truncation)",
        )
    return AnchorFinding(
        "merkle tree",
        None,
        None,
        f"stored {algorithm} tree node (level {level}, index {index}) differs from the log: an "
        f"event at a position in {index * width + 1}..{(index + 1) * width} differs from when "
        f"the node was stored (or the node was edited); once the log is trusted again, "
        f"'ctxledger verify --rebuild-tree' rebuilds the nodes",
    )
