"""The session projection: ``initial()`` and ``apply(state, event)``, through a handler table
over typed events. Pure: no I/O.

A stored event of a session type whose data does not validate is recorded in
``state.unreadable`` (version, position, type, why) and skipped; events of other types on the
stream are ignored. An erased message keeps its place as ``[erased]`` (no content, no tokens).
A summary that covers an erased message is tainted (never served) unless it was made after the
erasure (its ``erased_versions`` name the message); erasure cascades to the summaries that
covered the message, whose erased ``SummaryCommitted`` keeps its place in the chain as
``erased``. Either way the chain serves the nearest servable ancestor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from eventstore import RecordedEvent
from projections.context.holes import bisect_right
from projections.session.bodies import ERASED, BodyCache, CachedBodies, erased_message
from projections.session.codec import decode_state, encode_part, encode_state, head_parts
from projections.session.columns import microseconds
from projections.session.events import (
    SESSION_EVENTS,
    MessageAppended,
    MessagesPinned,
    MessagesUnpinned,
    ModelCallRecorded,
    ResultsMasked,
    SessionEvent,
    SummaryCommitted,
    SummaryRejected,
    SummaryRolledBack,
)
from projections.session.marks import Mask, Unreadable
from projections.session.partial import decode_partial, partial_parts
from projections.session.state import SessionState
from projections.summaries.chain import CommittedSummary
from projections.summaries.schema_v2 import CompactionSummaryV2

__all__ = [
    "ERASED",
    "ERASED_MESSAGE_TOKENS",
    "SessionView",
    "committed_summary",
    "describe_problem",
    "parse_event",
]

#: Tokens of the message served in an erased message's place (``user``, ``[erased]``): 8 in
#: every encoding ctxledger counts with (a test checks each).
ERASED_MESSAGE_TOKENS = 8

_Handler = Callable[[SessionState, RecordedEvent, Any], None]


def describe_problem(error: ValidationError) -> str:
    """Pydantic's errors in one line: each field path and what is wrong with it."""
    return "; ".join(
        f"{'.'.join(str(p) for p in item['loc']) or 'data'}: {item['msg']}"
        for item in error.errors()[:5]
    )


def _message(state: SessionState, event: RecordedEvent, data: MessageAppended) -> None:
    state.add_message(
        data.message,
        data.tokens,
        event.version,
        event.hash,
        str(event.event_id),
        data.encoding,
    )


def _pinned(state: SessionState, event: RecordedEvent, data: MessagesPinned) -> None:
    ids = tuple(data.message_ids)
    state.pinned.update(ids)
    state.pin_log.append((event.version, True, ids))


def _unpinned(state: SessionState, event: RecordedEvent, data: MessagesUnpinned) -> None:
    ids = tuple(data.message_ids)
    state.pinned.difference_update(ids)
    state.pin_log.append((event.version, False, ids))


def _model_call(state: SessionState, event: RecordedEvent, _: ModelCallRecorded) -> None:
    state.model_calls += 1
    state.model_call_versions.append(event.version)


def _committed(state: SessionState, event: RecordedEvent, data: SummaryCommitted) -> None:
    state.chain.commit(event.version, committed_summary(state, data))


def committed_summary(state: SessionState, data: SummaryCommitted) -> CommittedSummary:
    """The chain's entry for a committed summary, derived from its event and the state."""
    if isinstance(data.summary, CompactionSummaryV2):
        covered_end, tainted = _v2_coverage(state, data.summary, data.erased_versions)
    else:
        cited = data.summary.source_message_ids
        covered_end = 1 + max((state.index_of[i] for i in cited if i in state.index_of), default=-1)
        # Erased messages lose their ids in the fold, so a summary citing one is tainted.
        tainted = any(i not in state.index_of for i in cited)
    return CommittedSummary(
        data.summary_version,
        data.parent_version,
        data.summary,
        data.tokens,
        covered_end,
        tainted,
        data.block_digest,
    )


