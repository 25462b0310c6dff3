"""Compaction while three other processes append to the same session, on a SQLite file and on
PostgreSQL: each summary is made at one version and, as the stream has moved by the time the
(slow) summarizer answers, rebased onto the appends instead of planned again; compaction
commits, and at each commit the context is at or under the trigger."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from eventstore import EventStore, RecordedEvent
from projections.context.budget import Budget
from projections.ledger import Ledger
from projections.summaries.offline_v2 import summarize_v2
from projections.summaries.schema_v2 import CompactionSummaryV2
from projections.summaries.summarizer import SummaryRequest
from tests.conftest import ROOT
from tests.postgres import fresh_database

BUDGET = Budget(context_limit=1500, max_output_tokens=0, tool_reserve=0, safety_margin=0)
APPENDERS = ("ana", "ben", "chen")
MAX_TURNS = 400  # the appenders stop earlier, once compaction has committed enough
COMMITS = 3
DEADLINE_S = 120  # starvation: no 3 commits in this long while three processes append


async def slow_summarizer(request: SummaryRequest) -> CompactionSummaryV2:
    """The offline summarizer, as slow as a model: the stream moves while it works."""
    await asyncio.sleep(0.25)
    return summarize_v2(request)


async def compact_while_others_append(url: str, stop: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    worker = [sys.executable, "-m", "tests.projections.appender_worker", url]
    async with EventStore.open(url) as store:
        session = Ledger(store).session("acme", "busy")
        await session.append([{"role": "system", "content": "You track orders."}])
        appenders = [
            subprocess.Popen(  # noqa: ASYNC220 - started once, polled without blocking
                [*worker, name, str(MAX_TURNS), str(stop)], env=env, stdout=subprocess.PIPE
            )
            for name in APPENDERS
        ]
        moves = []
        events_after = session.events_after

        async def watched(version: int) -> list[RecordedEvent]:
            moved = await events_after(version)  # read only when an append found it moved
            moves.append(len(moved))
            return moved

        session.events_after = watched  # type: ignore[method-assign]
        commits: list[RecordedEvent] = []
        deadline = time.monotonic() + DEADLINE_S
        # Compact while all three append, until enough commits (or starvation's deadline).
        while all(p.poll() is None for p in appenders) and time.monotonic() < deadline:
            outcome = await session.compact(BUDGET, keep_groups=2, summarizer=slow_summarizer)
            commits += [e for e in outcome.events if e.type == "SummaryCommitted"]
            if len(commits) >= COMMITS:
                break
            await asyncio.sleep(0.05)
        stop.write_bytes(b"")  # noqa: ASYNC240 - an empty file, once
        turns = 0
        for process in appenders:
            out, _ = process.communicate(timeout=60)
            assert process.returncode == 0
            turns += int(out.strip())
        assert len(commits) >= COMMITS, f"compaction committed {len(commits)} times"
        assert sum(moves) > 0, "no summary was rebased: the stream never moved under one"
        for commit in commits:  # each one served from its commit on
            at_commit = await session.render(BUDGET, keep_groups=2, at_version=commit.version)
            assert at_commit.manifest.summary_version == commit.data["summary_version"]
        outcome = await session.compact(BUDGET, keep_groups=2, summarizer=slow_summarizer)
        assert outcome.reached_trigger, outcome
        after = await session.render(BUDGET, keep_groups=2)
        assert after.manifest.tokens["total"] <= BUDGET.trigger
        state = await session.state()
        assert len(state.messages) == 1 + 4 * turns


def test_sqlite_file(tmp_path: Path) -> None:
    asyncio.run(compact_while_others_append(str(tmp_path / "busy.db"), tmp_path / "stop"))


def test_postgres(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with fresh_database() as url:
            await compact_while_others_append(url, tmp_path / "stop")

    asyncio.run(scenario())
