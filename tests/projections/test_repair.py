"""A broken tool protocol, repaired in the request and never in the log: over random sessions
with calls whose results never came and results that answer no call, at random budgets, in
every wire format, a render with ``repair=True`` is a request a provider accepts (every call
answered before the next turn, no orphan result), within usable, its manifest counting the
placeholders and listing each change; the log keeps every issue as it happened."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore import EventStore
from projections.context.accounting import REPLY_PRIMING_TOKENS
from projections.context.budget import Budget
from projections.context.formats import to_messages
from projections.context.grouping import group_messages
from projections.context.tokens import TiktokenCounter
from projections.errors import ContextOverBudgetError
from projections.ledger import Ledger
from projections.session.repair import PLACEHOLDER
from tests.projections.test_cli import ctxledger

TEXT = st.lists(st.sampled_from(["seat", "G7311", "refund", "EUR", "the"]), min_size=1,
                max_size=40).map(" ".join)  # fmt: skip
TURN = st.one_of(
    st.tuples(st.just("user"), TEXT),
    st.tuples(st.just("reply"), TEXT),
    st.tuples(st.just("calls"), st.lists(st.booleans(), min_size=1, max_size=3)),  # answered?
    st.tuples(st.just("orphan"), TEXT),
)
SCENARIO = st.fixed_dictionaries({
    "turns": st.lists(TURN, min_size=1, max_size=25),
    "share": st.floats(0.1, 1.5),
    "fmt": st.sampled_from(["openai", "responses", "anthropic"]),
    "recall": st.booleans(),
})  # fmt: skip


def turn(step: int, kind: str, value: Any) -> list[dict[str, Any]]:
    if kind in ("user", "reply"):
        role = "user" if kind == "user" else "assistant"
        return [{"id": f"m{step}", "role": role, "content": value}]
    if kind == "orphan":
        return [{"id": f"o{step}", "role": "tool", "tool_call_id": f"gone{step}", "content": value}]
    calls = [{"id": f"c{step}_{k}", "name": "lookup", "arguments": json.dumps({"k": k})}
             for k in range(len(value))]  # fmt: skip
    results = [
        {"id": f"t{step}_{k}", "role": "tool", "tool_call_id": f"c{step}_{k}", "content": "ok"}
        for k, answered in enumerate(value)
        if answered
    ]
    return [{"id": f"a{step}", "role": "assistant", "tool_calls": calls}, *results]


async def check(scenario: dict[str, Any]) -> None:
    counter = TiktokenCounter()
    async with EventStore.open("memory://") as store:
        session = Ledger(store, counter=counter).session("acme", "broken")
        await session.append([{"id": "open", "role": "user", "content": "hello"}])
        for step, (kind, value) in enumerate(scenario["turns"]):
            await session.append(turn(step, kind, value))
        state = await session.state()
        history = sum(state.tokens.values())
        limit = max(int(scenario["share"] * history), 60)
        budget = Budget(context_limit=limit, max_output_tokens=0, tool_reserve=0, safety_margin=0)
        try:
            rendered = await session.render(
                budget, keep_groups=2, fmt=scenario["fmt"], recall=scenario["recall"], repair=True
            )
        except ContextOverBudgetError:
            return  # the newest turn alone does not fit: the budget invariant's own test
        manifest = rendered.manifest
        total = sum(counter.count_message(m) for m in rendered.messages) + REPLY_PRIMING_TOKENS
        assert manifest.tokens["total"] == total <= budget.usable
        assert sum(manifest.message_tokens) + REPLY_PRIMING_TOKENS == total
        _, issues = group_messages(to_messages(scenario["fmt"], rendered.wire))
        assert issues == [], issues  # what a provider accepts
        served = {m.id for m in rendered.messages}
        for change in manifest.repairs:
            if change["kind"] == "closed_call_without_result":
                placeholder = next(m for m in rendered.messages if m.id == change["message_id"])
                assert placeholder.content == PLACEHOLDER
            else:
                assert change["message_id"] not in served
        after = await session.state()  # the log is never changed
        assert (after.version, after.cut().issues) == (state.version, state.cut().issues)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=SCENARIO)
def test_a_repaired_render_is_accepted_and_within_budget(scenario: dict[str, Any]) -> None:
    asyncio.run(check(scenario))


async def test_without_repair_the_request_is_served_as_logged() -> None:
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "broken")
        await session.append([{"id": "u", "role": "user", "content": "weather?"}, *turn(1, "calls",
                             [False]), *turn(2, "orphan", "sunny")])  # fmt: skip
        budget = Budget(context_limit=4000, max_output_tokens=0, tool_reserve=0, safety_margin=0)
        plain = await session.render(budget)
        assert [m.id for m in plain.messages] == ["u", "a1", "o2"]
        assert plain.manifest.repairs == []
        assert {i["kind"] for i in plain.manifest.protocol_issues} == {
            "missing_result", "orphan_result"
        }  # fmt: skip
        repaired = await session.render(budget, repair=True)
        assert [m.id for m in repaired.messages] == ["u", "a1", "repair:c1_0"]
        assert sorted(r["kind"] for r in repaired.manifest.repairs) == [
            "closed_call_without_result", "left_out_orphan_result"
        ]  # fmt: skip


def test_context_names_the_problems_and_repairs_them_on_request(tmp_path: Path) -> None:
    db, source = tmp_path / "ledger.db", tmp_path / "broken.jsonl"
    rows = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "c9", "content": "sunny"},
        {"role": "user", "content": "and tomorrow?"},
    ]  # fmt: skip
    source.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    where = ["--tenant", "t", "--session", "s"]
    assert ctxledger("ingest", str(source), *where, db=db).returncode == 0
    plain = ctxledger("context", *where, db=db)
    assert plain.returncode == 0, plain.stderr
    assert plain.stderr.count("tool protocol:") == 2
    assert "--repair" in plain.stderr
    repaired = ctxledger("context", *where, "--repair", "--json", db=db)
    assert repaired.returncode == 0, repaired.stderr
    body = json.loads(repaired.stdout)
    roles = [(m["role"], m.get("tool_call_id")) for m in body["messages"]]
    assert roles == [("user", None), ("assistant", None), ("tool", "c1"), ("user", None)]
    assert body["messages"][2]["content"] == PLACEHOLDER
    _, issues = group_messages(to_messages("openai", body["messages"]))
    assert issues == []
    assert len(body["manifest"]["repairs"]) == 2
    assert "repaired: closed call without result: call 'c1'" in repaired.stderr
