"""Every item the Agents SDK can hand a session round-trips through the Responses adapter, item
for item: reasoning, hosted tools, custom and computer tool calls, MCP, compaction, references
and item types that do not exist yet; a reasoning item stays in its call's group."""

from __future__ import annotations

from typing import Any

from projections.context.formats import from_messages, to_messages
from projections.context.grouping import group_messages
from projections.context.messages import OPAQUE_PART
from projections.context.tokens import TiktokenCounter

REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "The user wants the weather."}],
    "encrypted_content": "gAAAAB" + "x" * 400,
}
TURN: list[dict[str, Any]] = [
    {"role": "user", "content": "Weather in Hangzhou, then book the cheapest train."},
    REASONING,
    {"type": "web_search_call", "id": "ws_1", "status": "completed",
     "action": {"type": "search", "query": "Hangzhou weather"}},
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
     "arguments": '{"city": "Hangzhou"}', "status": "completed"},
    {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_2", "name": "grammar",
     "input": "SELECT 1"},
    {"type": "function_call_output", "call_id": "call_1", "output": '{"sky": "sunny"}'},
    {"type": "custom_tool_call_output", "call_id": "call_2", "output": "1"},
    {"type": "reasoning", "id": "rs_2", "summary": []},
    {"type": "computer_call", "id": "cu_1", "call_id": "call_3", "status": "completed",
     "action": {"type": "click", "x": 10, "y": 20, "button": "left"},
     "pending_safety_checks": []},
    {"type": "computer_call_output", "call_id": "call_3",
     "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}},
    {"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "trains",
     "name": "book", "arguments": "{}"},
    {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
    {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
     "content": [{"type": "output_text", "text": "Sunny; booked G7311.", "annotations": []}]},
    {"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque-summary"},
    {"type": "item_reference", "id": "msg_0"},
    {"type": "some_future_item", "id": "fut_1", "payload": {"nested": [1, 2.5, None, "é"]}},
]  # fmt: skip


def test_every_item_round_trips_item_for_item() -> None:
    messages = to_messages("responses", TURN)
    assert from_messages("responses", messages) == TURN


def test_a_reasoning_item_stays_in_the_group_of_its_calls() -> None:
    messages = to_messages("responses", TURN)
    groups, issues = group_messages(messages)
    assert issues == []
    first_turn = next(g for g in groups if any(m.tool_calls for m in g.messages))
    kinds = [p["item"]["type"] for m in first_turn.messages for p in _opaque(m)]
    assert kinds[:2] == ["reasoning", "web_search_call"]
    calls = [c.id for m in first_turn.messages for c in m.tool_calls]
    results = [m.tool_call_id for m in first_turn.messages if m.role == "tool"]
    assert calls == ["call_1", "call_2"]
    assert results == ["call_1", "call_2"]


def test_opaque_items_are_counted() -> None:
    counter = TiktokenCounter()
    (_, turn, *_) = to_messages("responses", TURN[:5])
    bare = turn.model_copy(update={"content": None})
    assert counter.count_message(turn) > counter.count_message(bare) + 100  # 400 bytes of reasoning


def test_chat_rendering_leaves_opaque_items_out() -> None:
    messages = to_messages("responses", TURN)
    chat = from_messages("openai", messages)
    assert OPAQUE_PART not in str(chat)


def _opaque(message: Any) -> list[dict[str, Any]]:
    if not isinstance(message.content, list):
        return []
    return [p for p in message.content if p.get("type") == OPAQUE_PART]


def test_typeless_items_are_kept_whole_one_message_each() -> None:
    envelopes = [{"__enc__": 1, "v": 1, "kid": "k", "payload": f"token{i}"} for i in range(3)]
    messages = to_messages("responses", envelopes)
    assert len(messages) == 3
    assert from_messages("responses", messages) == envelopes
