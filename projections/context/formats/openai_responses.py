"""OpenAI Responses API input items: ``message``, ``function_call``, ``function_call_output``.

Consecutive ``function_call`` items are one assistant turn (parallel calls); an assistant
``message`` item directly before them is that turn's text. Internally that is one assistant
message with ``tool_calls``, and it renders back to the same items.
"""

from __future__ import annotations

from typing import Any

from projections.context.messages import Message, parse_message
from projections.errors import MessageValidationError

__all__ = ["from_messages", "to_messages"]

_ITEM = "responses_item"  # metadata: fields of the original item that ctxledger does not model
_CALL_ITEMS = "responses_call_items"  # metadata: per call id, extra fields of function_call items


def to_messages(payload: Any) -> list[Message]:
    """Responses ``input`` items (a list) as internal messages."""
    if not isinstance(payload, list):
        raise MessageValidationError(
            f"Responses input must be a JSON array of items, got {type(payload).__name__}"
        )
    messages: list[Message] = []
    pending: dict[str, Any] | None = None  # an assistant turn still collecting function calls
    for index, item in enumerate(payload):
        where = f"Responses item {index}"
        if not isinstance(item, dict):
            raise MessageValidationError(f"{where} must be an object, got {item!r}")
        kind = item.get("type", "message")
        if kind == "function_call":
            if not _is_id(item.get("call_id")):
                raise MessageValidationError(
                    f"{where}: a function_call needs a 'call_id' (a non-empty string)"
                )
            if pending is None:
                pending = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [],
                    "metadata": {"source": "responses"},
                }
            pending["tool_calls"].append(
                {
                    "id": item["call_id"],
                    "name": item.get("name"),
                    "arguments": item.get("arguments", ""),
                }
            )
            extra = {
                k: v for k, v in item.items() if k not in ("type", "call_id", "name", "arguments")
            }
            if extra:
                pending["metadata"].setdefault(_CALL_ITEMS, {})[item["call_id"]] = extra
            continue
        if pending is not None:
            messages.append(parse_message(pending, where=where))
            pending = None
        if kind == "message":
            fields = _message_fields(item)
            if fields["role"] == "assistant":
                pending = fields  # function calls may follow
                pending["tool_calls"] = []
            else:
                messages.append(parse_message(fields, where=where))
        elif kind == "function_call_output":
            if not _is_id(item.get("call_id")):
                raise MessageValidationError(
                    f"{where}: a function_call_output needs a 'call_id' (a non-empty string)"
                )
            extra = {k: v for k, v in item.items() if k not in ("type", "call_id", "output")}
            metadata: dict[str, Any] = {"source": "responses"}
            if extra:
                metadata[_ITEM] = extra
            messages.append(
                parse_message(
                    {
                        "role": "tool",
                        "tool_call_id": item["call_id"],
                        "content": item.get("output"),
                        "metadata": metadata,
                    },
                    where=where,
                )
            )
        else:
            raise MessageValidationError(
                f"{where}: item type {kind!r} is not supported; expected message, "
                f"function_call or function_call_output"
            )
    if pending is not None:
        messages.append(parse_message(pending, where="the last Responses item"))
    return messages


def _is_id(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _message_fields(item: dict[str, Any]) -> dict[str, Any]:
    extra = {k: v for k, v in item.items() if k not in ("type", "role", "content")}
    metadata: dict[str, Any] = {"source": "responses", _ITEM: {"type": "type" in item, **extra}}
    return {"role": item.get("role"), "content": item.get("content"), "metadata": metadata}


def from_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Internal messages as Responses ``input`` items."""
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id,
                    "output": message.content
                    if isinstance(message.content, str)
                    else _joined(message),
                    **message.metadata.get(_ITEM, {}),
                }
            )
            continue
        if message.content is not None or not message.tool_calls:
            items.append(_message_item(message))
        extras = message.metadata.get(_CALL_ITEMS, {})
        for call in message.tool_calls:
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": call.arguments,
                    **extras.get(call.id, {}),
                }
            )
    return items


def _message_item(message: Message) -> dict[str, Any]:
    original = dict(message.metadata.get(_ITEM, {"type": True}))
    typed = original.pop("type", True)
    item: dict[str, Any] = {"type": "message"} if typed else {}
    item.update({"role": message.role, "content": message.content})
    item.update(original)
    return item


def _joined(message: Message) -> str:
    from projections.context.messages import text_of

    return text_of(message)
