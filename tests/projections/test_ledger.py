"""The session facade over a real store: append, pins, render, time travel, real data."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.grouping import group_messages
from projections.context.messages import Message
from projections.errors import ContextOverBudgetError, MessageValidationError
from projections.ledger import Ledger
from projections.session.codec import state_digest
from projections.session.render import render
from projections.sync import SyncLedger

TRIP: list[dict[str, Any]] = [
    {"id": "m1", "role": "system", "content": "You plan trips. Never book automatically."},
    {"id": "m2", "role": "user", "content": "Leave Shanghai 2026-09-19 morning, ≤ 200 CNY."},
    {
        "id": "m3",
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "name": "search_trains", "arguments": '{"to": "Hangzhou"}'}],
    },
    {"id": "m4", "role": "tool", "tool_call_id": "c1", "content": "G7311 08:05 73 CNY; G123"},
    {"id": "m5", "role": "assistant", "content": "G7311 fits; G123 arrives too late."},
    {"id": "m6", "role": "user", "content": "Book G7311? No wait, just hold it."},
]


@pytest.fixture
async def ledger(tmp_path: Path) -> Any:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        yield Ledger(store)


async def test_append_pin_render(ledger: Ledger) -> None:
    session = ledger.session("acme", "trip-42")
    events = await session.append(TRIP)
    assert [e.type for e in events] == ["MessageAppended"] * 6
    assert events[0].data is not None
    assert events[0].data["encoding"] == "o200k_base"
    assert events[0].data["tokens"] > 0
    await session.pin(["m2"], reason="user constraint")
    context = await session.render(Budget(context_limit=10_000, max_output_tokens=1_000))
    manifest = context.manifest
    assert (
        manifest.message_ids
        == [m.id for m in context.messages]
        == ["m1", "m2", "m3", "m4", "m5", "m6"]
    )
    assert manifest.sections == ["prefix", "pinned", "window", "window", "window", "window"]
    assert (
        manifest.tokens["total"]
        == sum(manifest.tokens[s] for s in ("prefix", "pinned", "window")) + 3
    )
    assert context.wire[2]["tool_calls"][0]["id"] == "c1"
    assert not manifest.over_budget
    assert manifest.tokenizer == ["o200k_base"]
    assert len(manifest.request_hash) == 64


async def test_tight_budget_keeps_prefix_pins_and_recent_groups(ledger: Ledger) -> None:
    session = ledger.session("acme", "trip-42")
    await session.append(TRIP)
    await session.pin(["m2"], reason="constraint")
    tight = Budget(context_limit=60, max_output_tokens=0, tool_reserve=0, safety_margin=0)
    context = await session.render(tight, keep_groups=1)
    assert context.manifest.message_ids == ["m1", "m2", "m6"]
    assert not context.manifest.over_budget
    assert context.manifest.tokens["total"] <= 60
    assert context.manifest.dropped_groups == 2
    too_small = Budget(context_limit=20, max_output_tokens=0, tool_reserve=0, safety_margin=0)
    with pytest.raises(ContextOverBudgetError) as raised:
        await session.render(too_small, keep_groups=1)
    assert "the prefix (system and developer messages)" in raised.value.why
    assert raised.value.usable == 20
    context = await session.render(too_small, keep_groups=1, over_budget="serve")
    assert context.manifest.message_ids == ["m1", "m2", "m6"]  # never dropped, but reported
    assert context.manifest.over_budget
    assert context.manifest.tokens["total"] == raised.value.tokens > 20
    assert context.manifest.margin == 20 - context.manifest.tokens["total"]
    assert context.manifest.over_why == raised.value.why


async def test_protocol_issue_is_recorded_at_append(ledger: Ledger) -> None:
    session = ledger.session("acme", "s")
    events = await session.append(
        [{"id": "x", "role": "tool", "tool_call_id": "ghost", "content": "?"}]
    )
    assert [e.type for e in events] == ["MessageAppended", "ProtocolIssueRecorded"]
    assert events[1].data is not None
    assert events[1].data["kind"] == "orphan_result"
    context = await session.render(Budget(context_limit=5000, max_output_tokens=0))
    assert context.manifest.message_ids == ["x"]  # reported, never dropped
    assert context.manifest.protocol_issues[0]["kind"] == "orphan_result"


async def test_refusals(ledger: Ledger) -> None:
    session = ledger.session("acme", "s")
    await session.append(TRIP[:2])
    with pytest.raises(MessageValidationError, match="already in session"):
        await session.append([TRIP[1]])
    with pytest.raises(MessageValidationError, match="has no message 'nope'"):
        await session.pin(["nope"], reason="r")
    with pytest.raises(MessageValidationError, match="unknown role"):
        await session.append([{"role": "wizard", "content": "x"}])


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"role": "user", "content": "hi"}, r"got one message \(a dict\): pass it in a list"),
        (Message(role="user", content="hi"), r"got one message \(a Message\)"),
        ("hello", "got str 'hello'"),
        (None, "got NoneType"),
        (5, "got int"),
    ],
)
async def test_append_names_a_single_message_or_a_non_list(
    ledger: Ledger, given: Any, expected: str
) -> None:
    # A dict or a string would otherwise be iterated (its keys, its characters) and each
    # reported as "not a valid message"; None or a number raised a bare TypeError.
    session = ledger.session("acme", "s")
    with pytest.raises(
        MessageValidationError, match=f"append takes a list of messages.*{expected}"
    ):
        await session.append(given)
    assert (await session.latest()).version == 0


async def test_unpin_and_model_call(ledger: Ledger) -> None:
    session = ledger.session("acme", "s")
    await session.append(TRIP)
    await session.pin(["m2", "m4"], reason="r")
    await session.unpin(["m4"], reason="done")
    state = await session.state()
    assert state.pinned == {"m2"}
    event = await session.record_model_call(
        input_tokens=900, output_tokens=40, cached_input_tokens=512, ttft_ms=320.5
    )
    assert event.type == "ModelCallRecorded"
    assert (await session.state()).model_calls == 1


async def test_time_travel_equals_what_was_rendered_then(ledger: Ledger) -> None:
    session = ledger.session("acme", "trip")
    budget = Budget(context_limit=150, max_output_tokens=0, tool_reserve=0, safety_margin=0)
    rendered_then = {}
    for message in TRIP:
        (event, *_) = await session.append([message])
        rendered_then[event.version] = (await session.render(budget, keep_groups=2)).manifest
    for version, manifest in rendered_then.items():
        again = await session.render(budget, keep_groups=2, at_version=version)
        assert again.manifest == manifest
        by_position = await session.render(
            budget, keep_groups=2, at_position=manifest.as_of_position
        )
        assert by_position.manifest == manifest


def test_sync_facade(tmp_path: Path) -> None:
    with SyncLedger(str(tmp_path / "ledger.db")) as ledger:
        session = ledger.session("acme", "sync")
        session.append(TRIP[:3])
        session.pin(["m2"], reason="r")
        context = session.render(Budget(context_limit=5000, max_output_tokens=0))
        assert context.manifest.message_ids == ["m1", "m2", "m3"]


def groups_whole(rendered: list[Message], groups: list[Any]) -> bool:
    """Every group of the session is rendered whole or not at all."""
    ids = {message.id for message in rendered}
    return all(len({m.id in ids for m in group.messages}) == 1 for group in groups)


async def test_tau_bench_at_75_50_25_percent(corpora: Path) -> None:
    runs = json.loads((corpora / "tau-bench-airline" / "gpt-4o-airline.json").read_text())
    async with EventStore.open("memory://") as store:
        ledger = Ledger(store)
        for run in runs:
            session = ledger.session("tau", f"{run['task_id']}-{run['trial']}")
            for index, message in enumerate(run["traj"]):
                message = {**message, "id": f"m{index}"}
                calls = message.pop("tool_calls", None) or []
                message["tool_calls"] = [
                    {
                        "id": c["id"],
                        "name": c["function"]["name"],
                        "arguments": c["function"]["arguments"],
                    }
                    for c in calls
                ]
                await session.append([message])
            first_user = next(i for i, m in enumerate(run["traj"]) if m["role"] == "user")
            await session.pin([f"m{first_user}"], reason="the user's request")
            state = await session.state()
            total = sum(state.tokens.values())
            groups, _ = group_messages(state.messages)
            for share in (0.75, 0.5, 0.25):
                budget = Budget(
                    context_limit=int(total * share),
                    max_output_tokens=0,
                    tool_reserve=0,
                    safety_margin=0,
                )
                context = await session.render(budget, over_budget="serve")
                if context.manifest.over_budget:  # the prefix and the pin alone do not fit
                    with pytest.raises(ContextOverBudgetError):
                        await session.render(budget)
                    continue
                ids = context.manifest.message_ids
                assert context.messages[0].content == run["traj"][0]["content"]  # prefix
                assert f"m{first_user}" in ids  # the pin
                kept = context.manifest.keep_groups  # 6, or fewer when 6 do not fit
                assert 1 <= kept <= 6
                for group in groups[-kept:]:  # the last groups kept, verbatim
                    assert all(m.id in ids for m in group.messages)
                assert groups_whole(context.messages, groups)  # no orphan, no split group
                assert context.manifest.tokens["total"] <= budget.usable


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("user"), st.integers(1, 3)),
        st.tuples(st.just("calls"), st.integers(1, 3)),  # parallel calls and their results
        st.tuples(st.just("partial"), st.integers(2, 3)),  # a result goes missing
        st.tuples(st.just("orphan"), st.just(1)),
        st.tuples(st.just("pin"), st.integers(0, 50)),
        st.tuples(st.just("unpin"), st.integers(0, 50)),
    ),
    max_size=25,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations=OPERATIONS)
def test_incremental_state_equals_rebuild_at_every_version(
    operations: list[tuple[str, int]],
) -> None:
    """The cached, incrementally updated state and a fold from zero agree at every version."""

    async def scenario() -> None:
        async with EventStore.open("memory://") as store:
            ledger = Ledger(store, snapshot_every=4)
            session = ledger.session("acme", "prop")
            budget = Budget(context_limit=400, max_output_tokens=0, tool_reserve=0, safety_margin=0)
            ids: list[str] = []
            await session.append([{"id": "sys", "role": "system", "content": "rules"}])
            for step, (kind, n) in enumerate(operations):
                batch: list[dict[str, Any]] = []
                if kind == "user":
                    batch = [
                        {"id": f"u{step}_{k}", "role": "user", "content": "q" * k * 9}
                        for k in range(n)
                    ]
                elif kind in ("calls", "partial"):
                    calls = [
                        {"id": f"c{step}_{k}", "name": "f", "arguments": "{}"} for k in range(n)
                    ]
                    batch = [{"id": f"a{step}", "role": "assistant", "tool_calls": calls}]
                    answered = n if kind == "calls" else n - 1
                    batch += [
                        {
                            "id": f"r{step}_{k}",
                            "role": "tool",
                            "tool_call_id": f"c{step}_{k}",
                            "content": "ok" * k,
                        }
                        for k in range(answered)
                    ]
                elif kind == "orphan":
                    batch = [
                        {
                            "id": f"o{step}",
                            "role": "tool",
                            "tool_call_id": "nowhere",
                            "content": "?",
                        }
                    ]
                elif ids:
                    target = [ids[n % len(ids)]]
                    mark = session.pin if kind == "pin" else session.unpin
                    await mark(target, reason="test")
                if batch:
                    await session.append(batch)
                    ids += [m["id"] for m in batch]
                warm = await session.render(budget, keep_groups=2)
                rebuilt = await session.state()
                assert render(rebuilt, budget, keep_groups=2).manifest == warm.manifest
                cached = ledger.sessions.cached("acme", session.session_id)
                assert state_digest(cached) == state_digest(rebuilt)
                # A fresh ledger starts from the last snapshot and catches up: same state.
                cold = Ledger(store, snapshot_every=4)
                assert (
                    await cold.session("acme", "prop").render(budget, keep_groups=2)
                ).manifest == warm.manifest
                assert state_digest(
                    cold.sessions.cached("acme", session.session_id)
                ) == state_digest(rebuilt)
            # Every earlier version: cut out of the latest state == folded from zero.
            latest = await session.state()
            for version in range(latest.version + 1):
                cut = await session.render(budget, keep_groups=2, at_version=version)
                folded = render(await session.state(at_version=version), budget, keep_groups=2)
                assert cut.manifest == folded.manifest

    asyncio.run(scenario())


async def test_cold_open_uses_a_checked_snapshot(tmp_path: Path) -> None:
    from eventstore import Snapshot

    budget = Budget(context_limit=5000, max_output_tokens=0)
    async with EventStore.open(tmp_path / "ledger.db") as store:
        writer = Ledger(store, snapshot_every=5)
        session = writer.session("acme", "long")
        for i in range(12):
            await session.append([{"id": f"m{i}", "role": "user", "content": f"turn {i}"}])
        snapshot = await store.load_snapshot("acme", "context_view", "session/long")
        assert snapshot is not None
        assert snapshot.version == 10  # at 5, then 5 more (or as many as it has, if more)
        expected = (await session.render(budget)).manifest

        reader = Ledger(store, snapshot_every=5)
        assert (await reader.session("acme", "long").render(budget)).manifest == expected
        assert reader.sessions.snapshot_version("acme", "long") == 10  # started from it

        # A snapshot whose event is not where it says is ignored; the log decides.
        await store.save_snapshot(snapshot.model_copy(update={"position": 999}))
        fresh = Ledger(store, snapshot_every=5)
        assert (await fresh.session("acme", "long").render(budget)).manifest == expected
        # It rebuilt from the log and saved a good snapshot of its own (not the moved one).
        assert fresh.sessions.snapshot_version("acme", "long") == 12
        # So is a damaged one (its hash no longer matches).
        (record,) = await store.recorder.load_snapshots("acme", "session/long", ["context_view"])
        await store.recorder.save_snapshots([record._replace(state=record.state + b" ")])
        assert await store.load_snapshot("acme", "context_view", "session/long") is None
        again = Ledger(store, snapshot_every=5)
        assert (await again.session("acme", "long").render(budget)).manifest == expected
        repaired = await store.load_snapshot("acme", "context_view", "session/long")
        assert isinstance(repaired, Snapshot)
        assert repaired.version == 12


async def test_cache_keeps_the_most_recent_sessions() -> None:
    async with EventStore.open("memory://") as store:
        ledger = Ledger(store, cached_sessions=2)
        budget = Budget(context_limit=5000, max_output_tokens=0)
        for name in ("a", "b", "c"):
            session = ledger.session("acme", name)
            await session.append([{"id": f"{name}1", "role": "user", "content": name}])
            await session.render(budget)
        assert ledger.sessions.cached_keys() == [("acme", "b"), ("acme", "c")]
        again = await ledger.session("acme", "a").render(budget)  # rebuilt on demand
        assert again.manifest.message_ids == ["a1"]
        assert ledger.sessions.cached_keys() == [("acme", "c"), ("acme", "a")]
