"""Observation masking, the ladder's first step: old tool results are served as a digest that
names the session version keeping them whole; groups stay whole, the log keeps everything, time
travel replays what was served, erasure leaves no copy."""

from __future__ import annotations

import json
from typing import Any

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.errors import ContextOverBudgetError
from projections.ledger import Ledger, Session
from projections.session.codec import state_digest
from projections.session.events import MaskedResult, ResultsMasked

BUDGET = Budget(context_limit=3000, max_output_tokens=0, tool_reserve=0, safety_margin=0)


def lookup(index: int) -> list[dict[str, Any]]:
    """A user turn, a call, a large JSON result and a reply: one tool group and a reply."""
    result = {
        "reservation_id": f"RX{index:04d}Q",
        "flights": [
            {"flight_number": f"HAT{100 + k + index}", "date": f"2024-05-{10 + k:02d}",
             "price": 120 + k * 7, "cabin": "economy", "status": "available",
             "note": "seat map and fare rules follow in the full record " * 2}
            for k in range(4)
        ],
    }  # fmt: skip
    return [
        {"id": f"u{index}", "role": "user", "content": f"Look up reservation {index}, please."},
        {
            "id": f"c{index}",
            "role": "assistant",
            "tool_calls": [
                {"id": f"call{index}", "name": "get_reservation", "arguments": json.dumps({})}
            ],
        },
        {
            "id": f"t{index}",
            "role": "tool",
            "tool_call_id": f"call{index}",
            "content": json.dumps(result),
        },
        {"id": f"a{index}", "role": "assistant", "content": f"Reservation {index} is found."},
    ]


@pytest.fixture
async def session() -> Any:
    async with EventStore.open("memory://") as store:
        session = Ledger(store, snapshot_every=5).session("acme", "agent")
        await session.append([{"id": "sys", "role": "system", "content": "You book flights."}])
        for index in range(8):
            await session.append(lookup(index))
        yield session


def served(rendered: Any) -> dict[str, Any]:
    return {m.id: m for m in rendered.messages}


async def test_old_results_are_masked_and_groups_stay_whole(session: Session) -> None:
    before = await session.render(BUDGET, keep_groups=2)
    assert before.manifest.tokens["total"] > 0.6 * BUDGET.usable
    outcome = await session.compact(BUDGET, keep_groups=2)
    assert outcome.masked > 0
    assert outcome.tokens_saved > 0
    assert outcome.mask_event is not None
    assert outcome.mask_event.type == "ResultsMasked"
    after = await session.render(BUDGET, keep_groups=2)
    messages = served(after)
    masked = set(after.manifest.masked)
    assert masked == {f"t{i}" for i in range(7)}  # never in the last two groups (c7+t7, a7)
    for result_id in masked:
        text = str(messages[result_id].content)
        assert text.startswith("[masked result of get_reservation:")
        assert "kept whole at @" in text
        assert "reservation_id=RX" in text  # the identifier survives the digest
    # every call still has its result right after it: the protocol holds
    for message in after.messages:
        for call in message.tool_calls:
            assert any(m.tool_call_id == call.id for m in after.messages)
    # the log keeps the result whole
    state = await session.state()  # a fold of the log holds every body
    assert "seat map" in str(state.messages[state.index_of["t0"]].content)
    tokens = dict(zip(after.manifest.message_ids, after.manifest.message_tokens, strict=True))
    assert sum(tokens.values()) + 3 == after.manifest.tokens["total"]  # reply priming
    for result_id in masked:
        assert tokens[result_id] < state.tokens[result_id] / 2


async def test_the_digest_names_the_version_that_keeps_the_result(session: Session) -> None:
    outcome = await session.compact(BUDGET, keep_groups=2)
    assert outcome.mask_event is not None
    assert outcome.mask_event.data is not None
    payload = ResultsMasked.model_validate(outcome.mask_event.data)
    events = {
        e.data["message"]["id"]: e
        for e in await session.ledger.store.read_stream("acme", session.stream_id)
        if e.type == "MessageAppended" and e.data
    }
    for result in payload.results:
        event = events[result.message_id]
        assert result.event_id == str(event.event_id)  # recorded, never served
        assert result.event_id not in result.text
        assert f"kept whole at @{event.version}]" in result.text
    assert payload.tokens_saved == sum(r.tokens_before - r.tokens for r in payload.results)


async def test_time_travel_serves_what_was_served_then(session: Session) -> None:
    before = await session.render(BUDGET, keep_groups=2)
    outcome = await session.compact(BUDGET, keep_groups=2)
    assert outcome.mask_event is not None
    then = await session.render(BUDGET, keep_groups=2, at_version=outcome.mask_event.version - 1)
    assert then.manifest.request_hash == before.manifest.request_hash
    assert then.manifest.masked == []
    now = await session.render(BUDGET, keep_groups=2, at_version=outcome.mask_event.version)
    assert now.manifest.masked


async def test_masks_survive_snapshots_and_rebuilds(session: Session) -> None:
    await session.compact(BUDGET, keep_groups=2)
    await session.append(lookup(8))
    ledger = session.ledger
    cached = ledger.sessions.cached("acme", session.session_id)
    rebuilt = await session.state()
    assert cached is not None
    assert cached.masks
    assert state_digest(cached) == state_digest(rebuilt)
    cold = Ledger(ledger.store, snapshot_every=5)
    again = await cold.session("acme", "agent").render(BUDGET, keep_groups=2)
    assert again == await session.render(BUDGET, keep_groups=2)


