"""The stored Merkle tree on every backend: roots and proofs equal the pure reference, before
and after the interior nodes are stored."""

from __future__ import annotations

import random

from eventstore import EventStore, NewEvent
from eventstore.merkle import root, verify_consistency, verify_inclusion
from eventstore.tree import CHUNK, MerkleLog


async def test_tree_matches_the_reference(store: EventStore) -> None:
    total = 2 * CHUNK + 37
    for start in range(0, total, 100):
        await store.append(
            "acme",
            f"s/{start % 3}",
            [NewEvent(type="E", data={"n": n}) for n in range(start, min(start + 100, total))],
        )
    await store.append("other", "s", [NewEvent(type="E", data={})])
    hashes = [bytes.fromhex(e.hash) async for e in store.read_log("acme")]
    tree = MerkleLog(store.recorder, "acme")
    rng = random.Random(7)
    sizes = [1, 2, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, total]
    for synced in (False, True):
        if synced:
            assert await tree.sync() == 2
            assert await tree.sync() == 0
        for size in sizes:
            expected = root(hashes[:size])
            assert await tree.root(size) == expected
            for position in {1, size, rng.randint(1, size)}:
                proof = await tree.inclusion_proof(position, size)
                verify_inclusion(position - 1, size, await tree.leaf(position), proof, expected)
            for size1 in {1, size // 2 or 1, size}:
                proof = await tree.consistency_proof(size1, size)
                verify_consistency(size1, size, root(hashes[:size1]), expected, proof)
