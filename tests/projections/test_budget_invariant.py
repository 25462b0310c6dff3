"""The budget as an invariant: over random sessions, pins, budgets, compactions, wire formats
and encodings, a render either fits under usable, with its manifest's total equal to the
request counted message by message, every tool group whole; or raises
:class:`ContextOverBudgetError`, and then even the newest turn alone would not fit."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from blake3 import blake3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore import EventStore
from eventstore.encoding import canonical_json
from projections.context.accounting import REPLY_PRIMING_TOKENS
from projections.context.budget import Budget
from projections.context.grouping import group_messages
from projections.context.messages import Message
from projections.context.tokens import TiktokenCounter
from projections.errors import ContextOverBudgetError
from projections.ledger import Ledger, Session
from projections.recall.search import RecallOptions
from projections.session.render import RenderedContext

WORDS = ["seat", "Hangzhou", "refund", "12A", "EUR", "2024-05-08", "gold", "the", "8th", "of"]
TEXT = st.lists(st.sampled_from(WORDS), min_size=1, max_size=120).map(" ".join)
TURN = st.one_of(
    st.tuples(st.just("user"), TEXT),
    st.tuples(st.just("reply"), TEXT),
    st.tuples(st.just("tools"), st.lists(TEXT, min_size=1, max_size=3)),
    st.tuples(st.just("pin"), st.integers(0, 200).map(str)),
)
SCENARIO = st.fixed_dictionaries(
    {
        "system": st.one_of(st.none(), TEXT),
        "turns": st.lists(TURN, min_size=1, max_size=40),
        "share": st.floats(0.05, 1.2),  # of the session's tokens
        "keep": st.integers(1, 6),
        "compact": st.booleans(),
        "target": st.sampled_from([None, 0.6, 1.0]),
        # recall off, on (the summary may yield its room to the best hit), or on with the
        # summary always served
        "recall": st.sampled_from([False, RecallOptions(), RecallOptions(summary_yields=False)]),
        "fmt": st.sampled_from(["openai", "responses", "anthropic"]),
        "encoding": st.sampled_from(["o200k_base", "cl100k_base"]),
    }
)


def turn_messages(step: int, kind: str, value: Any) -> list[dict[str, Any]]:
    if kind == "user":
        return [{"id": f"u{step}", "role": "user", "content": value}]
    if kind == "reply":
        return [{"id": f"r{step}", "role": "assistant", "content": value}]
    calls = [
        {"id": f"c{step}_{k}", "name": "lookup", "arguments": json.dumps({"q": text[:20]})}
        for k, text in enumerate(value)
    ]
    results = [
        {
            "id": f"t{step}_{k}",
            "role": "tool",
            "tool_call_id": f"c{step}_{k}",
            "content": json.dumps({"result": text, "reservation_id": f"RX{step:03d}{k}"}),
        }
        for k, text in enumerate(value)
    ]
    return [{"id": f"a{step}", "role": "assistant", "tool_calls": calls}, *results]


async def build(session: Session, scenario: dict[str, Any]) -> None:
    if scenario["system"]:
        await session.append([{"id": "sys", "role": "system", "content": scenario["system"]}])
    ids: list[str] = []
    for step, (kind, value) in enumerate(scenario["turns"]):
        if kind == "pin":
            if ids:
                await session.pin([ids[int(value) % len(ids)]], reason="property")
            continue
        batch = turn_messages(step, kind, value)
        # Anthropic needs a user turn first: open with one when the session starts otherwise.
        if not ids and kind != "user":
            batch.insert(0, {"id": f"u{step}_open", "role": "user", "content": "hello"})
        await session.append(batch)
        ids += [m["id"] for m in batch]


def counted(rendered: RenderedContext, counter: TiktokenCounter) -> int:
    return sum(counter.count_message(m) for m in rendered.messages) + REPLY_PRIMING_TOKENS


def assert_groups_whole(rendered: RenderedContext, messages: list[Message]) -> None:
    served = {m.id for m in rendered.messages}
    groups, _ = group_messages(messages)
    for group in groups:
        inside = [m.id in served for m in group.messages]
        assert all(inside) or not any(inside), f"group split: {[m.id for m in group.messages]}"


async def check(scenario: dict[str, Any]) -> None:
    counter = TiktokenCounter(encoding=scenario["encoding"])
    async with EventStore.open("memory://") as store:
        session = Ledger(store, counter=counter).session("acme", "prop")
        await build(session, scenario)
        history = sum((await session.state()).tokens.values())
        budget = Budget(
            context_limit=max(int(scenario["share"] * history), 30),
            max_output_tokens=0,
            tool_reserve=0,
            safety_margin=0,
        )
        keep = scenario["keep"]
        if scenario["compact"]:
            await session.compact(budget, keep_groups=keep, target=scenario["target"])
        recall = scenario["recall"]
        least = await session.render(budget, keep_groups=1, over_budget="serve")
        if least.manifest.over_budget:
            # Refused only when the parts that must be served, the newest turn alone with the
            # prefix, pins and summary, are over usable; the error names them.
            with pytest.raises(ContextOverBudgetError) as raised:
                await session.render(budget, keep_groups=keep, fmt=scenario["fmt"], recall=recall)
            assert raised.value.tokens == least.manifest.tokens["total"] > budget.usable
            assert raised.value.why == least.manifest.over_why
            return
        rendered = await session.render(
            budget, keep_groups=keep, fmt=scenario["fmt"], recall=recall
        )
        manifest = rendered.manifest
        assert manifest.tokens["total"] <= budget.usable
        assert manifest.margin == budget.usable - manifest.tokens["total"] >= 0
        assert counted(rendered, counter) == manifest.tokens["total"]
        assert sum(manifest.message_tokens) + REPLY_PRIMING_TOKENS == manifest.tokens["total"]
        # The render hashes its wire without canonical_json's walk: the bytes are the same.
        request = canonical_json({"format": scenario["fmt"], "messages": rendered.wire})
        assert manifest.request_hash == blake3(request).hexdigest()
        state = await session.state()
        assert_groups_whole(rendered, state.messages)
        if manifest.summary_yielded is not None:  # named, and not served
            assert recall
            assert recall.summary_yields
            assert manifest.summary_version is None
            assert "summary" not in manifest.sections


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(scenario=SCENARIO)
def test_a_render_fits_its_budget_or_says_what_does_not(scenario: dict[str, Any]) -> None:
    asyncio.run(check(scenario))


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_the_fixed_message_overheads_hold_in_every_encoding(encoding: str) -> None:
    """The constants the pure planner uses without a tokenizer: ``user`` is one token, and the
    erased placeholder's message is ERASED_MESSAGE_TOKENS."""
    from projections.context.accounting import USER_MESSAGE_OVERHEAD
    from projections.session.fold import ERASED, ERASED_MESSAGE_TOKENS

    counter = TiktokenCounter(encoding=encoding)
    block = "<compaction_summary trust='untrusted'>\nany text\n</compaction_summary>"
    message = Message(role="user", content=block)
    assert counter.count_message(message) == counter.count_text(block) + USER_MESSAGE_OVERHEAD
    erased = Message(role="user", content=ERASED)
    assert counter.count_message(erased) == ERASED_MESSAGE_TOKENS