def _v2_coverage(
    state: SessionState, summary: CompactionSummaryV2, erased_before: Iterable[int]
) -> tuple[int, bool]:
    """Where a v2 summary's coverage ends (one past its last message) and whether a covered
    message was erased after the summary was made (then the summary may hold a copy of it,
    and is never served). ``erased_before``: the versions it saw as ``[erased]``."""
    versions = state.message_versions
    seen_erased = set(erased_before)
    tainted = any(
        summary.coverage.contains(versions[index]) and versions[index] not in seen_erased
        for index in state.erased
    )
    return bisect_right(versions, summary.coverage.last), tainted


def _masked(state: SessionState, event: RecordedEvent, data: ResultsMasked) -> None:
    # The saving is taken from the state's own count, never from the payload; a result that
    # was erased meanwhile has another id now, so its digest is never served.
    for result in data.results:
        tokens = state.tokens.get(result.message_id)
        if tokens is not None and tokens > result.tokens:
            # A version 1 record counted the digest's text alone; it is planned as it was, so
            # the requests recorded while it was served replay byte for byte.
            saved = tokens - result.tokens
            mask = Mask(result.message_id, event.version, result.text, result.tokens, saved)
            state.add_mask(mask)


def _rolled_back(state: SessionState, event: RecordedEvent, data: SummaryRolledBack) -> None:
    state.chain.roll_back(event.version, data.to_version)


def _rejected(state: SessionState, _: RecordedEvent, data: SummaryRejected) -> None:
    state.chain.reject(data.summary_version, list(data.failed_checks), data.groups)


#: Events whose fold reads no row of the index but the last (see ``folds_partially``).
_FOLDED_PARTIALLY = frozenset(
    ("MessagesPinned", "MessagesUnpinned", "ModelCallRecorded", "ProtocolIssueRecorded")
)

_HANDLERS: dict[str, _Handler] = {
    "MessageAppended": _message,
    "MessagesPinned": _pinned,
    "MessagesUnpinned": _unpinned,
    "ModelCallRecorded": _model_call,
    "SummaryCommitted": _committed,
    "SummaryRolledBack": _rolled_back,
    "SummaryRejected": _rejected,
    "ResultsMasked": _masked,
    # Issues are recomputed by the grouper; the recorded ones are still checked, so that an
    # unreadable one is reported like any other.
    "ProtocolIssueRecorded": lambda state, event, data: None,
}


