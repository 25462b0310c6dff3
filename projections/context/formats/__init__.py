"""Wire formats, both directions: OpenAI Chat Completions, OpenAI Responses input items, and
Anthropic Messages. Each module has ``to_messages`` (wire → internal) and ``from_messages``
(internal → wire); a round trip of a wire payload gives back an equal payload."""

from __future__ import annotations

from typing import Any, Literal

from projections.context.formats import anthropic, openai_chat, openai_responses
from projections.context.messages import OPAQUE_PART, Message
from projections.errors import ConfigurationError

__all__ = ["FORMATS", "Format", "from_messages", "to_messages"]

Format = Literal["openai", "responses", "anthropic"]
FORMATS: tuple[str, ...] = ("openai", "responses", "anthropic")


_ADAPTERS = {"openai": openai_chat, "responses": openai_responses, "anthropic": anthropic}


def _adapter(fmt: str) -> Any:
    try:
        return _ADAPTERS[fmt]
    except KeyError:
        raise ConfigurationError(
            f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}"
        ) from None


def to_messages(fmt: Format, payload: Any) -> list[Message]:
    """Parse a wire payload of ``fmt`` into internal messages."""
    messages: list[Message] = _adapter(fmt).to_messages(payload)
    return messages


def from_messages(fmt: Format, messages: list[Message]) -> Any:
    """Render internal messages as a wire payload of ``fmt``.

    Opaque Responses items (reasoning, hosted tools, ...) have no form outside the Responses
    API: the other formats leave them out (a message holding nothing else is left out)."""
    adapter = _adapter(fmt)
    if fmt != "responses":
        messages = [kept for m in messages if (kept := _without_opaque(m)) is not None]
    return adapter.from_messages(messages)


def _without_opaque(message: Message) -> Message | None:
    if not isinstance(message.content, list):
        return message
    parts = [p for p in message.content if p.get("type") != OPAQUE_PART]
    if len(parts) == len(message.content):
        return message
    if not parts and not message.tool_calls and message.role != "tool":
        return None
    if message.metadata.get("responses_text_was_string") and len(parts) == 1:
        return message.model_copy(update={"content": parts[0].get("text")})
    return message.model_copy(update={"content": parts or None})
