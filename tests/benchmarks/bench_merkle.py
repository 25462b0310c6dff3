"""Benchmark of the Merkle tree: proofs at 10k, 100k and 1M events, and its cost per append.

    python -m tests.benchmarks.bench_merkle            # 10k, 100k and 1M events (a few minutes)
    python -m tests.benchmarks.bench_merkle --quick    # a smoke run

For each size, a SQLite file holds a tenant of that many events; the tree's interior nodes are
stored (``sync``), then inclusion and consistency proofs are generated for random leaves and
sizes, each by a fresh ``MerkleLog`` (no cache), and verified. The target is O(log n): the
ratio of the largest size to the smallest stays within 3. The append cost compares single-event
appends with the tree's work per event: ``sync`` amortised over the events it covers, and the
worst case of a ``sync`` after every append. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from eventstore import EventStore, NewEvent
from eventstore.merkle import verify_consistency, verify_inclusion
from eventstore.tree import MerkleLog
from tests.benchmarks.payloads import percentile

BATCH = 1000


async def fill(store: EventStore, tenant: str, count: int) -> None:
    for start in range(0, count, BATCH):
        await store.append(
            tenant,
            f"session/{start // BATCH}",
            [NewEvent(type="E", data={"n": n}) for n in range(start, min(start + BATCH, count))],
        )


async def proofs(store: EventStore, tenant: str, size: int, samples: int) -> dict[str, float]:
    rng = random.Random(size)
    make_inclusion: list[float] = []
    check_inclusion: list[float] = []
    make_consistency: list[float] = []
    check_consistency: list[float] = []
    root = await MerkleLog(store.recorder, tenant).root(size)
    for _ in range(samples):
        position = rng.randint(1, size)
        tree = MerkleLog(store.recorder, tenant)
        began = time.perf_counter()
        proof = await tree.inclusion_proof(position, size)
        make_inclusion.append(time.perf_counter() - began)
        leaf = await tree.leaf(position)
        began = time.perf_counter()
        verify_inclusion(position - 1, size, leaf, proof, root)
        check_inclusion.append(time.perf_counter() - began)
        size1 = rng.randint(1, size - 1)
        began = time.perf_counter()
        proof = await MerkleLog(store.recorder, tenant).consistency_proof(size1, size)
        make_consistency.append(time.perf_counter() - began)
        root1 = await MerkleLog(store.recorder, tenant).root(size1)
        began = time.perf_counter()
        verify_consistency(size1, size, root1, root, proof)
        check_consistency.append(time.perf_counter() - began)
    return {
        "inclusion_make_us": statistics.mean(make_inclusion) * 1e6,
        "inclusion_verify_us": statistics.mean(check_inclusion) * 1e6,
        "consistency_make_us": statistics.mean(make_consistency) * 1e6,
        "consistency_verify_us": statistics.mean(check_consistency) * 1e6,
    }


async def append_cost(folder: Path, appends: int) -> dict[str, float]:
    async with EventStore.open(folder / "append.db") as store:
        plain: list[float] = []
        for n in range(appends):
            began = time.perf_counter()
            await store.append("plain", "s", [NewEvent(type="E", data={"n": n})])
            plain.append(time.perf_counter() - began)
        tree = store.tree("plain")
        began = time.perf_counter()
        await tree.sync()
        amortised = (time.perf_counter() - began) / appends
        synced: list[float] = []
        tree = store.tree("synced")
        for n in range(appends):
            began = time.perf_counter()
            await store.append("synced", "s", [NewEvent(type="E", data={"n": n})])
            await tree.sync()
            synced.append(time.perf_counter() - began)
    p50 = percentile(plain, 50)
    return {
        "append_p50_us": p50 * 1e6,
        "sync_per_event_us": amortised * 1e6,
        "amortised_share": amortised / p50,
        "append_and_sync_p50_us": percentile(synced, 50) * 1e6,
        "sync_every_append_share": percentile(synced, 50) / p50 - 1,
    }


async def main(sizes: list[int], samples: int, appends: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        results = {}
        async with EventStore.open(Path(folder) / "merkle.db") as store:
            for size in sizes:
                tenant = f"t{size}"
                began = time.perf_counter()
                await fill(store, tenant, size)
                filled = time.perf_counter() - began
                began = time.perf_counter()
                await store.tree(tenant).sync()
                synced = time.perf_counter() - began
                results[size] = await proofs(store, tenant, size, samples)
                print(
                    f"{size:>9,} events: filled in {filled:.1f} s, tree stored in {synced:.2f} s;"
                    + "".join(f" {k} {v:,.0f}" for k, v in results[size].items())
                )
        small, large = min(sizes), max(sizes)
        for key in results[small]:
            ratio = results[large][key] / results[small][key]
            print(f"ratio {key} {large:,} / {small:,}: {ratio:.2f}")
        cost = await append_cost(Path(folder), appends)
        print(
            f"append p50 {cost['append_p50_us']:,.0f} us; tree sync per event "
            f"{cost['sync_per_event_us']:,.1f} us = {cost['amortised_share']:.1%} of the append "
            f"p50; sync after every append: p50 {cost['append_and_sync_p50_us']:,.0f} us "
            f"(+{cost['sync_every_append_share']:.1%})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    args = parser.parse_args()
    if args.quick:
        asyncio.run(main([1_000, 5_000], samples=20, appends=300))
    else:
        asyncio.run(main([10_000, 100_000, 1_000_000], samples=200, appends=2_000))
