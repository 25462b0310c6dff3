"""A session's state, folded from its events, and :class:`Cut`: the session as it was at any
earlier version, cut out of the latest state without refolding. Pure: no I/O."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import InitVar, dataclass, field, replace
from datetime import datetime
from typing import Any

from blake3 import blake3

from projections.context.grouping import Grouper, ProtocolIssue
from projections.context.holes import RowsNotLoaded, bisect_right, missing_rows
from projections.context.messages import Message
from projections.session.bodies import Bodies, BodyNotLoadedError, HeldBodies, runs_of
from projections.session.columns import (
    EncodingColumn,
    HashColumn,
    IdColumn,
    RoleColumn,
    TokenColumn,
    microseconds,
    packed_ints,
)
from projections.session.marks import Mask, Unreadable
from projections.summaries.chain import CommittedSummary, SummaryChain

__all__ = ["Cut", "Mask", "SessionState", "Unreadable"]


@dataclass
class SessionState:
    """A session folded from its events: messages, token counts, groups, pins, summaries.

    Groups, the prefix and per-group token sums are maintained as messages arrive, so a render
    touches only the groups it keeps. The fold owns its state (it extends it in place), so
    rebuilding a long session is linear. The ``*_versions``, ``pin_log`` and ``event_*`` lists
    keep enough history that any earlier version can be cut out (:meth:`cut`).
    """

    ids: list[str] = field(default_factory=list)  # message ids, in order
    roles: RoleColumn = field(default_factory=RoleColumn)  # message roles, in order
    bodies: Bodies = field(default_factory=HeldBodies)  # not part of the index
    tokens: TokenColumn = field(init=False)  # by message id, read through index_of
    encodings: EncodingColumn = field(default_factory=EncodingColumn)  # each one's tokenizer
    index_of: MutableMapping[str, int] = field(default_factory=dict)
    pinned: set[str] = field(default_factory=set)
    grouper: Grouper = field(default_factory=Grouper)
    group_tokens: array[int] = field(default_factory=packed_ints)
    prefix_end: int = 0
    version: int = 0
    position: int = 0
    model_calls: int = 0
    message_versions: array[int] = field(default_factory=packed_ints)  # each message's version
    message_hashes: HashColumn = field(default_factory=HashColumn)  # each message's event hash
    issue_counts: list[int] = field(default_factory=list)  # messages seen when an issue was found
    pin_log: list[tuple[int, bool, tuple[str, ...]]] = field(default_factory=list)
    event_positions: array[int] = field(default_factory=packed_ints)  # [v - 1]: version v's
    event_times: array[int] = field(default_factory=packed_ints)  # µs since the epoch, likewise
    model_call_versions: list[int] = field(default_factory=list)
    chain: SummaryChain = field(default_factory=SummaryChain)
    unreadable: list[Unreadable] = field(default_factory=list)
    erased: set[int] = field(default_factory=set)  # indexes of erased messages
    message_event_ids: IdColumn = field(default_factory=IdColumn)  # each message's event id
    masks: dict[str, Mask] = field(default_factory=dict)  # by message id
    group_masks: dict[int, list[Mask]] = field(default_factory=dict)  # derived from masks
    #: versions of the events whose summaries and masks this state took from a snapshot and
    #: has not checked against the log yet (:mod:`projections.session.checks`); not saved
    unchecked: set[int] = field(default_factory=set)
    #: groups ``[0, snapshot_groups)`` came from a snapshot; those in ``checked_groups`` have
    #: been checked against their messages in the log since (neither is saved)
    snapshot_groups: int = 0
    checked_groups: set[int] = field(default_factory=set)
    #: opened without the middle of its index (:mod:`projections.session.partial`); groups
    #: ``[0, masks_unknown_below)`` may have masks among the rows not loaded (neither saved)
    partial: bool = False
    masks_unknown_below: int = 0
    #: where each cut part ends (``Marks`` as tuples), by part size: a part's end never
    #: changes, so a head save computes only the new parts' (not saved with the index)
    part_marks: dict[int, list[tuple[int, ...]]] = field(default_factory=dict)

    token_counts: InitVar[array[int] | None] = None

    def __post_init__(self, token_counts: array[int] | None) -> None:
        self.tokens = TokenColumn(self.index_of, token_counts)

    def message_ids(self) -> list[str]:
        """The ids of the session's messages, in order."""
        return list(self.ids)

    @property
    def messages(self) -> list[Message]:
        """Every message body, in order: those a fold of the log holds (``Session.state()``,
        ``SessionView.fold``). A ledger's cached state is an index that holds none
        (:class:`BodyNotLoadedError`): ask the session (``Session.messages()``) instead."""
        return self.cut().messages()

    def approx_bytes(self) -> int:
        """About how much memory the index holds: 480 bytes a message (a decoded index of the
        benchmark conversation: 412 bytes by tracemalloc — ids, groups, protocol issues and
        packed columns — and what the process's resident set grows beyond that, measured
        with 63 cached 10,000-message indexes), and about 4 bytes a token of each summary's
        text and 500 bytes a mask on top. An estimate, cheap to compute: the runner asks at
        every use."""
        summaries = 4 * sum(c.tokens for c in self.chain.committed.values())
        held = len(self.ids) - missing_rows(self.ids)  # a partial index holds only some
        return 480 * held + summaries + 500 * len(self.masks)

    @property
    def count(self) -> int:
        """How many messages the session holds."""
        return len(self.ids)

    def add_message(
        self,
        message: Message,
        tokens: int,
        version: int,
        event_hash: str = "",
        event_id: str = "",
        encoding: str = "",
    ) -> None:
        """Append a message (counted with tokenizer ``encoding``) and keep groups, prefix and
        group sizes current."""
        groups_before = len(self.grouper.starts)
        issues_before = len(self.grouper.issues)
        self.index_of[message.id] = len(self.ids)
        self.bodies.put(len(self.ids), version, message)
        self.ids.append(message.id)
        self.roles.append(message.role)
        self.message_versions.append(version)
        self.message_hashes.append(event_hash)
        self.message_event_ids.append(event_id)
        self.tokens.append(tokens)
        self.encodings.append(encoding)
        self.grouper.add(message)
        self.issue_counts += [len(self.ids)] * (len(self.grouper.issues) - issues_before)
        if len(self.grouper.starts) > groups_before:
            self.group_tokens.append(tokens)
            if self.prefix_end == groups_before and message.role in ("system", "developer"):
                self.prefix_end += 1
        else:
            self.group_tokens[-1] += tokens

    def add_mask(self, mask: Mask) -> None:
        """Serve a tool result as its digest from ``mask.version`` on (the first mask wins)."""
        if mask.message_id in self.masks or mask.message_id not in self.index_of:
            return
        self.masks[mask.message_id] = mask
        self.group_masks.setdefault(self.group_of(mask.message_id), []).append(mask)

    def covered_hash(self, message_ids: Iterable[str]) -> str:
        """BLAKE3 over the event hashes of these messages, in session order: what a summary
        covered, bound to the exact events (hash spec: ``hash`` of each MessageAppended)."""
        indexes = sorted(self.index_of[i] for i in message_ids if i in self.index_of)
        return blake3(b"".join(bytes.fromhex(self.message_hashes[i]) for i in indexes)).hexdigest()

    def summary_chain(self) -> list[dict[str, Any]]:
        """Every summary version with its status (see :class:`SummaryChain`)."""
        return self.chain.versions()

    def group_of(self, message_id: str) -> int:
        """The index of the group that holds a message."""
        return self.grouper.group_at(self.index_of[message_id])

    def version_at(self, *, position: int | None = None, time: datetime | None = None) -> int:
        """The last version at or before a tenant position, or recorded at or before a time."""
        if position is not None:
            return bisect_right(self.event_positions, position)
        if time is not None:
            return bisect_right(self.event_times, microseconds(time))
        return self.version

    def masks_of(self, group: int) -> list[Mask]:
        """The masks of a group's results (any version)."""
        if group < self.masks_unknown_below:
            raise RowsNotLoaded(f"group {group}'s masks may be among the rows not loaded")
        return self.group_masks.get(group, [])

    def cut(self, version: int | None = None) -> Cut:
        """The session as it was at ``version`` (default: now), in O(window + pins) work.

        Messages are only ever appended, so an earlier state is a prefix of this one: the
        first ``n`` messages, the groups that start among them (the last one possibly not yet
        complete), the pins applied up to then and the issues found up to then.
        """
        if version is None or version >= self.version:
            return Cut(
                self,
                len(self.ids),
                len(self.grouper.starts),
                self.group_tokens[-1] if self.group_tokens else 0,
                frozenset(self.pinned),
                min(self.prefix_end, len(self.group_tokens)),
                list(self.grouper.issues),
                self.version,
                self.position,
                self.chain.head,
            )
        count = bisect_right(self.message_versions, version)
        groups = bisect_right(self.grouper.starts, count - 1) if count else 0
        last = 0
        if groups:
            first = self.grouper.starts[groups - 1]
            last = sum(self.tokens.counts[first:count])
        return Cut(
            self,
            count,
            groups,
            last,
            frozenset(self._pins_at(version)),
            min(self.prefix_end, groups),
            self.grouper.issues[: bisect_right(self.issue_counts, count)],
            version,
            self.event_positions[version - 1] if version > 0 else 0,
            self.chain.head_at(version),
        )

    def _pins_at(self, version: int) -> set[str]:
        pinned: set[str] = set()
        for at, pin, ids in self.pin_log:
            if at > version:
                break
            (pinned.update if pin else pinned.difference_update)(ids)
        return pinned


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
    loaded: Mapping[int, Message] = field(default_factory=dict)  # bodies fetched for this cut

    def with_bodies(self, bodies: Mapping[int, Message]) -> Cut:
        """The same cut, with these bodies (by message index) at hand."""
        return replace(self, loaded={**self.loaded, **bodies})

    def message(self, index: int) -> Message:
        """The body of message ``index``: fetched for this cut, or held by the state."""
        message = self.loaded.get(index)
        if message is None:
            message = self.state.bodies.get(index)
        if message is None:
            raise BodyNotLoadedError(
                f"the body of message {index} (version {self.state.message_versions[index]}) "
                "was not fetched for this cut; fetch the groups a plan names before assembling"
            )
        return message

    def messages(self, first: int = 0, end: int | None = None) -> list[Message]:
        """The bodies of messages ``[first, end)`` (default: all, as of the cut)."""
        end = self.count if end is None else min(end, self.count)
        return [self.message(index) for index in range(first, end)]

    def summary(self) -> CommittedSummary | None:
        """The summary served as of the cut (None: none, or the head is tainted)."""
        return self.state.chain.served(self.summary_head)

    def summarised_groups(self, covered_end: int | None = None) -> int:
        """How many leading groups a summary covering messages ``[0, covered_end)`` covers
        entirely (by default the served summary)."""
        if covered_end is None:
            active = self.summary()
            covered_end = active.covered_end if active is not None else 0
        if covered_end == 0:
            return 0
        end = min(covered_end, self.count)
        group = self.state.grouper.group_at(end - 1)
        return group + 1 if self.state.grouper.bounds(group)[1] <= end else group

    def group_tokens(self, group: int) -> int:
        """Tokens of a group as of the cut, as served (masked results count as their digest)."""
        tokens = (
            self.last_group_tokens if group == self.groups - 1 else self.state.group_tokens[group]
        )
        for mask in self.state.masks_of(group):
            if mask.version <= self.version:
                tokens -= mask.saved
        return tokens

    def group_messages(self, group: int) -> list[Message]:
        """The messages of a group as of the cut, as logged (what summarizers read)."""
        first, end = self.state.grouper.bounds(group)
        return self.messages(first, end)

    def mask_of(self, message_id: str) -> Mask | None:
        """The mask serving this message as of the cut, if any."""
        state = self.state
        if state.masks_unknown_below:
            state.masks_of(state.group_of(message_id))  # raises if they may not all be loaded
        mask = state.masks.get(message_id)
        return mask if mask is not None and mask.version <= self.version else None

    def served_messages(self, group: int) -> list[Message]:
        """The messages of a group as a render serves them: masked results as their digest."""
        messages = self.group_messages(group)
        if not self.state.masks_of(group):
            return messages
        return [
            message.model_copy(update={"content": mask.text})
            if (mask := self.mask_of(message.id)) is not None
            else message
            for message in messages
        ]

    def message_tokens(self, message_id: str, index: int | None = None) -> int:
        """A message's tokens as served (``index``: its row, when the caller knows it)."""
        mask = self.mask_of(message_id)
        if mask is not None:
            return mask.tokens
        return self.state.tokens[message_id] if index is None else self.state.tokens.counts[index]

    def rows_of(self, groups: Iterable[int]) -> dict[str, int]:
        """The rows of these groups' messages (as of the cut), by message id: a lookup for
        the few messages a plan serves, without the index's dict of every id."""
        rows: dict[str, int] = {}
        ids = self.state.ids
        for first, end in self.message_ranges(groups):
            rows.update(zip(ids[first:end], range(first, end), strict=True))
        return rows

    def message_ranges(self, groups: Iterable[int]) -> list[tuple[int, int]]:
        """The message indexes ``[first, end)`` of these groups as of the cut, consecutive
        groups as one range (a window is a run of hundreds of groups)."""
        valid = sorted({group for group in groups if 0 <= group < self.groups})
        return [self.span(first, last) for first, last in runs_of(valid, gap=1)]

    def span(self, first_group: int, last_group: int) -> tuple[int, int]:
        """The message indexes ``[first, end)`` of groups ``first_group .. last_group``."""
        end = self.state.grouper.bounds(last_group)[1]
        return self.state.grouper.starts[first_group], min(end, self.count)

    def group_sizes(self) -> Callable[[int], int]:
        """:meth:`group_tokens` as the cheapest callable that is exact for this cut: the
        index's own column when no mask applies and the last group is as the state holds it
        (a plan calls it for every group it weighs)."""
        state = self.state
        tokens = state.group_tokens
        whole = self.groups == len(tokens) and (not tokens or tokens[-1] == self.last_group_tokens)
        masked = state.group_masks or state.masks_unknown_below
        return tokens.__getitem__ if whole and not masked else self.group_tokens

    def pinned_groups(self) -> set[int]:
        """The groups holding a message pinned as of the cut."""
        index_of = self.state.index_of
        return {
            self.state.group_of(i)
            for i in self.pinned
            if i in index_of and index_of[i] < self.count
        }

    def unreadable(self) -> list[Unreadable]:
        """The unreadable events up to the cut."""
        return [u for u in self.state.unreadable if u.version <= self.version]
