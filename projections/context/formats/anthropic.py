"""Anthropic Messages: ``{"system": ..., "messages": [...]}`` with ``text``, ``tool_use`` and
``tool_result`` blocks.

Internally a user turn that carries tool results becomes one ``tool`` message per result (then
a user message for any text after them); rendering merges them back into one user turn.
"""

from __future__ import annotations

import json
from typing import Any

from projections.context.formats.hints import refuse_chat_message
from projections.context.messages import Message, parse_message
from projections.errors import MessageValidationError

__all__ = ["from_messages", "to_messages"]

_SHAPE = "anthropic_shape"  # metadata: "blocks" when the content was a list of blocks


def to_messages(payload: Any) -> list[Message]:
    """An Anthropic request body (``system`` and ``messages``), or its ``messages`` array
    alone, as internal messages."""
    if isinstance(payload, list):
        payload = {"messages": payload}
    if not isinstance(payload, dict) or not isinstance(payload.get("messages"), list):
        raise MessageValidationError(
            "an Anthropic payload is an object with a 'messages' array (and optionally "
            f"'system'), or that array alone; got {type(payload).__name__}"
        )
    messages: list[Message] = []
    if payload.get("system") is not None:
        messages.append(
            parse_message(
                {
                    "role": "system",
                    "content": payload["system"],
                    "metadata": {"source": "anthropic"},
                },
                where="Anthropic system",
            )
        )
    for index, turn in enumerate(payload["messages"]):
        messages.extend(_turn(turn, f"Anthropic message {index}"))
    return messages


def _turn(turn: Any, where: str) -> list[Message]:
    if isinstance(turn, dict):
        refuse_chat_message(turn, where, "an Anthropic turn")
    if not isinstance(turn, dict) or turn.get("role") not in ("user", "assistant"):
        raise MessageValidationError(f"{where} needs role 'user' or 'assistant', got {turn!r}")
    content = turn.get("content")
    if isinstance(content, str):
        return [
            parse_message(
                {"role": turn["role"], "content": content, "metadata": {"source": "anthropic"}},
                where=where,
            )
        ]
    if not isinstance(content, list):
        raise MessageValidationError(f"{where}: content must be a string or a list of blocks")
    for position, block in enumerate(content):
        if not isinstance(block, dict):
            raise MessageValidationError(
                f"{where}: content block {position} must be an object with a 'type', got "
                f"{type(block).__name__}"
            )
    if turn["role"] == "assistant":
        text = [block for block in content if block.get("type") != "tool_use"]
        calls = [_call(block, where) for block in content if block.get("type") == "tool_use"]
        return [
            parse_message(
                {
                    "role": "assistant",
                    "content": text or None,
                    "tool_calls": calls,
                    "metadata": {"source": "anthropic", _SHAPE: "blocks"},
                },
                where=where,
            )
        ]
    out: list[Message] = []
    rest = []
    for block in content:
        if block.get("type") == "tool_result":
            if not block.get("tool_use_id"):
                raise MessageValidationError(f"{where}: a tool_result needs a 'tool_use_id'")
            extra = {k: v for k, v in block.items() if k not in ("type", "tool_use_id", "content")}
            out.append(
                parse_message(
                    {
                        "role": "tool",
                        "tool_call_id": block["tool_use_id"],
                        "content": block.get("content"),
                        "metadata": {
                            "source": "anthropic",
                            **({"anthropic_extra": extra} if extra else {}),
                        },
                    },
                    where=where,
                )
            )
        else:
            rest.append(block)
    if rest or not out:
        out.append(
            parse_message(
                {
                    "role": "user",
                    "content": rest,
                    "metadata": {"source": "anthropic", _SHAPE: "blocks"},
                },
                where=where,
            )
        )
    return out


def _call(block: dict[str, Any], where: str) -> dict[str, Any]:
    if not block.get("id"):
        raise MessageValidationError(f"{where}: a tool_use block needs an 'id'")
    arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
    return {"id": block["id"], "name": block.get("name"), "arguments": arguments}


def from_messages(messages: list[Message]) -> dict[str, Any]:
    """Internal messages as an Anthropic body: leading system/developer text goes to ``system``."""
    payload: dict[str, Any] = {}
    start = 0
    system = []
    while start < len(messages) and messages[start].role in ("system", "developer"):
        system.append(messages[start])
        start += 1
    if len(system) == 1:
        payload["system"] = system[0].content
    elif system:
        payload["system"] = "\n\n".join(_text(m) for m in system)
    turns: list[dict[str, Any]] = []
    for message in messages[start:]:
        if message.role in ("system", "developer"):
            raise MessageValidationError(
                f"message {message.id}: Anthropic has no {message.role} turns after the start; "
                f"move it to the beginning or make it a user message"
            )
        if message.role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": message.content,
                **message.metadata.get("anthropic_extra", {}),
            }
            _user_blocks(turns).append(block)
        elif message.role == "user":
            if turns and turns[-1]["role"] == "user" and isinstance(turns[-1]["content"], list):
                turns[-1]["content"].extend(_blocks(message))
            else:
                turns.append({"role": "user", "content": _content(message)})
        else:
            blocks = _blocks(message) if message.content is not None else []
            for call in message.tool_calls:
                try:
                    arguments = json.loads(call.arguments or "{}")
                except ValueError as error:
                    raise MessageValidationError(
                        f"message {message.id}: tool call {call.id} has arguments that are not "
                        f"JSON, which Anthropic's tool_use input cannot hold"
                    ) from error
                blocks.append(
                    {"type": "tool_use", "id": call.id, "name": call.name, "input": arguments}
                )
            is_plain = not message.tool_calls and message.metadata.get(_SHAPE) != "blocks"
            turns.append(
                {"role": "assistant", "content": _content(message) if is_plain else blocks}
            )
    payload["messages"] = turns
    return payload


def _user_blocks(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not turns or turns[-1]["role"] != "user" or not isinstance(turns[-1]["content"], list):
        turns.append({"role": "user", "content": []})
    content: list[dict[str, Any]] = turns[-1]["content"]
    return content


def _content(message: Message) -> Any:
    if isinstance(message.content, str) and message.metadata.get(_SHAPE) != "blocks":
        return message.content
    return _blocks(message)


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.content is None:
        return []
    if isinstance(message.content, str):
        return [{"type": "text", "text": message.content}]
    return [dict(part) for part in message.content]


def _text(message: Message) -> str:
    from projections.context.messages import text_of

    return text_of(message)
