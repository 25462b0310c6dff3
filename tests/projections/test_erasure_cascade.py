"""Erasing a message takes every derived copy with it and leaves compaction working: the
summaries that quote it are erased in the same ``PayloadErased``, the chain marks them erased,
and the next compaction commits a summary that is served, at or under the trigger, whether the
erasure came before or after the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.ledger import Ledger
from projections.sync import SyncLedger
from tests.projections.summaries.test_validation import TRIP
from tests.projections.test_compaction import filler

BUDGET = Budget(context_limit=700, max_output_tokens=0, tool_reserve=0, safety_margin=0)
QUOTED = "200 元"


@pytest.fixture
async def session(tmp_path: Path) -> Any:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        ledger = Ledger(store, snapshot_every=3)
        session = ledger.session("acme", "trip")
        await session.append(TRIP)
        await session.append(filler(0, 12))
        yield session


async def event_of(session: Any, message_id: str) -> str:
    events = await session.ledger.store.read_stream("acme", session.stream_id)
    (found,) = [e for e in events if (e.data or {}).get("message", {}).get("id") == message_id]
    return str(found.event_id)


async def erase(session: Any, message_id: str) -> Any:
    target = await event_of(session, message_id)
    return await session.ledger.erase("acme", [target], reason="art. 17", requested_by="dpo")


async def assert_compaction_is_served(session: Any) -> Any:
    outcome = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    assert outcome.result == "committed", outcome
    assert outcome.summarised
    rendered = await session.render(BUDGET, keep_groups=2)
    assert rendered.manifest.summary_version == outcome.summary_version
    assert rendered.manifest.tokens["total"] <= BUDGET.trigger
    assert QUOTED not in json.dumps(rendered.wire, ensure_ascii=False)
    assert QUOTED not in json.dumps(outcome.event.data, ensure_ascii=False)
    return outcome


async def test_an_erasure_before_compaction_is_covered_as_erased(session: Any) -> None:
    receipt = await erase(session, "m2")
    assert receipt.derived == []  # nothing derived yet
    outcome = await assert_compaction_is_served(session)
    assert outcome.event.data["erased_versions"]  # the summary saw m2 as [erased]
    chain = (await session.state()).summary_chain()
    assert [c["status"] for c in chain] == ["active"]


async def test_an_erasure_after_compaction_erases_the_summary_and_compaction_resumes(
    session: Any,
) -> None:
    first = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    assert first.result == "committed"
    assert QUOTED in json.dumps(first.event.data, ensure_ascii=False)
    receipt = await erase(session, "m2")
    assert [(d.type, d.version) for d in receipt.derived] == [
        ("SummaryCommitted", first.event.version)
    ]
    assert "covers" in receipt.derived[0].because
    store = session.ledger.store
    (summary,) = await store.read_events("acme", [first.event.event_id])
    assert summary.erased
    assert summary.data is None
    statuses = [c["status"] for c in (await session.state()).summary_chain()]
    assert statuses == ["erased"]
    before = await session.render(BUDGET, keep_groups=2)
    assert before.manifest.summary_version is None
    second = await assert_compaction_is_served(session)
    assert second.summary_version == 2
    assert (await store.verify("acme")).ok


async def test_rolled_forward_summaries_go_with_the_one_they_carry(session: Any) -> None:
    first = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    await session.append(filler(100, 10))
    second = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    assert (first.result, second.result) == ("committed", "committed")
    receipt = await erase(session, "m2")
    erased = {d.version for d in receipt.derived}
    assert {first.event.version, second.event.version} <= erased
    statuses = [c["status"] for c in (await session.state()).summary_chain()]
    assert statuses == ["erased", "erased"]
    await assert_compaction_is_served(session)


async def test_an_unrelated_erasure_keeps_the_summary(session: Any) -> None:
    first = await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    window = (await session.render(BUDGET, keep_groups=2)).manifest.message_ids
    receipt = await erase(session, window[-1])  # not covered by the summary
    assert receipt.derived == []
    rendered = await session.render(BUDGET, keep_groups=2)
    assert rendered.manifest.summary_version == first.summary_version


def test_the_sync_facade_erases_with_the_cascade(tmp_path: Path) -> None:
    with SyncLedger(tmp_path / "ledger.db") as ledger:
        session = ledger.session("acme", "trip")
        session.append(TRIP)
        session.append(filler(0, 12))
        committed = session.compact(BUDGET, keep_groups=2, summary_budget=1500)
        target = next(
            e
            for e in ledger.run(ledger.store.read_stream("acme", "session/trip"))
            if (e.data or {}).get("message", {}).get("id") == "m2"
        )
        receipt = ledger.erase("acme", [str(target.event_id)], reason="r", requested_by="dpo")
        assert [d.event_id for d in receipt.derived] == [committed.event.event_id]


async def test_no_cache_of_text_outlives_an_erasure(session: Any) -> None:
    """Compaction remembers cleaned, rendered and judged texts in process memory: an erasure
    empties those caches, here and in another ledger of the process that sees it."""
    from projections.summaries.block_v2 import escaped_line
    from projections.summaries.sanitize import _cleaned, _sanitized_text

    caches = (_sanitized_text, _cleaned, escaped_line)
    other = Ledger(session.ledger.store).session("acme", "trip")
    await other.render(BUDGET, keep_groups=2, over_budget="serve")  # it knows the log now
    await session.compact(BUDGET, keep_groups=2, summary_budget=1500)
    assert all(cache.cache_info().currsize for cache in caches)
    await erase(session, "m2")
    assert not any(cache.cache_info().currsize for cache in caches)
    await session.compact(BUDGET, keep_groups=2, summary_budget=1500)  # fills them again
    await other.render(BUDGET, keep_groups=2, over_budget="serve")  # sees the erasure move
    # (its render fills escaped_line again, with the new summary's lines)
    assert not any(cache.cache_info().currsize for cache in (_sanitized_text, _cleaned))
