"""Grouping and the window policy: property tests for the promises compaction rests on."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from projections.context.budget import Budget
from projections.context.grouping import group_messages
from projections.context.messages import Message
from projections.context.window import plan_window


def user(i: int) -> Message:
    return Message(id=f"u{i}", role="user", content=f"question {i}")


def call(i: int, n: int = 1) -> list[Message]:
    calls = [{"id": f"c{i}_{k}", "name": "f", "arguments": "{}"} for k in range(n)]
    results = [
        Message(id=f"r{i}_{k}", role="tool", tool_call_id=f"c{i}_{k}", content="ok")
        for k in range(n)
    ]
    return [Message(id=f"a{i}", role="assistant", tool_calls=calls), *results]


def test_tool_calls_and_results_are_one_group() -> None:
    messages = [Message(id="s", role="system", content="rules"), user(1), *call(2, n=3), user(3)]
    groups, issues = group_messages(messages)
    assert [g.ids for g in groups] == [["s"], ["u1"], ["a2", "r2_0", "r2_1", "r2_2"], ["u3"]]
    assert issues == []


def test_protocol_issues_are_reported_not_dropped() -> None:
    orphan = Message(id="o", role="tool", tool_call_id="nowhere", content="?")
    duplicate = [
        Message(
            id="a9", role="assistant", tool_calls=[{"id": "c1_0", "name": "f", "arguments": "{}"}]
        ),
        Message(id="r9", role="tool", tool_call_id="c1_0", content="x"),
    ]
    broken = call(1, n=2)[:2]  # the second result never comes
    messages = [user(0), orphan, *broken, user(2), *duplicate]
    groups, issues = group_messages(messages)
    assert {(i.kind, i.message_id, i.tool_call_id) for i in issues} == {
        ("orphan_result", "o", "nowhere"),
        ("missing_result", "a1", "c1_1"),
        ("duplicate_call_id", "a9", "c1_0"),
    }
    assert sum(len(g.messages) for g in groups) == len(messages)  # nothing dropped


def test_a_trailing_call_waits_with_its_call() -> None:
    messages = [user(0), *call(1, n=2)[:2]]
    groups, issues = group_messages(messages)
    assert issues == []
    assert groups[-1].ids == ["a1", "r1_0"]
    assert groups[-1].pending_calls == ("c1_1",)


def test_budget_as_the_seed_defines_it() -> None:
    budget = Budget(context_limit=128_000, max_output_tokens=4_000)
    assert budget.usable == 128_000 - 4_000 - 1_000 - 500
    assert budget.need_compaction(int(0.8 * budget.usable) + 1)
    assert not budget.need_compaction(int(0.8 * budget.usable))


def test_a_budget_without_room_names_the_defaults_it_kept_back() -> None:
    with pytest.raises(ValueError, match=r"= -600; raise context_limit.*default to 1000 and 500"):
        Budget(context_limit=1_000, max_output_tokens=100)
    assert Budget(context_limit=1_000, max_output_tokens=100, tool_reserve=0).usable == 400


@st.composite
def sessions(draw: st.DrawFn) -> tuple[list[Message], set[str], dict[str, int]]:
    messages = [Message(id="sys", role="system", content="rules")]
    for i in range(draw(st.integers(0, 30))):
        if draw(st.booleans()):
            messages.append(user(i))
        else:
            messages.extend(call(i, n=draw(st.integers(1, 3))))
    ids = [m.id for m in messages]
    pinned = set(draw(st.lists(st.sampled_from(ids), max_size=4))) - {"sys"}
    tokens = {m.id: draw(st.integers(1, 200)) for m in messages}
    return messages, pinned, tokens


@settings(max_examples=300, deadline=None)
@given(session=sessions(), limit=st.integers(50, 3000), keep=st.integers(0, 8))
def test_window_never_splits_never_drops_and_stays_within_budget(
    session: tuple[list[Message], set[str], dict[str, int]], limit: int, keep: int
) -> None:
    messages, pinned, tokens = session
    groups, _ = group_messages(messages)
    plan = plan_window(groups, pinned, tokens, limit, keep_groups=keep)
    chosen = [group for group, _ in plan.groups]
    # never splits a group: each chosen group is one of the input groups, whole
    assert all(group in groups for group in chosen)
    # original order
    assert [groups.index(g) for g in chosen] == sorted(groups.index(g) for g in chosen)
    kept = {m.id for g in chosen for m in g.messages}
    assert "sys" in kept  # the prefix
    assert pinned <= kept  # every pin
    for group in groups[max(1, len(groups) - keep) :]:  # the last keep_groups groups
        assert group in chosen
    total = sum(tokens[i] for i in kept)
    assert plan.tokens == total
    assert plan.over_budget == (total > limit)
    if not plan.over_budget:
        assert total <= limit