class SessionView:
    """The projection of a session stream (see the module docstring)."""

    name = "context_view"
    #: 2: typed events, the summary chain in its own structure, unreadable events recorded.
    #: 3: event ids of messages, masked tool results.
    #: 4: erased summaries in the chain; a tainted head serves its nearest servable ancestor.
    #: 5: an index over the log: no message bodies in the state or its snapshots.
    #: 6: the index's columns packed (hashes, event ids, versions, positions, times, tokens).
    #: 7: tokenizers as a column of codes, not a dict of message ids.
    #: 8: snapshots as a head and immutable parts; call ids seen kept in order.
    #: 9: the head says where each part ends (a cold open reads the first and last parts).
    version = 9

    def __init__(self, bodies: BodyCache | None = None, part_versions: int = 1024) -> None:
        #: Where the runner's states keep bodies (None: each state holds its own).
        self.bodies = bodies
        #: Stream versions a snapshot part covers (a part of the benchmark conversation's
        #: 1,024 events: about 100 kB).
        self.part_versions = part_versions

    @staticmethod
    def streams(session_id: str) -> list[str]:
        """A session's one stream."""
        return [f"session/{session_id}"]

    @staticmethod
    def initial(tenant_id: str = "", session_id: str = "") -> SessionState:
        """The state of a session with no events (it holds the bodies it folds)."""
        return SessionState()

    def adopt(self, state: SessionState, tenant_id: str, session_id: str) -> SessionState:
        """A state the runner keeps: its bodies go to the shared body cache from now on."""
        if self.bodies is not None:
            stream = self.streams(session_id)[0]
            state.bodies = CachedBodies(self.bodies, tenant_id, stream, state.message_versions)
        return state

    @staticmethod
    def apply(
        state: SessionState, event: RecordedEvent, known: SessionEvent | None = None
    ) -> SessionState:
        """Fold one event of the session stream into the state (in place) and return it.

        ``known`` may pass the payload the writer itself appended (already validated), which
        spares validating it again.
        """
        handler = _HANDLERS.get(event.type)
        if handler is not None:
            if event.data is None:
                _erased(state, event)
            else:
                payload = known if known is not None else _parse(state, event)
                if payload is not None:
                    handler(state, event, payload)
        state.version = event.version
        state.position = event.position
        state.event_positions.append(event.position)
        state.event_times.append(microseconds(event.recorded_at))
        return state

    @classmethod
    def fold(
        cls, events: Iterable[RecordedEvent], state: SessionState | None = None
    ) -> SessionState:
        """The state after ``events`` (in stream order), from ``state`` or the initial state."""
        state = state if state is not None else SessionState()
        for event in events:
            state = cls.apply(state, event)
        return state

    def encode(self, state: SessionState, digests: Sequence[bytes] = ()) -> bytes:
        """A snapshot head of a state, naming the parts whose digests these are."""
        return encode_state(state, digests, self.part_versions)

    def encode_part(self, state: SessionState, part: int) -> bytes:
        """Snapshot part ``part`` of a state."""
        return encode_part(state, part, self.part_versions)

    @staticmethod
    def head_parts(data: bytes) -> list[bytes]:
        """The digests of the parts a snapshot head names."""
        return head_parts(data)

    def decode(
        self, data: bytes, parts: Sequence[bytes], tenant_id: str, session_id: str
    ) -> SessionState:
        """A state from a snapshot head and its parts (its bodies to be read from the log)."""
        state = decode_state(data, parts, every=self.part_versions)
        return self.adopt(state, tenant_id, session_id)

    @staticmethod
    def partial_parts(data: bytes) -> list[int] | None:
        """The parts a cold open reads (:mod:`projections.session.partial`); None: all."""
        return partial_parts(data)

    def decode_partial(
        self, data: bytes, parts: Mapping[int, bytes], tenant_id: str, session_id: str
    ) -> SessionState:
        """A state from a head and some of its parts, the others' rows as a hole."""
        state = decode_partial(data, parts, every=self.part_versions)
        return self.adopt(state, tenant_id, session_id)

    @staticmethod
    def folds_partially(event: RecordedEvent) -> bool:
        """Whether folding ``event`` reads no row of the index but its last: a message without
        tool calls (a call id is checked against every call seen), a pin, a model call, or an
        event of another type (ignored). The others need the whole index."""
        if event.type == "MessageAppended":
            message = event.data.get("message") if isinstance(event.data, dict) else None
            return event.data is None or (
                isinstance(message, dict) and not message.get("tool_calls")
            )
        return event.type in _FOLDED_PARTIALLY or event.type not in _HANDLERS


def _parse(state: SessionState, event: RecordedEvent) -> SessionEvent | None:
    try:
        return SESSION_EVENTS[event.type].model_validate(event.data)
    except ValidationError as error:
        reason = describe_problem(error)
        state.unreadable.append(Unreadable(event.version, event.position, event.type, reason))
        return None


def _erased(state: SessionState, event: RecordedEvent) -> None:
    """An erased payload: a message keeps its place, never its content; an erased summary
    keeps its version in the chain; an erased model call still counts."""
    if event.type == "MessageAppended":
        state.erased.add(state.count)
        state.add_message(
            erased_message(event.version),
            ERASED_MESSAGE_TOKENS,
            event.version,
            event.hash,
            str(event.event_id),
        )
    elif event.type == "SummaryCommitted":
        state.chain.commit_erased(event.version)
    elif event.type == "ModelCallRecorded":
        state.model_calls += 1
        state.model_call_versions.append(event.version)


def parse_event(event: RecordedEvent) -> SessionEvent | None:
    """The typed payload of a session event; None for another type, an erased payload or data
    that does not validate (the fold reports those as unreadable)."""
    model = SESSION_EVENTS.get(event.type)
    if model is None or event.data is None:
        return None
    try:
        return model.model_validate(event.data)
    except ValidationError:
        return None
