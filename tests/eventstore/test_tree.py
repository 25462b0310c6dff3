"""The stored Merkle tree on every backend: roots and proofs equal the pure reference, before
and after the interior nodes are stored."""

from __future__ import annotations

import asyncio
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from eventstore import EventStore, NewEvent
from eventstore.merkle import (
    consistency_proof,
    inclusion_proof,
    root,
    verify_consistency,
    verify_inclusion,
)
from eventstore.tree import CHUNK, MerkleLog
from tests.eventstore.test_merkle import naive_root, subtree_of


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


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3 * CHUNK + 5), st.data())
def test_stored_tree_equals_the_naive_reference(size: int, data: st.DataObject) -> None:
    """For random sizes, with and without stored nodes, the stored tree's roots and proofs equal
    the naive RFC 9162 recursion over the same leaves."""

    async def check() -> None:
        async with EventStore.open("memory://") as store:
            await store.append("t", "s", [NewEvent(type="E", data={"n": n}) for n in range(size)])
            leaves = [bytes.fromhex(e.hash) async for e in store.read_log("t")]
            tree = MerkleLog(store.recorder, "t")
            if data.draw(st.booleans()):
                await tree.sync()
            cut = data.draw(st.integers(1, size))
            assert await tree.root(cut) == naive_root(leaves[:cut], "blake3")
            position = data.draw(st.integers(1, cut))
            subtree = subtree_of(leaves, "blake3")
            assert await tree.inclusion_proof(position, cut) == inclusion_proof(
                position - 1, cut, subtree
            )
            first = data.draw(st.integers(1, cut))
            assert await tree.consistency_proof(first, cut) == consistency_proof(
                first, cut, subtree
            )

    asyncio.run(check())
