"""Grouping at protocol boundaries. Pure: no I/O.

A group is what compaction may keep or drop as a whole: a single message, or an assistant
message with ``tool_calls`` together with all its ``role=tool`` results. Orphan results, calls
without results and duplicate call ids are reported as protocol issues, never dropped: an
orphan result becomes a group of its own and stays visible. A trailing call still waiting for
its results is kept with the call (the caller is mid-turn) and is not an issue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from projections.context.messages import Message

__all__ = ["Group", "ProtocolIssue", "group_messages"]


@dataclass(frozen=True)
class ProtocolIssue:
    """A tool-protocol problem: its kind, the message it concerns and the call id."""

    kind: str  # "orphan_result" | "missing_result" | "duplicate_call_id"
    message_id: str
    tool_call_id: str
    detail: str


@dataclass(frozen=True)
class Group:
    """Messages that stay together, in their original order."""

    messages: tuple[Message, ...]
    pending_calls: tuple[str, ...] = ()

    @property
    def ids(self) -> list[str]:
        """The ids of the messages of this group."""
        return [message.id for message in self.messages]


@dataclass
class _Open:
    call: Message
    results: list[Message] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)


def group_messages(messages: Sequence[Message]) -> tuple[list[Group], list[ProtocolIssue]]:
    """Split messages into groups; report protocol issues found on the way."""
    groups: list[Group] = []
    issues: list[ProtocolIssue] = []
    seen_calls: set[str] = set()
    current: _Open | None = None

    def close(at_end: bool) -> None:
        nonlocal current
        if current is None:
            return
        if current.waiting and not at_end:
            for call_id in current.waiting:
                issues.append(
                    ProtocolIssue(
                        "missing_result",
                        current.call.id,
                        call_id,
                        f"call {call_id} of message {current.call.id} got no result before the "
                        f"conversation moved on",
                    )
                )
        pending = tuple(current.waiting) if at_end else ()
        groups.append(Group((current.call, *current.results), pending))
        current = None

    for message in messages:
        if message.role == "tool":
            call_id = message.tool_call_id or ""
            if current is not None and call_id in current.waiting:
                current.waiting.remove(call_id)
                current.results.append(message)
                continue
            issues.append(
                ProtocolIssue(
                    "orphan_result",
                    message.id,
                    call_id,
                    f"tool result {message.id} answers call {call_id}, which is not an open call "
                    f"of the preceding assistant message",
                )
            )
            close(at_end=False)
            groups.append(Group((message,)))
            continue
        close(at_end=False)
        if message.tool_calls:
            for call in message.tool_calls:
                if call.id in seen_calls:
                    issues.append(
                        ProtocolIssue(
                            "duplicate_call_id",
                            message.id,
                            call.id,
                            f"call id {call.id} of message {message.id} repeats an earlier call",
                        )
                    )
                seen_calls.add(call.id)
            current = _Open(message, waiting=[call.id for call in message.tool_calls])
        else:
            groups.append(Group((message,)))
    close(at_end=True)
    return groups, issues
