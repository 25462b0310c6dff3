"""OpenAI Responses API input items: what the Agents SDK keeps in a session.

Modelled items: ``message``; tool calls — ``function_call``, ``custom_tool_call`` and any other
``*_call`` item with a ``call_id`` (``computer_call``, ``local_shell_call``, ...) — and their
``*_call_output`` results, so a call and its result stay one group. Every other item is kept
*opaque*, whole: ``reasoning``, hosted tools (``web_search_call``, ``file_search_call``,
``code_interpreter_call``, ``image_generation_call``, ``mcp_*``), ``compaction``,
``item_reference``, and item types that do not exist yet. They render back exactly as given.

One assistant turn (the model's output items between two inputs) is one internal assistant
message: its text, its tool calls and its opaque items (``responses_item`` content parts, so
they are counted, offered to the summarizer sanitised, and kept or dropped with the turn —
a reasoning item never loses the call it belongs to). The order of the turn's items is
recorded, so the turn renders back item for item.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from projections.context.formats.hints import refuse_chat_message
from projections.context.messages import OPAQUE_PART, Message, parse_message, text_of
from projections.errors import MessageValidationError

__all__ = ["from_messages", "to_messages"]

_ITEM = "responses_item"  # metadata: fields of the original item that ctxledger does not model
_CALL_ITEMS = "responses_call_items"  # metadata: per call id, extra fields of the call item
_ORDER = "responses_order"  # metadata: the turn's items in order: "m", "c<i>" or "o<i>"
_RESULT = "responses_result"  # metadata: a tool result's item without its output
_CALL_TYPES = frozenset({"function_call", "custom_tool_call"})
_RESULT_TYPES = frozenset({"function_call_output", "custom_tool_call_output"})
#: Opaque items the user side sends (they start no assistant turn).
_INPUT_SIDE = frozenset({"item_reference", "mcp_approval_response"})


def to_messages(payload: Any) -> list[Message]:
    """Responses ``input`` items (a list) as internal messages."""
    if not isinstance(payload, list):
        raise MessageValidationError(
            f"Responses input must be a JSON array of items, got {type(payload).__name__}"
        )
    reader = _Reader()
    for index, item in enumerate(payload):
        reader.read(item, f"Responses item {index}")
    reader.flush("the last Responses item")
    return reader.messages


class _Reader:
    """Folds items into messages, one pending assistant turn at a time."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.turn: dict[str, Any] | None = None

    def read(self, item: Any, where: str) -> None:
        if not isinstance(item, dict):
            raise MessageValidationError(f"{where} must be an object, got {item!r}")
        kind = item.get("type", "message" if "role" in item else None)
        if kind is None:
            # No type and no role (an EncryptedSession envelope, say): a message of its own,
            # kept whole; ctxledger cannot tell which side it comes from.
            self.flush(where)
            self.messages.append(parse_message(_opaque_message("user", item), where=where))
            return
        if not isinstance(kind, str):
            raise MessageValidationError(f"{where}: 'type' must be a string, got {kind!r}")
        if kind == "message":
            refuse_chat_message(item, where, "a Responses item")
            self._message(item, where)
        elif kind in _RESULT_TYPES or (kind.endswith("_call_output") and "call_id" in item):
            self.flush(where)
            self.messages.append(parse_message(_result(item, kind, where), where=where))
        elif kind in _CALL_TYPES or (kind.endswith("_call") and "call_id" in item):
            self._call(item, kind, where)
        elif kind in _INPUT_SIDE:
            self.flush(where)
            self.messages.append(parse_message(_opaque_message("user", item), where=where))
        else:
            turn = self._turn()
            turn["content"].append({"type": OPAQUE_PART, "item": item})
            turn["metadata"][_ORDER].append(f"o{len(turn['content']) - 1}")

    def _message(self, item: dict[str, Any], where: str) -> None:
        fields = _message_fields(item)
        if fields["role"] != "assistant":
            self.flush(where)
            self.messages.append(parse_message(fields, where=where))
            return
        turn = self.turn
        if turn is not None and "m" in turn["metadata"][_ORDER]:
            self.flush(where)  # a second text item starts the next turn
        turn = self._turn()
        turn["metadata"][_ITEM] = fields["metadata"][_ITEM]
        turn["text"] = fields["content"]
        turn["metadata"][_ORDER].append("m")

    def _call(self, item: dict[str, Any], kind: str, where: str) -> None:
        if not _is_id(item.get("call_id")):
            raise MessageValidationError(
                f"{where}: a {kind} needs a 'call_id' (a non-empty string)"
            )
        turn = self._turn()
        call_id = item["call_id"]
        if kind == "function_call":
            name, arguments = item.get("name"), item.get("arguments", "")
            extra = {
                k: v for k, v in item.items() if k not in ("type", "call_id", "name", "arguments")
            }
        else:
            name = item.get("name") or kind
            given = item.get("input", item.get("arguments"))
            arguments = (
                given
                if isinstance(given, str)
                else _compact(
                    {k: v for k, v in item.items() if k not in ("type", "call_id", "name")}
                )
            )
            extra = {"_item": item}  # rendered back whole
        turn["tool_calls"].append({"id": call_id, "name": name, "arguments": arguments})
        if extra:
            turn["metadata"].setdefault(_CALL_ITEMS, {})[call_id] = extra
        turn["metadata"][_ORDER].append(f"c{len(turn['tool_calls']) - 1}")

    def _turn(self) -> dict[str, Any]:
        if self.turn is None:
            self.turn = {
                "role": "assistant",
                "content": [],
                "text": None,
                "tool_calls": [],
                "metadata": {"source": "responses", _ORDER: []},
            }
        return self.turn

    def flush(self, where: str) -> None:
        turn, self.turn = self.turn, None
        if turn is None:
            return
        text, opaque = turn.pop("text"), turn.pop("content")
        if opaque:
            parts = text if isinstance(text, list) else ([] if text is None else None)
            if parts is None:  # string text beside opaque items: keep it as a text part
                parts = [{"type": "output_text", "text": text}]
                turn["metadata"]["responses_text_was_string"] = True
            turn["content"] = opaque + parts
        else:
            turn["content"] = text
        self.messages.append(parse_message(turn, where=where))


