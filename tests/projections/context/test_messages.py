"""The internal message model: precise errors for bad input, odd input kept and flagged."""

from __future__ import annotations

import pytest

from projections.context.messages import Message, parse_message, text_of
from projections.errors import MessageValidationError


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ({"role": "robot", "content": "x"}, "unknown role 'robot'; expected one of system"),
        (
            {"role": "assistant", "tool_calls": [{"name": "f", "arguments": "{}"}]},
            "tool_calls.0.id: Field required",
        ),
        ({"role": "tool", "content": "42"}, "needs the tool_call_id"),
        ({"role": "user", "content": "x", "tool_call_id": "c1"}, "belongs on tool messages"),
        ({"role": "user", "tool_calls": [{"id": "c", "name": "f"}]}, "only assistant"),
        (
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "name": "f"}, {"id": "c", "name": "g"}],
            },
            "repeat",
        ),
        ({"role": "user", "content": [{"text": "no type"}]}, "has no 'type'"),
        ({"role": "user", "content": "x", "colour": "red"}, "colour: Extra inputs"),
    ],
)
def test_bad_messages_are_refused_precisely(value: dict[str, object], fragment: str) -> None:
    with pytest.raises(MessageValidationError, match="is not a valid message") as caught:
        parse_message(value)
    assert fragment in str(caught.value)


def test_arguments_that_are_not_json_are_kept_and_flagged() -> None:
    message = parse_message(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "name": "f", "arguments": "{oops"},
                {"id": "c2", "name": "g", "arguments": "{}"},
            ],
        }
    )
    assert message.tool_calls[0].arguments == "{oops"
    assert message.flags == ["tool_call_arguments_not_json:c1"]


def test_ids_are_generated_and_text_is_extracted() -> None:
    first, second = Message(role="user", content="a"), Message(role="user", content="a")
    assert first.id != second.id
    parts = Message(
        role="user",
        content=[
            {"type": "text", "text": "a"},
            {"type": "image_url", "image_url": {"url": "u"}},
            {"type": "text", "text": "b"},
        ],
    )
    assert text_of(parts) == "ab"
    assert text_of(Message(role="assistant", tool_calls=[{"id": "c", "name": "f"}])) == ""
