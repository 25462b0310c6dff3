"""A cold open that reads a snapshot's first and last parts only (issue #28): whatever the
history, the part size, the budget or the version asked for, a render from the partial index
serves the bytes a render from the whole log serves; a read that needs a row it lacks loads
the whole index and reads again; events it cannot fold load it whole first; a forged head
serves nothing it says."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from eventstore import EventStore, LedgerError
from projections.context.budget import Budget
from projections.ledger import Ledger
from projections.session.codec import snapshot_from_dict, snapshot_to_dict
from projections.session.fold import SessionView
from projections.session.state import SessionState
from tests.projections.test_masking import BUDGET as MASKING
from tests.projections.test_masking import lookup
from tests.projections.test_snapshot_parts import STREAM, _history, _ledger, _play, _wire


def _budget(limit: int) -> Budget:
    return Budget(context_limit=limit, max_output_tokens=0, tool_reserve=0, safety_margin=0)


async def _served(ledger: Ledger, limit: int, version: int | None = None) -> str:
    """What a render serves, or the error it raises (a context over budget, say)."""
    session = ledger.session("acme", "s")
    try:
        rendered = await session.render(_budget(limit), keep_groups=1, at_version=version)
    except LedgerError as error:
        return f"{type(error).__name__}: {error}"
    return json.dumps([rendered.wire, rendered.manifest.request_hash], sort_keys=True)


async def _cold(store: EventStore, every: int) -> tuple[Ledger, SessionState]:
    """A new ledger on the store and the state a render's cold open starts from."""
    ledger = _ledger(store, every, 3)
    state = await ledger.sessions.current("acme", "s", partial=True)
    return ledger, state


@given(
    operations=_history,
    every=st.integers(1, 3),
    limit=st.integers(60, 2000),
    back=st.integers(0, 30),
)
@settings(max_examples=150, deadline=None)
def test_a_partial_open_serves_what_the_whole_log_serves(
    operations: list[Any], every: int, limit: int, back: int
) -> None:
    async def check() -> None:
        async with EventStore.open("memory://") as store:
            await _play(_ledger(store, every, 3).session("acme", "s"), operations)
            whole = Ledger(store, snapshot_every=0)  # folds the log, no snapshot
            version = (await store.stream_head("acme", STREAM)).version
            for at in (None, max(1, version - back)):
                cold, state = await _cold(store, every)
                served = await _served(cold, limit, at)
                kept = cold.sessions.cached("acme", "s") is state
                event(f"opened {'partially' if state.partial else 'whole'}, kept: {kept}")
                assert served == await _served(whole, limit, at)

    asyncio.run(check())


async def _long(store: EventStore, every: int = 8, turns: int = 30) -> None:
    ledger = _ledger(store, every, 3)
    session = ledger.session("acme", "s")
    await session.append([{"id": "sys", "role": "system", "content": "You plan trips."}])
    for turn in range(turns):
        await session.append(
            [
                {"id": f"u{turn}", "role": "user", "content": f"question {turn}"},
                {"id": f"a{turn}", "role": "assistant", "content": f"answer {turn}"},
            ]
        )
    await session.latest()


async def test_a_cold_open_of_a_long_session_reads_the_ends_and_renders_from_them(
    store_url: str,
) -> None:
    async with EventStore.open(store_url) as store:
        await _long(store)
        ledger, state = await _cold(store, 8)
        assert state.partial
        served = await _served(ledger, 120)
        assert "answer 29" in served
        assert served == await _served(Ledger(store, snapshot_every=0), 120)
        assert ledger.sessions.cached("acme", "s") is state  # the window needed no more
        cold, _ = await _cold(store, 8)
        searched, reference = [
            [(r.message.id, r.version) for r in await led.session("acme", "s").search("answer 29")]
            for led in (cold, Ledger(store, snapshot_every=0))
        ]
        assert searched == reference
        assert searched[0] == ("a29", 61)  # a search from a partial index: the log's messages


