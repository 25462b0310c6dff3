"""OpenAI Chat Completions messages (``messages=[...]``), including parallel tool calls."""

from __future__ import annotations

from typing import Any

from projections.context.formats.hints import refuse_foreign_parts, refuse_responses_item
from projections.context.messages import Message, ToolCall, parse_message
from projections.errors import MessageValidationError

__all__ = ["from_messages", "to_messages"]

_KNOWN = {"role", "content", "name", "tool_calls", "tool_call_id", "id"}
_EXTRA = "openai_extra"  # metadata key for fields ctxledger does not model (kept for round trips)


def to_messages(payload: Any) -> list[Message]:
    """Chat Completions ``messages`` (a list of dicts) as internal messages."""
    if not isinstance(payload, list):
        raise MessageValidationError(
            f"OpenAI chat messages must be a JSON array, got {type(payload).__name__}"
        )
    return [_one(item, index) for index, item in enumerate(payload)]


def _one(item: Any, index: int) -> Message:
    where = f"OpenAI chat message {index}"
    if not isinstance(item, dict):
        raise MessageValidationError(f"{where} must be an object, got {type(item).__name__}")
    refuse_responses_item(item, where)
    given_calls = item.get("tool_calls") or []
    if not isinstance(given_calls, list):
        raise MessageValidationError(
            f"{where}: 'tool_calls' must be a list, got {type(given_calls).__name__}"
        )
    calls = []
    for position, call in enumerate(given_calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not call.get("id"):
            raise MessageValidationError(
                f"{where}: tool call {position} needs an 'id' and a 'function' with 'name' "
                f"and 'arguments', got {call!r}"
            )
        calls.append(
            {
                "id": call["id"],
                "name": function.get("name"),
                "arguments": function.get("arguments", ""),
            }
        )
    refuse_foreign_parts(item.get("content"), where)
    extra = {key: value for key, value in item.items() if key not in _KNOWN}
    fields: dict[str, Any] = {
        "role": item.get("role"),
        "content": item.get("content"),
        "name": item.get("name"),
        "tool_calls": calls,
        "tool_call_id": item.get("tool_call_id"),
        "metadata": {"source": "openai", **({_EXTRA: extra} if extra else {})},
    }
    if item.get("id") is not None:
        if not isinstance(item["id"], str):
            raise MessageValidationError(
                f"{where}: 'id' must be a string, got {type(item['id']).__name__} "
                f"{item['id']!r}; quote it (ids are kept exactly as given)"
            )
        fields["id"] = item["id"]
    return parse_message(fields, where=where)


def from_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Internal messages as Chat Completions ``messages``."""
    return [_render(message) for message in messages]


def _render(message: Message) -> dict[str, Any]:
    item: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.name is not None:
        item["name"] = message.name
    if message.tool_calls:
        item["tool_calls"] = [_call(call) for call in message.tool_calls]
    if message.tool_call_id is not None:
        item["tool_call_id"] = message.tool_call_id
    item.update(message.metadata.get(_EXTRA, {}))
    return item


def _call(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }
