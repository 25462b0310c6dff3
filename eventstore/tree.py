"""A tenant's Merkle tree over the store: stored interior nodes, roots and proofs.

Leaves are the event hashes in position order. The tree is derived data, kept beside the log
and never in the append path: :meth:`MerkleLog.sync` stores the perfect subtrees of level 8 and
up (256 leaves or more) for every complete chunk of 256 events; anything smaller is hashed from
at most 256 event hashes read in one range query. A root or a proof therefore reads O(log n)
stored nodes plus at most a couple of 256-leaf chunks, whatever the size of the log.
"""

from __future__ import annotations

from typing import Any, Protocol

from eventstore.merkle import (
    Algorithm,
    consistency_ranges,
    empty_root,
    inclusion_ranges,
    leaf_hash,
    node_hash,
    root,
)
from eventstore.notes import Checkpoint, Signer, checkpoint_body, sign_note
from eventstore.recorder import LogRecorder, MerkleRecorder
from eventstore.stream_heads import heads_at, heads_root

__all__ = ["CHUNK", "CHUNK_LEVEL", "MerkleLog", "TreeRecorder", "signed_checkpoint"]

CHUNK_LEVEL = 8
CHUNK = 1 << CHUNK_LEVEL
_SYNC_CHUNKS = 64  # chunks read and stored per round trip while syncing


class TreeRecorder(LogRecorder, MerkleRecorder, Protocol):
    """What the tree reads and writes: the log's hashes, and the stored nodes."""