def _result(item: dict[str, Any], kind: str, where: str) -> dict[str, Any]:
    if not _is_id(item.get("call_id")):
        raise MessageValidationError(f"{where}: a {kind} needs a 'call_id' (a non-empty string)")
    metadata: dict[str, Any] = {"source": "responses"}
    output = item.get("output")
    if kind == "function_call_output":
        extra = {k: v for k, v in item.items() if k not in ("type", "call_id", "output")}
        if extra:
            metadata[_ITEM] = extra
    else:
        metadata[_RESULT] = {k: v for k, v in item.items() if k != "output"}
    if output is not None and not isinstance(output, (str, list)):
        metadata["responses_output_was_object"] = True
        output = [output] if isinstance(output, dict) else _compact(output)
    if isinstance(output, list) and not all(isinstance(p, dict) and "type" in p for p in output):
        metadata["responses_output_json"] = True
        output = _compact(output)
    return {
        "role": "tool",
        "tool_call_id": item["call_id"],
        "content": output,
        "metadata": metadata,
    }


def _opaque_message(role: str, item: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": role,
        "content": [{"type": OPAQUE_PART, "item": item}],
        "metadata": {"source": "responses", _ORDER: ["o0"]},
    }


def _is_id(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _message_fields(item: dict[str, Any]) -> dict[str, Any]:
    extra = {k: v for k, v in item.items() if k not in ("type", "role", "content")}
    metadata: dict[str, Any] = {"source": "responses", _ITEM: {"type": "type" in item, **extra}}
    return {"role": item.get("role"), "content": item.get("content"), "metadata": metadata}


def from_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Internal messages as Responses ``input`` items."""
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            items.append(_result_item(message))
        elif _ORDER in message.metadata:
            items += _turn_items(message)
        else:
            if message.content is not None or not message.tool_calls:
                items.append(_message_item(message, message.content))
            items += [_call_item(message, index) for index in range(len(message.tool_calls))]
    return items


def _turn_items(message: Message) -> list[dict[str, Any]]:
    content = message.content if isinstance(message.content, list) else []
    items: list[dict[str, Any]] = []
    for entry in message.metadata[_ORDER]:
        kind, index = entry[0], int(entry[1:] or 0)
        if kind == "m":
            items.append(_message_item(message, _text_of_turn(message)))
        elif kind == "c":
            items.append(_call_item(message, index))
        elif index < len(content) and content[index].get("type") == OPAQUE_PART:
            items.append(content[index]["item"])
    return items


def _text_of_turn(message: Message) -> Any:
    if not isinstance(message.content, list):
        return message.content
    parts = [p for p in message.content if p.get("type") != OPAQUE_PART]
    if message.metadata.get("responses_text_was_string") and len(parts) == 1:
        return parts[0].get("text")
    return parts


def _call_item(message: Message, index: int) -> dict[str, Any]:
    call = message.tool_calls[index]
    extra = message.metadata.get(_CALL_ITEMS, {}).get(call.id, {})
    if "_item" in extra:
        return dict(extra["_item"])
    return {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": call.arguments,
        **extra,
    }


def _result_item(message: Message) -> dict[str, Any]:
    metadata = message.metadata
    output: Any = message.content
    if _RESULT not in metadata:
        if not isinstance(output, str):
            output = text_of(message)
        return {
            "type": "function_call_output",
            "call_id": message.tool_call_id,
            "output": output,
            **metadata.get(_ITEM, {}),
        }
    if metadata.get("responses_output_json") and isinstance(output, str):
        with contextlib.suppress(ValueError):  # masked or rewritten: the text as it is now
            output = json.loads(output)
    elif metadata.get("responses_output_was_object") and isinstance(output, list) and output:
        output = output[0]
    return {**metadata[_RESULT], "output": output}


def _message_item(message: Message, content: Any) -> dict[str, Any]:
    original = dict(message.metadata.get(_ITEM, {"type": True}))
    typed = original.pop("type", True)
    item: dict[str, Any] = {"type": "message"} if typed else {}
    item.update({"role": message.role, "content": content})
    item.update(original)
    return item
