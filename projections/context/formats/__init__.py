"""Wire formats, both directions: OpenAI Chat Completions, OpenAI Responses input items, and
Anthropic Messages. Each module has ``to_messages`` (wire → internal) and ``from_messages``
(internal → wire); a round trip of a wire payload gives back an equal payload."""

from __future__ import annotations

from typing import Any, Literal

from projections.context.formats import anthropic, openai_chat, openai_responses
from projections.context.messages import Message

__all__ = ["FORMATS", "Format", "from_messages", "to_messages"]

Format = Literal["openai", "responses", "anthropic"]
FORMATS: tuple[str, ...] = ("openai", "responses", "anthropic")


def to_messages(fmt: Format, payload: Any) -> list[Message]:
    """Parse a wire payload of ``fmt`` into internal messages."""
    if fmt == "openai":
        return openai_chat.to_messages(payload)
    if fmt == "responses":
        return openai_responses.to_messages(payload)
    if fmt == "anthropic":
        return anthropic.to_messages(payload)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def from_messages(fmt: Format, messages: list[Message]) -> Any:
    """Render internal messages as a wire payload of ``fmt``."""
    if fmt == "openai":
        return openai_chat.from_messages(messages)
    if fmt == "responses":
        return openai_responses.from_messages(messages)
    if fmt == "anthropic":
        return anthropic.from_messages(messages)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
