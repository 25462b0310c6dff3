"""Merkle trees over a tenant's log, shaped as RFC 9162 (Certificate Transparency v2).

The leaves are the tenant's event hashes in position order (leaf ``i`` is the event at position
``i + 1``). Leaf and interior hashes are domain-separated by a prefix byte, ``0x00`` and
``0x01``, so a leaf can never pass for a node. Two hash functions:

- ``sha256``: exactly RFC 6962 / RFC 9162 (checked against their published test vectors);
- ``blake3`` (the default): the same tree, with BLAKE3 in ``derive_key`` mode under the context
  ``"ctxledger merkle v1"``, so no other ctxledger hash can collide with a tree hash.

Everything here is pure: tree hashes, proof generation from a ``subtree(lo, hi)`` callback (so
that a store can answer from stored interior nodes instead of rehashing every leaf), and proof
verification, which needs nothing but the proof, the sizes and the hashes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Literal

from blake3 import blake3

from eventstore.errors import LedgerError

__all__ = [
    "ALGORITHMS",
    "MERKLE_CONTEXT",
    "Algorithm",
    "ProofError",
    "Subtree",
    "consistency_proof",
    "consistency_ranges",
    "empty_root",
    "inclusion_proof",
    "inclusion_ranges",
    "largest_power_of_two_below",
    "leaf_hash",
    "node_hash",
    "prefix_roots",
    "root",
    "root_from_inclusion_proof",
    "verify_consistency",
    "verify_inclusion",
]

Algorithm = Literal["blake3", "sha256"]
ALGORITHMS: tuple[Algorithm, ...] = ("blake3", "sha256")
MERKLE_CONTEXT = "ctxledger merkle v1"
_LEAF = b"\x00"
_NODE = b"\x01"

#: ``subtree(lo, hi)``: the tree hash of leaves ``lo .. hi - 1``.
Subtree = Callable[[int, int], bytes]


class ProofError(LedgerError):
    """A proof does not verify: what was checked, expected against found."""


def _hash(algorithm: Algorithm, data: bytes) -> bytes:
    if algorithm == "sha256":
        return hashlib.sha256(data).digest()
    if algorithm == "blake3":
        return blake3(data, derive_key_context=MERKLE_CONTEXT).digest()
    raise ValueError(f"unknown Merkle hash {algorithm!r}; use one of {', '.join(ALGORITHMS)}")


def empty_root(algorithm: Algorithm = "blake3") -> bytes:
    """The root of the empty tree: the hash of the empty string."""
    return _hash(algorithm, b"")


def leaf_hash(data: bytes, algorithm: Algorithm = "blake3") -> bytes:
    """``HASH(0x00 || data)``."""
    return _hash(algorithm, _LEAF + data)


def node_hash(left: bytes, right: bytes, algorithm: Algorithm = "blake3") -> bytes:
    """``HASH(0x01 || left || right)``."""
    return _hash(algorithm, _NODE + left + right)


def largest_power_of_two_below(n: int) -> int:
    """The largest power of two strictly smaller than ``n`` (``n >= 2``)."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes], algorithm: Algorithm = "blake3") -> bytes:
    """The tree hash of ``leaves`` (raw leaf data, hashed here): O(n) hashes."""
    if not leaves:
        return empty_root(algorithm)
    return prefix_roots(leaves, {len(leaves)}, algorithm)[len(leaves)]


def prefix_roots(
    leaves: Iterable[bytes], sizes: Collection[int], algorithm: Algorithm = "blake3"
) -> dict[int, bytes]:
    """The roots of the trees of the first ``n`` leaves, for every ``n`` in ``sizes`` that the
    leaves reach, in one pass over them."""
    roots: dict[int, bytes] = {}
    if 0 in sizes:
        roots[0] = empty_root(algorithm)
    # A stack of (size, hash) of perfect subtrees, merged as in a binary counter; folded right
    # to left it gives the same shape as RFC 9162's recursive definition.
    stack: list[tuple[int, bytes]] = []
    for count, data in enumerate(leaves, start=1):
        size, digest = 1, leaf_hash(data, algorithm)
        while stack and stack[-1][0] == size:
            left_size, left = stack.pop()
            size, digest = left_size + size, node_hash(left, digest, algorithm)
        stack.append((size, digest))
        if count in sizes:
            top = stack[-1][1]
            for _, left in reversed(stack[:-1]):
                top = node_hash(left, top, algorithm)
            roots[count] = top
    return roots


def inclusion_ranges(index: int, size: int) -> list[tuple[int, int]]:
    """The leaf ranges ``[lo, hi)`` whose tree hashes make the audit path of leaf ``index`` in
    the tree of ``size`` leaves, in proof order (RFC 9162 §2.1.3.1)."""
    if not 0 <= index < size:
        raise ValueError(f"leaf index {index} is not in a tree of {size} leaves")
    ranges: list[tuple[int, int]] = []
    lo, hi = 0, size
    while hi - lo > 1:
        k = largest_power_of_two_below(hi - lo)
        if index - lo < k:
            ranges.append((lo + k, hi))
            hi = lo + k
        else:
            ranges.append((lo, lo + k))
            lo += k
    ranges.reverse()
    return ranges


