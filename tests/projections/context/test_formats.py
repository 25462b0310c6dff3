"""Wire formats round-trip exactly, and convert across formats where the information fits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from projections.context.formats import from_messages, to_messages
from projections.context.messages import Message
from projections.errors import MessageValidationError

CHAT: list[dict[str, Any]] = [
    {"role": "system", "content": "You plan trips."},
    {"role": "user", "content": "Trains to Hangzhou and the weather, please."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "search_trains", "arguments": '{"to": "杭州"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city": "Hangzhou"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "name": "search_trains", "content": "G7311 73 CNY"},
    {"role": "tool", "tool_call_id": "call_2", "name": "weather", "content": "sunny"},
    {"role": "assistant", "content": "G7311 at 08:05; sunny."},
]

RESPONSES: list[dict[str, Any]] = [
    {"type": "message", "role": "developer", "content": "You plan trips."},
    {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Trains and weather?"}],
    },
    {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Checking both."}],
    },
    {
        "type": "function_call",
        "call_id": "call_1",
        "name": "search_trains",
        "arguments": '{"to": "杭州"}',
        "id": "fc_1",
        "status": "completed",
    },
    {"type": "function_call", "call_id": "call_2", "name": "weather", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "G7311"},
    {"type": "function_call_output", "call_id": "call_2", "output": "sunny"},
    {"role": "user", "content": "Thanks"},
]

ANTHROPIC: dict[str, Any] = {
    "system": "You plan trips.",
    "messages": [
        {"role": "user", "content": "Trains and weather?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking both."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "search_trains",
                    "input": {"to": "杭州"},
                },
                {"type": "tool_use", "id": "toolu_2", "name": "weather", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "G7311"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "sunny",
                    "is_error": False,
                },
                {"type": "text", "text": "Pick the cheapest."},
            ],
        },
        {"role": "assistant", "content": "G7311."},
    ],
}


@pytest.mark.parametrize(
    ("fmt", "payload"), [("openai", CHAT), ("responses", RESPONSES), ("anthropic", ANTHROPIC)]
)
def test_round_trip_is_identical(fmt: Any, payload: Any) -> None:
    messages = to_messages(fmt, payload)
    assert from_messages(fmt, messages) == payload


def test_parallel_calls_stay_one_turn() -> None:
    for fmt, payload in (("openai", CHAT), ("responses", RESPONSES), ("anthropic", ANTHROPIC)):
        messages = to_messages(fmt, payload)  # type: ignore[arg-type]
        (turn,) = [m for m in messages if m.tool_calls]
        assert [c.name for c in turn.tool_calls] == ["search_trains", "weather"]
        assert [m.tool_call_id for m in messages if m.role == "tool"] == [
            c.id for c in turn.tool_calls
        ]


def test_across_formats() -> None:
    internal = to_messages("openai", CHAT)
    anthropic = from_messages("anthropic", internal)
    assert anthropic["system"] == "You plan trips."
    assert anthropic["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": "call_2",
        "name": "weather",
        "input": {"city": "Hangzhou"},
    }
    assert [b["type"] for b in anthropic["messages"][2]["content"]] == [
        "tool_result",
        "tool_result",
    ]
    back = to_messages("anthropic", anthropic)
    assert [(m.role, m.tool_call_id) for m in back] == [(m.role, m.tool_call_id) for m in internal]
    assert [json.loads(c.arguments) for c in back[2].tool_calls] == [
        json.loads(c.arguments) for c in internal[2].tool_calls
    ]
    responses = from_messages("responses", internal)
    assert [item.get("type", "message") for item in responses] == [
        "message",
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
        "message",
    ]
    again = to_messages("responses", responses)
    assert [(m.role, m.content, m.tool_call_id) for m in again] == [
        (m.role, m.content, m.tool_call_id) for m in internal
    ]


def test_not_representable_is_an_error() -> None:
    odd = [Message(role="assistant", tool_calls=[{"id": "c", "name": "f", "arguments": "{x"}])]
    with pytest.raises(MessageValidationError, match="not JSON"):
        from_messages("anthropic", odd)
    late_system = [Message(role="user", content="hi"), Message(role="system", content="rule")]
    with pytest.raises(MessageValidationError, match="no system turns after the start"):
        from_messages("anthropic", late_system)


@pytest.mark.parametrize(
    ("fmt", "payload", "fragment"),
    [
        ("openai", {"role": "user"}, "must be a JSON array"),
        (
            "openai",
            [{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}],
            "needs an 'id'",
        ),
        ("openai", [{"role": "tool", "content": "x"}], "needs the tool_call_id"),
        ("responses", [{"type": "function_call", "name": "f"}], "needs a 'call_id'"),
        ("responses", [{"type": "custom_tool_call_output", "output": "x"}], "needs a 'call_id'"),
        ("responses", [{"type": 7}], "'type' must be a string"),
        ("anthropic", "hello", "'messages' array"),
        ("anthropic", [{"role": "user"}], "content must be a string or a list"),
        ("anthropic", {"messages": [{"role": "assistant", "content": [None]}]}, "block 0 must"),
        (
            "openai",
            [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f"}]}],
            "'tool_use' block, which is the anthropic format's",
        ),
        ("openai", [{"role": "user", "content": [{"type": "input_text"}]}], "responses format"),
        (
            "openai",
            [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}],
            "as a Responses input item has; read it as responses",
        ),
        (
            "anthropic",
            [{"role": "assistant", "content": None, "tool_calls": []}],
            "is an OpenAI chat message \\('tool_calls'\\), not an Anthropic turn",
        ),
        (
            "responses",
            [{"role": "tool", "tool_call_id": "c", "content": "ok"}],
            "is an OpenAI chat message .*; read it as openai",
        ),
        (
            "anthropic",
            {
                "messages": [
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "name": "f", "input": {}}],
                    }
                ]
            },
            "needs an 'id'",
        ),
    ],
)
def test_bad_wire_input(fmt: Any, payload: Any, fragment: str) -> None:
    with pytest.raises(MessageValidationError, match=fragment):
        to_messages(fmt, payload)


def test_an_anthropic_messages_array_alone_is_read_as_its_body() -> None:
    turns = [
        {"role": "user", "content": "Price of G7311?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "73"}],
        },
    ]
    alone = to_messages("anthropic", turns)
    body = to_messages("anthropic", {"messages": turns})
    assert [m.model_dump(exclude={"id"}) for m in alone] == [
        m.model_dump(exclude={"id"}) for m in body
    ]
    assert [m.role for m in alone] == ["user", "assistant", "tool"]


def test_tau_bench_round_trips(corpora: Path) -> None:
    runs = json.loads((corpora / "tau-bench-airline" / "gpt-4o-airline.json").read_text())
    assert len(runs) == 200
    for run in runs:
        messages = to_messages("openai", run["traj"])
        assert from_messages("openai", messages) == run["traj"]
        anthropic = from_messages("anthropic", messages)
        assert len(to_messages("anthropic", anthropic)) == len(messages)
