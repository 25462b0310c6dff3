"""A file read in the wrong wire format is named, not misread: each reader refuses what only
another format writes, with the format to read it as. Without this, Anthropic ``tool_use``
blocks read as OpenAI chat would be kept as opaque content parts (the calls lost as calls).
Pure: no I/O."""

from __future__ import annotations

from typing import Any

from projections.errors import MessageValidationError

__all__ = ["refuse_chat_message", "refuse_foreign_parts", "refuse_responses_item"]

# Content block types of the other wire formats (OpenAI chat defines text, image_url,
# input_audio, file and refusal).
_FOREIGN_PARTS = {
    "tool_use": "anthropic",
    "tool_result": "anthropic",
    "input_text": "responses",
    "output_text": "responses",
    "input_image": "responses",
}
_CHAT_KEYS = ("tool_calls", "tool_call_id")


def _read_as(fmt: str) -> str:
    return f"read it as {fmt} (ctxledger ingest --format {fmt}, or format '{fmt}' in the library)"


def refuse_foreign_parts(content: Any, where: str) -> None:
    """For OpenAI chat: a content block of another format's."""
    if not isinstance(content, list):
        return
    for position, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if isinstance(kind, str) and kind in _FOREIGN_PARTS:
            fmt = _FOREIGN_PARTS[kind]
            raise MessageValidationError(
                f"{where}: content part {position} is a {kind!r} block, which is the {fmt} "
                f"format's, not OpenAI chat's; {_read_as(fmt)}"
            )


def refuse_responses_item(item: dict[str, Any], where: str) -> None:
    """For OpenAI chat: an item without a role but with a ``type``, as Responses items are."""
    kind = item.get("type")
    if item.get("role") is None and isinstance(kind, str):
        raise MessageValidationError(
            f"{where} has no 'role' but a 'type' ({kind!r}), as a Responses input item has; "
            f"{_read_as('responses')}"
        )


def refuse_chat_message(item: dict[str, Any], where: str, reader: str) -> None:
    """For Anthropic and Responses: a message with OpenAI chat's own fields."""
    found = [key for key in _CHAT_KEYS if key in item]
    if found or item.get("role") == "tool":
        marks = ", ".join(repr(key) for key in found) or "role 'tool'"
        raise MessageValidationError(
            f"{where} is an OpenAI chat message ({marks}), not {reader}; {_read_as('openai')}"
        )