def consistency_ranges(size1: int, size2: int) -> list[tuple[int, int]]:
    """The leaf ranges whose tree hashes prove that the tree of ``size1`` leaves is a prefix of
    the tree of ``size2``, in proof order (RFC 9162 §2.1.4.1); none when ``size1`` is 0 or
    equal to ``size2``."""
    if not 0 <= size1 <= size2:
        raise ValueError(f"no consistency proof from size {size1} to size {size2}")
    if size1 in (0, size2):
        return []
    ranges: list[tuple[int, int]] = []
    lo, hi, m, whole = 0, size2, size1, True
    while m != hi - lo:
        k = largest_power_of_two_below(hi - lo)
        if m <= k:
            ranges.append((lo + k, hi))
            hi = lo + k
        else:
            ranges.append((lo, lo + k))
            lo, m, whole = lo + k, m - k, False
    if not whole:
        ranges.append((lo, hi))
    ranges.reverse()
    return ranges


def inclusion_proof(index: int, size: int, subtree: Subtree) -> list[bytes]:
    """The audit path of leaf ``index`` in the tree of ``size`` leaves."""
    return [subtree(lo, hi) for lo, hi in inclusion_ranges(index, size)]


def consistency_proof(size1: int, size2: int, subtree: Subtree) -> list[bytes]:
    """The consistency proof from ``size1`` to ``size2`` leaves."""
    return [subtree(lo, hi) for lo, hi in consistency_ranges(size1, size2)]


def _check_hash(name: str, value: bytes, algorithm: Algorithm) -> None:
    if not isinstance(value, bytes) or len(value) != 32:
        raise ProofError(
            f"{name} must be a 32-byte {algorithm} hash, got "
            f"{len(value) if isinstance(value, bytes) else type(value).__name__}"
        )


def root_from_inclusion_proof(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], algorithm: Algorithm = "blake3"
) -> bytes:
    """The root that ``proof`` gives for the leaf hash ``leaf`` at ``index`` (RFC 9162
    §2.1.3.2); raises :class:`ProofError` when the proof cannot be for that index and size."""
    if not 0 <= index < size:
        raise ProofError(f"leaf index {index} is not in a tree of {size} leaves")
    _check_hash("the leaf hash", leaf, algorithm)
    for position, node in enumerate(proof):
        _check_hash(f"proof node {position}", node, algorithm)
    fn, sn, digest = index, size - 1, leaf
    for node in proof:
        if sn == 0:
            raise ProofError(f"the proof has {len(proof)} nodes, more than a tree of {size} needs")
        if fn & 1 or fn == sn:
            digest = node_hash(node, digest, algorithm)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            digest = node_hash(digest, node, algorithm)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError(f"the proof has {len(proof)} nodes, fewer than a tree of {size} needs")
    return digest


def verify_inclusion(
    index: int,
    size: int,
    leaf: bytes,
    proof: Sequence[bytes],
    expected_root: bytes,
    algorithm: Algorithm = "blake3",
) -> None:
    """Check that ``leaf`` is at ``index`` of the tree of ``size`` whose root is
    ``expected_root``; raises :class:`ProofError` saying what failed."""
    _check_hash("the root", expected_root, algorithm)
    found = root_from_inclusion_proof(index, size, leaf, proof, algorithm)
    if found != expected_root:
        raise ProofError(
            f"inclusion proof of leaf {index} in a tree of {size} gives root {found.hex()}, "
            f"expected {expected_root.hex()}"
        )


def verify_consistency(
    size1: int,
    size2: int,
    root1: bytes,
    root2: bytes,
    proof: Sequence[bytes],
    algorithm: Algorithm = "blake3",
) -> None:
    """Check that the tree of ``size1`` with root ``root1`` is a prefix of the tree of
    ``size2`` with root ``root2`` (RFC 9162 §2.1.4.2); raises :class:`ProofError`."""
    if not 0 <= size1 <= size2:
        raise ProofError(f"size {size1} cannot be a prefix of size {size2}")
    if size1 == size2:
        if proof:
            raise ProofError(f"equal sizes ({size1}) need an empty proof, got {len(proof)} nodes")
        if root1 != root2:
            raise ProofError(f"two different roots for the same size {size1}: a fork")
        return
    if size1 == 0:
        if proof:
            raise ProofError(f"a proof from the empty tree must be empty, got {len(proof)} nodes")
        return
    _check_hash("root1", root1, algorithm)
    _check_hash("root2", root2, algorithm)
    if not proof:
        raise ProofError(f"a proof from size {size1} to {size2} cannot be empty")
    for position, node in enumerate(proof):
        _check_hash(f"proof node {position}", node, algorithm)
    path = list(proof)
    if size1 & (size1 - 1) == 0:  # size1 is a power of two: its root is the first node
        path.insert(0, root1)
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    first = second = path[0]
    for node in path[1:]:
        if sn == 0:
            raise ProofError(f"the consistency proof has more nodes than {size1}→{size2} needs")
        if fn & 1 or fn == sn:
            first = node_hash(node, first, algorithm)
            second = node_hash(node, second, algorithm)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            second = node_hash(second, node, algorithm)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError(f"the consistency proof has fewer nodes than {size1}→{size2} needs")
    if first != root1:
        raise ProofError(
            f"the proof gives root {first.hex()} for size {size1}, expected {root1.hex()}"
        )
    if second != root2:
        raise ProofError(
            f"the proof gives root {second.hex()} for size {size2}, expected {root2.hex()}"
        )