async def test_a_read_that_needs_the_middle_loads_the_whole_index_and_reads_again() -> None:
    async with EventStore.open("memory://") as store:
        await _long(store)
        whole = Ledger(store, snapshot_every=0)
        for served in (
            lambda ledger: _served(ledger, 5000),  # a budget that holds the whole history
            lambda ledger: _served(ledger, 120, 9),  # a version among the rows not read
        ):
            ledger, state = await _cold(store, 8)
            assert state.partial
            text = await served(ledger)
            assert "question 1" in text
            assert text == await served(whole)
            cached = ledger.sessions.cached("acme", "s")
            assert cached is not None
            assert not cached.partial


async def test_a_pin_in_the_middle_is_served_from_the_whole_index() -> None:
    async with EventStore.open("memory://") as store:
        await _long(store)
        await _ledger(store, 8, 3).session("acme", "s").pin(["u3"], reason="the booking")
        await _ledger(store, 8, 3).session("acme", "s").latest()
        ledger, _ = await _cold(store, 8)
        served = await _served(ledger, 200)
        assert "question 3" in served
        assert served == await _served(Ledger(store, snapshot_every=0), 200)


async def test_new_messages_fold_into_a_partial_index_and_tool_calls_load_it_whole() -> None:
    async with EventStore.open("memory://") as store:
        await _long(store)
        writer = _ledger(store, 8, 1000)  # saves no new head: a cold open folds the tail
        ledger, state = await _cold(store, 8)
        await writer.session("acme", "s").append([_wire("user", "and Rome?", 900)])
        assert (await ledger.sessions.current("acme", "s", partial=True)) is state
        assert state.partial
        assert state.ids[-1] == "m900"
        await writer.session("acme", "s").append([_wire("calls", ["k1"], 901)])
        opened = await ledger.sessions.current("acme", "s", partial=True)
        assert not opened.partial  # a call id is checked against every call seen
        whole = Ledger(store, snapshot_every=0)
        assert await _served(ledger, 150) == await _served(whole, 150)


async def test_a_head_whose_marks_are_forged_serves_nothing_they_say(store_url: str) -> None:
    async with EventStore.open(store_url) as store:
        await _long(store)
        honest = await _served(Ledger(store, snapshot_every=0), 150)
        head = await store.load_snapshot("acme", SessionView.name, STREAM)
        assert head is not None
        raw = snapshot_to_dict(head.state)
        for marks in raw["part_marks"][1:]:
            marks[1] -= 2  # the hole two messages shorter: every later row moves up two
        await store.save_snapshot(head.model_copy(update={"state": snapshot_from_dict(raw)}))
        ledger, _ = await _cold(store, 8)
        assert await _served(ledger, 150) == honest


@pytest.mark.parametrize("compactions", [(5,), (5, 11, 17, 23, 29)])  # masks; then summaries
async def test_masks_and_summaries_serve_the_same_bytes_from_a_partial_index(
    compactions: tuple[int, ...],
) -> None:
    async with EventStore.open("memory://") as store:
        writer = _ledger(store, 8, 3)  # part 0: the prompt, turn 0 and most of turn 1
        session = writer.session("acme", "s")
        await session.append([{"id": "sys", "role": "system", "content": "You book flights."}])
        for index in range(30):
            await session.append(lookup(index))
            if index in compactions:
                await session.compact(MASKING, keep_groups=2, summary_budget=400)
        # A result masked by an event among the rows not read, in a group pinned before them.
        await session.pin(["t0"], reason="the first booking")
        for index in range(4):  # a tail of plain messages: the cold open stays partial
            await session.append([_wire("user", f"and then {index}?", 900 + index)])
            await session.latest()
        whole = Ledger(store, snapshot_every=0)
        state = await whole.session("acme", "s").latest()
        assert "t0" in state.masks
        assert len(state.chain.committed) >= (2 if len(compactions) > 1 else 0)
        version = state.version
        for limit in (600, 900, 3000):
            for at in (None, version - 5, version // 2):
                cold, opened = await _cold(store, 8)
                assert opened.partial
                assert await _served(cold, limit, at) == await _served(whole, limit, at)