class MerkleLog:
    """The Merkle tree of one tenant, in one hash mode."""

    def __init__(self, recorder: TreeRecorder, tenant_id: str, algorithm: Algorithm = "blake3"):
        self.recorder = recorder
        self.tenant_id = tenant_id
        self.algorithm: Algorithm = algorithm
        self._chunks: dict[int, list[bytes]] = {}  # leaves of partial chunks, per call

    async def size(self) -> int:
        """The number of leaves: the tenant's position."""
        return (await self.recorder.log_state(self.tenant_id)).position

    async def sync(self) -> int:
        """Store the interior nodes of every complete chunk not stored yet; returns how many
        chunks were added. Safe to run concurrently (nodes are deterministic and inserted only
        if missing)."""
        done = await self.recorder.merkle_extent(self.tenant_id, self.algorithm, CHUNK_LEVEL)
        full = await self.size() // CHUNK
        added = 0
        while done < full:
            count = min(_SYNC_CHUNKS, full - done)
            hashes = await self.recorder.read_hashes(
                self.tenant_id, done * CHUNK + 1, (done + count) * CHUNK
            )
            nodes: list[tuple[int, int, bytes]] = []
            made: dict[tuple[int, int], bytes] = {}
            for offset in range(count):
                index = done + offset
                digest = root(hashes[offset * CHUNK : (offset + 1) * CHUNK], self.algorithm)
                level = CHUNK_LEVEL
                made[(level, index)] = digest
                nodes.append((level, index, digest))
                # Complete every ancestor whose right child this node is.
                while index & 1:
                    left = made.get((level, index - 1)) or (await self._stored(level, index - 1))
                    digest = node_hash(left, digest, self.algorithm)
                    level, index = level + 1, index >> 1
                    made[(level, index)] = digest
                    nodes.append((level, index, digest))
            await self.recorder.save_merkle_nodes(self.tenant_id, self.algorithm, nodes)
            done += count
            added += count
        return added

    async def _stored(self, level: int, index: int) -> bytes:
        found = await self.recorder.merkle_nodes(
            self.tenant_id, self.algorithm, level, index, index
        )
        if found:
            return found[0]
        # Not stored (sync has not reached it): hash it from its children.
        if level == CHUNK_LEVEL:
            return root(await self._leaves(index * CHUNK, (index + 1) * CHUNK), self.algorithm)
        left = await self._stored(level - 1, index * 2)
        right = await self._stored(level - 1, index * 2 + 1)
        return node_hash(left, right, self.algorithm)

    async def _leaves(self, lo: int, hi: int) -> list[bytes]:
        """Event hashes of leaves ``lo .. hi - 1`` within one chunk (cached per call)."""
        chunk = lo // CHUNK
        if chunk not in self._chunks:
            self._chunks[chunk] = await self.recorder.read_hashes(
                self.tenant_id, chunk * CHUNK + 1, (chunk + 1) * CHUNK
            )
        base = chunk * CHUNK
        return self._chunks[chunk][lo - base : hi - base]

    async def subtree(self, lo: int, hi: int) -> bytes:
        """The tree hash of leaves ``lo .. hi - 1`` (RFC 9162's MTH of that range)."""
        width = hi - lo
        if width <= 0:
            return empty_root(self.algorithm)
        if width & (width - 1) == 0 and lo % width == 0:
            level = width.bit_length() - 1
            if level >= CHUNK_LEVEL:
                return await self._stored(level, lo >> level)
            return root(await self._leaves(lo, hi), self.algorithm)
        k = 1 << ((width - 1).bit_length() - 1)
        return node_hash(
            await self.subtree(lo, lo + k), await self.subtree(lo + k, hi), self.algorithm
        )

    async def root(self, size: int) -> bytes:
        """The root of the tree of the first ``size`` leaves."""
        await self._check_size(size)
        try:
            return await self.subtree(0, size)
        finally:
            self._chunks.clear()

    async def leaf(self, position: int) -> bytes:
        """The leaf hash of the event at ``position``."""
        (event_hash,) = await self.recorder.read_hashes(self.tenant_id, position, position)
        return leaf_hash(event_hash, self.algorithm)

    async def inclusion_proof(self, position: int, size: int) -> list[bytes]:
        """The audit path of the event at ``position`` in the tree of ``size`` leaves."""
        await self._check_size(size)
        try:
            return [await self.subtree(lo, hi) for lo, hi in inclusion_ranges(position - 1, size)]
        finally:
            self._chunks.clear()

    async def consistency_proof(self, size1: int, size2: int) -> list[bytes]:
        """The proof that the tree of ``size1`` leaves is a prefix of the tree of ``size2``."""
        await self._check_size(size2)
        try:
            return [await self.subtree(lo, hi) for lo, hi in consistency_ranges(size1, size2)]
        finally:
            self._chunks.clear()

    async def _check_size(self, size: int) -> None:
        current = await self.size()
        if not 0 <= size <= current:
            raise ValueError(
                f"tenant {self.tenant_id!r} has {current} events; no tree of size {size}"
            )


async def _events(tree: MerkleLog, size: int) -> list[Any]:
    """The tenant's events up to ``size`` (for their stream heads): one read of the log."""
    found: list[Any] = []
    while len(found) < size:
        batch = await tree.recorder.read_log(tree.tenant_id, len(found), 5000, size)
        if not batch:
            break
        found += batch
    return found


async def signed_checkpoint(tree: MerkleLog, signer: Signer, origin: str) -> dict[str, Any]:
    """The data of a ``CheckpointRecorded`` event: the tree's current size and root, signed as a
    C2SP note. The interior nodes are stored first, so later proofs need no rebuild."""
    await tree.sync()
    size = await tree.size()
    heads = heads_at(await _events(tree, size))
    signed_heads = (len(heads), heads_root(heads, tree.algorithm))
    checkpoint = Checkpoint(origin, size, await tree.root(size), tree.algorithm, signed_heads)
    return {
        "origin": checkpoint.origin,
        "size": size,
        "root": checkpoint.root.hex(),
        "algorithm": tree.algorithm,
        "key_name": signer.name,
        "key_id": signer.verifier.key_id.hex(),
        "note": sign_note(checkpoint_body(checkpoint), [signer]),
    }
