"""Grouping at protocol boundaries. Pure: no I/O.

A group is what compaction may keep or drop as a whole: a single message, or an assistant
message with ``tool_calls`` together with all its ``role=tool`` results. Orphan results, calls
without results and duplicate call ids are reported as protocol issues, never dropped: an
orphan result becomes a group of its own and stays visible. A trailing call still waiting for
its results is kept with the call (the caller is mid-turn) and is not an issue.

:class:`Grouper` works incrementally (one message at a time, constant work each), so a session's
groups are maintained as it grows; :func:`group_messages` runs it over a list.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, MutableSet, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from projections.context.holes import Holed, HoledSet, bisect_right
from projections.context.messages import Message

__all__ = ["Group", "Grouper", "ProtocolIssue", "group_messages"]


@dataclass(frozen=True)
class ProtocolIssue:
    """A tool-protocol problem: its kind, the message it concerns and the call id."""

    kind: str  # "orphan_result" | "missing_result" | "duplicate_call_id"
    message_id: str
    tool_call_id: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        """The issue as JSON-ready data."""
        return {
            "kind": self.kind,
            "message_id": self.message_id,
            "tool_call_id": self.tool_call_id,
            "detail": self.detail,
        }


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
class Grouper:
    """Groups messages as they arrive.

    ``starts[g]`` is the index (in the message sequence) of the first message of group ``g``;
    group ``g`` runs to ``starts[g + 1]`` (or the end). Only the last group can still grow.
    """

    starts: array[int] = field(default_factory=lambda: array("q"))
    issues: list[ProtocolIssue] = field(default_factory=list)
    count: int = 0
    _open_call: str | None = None  # the id of the assistant message with open calls
    _waiting: list[str] = field(default_factory=list)
    _seen_calls: MutableSet[str] = field(default_factory=set)
    #: the call ids seen, in the order first seen, and the index of the message of each (a
    #: snapshot stores them as columns that only grow)
    seen_order: list[str] = field(default_factory=list)
    seen_at: list[int] = field(default_factory=list)

    def add(self, message: Message) -> None:
        """Place the next message in a group."""
        index = self.count
        self.count += 1
        if message.role == "tool":
            call_id = message.tool_call_id or ""
            if self._open_call is not None and call_id in self._waiting:
                self._waiting.remove(call_id)
                return  # joins the open group
            self.issues.append(
                ProtocolIssue(
                    "orphan_result",
                    message.id,
                    call_id,
                    f"tool result {message.id} answers call {call_id}, which is not an open "
                    f"call of the preceding assistant message",
                )
            )
            self._close()
            self.starts.append(index)
            return
        self._close()
        self.starts.append(index)
        if message.tool_calls:
            for call in message.tool_calls:
                if call.id in self._seen_calls:
                    self.issues.append(
                        ProtocolIssue(
                            "duplicate_call_id",
                            message.id,
                            call.id,
                            f"call id {call.id} of message {message.id} repeats an earlier call",
                        )
                    )
                else:
                    self.seen_order.append(call.id)
                    self.seen_at.append(index)
                self._seen_calls.add(call.id)
            self._open_call = message.id
            self._waiting = [call.id for call in message.tool_calls]

    def _close(self) -> None:
        if self._open_call is not None:
            for call_id in self._waiting:
                self.issues.append(
                    ProtocolIssue(
                        "missing_result",
                        self._open_call,
                        call_id,
                        f"call {call_id} of message {self._open_call} got no result before the "
                        f"conversation moved on",
                    )
                )
        self._open_call = None
        self._waiting = []

    @property
    def pending_calls(self) -> tuple[str, ...]:
        """Calls of the last group still waiting for their results."""
        return tuple(self._waiting)

    def preview(self, messages: Sequence[Message]) -> list[ProtocolIssue]:
        """The issues that adding ``messages`` would report, leaving this grouper unchanged.

        Costs O(len(messages)): only the open call is copied; call ids seen so far are read
        through an overlay, not copied.
        """
        probe = Grouper(
            count=self.count,
            _open_call=self._open_call,
            _waiting=list(self._waiting),
            _seen_calls=_Overlay(self._seen_calls),
        )
        for message in messages:
            probe.add(message)
        return probe.issues

    def open_state(self) -> dict[str, Any]:
        """What may still change as messages arrive (the open call and its waiting results),
        with the message count, as JSON-ready data; the rest only grows."""
        return {"count": self.count, "open_call": self._open_call, "waiting": self._waiting}

    @classmethod
    def restore(
        cls,
        open_state: Mapping[str, Any],
        starts: array[int],
        issues: list[ProtocolIssue],
        seen_order: Sequence[str],
        seen_at: Sequence[int],
    ) -> Grouper:
        """A grouper from :meth:`open_state` and the columns that only grow."""
        return cls(
            starts=starts,
            issues=issues,
            count=open_state["count"],
            _open_call=open_state["open_call"],
            _waiting=list(open_state["waiting"]),
            # Over call ids not all loaded, a call id not among them may repeat one of the rest.
            _seen_calls=(
                HoledSet({call for _, call in seen_order.loaded()}, complete=False)
                if isinstance(seen_order, Holed) and seen_order.missing
                else set(seen_order)
            ),
            seen_order=cast(list[str], seen_order),  # or a Holed column as one
            seen_at=cast(list[int], seen_at),
        )

    def group_at(self, index: int) -> int:
        """The group that holds message ``index``."""
        return bisect_right(self.starts, index) - 1

    def bounds(self, group: int) -> tuple[int, int]:
        """``(first, end)`` message indexes of group ``group``."""
        end = self.starts[group + 1] if group + 1 < len(self.starts) else self.count
        return self.starts[group], end


class _Overlay(MutableSet[str]):
    """A set that reads through to a base set and keeps its own additions apart."""

    def __init__(self, base: MutableSet[str]) -> None:
        self._base = base
        self._added: set[str] = set()

    def __contains__(self, value: object) -> bool:
        return value in self._added or value in self._base

    def __iter__(self) -> Iterator[str]:
        yield from self._base
        yield from (value for value in self._added if value not in self._base)

    def __len__(self) -> int:
        return len(self._base) + len(self._added - set(self._base))

    def add(self, value: str) -> None:
        self._added.add(value)

    def discard(self, value: str) -> None:
        self._added.discard(value)


def group_messages(messages: Sequence[Message]) -> tuple[list[Group], list[ProtocolIssue]]:
    """Split messages into groups; report protocol issues found on the way."""
    grouper = Grouper()
    for message in messages:
        grouper.add(message)
    groups = []
    for index in range(len(grouper.starts)):
        first, end = grouper.bounds(index)
        last = index == len(grouper.starts) - 1
        groups.append(Group(tuple(messages[first:end]), grouper.pending_calls if last else ()))
    return groups, list(grouper.issues)
