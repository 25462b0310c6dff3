"""Adversarial tests of what the hash chain alone cannot catch, and signed checkpoints do.

The attacker has write access to the database file and the public hash spec: they rewrite a
payload and recompute every hash after it, truncate the log and rewind the heads, delete a
checkpoint, or edit the stored Merkle nodes. ``verify`` must catch each and say where."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from eventstore import EventStore, NewEvent, VerificationReport
from eventstore.encoding import canonical_json
from eventstore.errors import ErasureError
from eventstore.notes import Checkpoint, Signer, Verifier, checkpoint_body, sign_note
from eventstore.tree import MerkleLog
from tests.eventstore.tamper import (
    TENANT,
    raw,
    rehash_from_spec,
    rewrite_payload,
    stored_log,
    truncate_with_fixed_heads,
)

SIGNER = Signer.generate("acme-audit")


async def _append(store: EventStore, first: int, count: int) -> None:
    for i in range(first, first + count):
        await store.append(
            TENANT,
            f"session/{i % 3}",
            [NewEvent(type="MessageAppended", data={"role": "user", "content": f"message {i}"})],
        )


def build_checkpointed(path: Path) -> list[str]:
    """300 events with a checkpoint after 100 and after 299; returns the two notes."""

    async def run() -> list[str]:
        async with EventStore.open(path) as store:
            await _append(store, 0, 100)
            first = await store.checkpoint(TENANT, SIGNER)
            await _append(store, 100, 198)
            second = await store.checkpoint(TENANT, SIGNER)
            assert first.data is not None
            assert second.data is not None
            return [first.data["note"], second.data["note"]]

    return asyncio.run(run())


def check(
    path: Path, keys: list[Verifier] | None = None, trusted: list[str] | None = None
) -> VerificationReport:
    async def run() -> VerificationReport:
        async with EventStore.open(path) as store:
            return await store.verify(
                TENANT, verifiers=keys or [], trusted_checkpoints=trusted or []
            )

    return asyncio.run(run())


@pytest.fixture
def log(tmp_path: Path) -> tuple[Path, list[str]]:
    path = tmp_path / "ledger.db"
    return path, build_checkpointed(path)


def test_clean_log_is_bound_to_its_checkpoints(log: tuple[Path, list[str]]) -> None:
    path, notes = log
    report = check(path, [SIGNER.verifier], notes)
    assert report.ok, report.failures
    assert (report.checkpoints, report.trusted_checkpoints) == (2, 2)
    assert report.signatures_verified == 4
    assert report.signatures_checked
    assert report.tree_nodes == 1  # one complete chunk of 256 events


@pytest.mark.parametrize(
    ("position", "bounds"),
    [(5, "1..100"), (150, "101..299"), (299, "101..299")],
    ids=["before-first-checkpoint", "between-checkpoints", "just-before-the-last"],
)
def test_rewrite_with_recomputed_hashes_is_caught(
    log: tuple[Path, list[str]], position: int, bounds: str
) -> None:
    path, _ = log
    rehash_from_spec(path, position, b"message", b"MESSAGE")
    chain_only = check(path)
    assert not any(f.stream.startswith("session/") for f in chain_only.failures)  # chain passes
    assert not chain_only.ok
    roots = [f for f in chain_only.failures if "was rewritten" in f.reason]
    assert roots
    assert bounds in roots[0].reason
    assert not check(path, [SIGNER.verifier]).ok


def test_rewritten_stored_tree_node_is_located_and_rebuilt(log: tuple[Path, list[str]]) -> None:
    path, _ = log
    raw(path).execute("UPDATE merkle_nodes SET hash = zeroblob(32) WHERE level = 8 AND idx = 0")
    report = check(path)
    (failure,) = report.failures
    assert failure.stream == "merkle tree"
    assert "level 8, index 0" in failure.reason
    assert "1..256" in failure.reason

    async def rebuild() -> None:
        async with EventStore.open(path) as store:
            assert await store.rebuild_tree(TENANT) == 1

    asyncio.run(rebuild())
    assert check(path).ok


def test_rehash_also_locates_by_stored_node(log: tuple[Path, list[str]]) -> None:
    path, _ = log
    rehash_from_spec(path, 40, b"message", b"MESSAGE")
    nodes = [f for f in check(path).failures if f.stream == "merkle tree"]
    assert nodes
    assert "1..256" in nodes[0].reason


def test_forged_checkpoints_need_the_keys(log: tuple[Path, list[str]]) -> None:
    """An attacker who also re-signs every checkpoint with a key of their own (same name)
    passes a verify without keys — the report says signatures were not checked — and fails
    one with the published keys."""
    path, _ = log
    rehash_from_spec(path, 5, b"message", b"MESSAGE")
    raw(path).execute("DELETE FROM merkle_nodes")
    forger = Signer.generate("acme-audit")
    for event in [e for e in stored_log(path) if e.stream_id == "ledger/checkpoints"]:
        data = asyncio.run(_forged_checkpoint(path, forger, event.position - 1))
        rewrite_payload(path, event.position, canonical_json(data))
    unsigned = check(path)
    assert unsigned.ok
    assert not unsigned.signatures_checked
    signed = check(path, [SIGNER.verifier])
    assert not signed.ok
    assert all(
        "no valid signature of the given keys" in f.reason
        or "no checkpoint signed by the given keys anchors the log" in f.reason
        for f in signed.failures
    )


async def _forged_checkpoint(path: Path, forger: Signer, size: int) -> dict[str, object]:
    async with EventStore.open(path) as store:
        tree = MerkleLog(store.recorder, TENANT)
        checkpoint = Checkpoint(f"ctxledger/{TENANT}", size, await tree.root(size), "blake3")
        return {
            "origin": checkpoint.origin,
            "size": size,
            "root": checkpoint.root.hex(),
            "algorithm": "blake3",
            "key_name": forger.name,
            "key_id": forger.verifier.key_id.hex(),
            "note": sign_note(checkpoint_body(checkpoint), [forger]),
        }


def test_truncation_with_fixed_heads_needs_a_trusted_checkpoint(
    log: tuple[Path, list[str]],
) -> None:
    path, notes = log
    truncate_with_fixed_heads(path, 250)  # drops 50 events and the second checkpoint
    (node,) = check(path).failures
    assert "ends at position 250: events were deleted from the end" in node.reason
    raw(path).execute("DELETE FROM merkle_nodes")  # the attacker covers that track too
    alone = check(path)
    assert alone.ok  # consistent with itself: only an outside anchor shows it is too short
    trusted = check(path, [SIGNER.verifier], [notes[1]])
    assert not trusted.ok
    (failure,) = trusted.failures
    assert failure.stream == "trusted checkpoint"
    assert "covers 299 events but the log holds 250" in failure.reason
    assert check(path, [SIGNER.verifier], [notes[0]]).ok  # still extends the first one


def test_a_deleted_checkpoint_is_caught(log: tuple[Path, list[str]]) -> None:
    path, _ = log
    connection = raw(path)
    connection.execute(
        "DELETE FROM payloads WHERE event_id = (SELECT event_id FROM events "
        "WHERE tenant_id = ? AND stream_id = 'ledger/checkpoints' AND version = 1)",
        (TENANT,),
    )
    connection.close()
    reasons = " | ".join(f.reason for f in check(path).failures)
    assert "checkpoints cannot be erased" in reasons


def test_checkpoints_cannot_be_erased(log: tuple[Path, list[str]]) -> None:
    path, _ = log
    (checkpoint, *_) = [e for e in stored_log(path) if e.stream_id == "ledger/checkpoints"]

    async def run() -> None:
        async with EventStore.open(path) as store:
            await store.erase(TENANT, [checkpoint.event_id], reason="x", requested_by="mallory")

    with pytest.raises(ErasureError, match="signed checkpoints and cannot be erased"):
        asyncio.run(run())
    assert check(path).ok
