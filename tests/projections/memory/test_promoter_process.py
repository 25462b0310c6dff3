"""The promoter as a separate process: killed with SIGKILL mid-run and restarted, it neither
loses nor duplicates a decision; run again, it changes nothing (real subprocesses)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from eventstore import EventStore
from projections.ledger import Ledger
from projections.memory import LongTermMemory, memory_stream
from tests.postgres import fresh_database
from tests.projections.test_cli import SCRIPT, ctxledger

USERS = ["u0", "u1", "u2"]
PER_USER = 120


@pytest.fixture(params=["sqlite", "postgres"])
async def url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "ledger.db")
    else:
        async with fresh_database() as database:
            yield database


async def seed(url: str) -> int:
    """Proposals of three users, all consented; returns the tenant position after them."""
    async with EventStore.open(url) as store:
        ledger = Ledger(store)
        for user in USERS:
            session = ledger.session("acme", f"s-{user}", user_id=user)
            await session.append([{"id": "m1", "role": "user", "content": "I like window seats"}])
            for i in range(PER_USER):
                await session.propose_memory(
                    key=f"preference.p{i}",
                    value=f"{user} value {i}",
                    category="preference",
                    source_ids=["m1"],
                    confidence=0.9,
                )
            await ledger.memory.grant_consent("acme", user, categories=["preference"], method="t")
        return await store.tenant_position("acme")


async def position(url: str) -> int:
    async with EventStore.open(url) as store:
        return await store.tenant_position("acme")


async def promotions(url: str) -> Counter[str]:
    async with EventStore.open(url) as store:
        counts: Counter[str] = Counter()
        for user in USERS:
            for event in await store.read_stream("acme", memory_stream(user)):
                if event.type == "MemoryPromoted":
                    assert event.data is not None
                    counts[event.data["proposal_id"]] += 1
        assert (await store.verify("acme")).ok
        recalled = [await LongTermMemory(store).recall("acme", user) for user in USERS]
        assert [len(r) for r in recalled] == [PER_USER] * len(USERS)
        return counts


def test_sigkill_mid_run_then_restart(url: str) -> None:
    assert SCRIPT
    seeded = asyncio.run(seed(url))
    total = PER_USER * len(USERS)
    child = subprocess.Popen(
        [SCRIPT, "--db", url, "promote", "--tenant", "acme", "--batch-size", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ},
    )
    deadline = time.monotonic() + 60
    written = 0
    while time.monotonic() < deadline and child.poll() is None:
        written = asyncio.run(position(url)) - seeded
        if written >= 30:
            break
        time.sleep(0.01)
    assert child.poll() is None, "the promoter finished before it could be killed"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    killed_at = asyncio.run(position(url)) - seeded
    assert 30 <= killed_at < total, killed_at

    result = ctxledger("--db", url, "promote", "--tenant", "acme", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["promoted"] == total - killed_at
    counts = asyncio.run(promotions(url))
    assert len(counts) == total
    assert set(counts.values()) == {1}

    # Running it again changes nothing.
    before = asyncio.run(position(url))
    again = ctxledger("--db", url, "promote", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["promoted"] == 0
    assert asyncio.run(position(url)) == before