async def test_an_erased_result_leaves_no_digest(session: Session) -> None:
    outcome = await session.compact(BUDGET, keep_groups=2)
    assert outcome.mask_event is not None
    assert outcome.mask_event.data is not None
    first = ResultsMasked.model_validate(outcome.mask_event.data).results[0]
    store = session.ledger.store
    await store.erase("acme", [first.event_id], reason="GDPR art. 17", requested_by="dpo")
    after = await session.render(BUDGET, keep_groups=2)
    wire = json.dumps(after.wire)
    assert first.text not in wire
    assert first.message_id not in after.manifest.masked
    assert (await store.verify("acme")).ok


async def test_pinned_groups_and_small_results_stay_whole(session: Session) -> None:
    await session.pin(["t1"], reason="the user's booking")
    await session.compact(BUDGET, keep_groups=2, summary_budget=200)
    after = await session.render(BUDGET, keep_groups=2)
    assert "t1" not in after.manifest.masked
    assert "seat map" in str(served(after)["t1"].content)


async def test_a_mask_that_would_not_save_tokens_is_ignored(session: Session) -> None:
    state = await session.latest()
    swollen = MaskedResult(
        message_id="t0",
        event_id="e",
        tokens_before=state.tokens["t0"],
        tokens=state.tokens["t0"] + 5,
        text="[masked] bigger than the result",
    )
    unknown = swollen.model_copy(update={"message_id": "nope", "tokens": 1})
    await session.append_events(
        [ResultsMasked(results=[swollen, unknown], keep_groups=2, tokens_saved=0)]
    )
    after = await session.render(BUDGET, keep_groups=2)
    assert after.manifest.masked == []


async def test_masking_alone_can_be_enough(session: Session) -> None:
    outcome = await session.compact(BUDGET, keep_groups=2)
    assert outcome.result == "masked"
    assert outcome.reached_trigger
    assert (await session.state()).chain.head is None  # no summary was needed
    rendered = await session.render(BUDGET, keep_groups=2)
    assert rendered.manifest.tokens["total"] <= 0.6 * BUDGET.usable
    assert rendered.manifest.dropped_groups == 0  # every group is still there, masked
    again = await session.compact(BUDGET, keep_groups=2)
    assert again.result == "not_needed"
    assert again.mask_event is None


async def test_masking_first_then_a_summary_when_still_over(session: Session) -> None:
    tight = Budget(context_limit=1200, max_output_tokens=0, tool_reserve=0, safety_margin=0)
    outcome = await session.compact(tight, keep_groups=2)
    assert outcome.result == "committed"
    assert outcome.masked > 0
    assert outcome.mask_event is not None
    assert outcome.event is not None
    assert outcome.mask_event.version < outcome.event.version
    rendered = await session.render(tight, keep_groups=2)
    assert rendered.manifest.summary_version == 1
    assert rendered.manifest.tokens["total"] <= tight.trigger


async def test_masking_can_be_turned_off(session: Session) -> None:
    outcome = await session.compact(BUDGET, keep_groups=2, mask_results=False)
    assert outcome.masked == 0
    assert outcome.mask_event is None
    assert (await session.render(BUDGET, keep_groups=2)).manifest.masked == []


async def test_a_newest_turn_too_big_for_the_budget_is_masked_as_a_last_resort() -> None:
    """The ladder before an error: when the newest turn alone leaves no room beside the prefix
    (its tool result is bigger than the budget), its own result is masked too; the render then
    fits, and the log keeps the result whole for recall."""
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "huge")
        await session.append([{"id": "sys", "role": "system", "content": "You book flights."}])
        for index in range(3):
            await session.append(lookup(index))
        big = lookup(3)
        big[2]["content"] = json.dumps(
            {"reservation_id": "RX0003Q", "rows": [f"row {n}: seat map" for n in range(120)]}
        )
        await session.append(big[:3])  # the turn ends on the result: the newest group
        budget = Budget(context_limit=700, max_output_tokens=0, tool_reserve=0, safety_margin=0)
        with pytest.raises(ContextOverBudgetError, match="the newest turn"):
            await session.render(budget, keep_groups=2)
        outcome = await session.compact(budget, keep_groups=2)
        assert outcome.mask_event is not None
        assert outcome.mask_event.data is not None
        masked = ResultsMasked.model_validate(outcome.mask_event.data)
        assert masked.keep_groups == 0
        assert "t3" in {r.message_id for r in masked.results}
        rendered = await session.render(budget, keep_groups=2)
        assert rendered.manifest.tokens["total"] <= budget.usable
        assert "t3" in rendered.manifest.masked
        assert "RX0003Q" in str(rendered.wire)  # the digest keeps its identifier
        assert "row 119" in str((await session.read_message("t3")).content)


async def test_the_fast_group_sizes_equal_the_served_sizes_at_every_version(
    session: Session,
) -> None:
    """``Cut.group_sizes`` (the index's column when no mask applies) and
    ``Cut.message_ranges`` agree with the exact per-group reads, before and after masking,
    at the head and at every earlier version."""
    for _ in range(2):
        state = await session.latest()
        for version in range(1, state.version + 1):
            cut = state.cut(version)
            sizes = cut.group_sizes()
            assert [sizes(g) for g in range(cut.groups)] == [
                cut.group_tokens(g) for g in range(cut.groups)
            ]
            groups = {g for g in range(cut.groups) if g % 3 != 1}
            expected = sorted(
                i
                for g in groups
                for i in range(cut.state.grouper.bounds(g)[0], cut.state.grouper.bounds(g)[1])
                if i < cut.count
            )
            ranges = cut.message_ranges(groups)
            assert [i for first, end in ranges for i in range(first, end)] == expected
        outcome = await session.compact(BUDGET, keep_groups=2)
        assert outcome.masked > 0 or state.masks  # the second pass reads a masked index
