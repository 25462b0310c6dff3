"""Real OS processes: concurrent writers on one SQLite file, and writers killed with SIGKILL."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from eventstore import EventStore, RecordedEvent
from tests.conftest import ROOT
from tests.eventstore.workers import TENANT
from tests.postgres import fresh_database


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.eventstore.workers", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def run_concurrent_writers(
    tmp_path: Path,
    workers: int,
    count: int,
    database: str | None = None,
    max_delay_ms: float = 0,
    protocol: str = "handoff",
) -> list[dict[str, Any]]:
    """Writers in separate processes and a tailing reader; check positions, chains, streams."""
    database = database or str(tmp_path / "ledger.db")
    go_file = tmp_path / "go"
    async with EventStore.open(database) as store:
        processes = [
            spawn(
                "append",
                database,
                str(index),
                str(count),
                str(go_file),
                str(max_delay_ms),
                protocol,
            )
            for index in range(workers)
        ]
        total = workers * count
        seen: list[RecordedEvent] = []
        subscription = store.subscribe(TENANT, poll_interval=0.01, batch_size=64)
        go_file.touch()

        deadline = time.monotonic() + 300
        while len(seen) < total:
            seen.extend(await subscription.next_batch(max_wait=0.5))
            for process in processes:
                if process.poll() not in (None, 0):
                    _, err = process.communicate()
                    pytest.fail(f"a writer failed after the reader saw {len(seen)}:\n{err}")
            assert time.monotonic() < deadline, f"the reader saw {len(seen)} of {total}"
        summaries = []
        for process in processes:
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, err
            summaries.append(json.loads(out))

        positions = [event.position for event in seen]
        assert positions == list(range(1, total + 1)), "reader skipped or repeated an event"
        written = [event_id for summary in summaries for event_id in summary["written"]]
        assert len(written) == total
        assert sorted(str(event.event_id) for event in seen) == sorted(written)
        assert await store.tenant_position(TENANT) == total
        report = await store.verify(TENANT)
        assert report.ok, report.failures
        assert report.checked == total
        # Each writer's own stream is in its own order, with no gaps.
        by_stream: dict[str, list[int]] = defaultdict(list)
        for event in seen:
            by_stream[event.stream_id].append(event.version)
        for versions in by_stream.values():
            assert versions == list(range(1, len(versions) + 1))
        # The shared stream took every writer's events, contention resolved by retrying after
        # ConcurrencyError.
        assert len(by_stream["shared"]) == workers * (count // 5)
        return summaries


async def test_four_processes_append_while_a_reader_tails(tmp_path: Path) -> None:
    await run_concurrent_writers(tmp_path, workers=4, count=150)


@pytest.mark.slow
async def test_eight_processes_append_while_a_reader_tails(tmp_path: Path) -> None:
    await run_concurrent_writers(tmp_path, workers=8, count=1000)


@pytest.mark.parametrize("protocol", ["handoff", "transaction", "mixed"])
async def test_postgres_eight_processes_with_commit_delays(tmp_path: Path, protocol: str) -> None:
    """8 processes x 500 appends into one tenant on PostgreSQL, with random delays while each
    append holds its tenant's turn and between its write and its commit, while a reader tails
    the log: by the lock hand-off, by the transaction protocol, and by both at once (a writer
    of one must never slip between the other's read of the heads and its commit)."""
    async with fresh_database() as url:
        summaries = await run_concurrent_writers(
            tmp_path, workers=8, count=500, database=url, max_delay_ms=2, protocol=protocol
        )
    assert sum(summary["conflicts"] for summary in summaries) > 0


def crash_rounds(tmp_path: Path, rounds: int, batch_size: int = 5) -> None:
    database = tmp_path / "ledger.db"
    rng = random.Random(20261130)
    for _ in range(rounds):
        process = spawn("crash", str(database), str(batch_size))
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.strip() == "ready", process.stderr.read() if process.stderr else line
        # Kill at a random moment while batches are being written.
        time.sleep(rng.uniform(0.0, 0.08))
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        assert process.returncode == -signal.SIGKILL
        check_batches_whole(database, batch_size)


def check_batches_whole(database: Path, batch_size: int) -> None:
    async def check() -> None:
        async with EventStore.open(database) as store:
            parts: dict[int, list[int]] = defaultdict(list)
            async for event in store.read_log(TENANT):
                assert event.data is not None
                parts[event.data["batch"]].append(event.data["k"])
            for batch, ks in parts.items():
                assert ks == list(range(batch_size)), f"batch {batch} is partial: {ks}"
            report = await store.verify(TENANT)
            assert report.ok, report.failures

    asyncio.run(check())


def test_sigkill_mid_append_leaves_whole_batches(tmp_path: Path) -> None:
    crash_rounds(tmp_path, rounds=20)


@pytest.mark.slow
def test_sigkill_mid_append_many_rounds(tmp_path: Path) -> None:
    crash_rounds(tmp_path, rounds=200)


async def test_six_processes_set_up_a_fresh_postgres_database_together(tmp_path: Path) -> None:
    """Six services starting at once against an empty database: schema creation is serialised
    by an advisory lock, so every one of them opens it and appends (none fails on the meta
    table's key or deadlocks)."""
    async with fresh_database() as url:
        go_file = tmp_path / "go"
        processes = [
            spawn("append", url, str(index), "20", str(go_file), "0.01") for index in range(6)
        ]
        go_file.touch()
        for process in processes:
            out, err = process.communicate(timeout=240)
            assert process.returncode == 0, err
            assert len(json.loads(out)["written"]) == 20
        async with EventStore.open(url) as store:
            report = await store.verify(TENANT)
    assert report.ok, report.failures
    assert report.checked == 120
