"""Repairing the tool protocol of a rendered request, never the log. Pure: no I/O.

A provider refuses a request in which a tool call has no result or a tool result answers no
call (the OpenAI API answers 400). The log keeps such turns as they happened (each issue is
recorded at append); a render asked to repair them serves:

- after a call's turn, for each call without a result, a marked placeholder result
  (``repair:<call id>``) saying that none was recorded;
- no orphan result (a tool message whose call is not served before it);

and lists each change in the manifest (``repairs``). The placeholders' tokens are reserved
before the window is planned, so a repaired render stays within the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from projections.context.grouping import ProtocolIssue
from projections.context.messages import Message

__all__ = ["PLACEHOLDER", "Repaired", "is_placeholder", "placeholder", "repair", "reserve"]

#: What a placeholder result says (the model reads it; nothing else is invented).
PLACEHOLDER = "[no result was recorded for this tool call; ctxledger closed it to serve the turn]"

CountMessage = Callable[[Message], int]


@dataclass(frozen=True)
class Repaired:
    """The request's messages and sections after repair, and what was changed."""

    messages: list[Message]
    sections: list[str]
    repairs: list[dict[str, str]]


def placeholder(tool_call_id: str) -> Message:
    """The marked result served for a call that has none."""
    return Message(
        id=f"repair:{tool_call_id}",
        role="tool",
        tool_call_id=tool_call_id,
        content=PLACEHOLDER,
        metadata={"source": "ctxledger", "repair": "missing_result"},
    )


def is_placeholder(message: Message) -> bool:
    """Whether ``message`` is a placeholder this module served (not a logged message)."""
    return message.id.startswith("repair:") and message.metadata.get("repair") is not None


def reserve(issues: Sequence[ProtocolIssue], count_message: CountMessage) -> int:
    """The tokens every placeholder the session could need would take (an upper bound: a
    call whose turn is not served needs none)."""
    calls = {i.tool_call_id for i in issues if i.kind == "missing_result"}
    return sum(count_message(placeholder(call)) for call in sorted(calls))


def repair(messages: Sequence[Message], sections: Sequence[str]) -> Repaired:
    """Close every call without a result right after its turn's results, and leave out every
    result that answers no call served before it."""
    out: list[Message] = []
    out_sections: list[str] = []
    repairs: list[dict[str, str]] = []
    open_calls: list[str] = []
    open_section = ""
    for message, section in zip(messages, sections, strict=True):
        if message.role == "tool":
            if message.tool_call_id in open_calls:
                open_calls.remove(message.tool_call_id)
            else:
                repairs.append(_note("left_out_orphan_result", message, message.tool_call_id))
                continue
        else:
            _close(open_calls, open_section, out, out_sections, repairs)
            open_calls = [call.id for call in message.tool_calls]
            open_section = section
        out.append(message)
        out_sections.append(section)
    _close(open_calls, open_section, out, out_sections, repairs)
    return Repaired(out, out_sections, repairs)


def _close(
    open_calls: list[str],
    section: str,
    out: list[Message],
    sections: list[str],
    repairs: list[dict[str, str]],
) -> None:
    for call in open_calls:
        added = placeholder(call)
        out.append(added)
        sections.append(section)
        repairs.append(_note("closed_call_without_result", added, call))
    open_calls.clear()


def _note(kind: str, message: Message, tool_call_id: str | None) -> dict[str, str]:
    return {"kind": kind, "message_id": message.id, "tool_call_id": tool_call_id or ""}
