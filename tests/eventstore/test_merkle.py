"""The Merkle tree: RFC 6962 known answers in SHA-256 mode, ctxledger's BLAKE3 vectors, an
optimised tree against a naive reference, and every mutation of a proof rejected."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventstore.merkle import (
    Algorithm,
    ProofError,
    consistency_proof,
    empty_root,
    inclusion_proof,
    largest_power_of_two_below,
    leaf_hash,
    node_hash,
    root,
    verify_consistency,
    verify_inclusion,
)

# The RFC 6962 reference leaves and roots used by transparency-dev/merkle (proof/verify_test.go),
# with its inclusion and consistency proofs (its leaf numbers are 1-based).
LEAVES = [
    bytes.fromhex(h)
    for h in (
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    )
]
ROOTS = [
    bytes.fromhex(h)
    for h in (
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    )
]
H = bytes.fromhex
INCLUSION = [
    (
        1,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        6,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (3, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (
        2,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
    (1, 1, []),
]
CONSISTENCY = [
    (1, 1, []),
    (
        1,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        6,
        8,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        5,
        [
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
    (
        6,
        7,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
]


def naive_root(leaves: list[bytes], algorithm: Algorithm) -> bytes:
    """RFC 9162's recursive definition, word for word."""
    if not leaves:
        return empty_root(algorithm)
    if len(leaves) == 1:
        return leaf_hash(leaves[0], algorithm)
    k = largest_power_of_two_below(len(leaves))
    return node_hash(
        naive_root(leaves[:k], algorithm), naive_root(leaves[k:], algorithm), algorithm
    )


def subtree_of(leaves: list[bytes], algorithm: Algorithm = "sha256"):  # type: ignore[no-untyped-def]
    return lambda lo, hi: naive_root(leaves[lo:hi], algorithm)


def test_empty_tree_is_sha256_of_nothing() -> None:
    assert empty_root("sha256") == hashlib.sha256(b"").digest()


@pytest.mark.parametrize("size", range(1, 9))
def test_rfc6962_roots(size: int) -> None:
    assert root(LEAVES[:size], "sha256") == ROOTS[size - 1]


@pytest.mark.parametrize(("leaf", "size", "proof"), INCLUSION)
def test_rfc6962_inclusion_proofs(leaf: int, size: int, proof: list[str]) -> None:
    expected = [H(p) for p in proof]
    assert inclusion_proof(leaf - 1, size, subtree_of(LEAVES[:size])) == expected
    verify_inclusion(
        leaf - 1, size, leaf_hash(LEAVES[leaf - 1], "sha256"), expected, ROOTS[size - 1], "sha256"
    )


@pytest.mark.parametrize(("size1", "size2", "proof"), CONSISTENCY)
def test_rfc6962_consistency_proofs(size1: int, size2: int, proof: list[str]) -> None:
    expected = [H(p) for p in proof]
    assert consistency_proof(size1, size2, subtree_of(LEAVES[:size2])) == expected
    verify_consistency(size1, size2, ROOTS[size1 - 1], ROOTS[size2 - 1], expected, "sha256")


def test_a_leaf_never_verifies_as_a_node() -> None:
    left, right = leaf_hash(b"a"), leaf_hash(b"b")
    parent = node_hash(left, right)
    # The node's children, presented as leaf data, hash differently: prefixes separate them.
    assert leaf_hash(left + right) != parent
    with pytest.raises(ProofError):
        verify_inclusion(0, 1, left + right, [], parent)


leaf_lists = st.lists(st.binary(min_size=0, max_size=8), min_size=1, max_size=70, unique=True)


@settings(max_examples=150, deadline=None)
@given(leaf_lists, st.sampled_from(["blake3", "sha256"]), st.data())
def test_proofs_verify_and_every_mutation_is_rejected(
    leaves: list[bytes], algorithm: Algorithm, data: st.DataObject
) -> None:
    size = len(leaves)
    top = root(leaves, algorithm)
    assert top == naive_root(leaves, algorithm)
    subtree = subtree_of(leaves, algorithm)
    index = data.draw(st.integers(0, size - 1))
    leaf = leaf_hash(leaves[index], algorithm)
    proof = inclusion_proof(index, size, subtree)
    verify_inclusion(index, size, leaf, proof, top, algorithm)
    mutations = [
        (index + 1, size, proof, top),
        (index, size * 2, proof, top),
        (index, size // 2, proof, top),
        (index, size, [*proof, top], top),
        (index, size, [top, *proof], top),
        (index, size, proof, node_hash(top, top, algorithm)),
    ]
    if index:
        mutations.append((index - 1, size, proof, top))
    if proof:
        flipped = bytearray(proof[0])
        flipped[data.draw(st.integers(0, 31))] ^= 1 << data.draw(st.integers(0, 7))
        mutations += [
            (index, size, [bytes(flipped), *proof[1:]], top),
            (index, size, proof[:-1], top),
        ]
    for bad_index, bad_size, bad_proof, bad_root in mutations:
        if bad_index == index and bad_size == size and bad_proof == proof and bad_root == top:
            continue
        with pytest.raises(ProofError):
            verify_inclusion(bad_index, bad_size, leaf, bad_proof, bad_root, algorithm)

    size1 = data.draw(st.integers(1, size))
    root1 = root(leaves[:size1], algorithm)
    proof = consistency_proof(size1, size, subtree)
    verify_consistency(size1, size, root1, top, proof, algorithm)
    if size1 == size:
        return
    bad = [
        (size1, size, top, root1, proof),
        (size1, size, root1, top, proof[:-1]),
        (size1, size, root1, top, [*proof, top]),
        (size1 ^ 2, size, root1, top, proof),
        (size1, size * 2, root1, top, proof),
        (size1, size, root1, top, [root1, *proof]),
    ]
    if size1 > 1:
        bad.append((size1 - 1, size, root1, top, proof))
    flipped = bytearray(proof[-1])
    flipped[0] ^= 16
    bad.append((size1, size, root1, top, [*proof[:-1], bytes(flipped)]))
    for s1, s2, r1, r2, p in bad:
        with pytest.raises(ProofError):
            verify_consistency(s1, s2, r1, r2, p, algorithm)
