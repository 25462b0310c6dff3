"""The internal message model: one shape for every wire format.

A :class:`Message` keeps what the model produced verbatim (tool-call arguments are the JSON
*string* the model emitted, valid or not) and refuses what no API would accept (an unknown role,
a tool call without an id, a tool result without ``tool_call_id``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from uuid_utils.compat import uuid7

from projections.errors import MessageValidationError

__all__ = [
    "MAX_ID_LENGTH",
    "OPAQUE_PART",
    "ROLES",
    "Message",
    "Role",
    "ToolCall",
    "opaque_json",
    "parse_message",
    "parse_messages",
    "shown_text",
    "text_of",
    "validation_problems",
]

Role = Literal["system", "developer", "user", "assistant", "tool"]
ROLES: tuple[str, ...] = ("system", "developer", "user", "assistant", "tool")


class ToolCall(BaseModel):
    """A function call requested by the model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    arguments: str = ""

    @property
    def arguments_are_json(self) -> bool:
        """Whether ``arguments`` parses as JSON (odd input is kept verbatim either way)."""
        try:
            json.loads(self.arguments)
        except ValueError:
            return False
        return True


class Message(BaseModel):
    """A chat message in ctxledger's internal form.

    ``content`` is text, a list of typed parts (``{"type": "text", "text": ...}``, images, …) or
    ``None`` (an assistant message that only calls tools). ``metadata`` holds the source and
    labels; it never reaches the model.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(default_factory=lambda: str(uuid7()), min_length=1)
    role: Role
    content: str | list[dict[str, Any]] | None = None
    name: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("role", mode="before")
    @classmethod
    def _known_role(cls, value: object) -> object:
        if value not in ROLES:
            raise ValueError(f"unknown role {value!r}; expected one of {', '.join(ROLES)}")
        return value

    @model_validator(mode="after")
    def _protocol(self) -> Message:
        if self.tool_calls and self.role != "assistant":
            raise ValueError(f"only assistant messages carry tool_calls, not {self.role!r}")
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a tool message needs the tool_call_id of the call it answers")
        if self.role != "tool" and self.tool_call_id is not None:
            raise ValueError(f"tool_call_id belongs on tool messages, not {self.role!r}")
        ids = [call.id for call in self.tool_calls]
        if len(set(ids)) != len(ids):
            raise ValueError(f"tool call ids repeat within one message: {ids}")
        if isinstance(self.content, list):
            for index, part in enumerate(self.content):
                if not isinstance(part.get("type"), str):
                    raise ValueError(f"content part {index} has no 'type': {part!r}")
        return self

    @property
    def flags(self) -> list[str]:
        """Odd but legal things about this message, e.g. tool arguments that are not JSON."""
        return [
            f"tool_call_arguments_not_json:{call.id}"
            for call in self.tool_calls
            if not call.arguments_are_json
        ]


def validation_problems(error: ValidationError, whole: str) -> str:
    """Every problem pydantic found, located (``whole``: the name of the value itself)."""
    return "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or whole}: {item['msg']}"
        for item in error.errors()
    )


def parse_message(value: Any, *, where: str = "message") -> Message:
    """Validate ``value`` (a dict in the internal form, or a Message) as a :class:`Message`.

    Raises:
        MessageValidationError: with every problem, located, and what was expected.
    """
    if isinstance(value, Message):
        message = value
    else:
        try:
            message = Message.model_validate(value)
        except ValidationError as error:
            problems = validation_problems(error, "message")
            raise MessageValidationError(f"{where} is not a valid message ({problems})") from error
    _check_id_lengths(message, where)
    return message


def parse_messages(values: object, *, verb: str = "append") -> list[Message]:
    """Validate a list of messages (dicts in the internal form, or Messages), each located by
    its index in errors.

    Raises:
        MessageValidationError: ``values`` is one message or not a list (a dict, a string and
            ``None`` are each named), or a message is malformed.
    """
    if isinstance(values, Message | Mapping):
        raise MessageValidationError(
            f"{verb} takes a list of messages and got one message (a {type(values).__name__}): "
            f"pass it in a list, [message]"
        )
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise MessageValidationError(
            f"{verb} takes a list of messages (dicts or Message), got {type(values).__name__}"
            f"{f' {values!r}' if isinstance(values, str | bytes) and len(values) <= 40 else ''}"
        )
    return [parse_message(value, where=f"message {i}") for i, value in enumerate(values)]


#: The longest id accepted from input (message, tool call and tool call reference ids, names).
#: Checked on input only, so sessions stored before the bound still read.
MAX_ID_LENGTH = 256


def _check_id_lengths(message: Message, where: str) -> None:
    named = [("id", message.id), ("name", message.name), ("tool_call_id", message.tool_call_id)]
    named += [(f"tool_calls.{i}.id", call.id) for i, call in enumerate(message.tool_calls)]
    for field_name, value in named:
        if value is not None and len(value) > MAX_ID_LENGTH:
            raise MessageValidationError(
                f"{where}: {field_name} is {len(value):,} characters long, over the limit of "
                f"{MAX_ID_LENGTH}; ids name messages, they do not carry content"
            )


#: The type of a content part that carries a whole wire item ctxledger does not model (a
#: Responses ``reasoning`` or hosted-tool item, ...): kept as it is, counted as its JSON.
OPAQUE_PART = "responses_item"


def opaque_json(message: Message) -> str:
    """The compact JSON of the message's opaque parts ("" when it has none): what a tokenizer
    is given for them, since they reach the model as they are."""
    if not isinstance(message.content, list):
        return ""
    items = [p.get("item") for p in message.content if p.get("type") == OPAQUE_PART]
    if not items:
        return ""
    return json.dumps(items, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def text_of(message: Message) -> str:
    """The text a tokenizer sees of the content (text parts joined; other parts left out)."""
    if message.content is None:
        return ""
    if isinstance(message.content, str):
        return message.content
    return "".join(str(part.get("text", "")) for part in message.content if "text" in part)


def shown_text(message: Message) -> str:
    """The message as a person or a model reads it in a list of results: its text, then its
    tool calls (``calls name(arguments); ...``), so that an assistant turn that only called a
    tool, found by its arguments, does not show as empty."""
    text = text_of(message)
    if not message.tool_calls:
        return text
    calls = "; ".join(f"{call.name}({call.arguments})" for call in message.tool_calls)
    return f"{text} calls {calls}".strip()
