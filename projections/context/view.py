"""ContextView: the projection that rebuilds a session from its events and renders the next
request. The fold and the render are pure: events in, state out; state in, messages out."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from blake3 import blake3
from pydantic import BaseModel, ConfigDict

from eventstore import RecordedEvent
from eventstore.encoding import canonical_json
from projections.context.budget import Budget
from projections.context.formats import Format, from_messages
from projections.context.grouping import Grouper, ProtocolIssue
from projections.context.messages import Message
from projections.context.tokens import REPLY_PRIMING_TOKENS
from projections.context.window import plan_groups
from projections.summaries.block import render_summary_block
from projections.summaries.schema import CompactionSummary

__all__ = [
    "MESSAGES_PINNED",
    "MESSAGES_UNPINNED",
    "MESSAGE_APPENDED",
    "MODEL_CALL_RECORDED",
    "PROTOCOL_ISSUE_RECORDED",
    "SUMMARY_COMMITTED",
    "SUMMARY_REJECTED",
    "SUMMARY_ROLLED_BACK",
    "CommittedSummary",
    "ContextView",
    "Cut",
    "Manifest",
    "RenderedContext",
    "SessionState",
    "fact_diff",
    "render",
]

MESSAGE_APPENDED = "MessageAppended"
MESSAGES_PINNED = "MessagesPinned"
MESSAGES_UNPINNED = "MessagesUnpinned"
MODEL_CALL_RECORDED = "ModelCallRecorded"
PROTOCOL_ISSUE_RECORDED = "ProtocolIssueRecorded"
SUMMARY_COMMITTED = "SummaryCommitted"
SUMMARY_REJECTED = "SummaryRejected"
SUMMARY_ROLLED_BACK = "SummaryRolledBack"
ERASED = "[erased]"


@dataclass(frozen=True)
class CommittedSummary:
    """A summary version as committed: the record, its tokens, and where its coverage ends
    (one past the index of the last message it covers)."""

    version: int
    parent: int | None
    summary: CompactionSummary
    tokens: int
    covered_end: int
    tainted: bool = False  # a message it covers was erased: never served


@dataclass
class SessionState:
    """A session folded from its events: messages, token counts, groups, pins.

    Groups, the prefix and per-group token sums are maintained as messages arrive, so a render
    touches only the groups it keeps. The fold owns its state (``apply`` extends it in place
    and returns it), so rebuilding a long session is linear.
    """

    messages: list[Message] = field(default_factory=list)
    tokens: dict[str, int] = field(default_factory=dict)
    encoding_of: dict[str, str] = field(default_factory=dict)
    index_of: dict[str, int] = field(default_factory=dict)
    encodings: set[str] = field(default_factory=set)
    pinned: set[str] = field(default_factory=set)
    grouper: Grouper = field(default_factory=Grouper)
    group_tokens: list[int] = field(default_factory=list)
    prefix_end: int = 0
    version: int = 0
    position: int = 0
    model_calls: int = 0
    # History, so that any earlier version can be cut out of the latest state (time travel):
    message_versions: list[int] = field(default_factory=list)  # stream version of each message
    message_hashes: list[str] = field(default_factory=list)  # event hash of each message
    issue_counts: list[int] = field(default_factory=list)  # messages seen when an issue was found
    pin_log: list[tuple[int, bool, tuple[str, ...]]] = field(default_factory=list)
    event_positions: list[int] = field(default_factory=list)  # index v - 1 holds version v's
    event_times: list[datetime] = field(default_factory=list)
    model_call_versions: list[int] = field(default_factory=list)
    # Summaries: every committed version, the head after each summary event, rejections.
    summaries: dict[int, CommittedSummary] = field(default_factory=dict)
    summary_log: list[tuple[int, int | None]] = field(default_factory=list)
    summary_head: int | None = None
    summaries_rejected: int = 0
    rejections: list[tuple[int, list[str]]] = field(default_factory=list)

    def message_ids(self) -> list[str]:
        """The ids of the session's messages, in order."""
        return [message.id for message in self.messages]

    def add_message(
        self, message: Message, tokens: int, version: int, event_hash: str = ""
    ) -> None:
        """Append a message and keep groups, prefix and group sizes current."""
        groups_before = len(self.grouper.starts)
        issues_before = len(self.grouper.issues)
        self.index_of[message.id] = len(self.messages)
        self.messages.append(message)
        self.message_versions.append(version)
        self.message_hashes.append(event_hash)
        self.tokens[message.id] = tokens
        self.grouper.add(message)
        self.issue_counts += [len(self.messages)] * (len(self.grouper.issues) - issues_before)
        if len(self.grouper.starts) > groups_before:
            self.group_tokens.append(tokens)
            if self.prefix_end == groups_before and message.role in ("system", "developer"):
                self.prefix_end += 1
        else:
            self.group_tokens[-1] += tokens

    def digest(self) -> str:
        """A hash of everything the state holds: equal states, equal digests."""
        return blake3(
            canonical_json(
                {
                    "messages": [m.model_dump(mode="json") for m in self.messages],
                    "tokens": self.tokens,
                    "encodings": sorted(self.encodings),
                    "pinned": sorted(self.pinned),
                    "starts": self.grouper.starts,
                    "pending": list(self.grouper.pending_calls),
                    "issues": [_issue(issue) for issue in self.grouper.issues],
                    "group_tokens": self.group_tokens,
                    "prefix_end": self.prefix_end,
                    "version": self.version,
                    "position": self.position,
                    "model_calls": self.model_calls,
                    "summaries": sorted(self.summaries),
                    "summary_log": self.summary_log,
                    "summary_head": self.summary_head,
                }
            )
        ).hexdigest()

    def to_bytes(self) -> bytes:
        """The whole state as JSON bytes, for a projection snapshot."""
        grouper = self.grouper
        open_call = grouper._open_call
        return orjson.dumps(
            {
                "messages": [m.model_dump(mode="json") for m in self.messages],
                "tokens": [self.tokens[m.id] for m in self.messages],
                "encoding_of": self.encoding_of,
                "encodings": sorted(self.encodings),
                "pinned": sorted(self.pinned),
                "starts": grouper.starts,
                "issues": [_issue(issue) for issue in grouper.issues],
                "open_call": self.index_of[open_call.id] if open_call is not None else None,
                "waiting": grouper._waiting,
                "seen_calls": sorted(grouper._seen_calls),
                "group_tokens": self.group_tokens,
                "prefix_end": self.prefix_end,
                "version": self.version,
                "position": self.position,
                "model_calls": self.model_calls,
                "message_versions": self.message_versions,
                "message_hashes": self.message_hashes,
                "issue_counts": self.issue_counts,
                "pin_log": [[at, pin, list(ids)] for at, pin, ids in self.pin_log],
                "event_positions": self.event_positions,
                "event_times": [moment.isoformat() for moment in self.event_times],
                "model_call_versions": self.model_call_versions,
                "summaries": [
                    {
                        "version": c.version,
                        "parent": c.parent,
                        "tokens": c.tokens,
                        "covered_end": c.covered_end,
                        "tainted": c.tainted,
                        "summary": c.summary.model_dump(mode="json"),
                    }
                    for c in self.summaries.values()
                ],
                "summary_log": self.summary_log,
                "summary_head": self.summary_head,
                "summaries_rejected": self.summaries_rejected,
                "rejections": [[v, checks] for v, checks in self.rejections],
            }
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> SessionState:
        """A state saved by :meth:`to_bytes`."""
        raw = orjson.loads(data)
        messages = [Message.model_validate(m) for m in raw["messages"]]
        grouper = Grouper(
            starts=raw["starts"],
            issues=[
                ProtocolIssue(i["kind"], i["message_id"], i["tool_call_id"], i["detail"])
                for i in raw["issues"]
            ],
            count=len(messages),
            _open_call=messages[raw["open_call"]] if raw["open_call"] is not None else None,
            _waiting=raw["waiting"],
            _seen_calls=set(raw["seen_calls"]),
        )
        return cls(
            messages=messages,
            tokens={m.id: n for m, n in zip(messages, raw["tokens"], strict=True)},
            encoding_of=raw["encoding_of"],
            index_of={m.id: i for i, m in enumerate(messages)},
            encodings=set(raw["encodings"]),
            pinned=set(raw["pinned"]),
            grouper=grouper,
            group_tokens=raw["group_tokens"],
            prefix_end=raw["prefix_end"],
            version=raw["version"],
            position=raw["position"],
            model_calls=raw["model_calls"],
            message_versions=raw["message_versions"],
            message_hashes=raw["message_hashes"],
            issue_counts=raw["issue_counts"],
            pin_log=[(at, pin, tuple(ids)) for at, pin, ids in raw["pin_log"]],
            event_positions=raw["event_positions"],
            event_times=[datetime.fromisoformat(t) for t in raw["event_times"]],
            model_call_versions=raw["model_call_versions"],
            summaries={
                c["version"]: CommittedSummary(
                    c["version"],
                    c["parent"],
                    CompactionSummary.model_validate(c["summary"]),
                    c["tokens"],
                    c["covered_end"],
                    c["tainted"],
                )
                for c in raw["summaries"]
            },
            summary_log=[(at, head) for at, head in raw["summary_log"]],
            summary_head=raw["summary_head"],
            summaries_rejected=raw["summaries_rejected"],
            rejections=[(v, list(checks)) for v, checks in raw["rejections"]],
        )

    def covered_hash(self, message_ids: Iterable[str]) -> str:
        """BLAKE3 over the event hashes of these messages, in session order: what a summary
        covered, bound to the exact events (hash spec: ``hash`` of each MessageAppended)."""
        indexes = sorted(self.index_of[i] for i in message_ids if i in self.index_of)
        return blake3(b"".join(bytes.fromhex(self.message_hashes[i]) for i in indexes)).hexdigest()

    def summary_chain(self) -> list[dict[str, Any]]:
        """Every summary version with its status: active, superseded, rolled back, rejected
        or tainted (a message it covers was erased), its parent, and what it covers."""
        head = self.summary_head
        was_head = {version for _, version in self.summary_log if version is not None}
        chain: list[dict[str, Any]] = []
        for version, committed in sorted(self.summaries.items()):
            if committed.tainted:
                status = "tainted"
            elif version == head:
                status = "active"
            elif head is not None and version < head and version in was_head:
                status = "superseded"
            else:
                status = "rolled back"
            chain.append(
                {
                    "version": version,
                    "status": status,
                    "parent": committed.parent,
                    "covered": len(committed.summary.source_message_ids),
                    "covered_ids": list(committed.summary.source_message_ids),
                    "diff": fact_diff(
                        self.summaries[committed.parent].summary
                        if committed.parent in self.summaries
                        else None,
                        committed.summary,
                    ),
                    "tokens": committed.tokens,
                }
            )
        chain += [
            {"version": v, "status": "rejected", "failed_checks": checks}
            for v, checks in self.rejections
        ]
        return chain

    def group_of(self, message_id: str) -> int:
        """The index of the group that holds a message."""
        return bisect_right(self.grouper.starts, self.index_of[message_id]) - 1

    def version_at(self, *, position: int | None = None, time: datetime | None = None) -> int:
        """The last version at or before a tenant position, or recorded at or before a time."""
        if position is not None:
            return bisect_right(self.event_positions, position)
        if time is not None:
            return bisect_right(self.event_times, time)
        return self.version

    def cut(self, version: int | None = None) -> Cut:
        """The session as it was at ``version`` (default: now), in O(window + pins) work.

        Messages are only ever appended, so an earlier state is a prefix of this one: the
        first ``n`` messages, the groups that start among them (the last one possibly not yet
        complete), the pins applied up to then and the issues found up to then.
        """
        if version is None or version >= self.version:
            return Cut(
                self,
                len(self.messages),
                len(self.grouper.starts),
                self.group_tokens[-1] if self.group_tokens else 0,
                frozenset(self.pinned),
                min(self.prefix_end, len(self.group_tokens)),
                list(self.grouper.issues),
                self.version,
                self.position,
                self.summary_head,
            )
        count = bisect_right(self.message_versions, version)
        groups = bisect_right(self.grouper.starts, count - 1) if count else 0
        last = 0
        if groups:
            first = self.grouper.starts[groups - 1]
            last = sum(self.tokens[m.id] for m in self.messages[first:count])
        pinned: set[str] = set()
        for at, pin, ids in self.pin_log:
            if at > version:
                break
            (pinned.update if pin else pinned.difference_update)(ids)
        issues = self.grouper.issues[: bisect_right(self.issue_counts, count)]
        position = self.event_positions[version - 1] if version > 0 else 0
        head = None
        for at, summary_version in self.summary_log:
            if at > version:
                break
            head = summary_version
        return Cut(
            self,
            count,
            groups,
            last,
            frozenset(pinned),
            min(self.prefix_end, groups),
            issues,
            version,
            position,
            head,
        )


@dataclass(frozen=True)
class Cut:
    """A session at one version: a view into a :class:`SessionState`, nothing copied."""

    state: SessionState
    count: int
    groups: int
    last_group_tokens: int
    pinned: frozenset[str]
    prefix_end: int
    issues: list[ProtocolIssue]
    version: int
    position: int
    summary_head: int | None = None

    def summary(self) -> CommittedSummary | None:
        """The active summary as of the cut."""
        if self.summary_head is None:
            return None
        active = self.state.summaries.get(self.summary_head)
        return None if active is None or active.tainted else active

    def summarised_groups(self, covered_end: int | None = None) -> int:
        """How many leading groups a summary covering messages ``[0, covered_end)`` covers
        entirely (by default the active summary)."""
        if covered_end is None:
            active = self.summary()
            covered_end = active.covered_end if active is not None else 0
        if covered_end == 0:
            return 0
        end = min(covered_end, self.count)
        group = bisect_right(self.state.grouper.starts, end - 1) - 1
        return group + 1 if self.state.grouper.bounds(group)[1] <= end else group

    def tokens_with_summary(
        self, budget: Budget, summary_tokens: int, covered_end: int, keep_groups: int
    ) -> int:
        """The rendered request's tokens if a summary of these figures were active."""
        plan = plan_groups(
            self.groups,
            self.group_tokens,
            self.prefix_end,
            self.pinned_groups(),
            budget.usable,
            keep_groups=keep_groups,
            fixed_tokens=REPLY_PRIMING_TOKENS + summary_tokens,
            summarised=self.summarised_groups(covered_end),
        )
        return plan.tokens

    def group_tokens(self, group: int) -> int:
        """Tokens of a group as of the cut."""
        if group == self.groups - 1:
            return self.last_group_tokens
        return self.state.group_tokens[group]

    def group_messages(self, group: int) -> list[Message]:
        """The messages of a group as of the cut."""
        first, end = self.state.grouper.bounds(group)
        return self.state.messages[first : min(end, self.count)]

    def pinned_groups(self) -> set[int]:
        """The groups holding a message pinned as of the cut."""
        index_of = self.state.index_of
        return {
            self.state.group_of(i)
            for i in self.pinned
            if i in index_of and index_of[i] < self.count
        }


class ContextView:
    """The projection: ``initial()`` and ``apply(state, event)``."""

    name = "context_view"
    version = 1

    @staticmethod
    def initial() -> SessionState:
        """The state of a session with no events."""
        return SessionState()

    @staticmethod
    def apply(
        state: SessionState, event: RecordedEvent, message: Message | None = None
    ) -> SessionState:
        """Fold one event of the session stream into the state.

        ``message`` may pass the already validated message of a ``MessageAppended`` event
        (the writer has it), which spares validating its data again.
        """
        data = event.data
        if event.type == MESSAGE_APPENDED:
            if data is None:  # erased: keep its place, never its content
                message = Message(id=f"erased:{event.event_id}", role="user", content=ERASED)
                state.add_message(message, 0, event.version, event.hash)
            else:
                if message is None or message.id != data["message"]["id"]:
                    message = Message.model_validate(data["message"])
                state.add_message(message, int(data["tokens"]), event.version, event.hash)
                state.encodings.add(str(data["encoding"]))
                state.encoding_of[message.id] = str(data["encoding"])
        elif event.type in (MESSAGES_PINNED, MESSAGES_UNPINNED) and data is not None:
            pin = event.type == MESSAGES_PINNED
            ids = tuple(data["message_ids"])
            (state.pinned.update if pin else state.pinned.difference_update)(ids)
            state.pin_log.append((event.version, pin, ids))
        elif event.type == MODEL_CALL_RECORDED:
            state.model_calls += 1
            state.model_call_versions.append(event.version)
        elif event.type == SUMMARY_COMMITTED and data is not None:
            summary = CompactionSummary.model_validate(data["summary"])
            covered_end = 1 + max(
                (state.index_of[i] for i in summary.source_message_ids if i in state.index_of),
                default=-1,
            )
            version = int(data["summary_version"])
            # Erased messages lose their ids in the fold, so a summary citing one is tainted.
            tainted = any(i not in state.index_of for i in summary.source_message_ids)
            state.summaries[version] = CommittedSummary(
                version,
                data.get("parent_version"),
                summary,
                int(data["tokens"]),
                covered_end,
                tainted,
            )
            state.summary_head = version
            state.summary_log.append((event.version, version))
        elif event.type == SUMMARY_ROLLED_BACK and data is not None:
            state.summary_head = data.get("to_version")
            state.summary_log.append((event.version, state.summary_head))
        elif event.type == SUMMARY_REJECTED:
            state.summaries_rejected += 1
            if data is not None:
                state.rejections.append(
                    (int(data["summary_version"]), list(data.get("failed_checks", [])))
                )
        state.version = event.version
        state.position = event.position
        state.event_positions.append(event.position)
        state.event_times.append(event.recorded_at)
        return state

    @classmethod
    def fold(
        cls, events: Iterable[RecordedEvent], state: SessionState | None = None
    ) -> SessionState:
        """The state after ``events`` (in stream order), from ``state`` or the initial state."""
        state = state if state is not None else cls.initial()
        for event in events:
            state = cls.apply(state, event)
        return state


class Manifest(BaseModel):
    """What was rendered and why: ids in order, their sections, tokens, and a request hash."""

    model_config = ConfigDict(frozen=True)

    message_ids: list[str]
    sections: list[str]
    message_tokens: list[int]
    tokens: dict[str, int]
    tokenizer: list[str]
    budget: dict[str, Any]
    summary_version: int | None
    request_hash: str
    over_budget: bool
    dropped_groups: int
    protocol_issues: list[dict[str, str]]
    as_of_version: int
    as_of_position: int


class RenderedContext(BaseModel):
    """The next request's messages (internal and in the wire format) and its manifest."""

    model_config = ConfigDict(frozen=True)

    messages: list[Message]
    wire: Any
    manifest: Manifest


def render(
    state: SessionState | Cut,
    budget: Budget,
    *,
    keep_groups: int = 6,
    fmt: Format = "openai",
) -> RenderedContext:
    """Render the session's next request under ``budget`` (pure; O(window), not O(history)).

    Pass a state for the latest context, or ``state.cut(version)`` for an earlier one.
    """
    cut = state if isinstance(state, Cut) else state.cut()
    active = cut.summary()
    summary_tokens = active.tokens if active else 0
    plan = plan_groups(
        cut.groups,
        cut.group_tokens,
        cut.prefix_end,
        cut.pinned_groups(),
        budget.usable,
        keep_groups=keep_groups,
        fixed_tokens=REPLY_PRIMING_TOKENS + summary_tokens,
        summarised=cut.summarised_groups(),
    )
    counts = dict(cut.state.tokens)
    messages: list[Message] = []
    sections: list[str] = []
    per_section = {"prefix": 0, "summary": 0, "pinned": 0, "window": 0}
    summary_placed = active is None
    for group, section in plan.chosen:
        if not summary_placed and section != "prefix":
            messages.append(_summary_message(active))  # type: ignore[arg-type]
            sections.append("summary")
            counts[messages[-1].id] = summary_tokens
            per_section["summary"] = summary_tokens
            summary_placed = True
        for message in cut.group_messages(group):
            messages.append(message)
            sections.append(section)
            per_section[section] += counts[message.id]
    if not summary_placed and active is not None:
        messages.append(_summary_message(active))
        sections.append("summary")
        counts[messages[-1].id] = summary_tokens
        per_section["summary"] = summary_tokens
    wire = from_messages(fmt, messages)
    per_section["total"] = plan.tokens
    manifest = Manifest(
        message_ids=[message.id for message in messages],
        sections=sections,
        message_tokens=[counts[message.id] for message in messages],
        tokens=per_section,
        tokenizer=sorted(
            {cut.state.encoding_of[m.id] for m in messages if m.id in cut.state.encoding_of}
        ),
        budget={**budget.model_dump(), "usable": budget.usable, "trigger": budget.trigger},
        summary_version=active.version if active else None,
        request_hash=blake3(canonical_json({"format": fmt, "messages": wire})).hexdigest(),
        over_budget=plan.over_budget,
        dropped_groups=plan.dropped_groups,
        protocol_issues=[_issue(issue) for issue in cut.issues],
        as_of_version=cut.version,
        as_of_position=cut.position,
    )
    return RenderedContext(messages=messages, wire=wire, manifest=manifest)


def fact_diff(parent: CompactionSummary | None, summary: CompactionSummary) -> dict[str, list[str]]:
    """Fact keys added, removed and changed against the parent summary."""
    before = {f.key: f.value for f in parent.facts} if parent else {}
    after = {f.key: f.value for f in summary.facts}
    return {
        "added": sorted(after.keys() - before.keys()),
        "removed": sorted(before.keys() - after.keys()),
        "changed": sorted(k for k in after.keys() & before.keys() if after[k] != before[k]),
    }


def _summary_message(active: CommittedSummary) -> Message:
    """The active summary as an untrusted block in a user-role message (never system)."""
    return Message(
        id=f"summary:v{active.version}",
        role="user",
        content=render_summary_block(active.summary),
        metadata={"source": "ctxledger", "summary_version": active.version},
    )


def _issue(issue: ProtocolIssue) -> dict[str, str]:
    return {
        "kind": issue.kind,
        "message_id": issue.message_id,
        "tool_call_id": issue.tool_call_id,
        "detail": issue.detail,
    }
