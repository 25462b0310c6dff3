"""Compaction as events: committed or rejected behind the gate, rendered as an untrusted block,
rolled back, and visible to time travel."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from eventstore import EventStore
from projections.context.accounting import USER_MESSAGE_OVERHEAD
from projections.context.budget import Budget
from projections.ledger import Ledger
from projections.session.codec import state_digest
from projections.summaries.block_v2 import BLOCK_V2_CLOSE
from projections.summaries.offline_v2 import summarize_v2
from projections.summaries.schema_v2 import CompactionSummaryV2
from projections.summaries.summarizer import SummaryRequest
from tests.projections.summaries.test_validation import TRIP

BUDGET = Budget(context_limit=700, max_output_tokens=0, tool_reserve=0, safety_margin=0)


def filler(start: int, count: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"f{i}",
            "role": "user" if i % 2 else "assistant",
            "content": f"Turn {i}: talking about the weather in Hangzhou, still sunny. " * 3,
        }
        for i in range(start, start + count)
    ]


@pytest.fixture
async def session() -> Any:
    async with EventStore.open("memory://") as store:
        ledger = Ledger(store, snapshot_every=3)
        session = ledger.session("acme", "trip")
        await session.append(TRIP)
        await session.append(filler(0, 12))
        yield session


async def test_compaction_commits_and_renders_the_summary(session: Any) -> None:
    before = await session.render(BUDGET, keep_groups=2)
    assert before.manifest.dropped_groups > 0
    outcome = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    assert (outcome.result, outcome.summary_version) == ("committed", 1)
    data = outcome.event.data
    assert data["validation"]["ok"] is True
    assert data["summary"]["schema_version"] == "compaction_summary.v2"
    state = await session.state()
    coverage = data["summary"]["coverage"]
    covered = [
        m.id
        for m, v in zip(state.messages, state.message_versions, strict=True)
        if any(a <= v <= b for a, b in coverage["ranges"])
    ]
    assert "m2" in covered
    assert coverage["count"] == len(covered)
    assert data["covered_hash"] == coverage["digest"] == state.covered_hash(covered)
    assert data["diff"]["added"]
    after = await session.render(BUDGET, keep_groups=2)
    manifest = after.manifest
    assert manifest.summary_version == 1
    assert manifest.sections[0] == "prefix"
    assert manifest.sections[1] == "summary"
    block = after.messages[1]
    assert block.role == "user"  # never system
    assert str(block.content).startswith("<compaction_summary trust='untrusted' schema='v2'")
    assert str(block.content).endswith(BLOCK_V2_CLOSE)
    summary = CompactionSummaryV2.model_validate(data["summary"])
    assert any("200 元" in fact.value for fact in summary.facts)
    assert "200 元" in str(block.content)
    assert not set(covered) & {
        m for m, s in zip(manifest.message_ids, manifest.sections, strict=True) if s == "window"
    }
    assert manifest.tokens["summary"] == data["tokens"] + USER_MESSAGE_OVERHEAD  # its message
    assert manifest.tokens["total"] == data["tokens_after"]
    assert data["tokens_after"] <= BUDGET.usable  # the summary takes room from the window
    nothing = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    assert nothing.result in ("not_needed", "committed")


async def test_rolling_then_rollback_and_time_travel(session: Any) -> None:
    first = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    await session.append(filler(100, 10))
    second = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    assert (second.result, second.summary_version) == ("committed", 2)
    assert second.event.data["parent_version"] == 1
    assert (await session.render(BUDGET, keep_groups=2)).manifest.summary_version == 2
    await session.rollback(reason="the second summary lost a detail")
    assert (await session.render(BUDGET, keep_groups=2)).manifest.summary_version == 1
    before_first = first.event.version - 1
    old = await session.render(BUDGET, keep_groups=2, at_version=before_first)
    assert old.manifest.summary_version is None
    assert (
        await session.render(BUDGET, keep_groups=2, at_version=second.event.version)
    ).manifest.summary_version == 2
    with pytest.raises(Exception, match="no summary version 9"):
        await session.rollback(to_version=9, reason="r")
    state = await session.state()
    assert [(c["version"], c["status"]) for c in state.summary_chain()] == [
        (1, "active"),
        (2, "rolled back"),
    ]
    chain = state.summary_chain()
    assert chain[1]["parent"] == 1
    assert chain[0]["covered"] < chain[1]["covered"]
    assert chain[0]["covered_ranges"][0][0] == chain[1]["covered_ranges"][0][0]
    assert chain[1]["diff"] == second.event.data["diff"]
    await session.rollback(to_version=None, reason="back to the window")
    state = await session.state()
    assert state.chain.head is None
    assert [c["status"] for c in state.summary_chain()] == ["rolled back", "rolled back"]


async def test_a_bad_summary_is_rejected_and_the_window_served(session: Any) -> None:
    async def lying(request: SummaryRequest) -> CompactionSummaryV2:
        data = summarize_v2(request).model_dump(mode="json")
        for fact in data["facts"]:
            fact["value"] = fact["value"].replace("200", "300")
        return CompactionSummaryV2.model_validate(data)

    async def broken(request: SummaryRequest) -> CompactionSummaryV2:
        raise ValueError("the model answered with a poem")

    async def unreachable(request: SummaryRequest) -> CompactionSummaryV2:
        raise TimeoutError("the model did not answer")

    outcome = await session.compact(BUDGET, keep_groups=2, summarizer=lying)
    assert outcome.result == "rejected"
    assert "quantities" in outcome.failed_checks
    outcome_checks = [outcome.failed_checks]
    backing_off = await session.compact(BUDGET, keep_groups=2)
    assert backing_off.result == "backoff"  # not retried at every turn
    assert "more before trying again" in (backing_off.reason or "")
    await session.append(filler(200, 8))  # enough new groups
    before = (await session.state()).version
    down = await session.compact(BUDGET, keep_groups=2, summarizer=unreachable)
    assert down.result == "unavailable"  # the service failed: not a gate decision
    assert "did not answer" in (down.reason or "")
    assert down.event is None
    assert (await session.state()).version == before  # nothing recorded
    outcome = await session.compact(BUDGET, keep_groups=2, summarizer=broken)
    assert (outcome.result, outcome.failed_checks) == ("rejected", ["summarizer"])
    assert "a poem" in outcome.event.data["reason"]
    rendered = await session.render(BUDGET, keep_groups=2)
    assert rendered.manifest.summary_version is None
    assert "summary" not in rendered.manifest.sections
    state = await session.state()
    assert len(state.chain.rejections) == 2
    assert [(c["status"], c["failed_checks"]) for c in state.summary_chain()] == [
        ("rejected", outcome_checks[0]),
        ("rejected", ["summarizer"]),
    ]


async def test_summaries_survive_snapshots_and_rebuilds(session: Any) -> None:
    await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    ledger = session.ledger
    cached = ledger.sessions.cached("acme", session.session_id)
    rebuilt = await session.state()
    assert state_digest(cached) == state_digest(rebuilt)
    cold = Ledger(ledger.store, snapshot_every=3)
    rendered = await cold.session("acme", "trip").render(BUDGET, keep_groups=2)
    assert rendered.manifest.summary_version == 1
    assert state_digest(cold.sessions.cached("acme", session.session_id)) == state_digest(rebuilt)


async def test_erasure_taints_summaries_and_leaves_no_copy(session: Any) -> None:
    outcome = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    assert outcome.result == "committed"
    rendered = await session.render(BUDGET, keep_groups=2)  # the cache now holds m2
    assert "200 元" in json_of(rendered)
    store = session.ledger.store
    (m2,) = [
        e
        for e in await store.read_stream("acme", session.stream_id)
        if e.data and e.data.get("message", {}).get("id") == "m2"
    ]
    await store.erase("acme", [m2.event_id], reason="GDPR art. 17", requested_by="dpo")
    after = await session.render(BUDGET, keep_groups=2)  # same ledger: cache dropped
    assert after.manifest.summary_version is None  # tainted: the window is served
    assert [c["status"] for c in (await session.state()).summary_chain()] == ["tainted"]
    assert "200 元" not in json_of(after)
    snapshot = await store.load_snapshot("acme", "context_view", session.stream_id)
    if snapshot is not None:  # re-taken after the erasure: the message itself is gone
        from projections.session.codec import snapshot_to_dict

        state = snapshot_to_dict(snapshot.state)
        assert "m2" not in state["ids"]  # an index: no bodies; the erased row is renamed
    assert (await store.verify("acme")).ok


def json_of(rendered: Any) -> str:
    import json

    return json.dumps(rendered.wire, ensure_ascii=False)


async def test_a_crash_between_summarizer_and_commit_keeps_the_previous_state(
    tmp_path: Any,
) -> None:
    database = tmp_path / "ledger.db"
    async with EventStore.open(database) as store:
        session = Ledger(store).session("acme", "trip")
        await session.append(TRIP)
        await session.append(filler(0, 12))
        first = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
        assert first.result == "committed"
        await session.append(filler(100, 10))
        before = await session.render(BUDGET, keep_groups=2)
    await asyncio.to_thread(kill_during_summary, database)
    async with EventStore.open(database) as store:
        session = Ledger(store).session("acme", "trip")
        after = await session.render(BUDGET, keep_groups=2)
        assert after.manifest == before.manifest  # summary 1 still served, nothing half-done
        assert [c["status"] for c in (await session.state()).summary_chain()] == ["active"]
        assert (await store.verify("acme")).ok


def kill_during_summary(database: Any) -> None:
    """Start a compaction in another process and SIGKILL it inside the summarizer call."""
    import os
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    process = subprocess.Popen(
        [sys.executable, "-m", "tests.projections.compaction_worker", str(database)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "summarizing", process.stderr
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
