"""Verification of stored events against hash spec v1. Pure: it sees only stored records.

:class:`ChainVerifier` is fed a tenant's events in position order (or one stream's events in
version order) and checks, for every event: the envelope is well formed, the payload matches its
salted commitment (or was erased by a ``PayloadErased`` event that itself verifies), the event
hash matches the recomputed header hash, the ``prev_hash`` links to the previous event of the
stream (the genesis hash for version 1), versions are 1..n without gaps and, for a whole tenant,
positions are 1..N without gaps. At the end the stream heads are compared with the last events,
which catches a truncated log. Only the first failure of each stream is reported: everything
after a broken link is unverifiable anyway.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from eventstore.anchors import LoggedCheckpoint
from eventstore.encoding import decode_json
from eventstore.envelope_checks import commitment_problem, head_reason, malformed, text
from eventstore.hashing import genesis_hash
from eventstore.records import (
    CHECKPOINT_EVENT_TYPE,
    CHECKPOINT_STREAM,
    ERASURE_EVENT_TYPE,
    ERASURE_STREAM,
    StoredEvent,
    StreamHead,
)

__all__ = ["ChainVerifier", "VerificationFailure", "VerificationReport"]


class VerificationFailure(BaseModel):
    """The first bad event of a stream (or of the tenant's positions) and what is wrong."""

    model_config = ConfigDict(frozen=True)

    tenant: str
    stream: str
    version: int | None
    position: int | None
    event_id: str | None
    reason: str


class VerificationReport(BaseModel):
    """The outcome of ``verify``.

    ``checked`` counts events whose hashes were recomputed; ``erased`` counts those whose payload
    was erased by a verified ``PayloadErased`` event; ``failures`` is ordered by position.
    For a whole tenant, ``checkpoints`` counts the log's signed checkpoints whose roots were
    recomputed (``trusted_checkpoints`` those given from outside), ``signatures_verified``
    those carrying a valid signature of the given keys (``signatures_checked`` is False when
    no keys were given: a forger with database access could then replace the checkpoints too),
    and ``tree_nodes`` the stored Merkle nodes compared with the log.
    """

    model_config = ConfigDict(frozen=True)

    tenant: str
    stream: str | None
    ok: bool
    checked: int
    erased: int
    failures: list[VerificationFailure]
    checkpoints: int = 0
    snapshots: int = 0  # projection snapshots compared with a rebuild (by the projections)
    trusted_checkpoints: int = 0
    signatures_verified: int = 0
    signatures_checked: bool = False
    tree_nodes: int = 0


@dataclass
class _StreamState:
    version: int
    hash: bytes
    broken: bool = False


@dataclass
class _ErasureClaim:
    event: StoredEvent


@dataclass
class ChainVerifier:
    """Incremental verifier over one tenant (``stream=None``) or one stream."""

    tenant_id: str
    stream: str | None = None
    checked: int = 0
    _next_position: int = 1
    _streams: dict[str, _StreamState] = field(default_factory=dict)
    _failures: list[VerificationFailure] = field(default_factory=list)
    _erased_by: dict[str, int] = field(default_factory=dict)
    _claims: list[_ErasureClaim] = field(default_factory=list)
    _erased: int = 0
    #: The event hashes in position order (whole tenant only): the Merkle tree's leaves.
    leaves: list[bytes] = field(default_factory=list)
    #: The ``CheckpointRecorded`` events seen (whole tenant only).
    checkpoints: list[LoggedCheckpoint] = field(default_factory=list)

    def feed(self, events: Iterable[StoredEvent]) -> None:
        """Check the next events (position order for a tenant, version order for a stream)."""
        for event in events:
            self._check(event)

    def feed_erasures(self, events: Iterable[StoredEvent]) -> None:
        """Check events of the erasure stream that the main scan did not include.

        Used when verifying a single stream, or when erasures happened after the scan's
        snapshot: they are chained and hashed like any other event.
        """
        for event in events:
            self._check_stream_event(event)
            self.checked += 1

    @property
    def pending_erasures(self) -> bool:
        """Whether some missing payloads still wait for a ``PayloadErased`` that names them."""
        return any(claim.event.event_id not in self._erased_by for claim in self._claims)

    def last_version(self, stream_id: str) -> int:
        """The last version of ``stream_id`` seen so far (0 if none)."""
        state = self._streams.get(stream_id)
        return state.version if state else 0

    def finish(
        self, heads: Mapping[str, StreamHead], tenant_position: int | None = None
    ) -> VerificationReport:
        """Compare the heads with the last events seen and produce the report.

        Args:
            heads: the stream heads as stored, keyed by stream id.
            tenant_position: the tenant head's position (whole-tenant verification only).
        """
        last = self._next_position - 1
        if self.stream is None and tenant_position is not None and tenant_position != last:
            self._fail(
                VerificationFailure(
                    tenant=self.tenant_id,
                    stream="*",
                    version=None,
                    position=tenant_position,
                    event_id=None,
                    reason=f"tenant head says position {tenant_position} but the log ends at "
                    f"position {last}: the last events were deleted",
                )
            )
        # Streams fed only to check erasures are not judged against heads in stream mode.
        seen = set(self._streams) if self.stream is None else {self.stream}
        for stream_id in sorted(set(heads) | seen, key=str):
            head, state = heads.get(stream_id), self._streams.get(stream_id)
            if state is None:
                if head is not None and head.version > 0:
                    self._fail_stream(
                        stream_id,
                        head.version,
                        f"stream head says version {head.version} but the log has no event "
                        f"of this stream",
                    )
            elif state.broken:
                continue
            elif head is None:
                self._fail_stream(
                    stream_id,
                    state.version,
                    f"the log has versions 1..{state.version} of this stream but no stream "
                    f"head: the head was deleted",
                )
            elif head.version != state.version or head.hash != state.hash:
                self._fail_stream(stream_id, head.version, head_reason(head, state.version))
        for claim in self._claims:
            event = claim.event
            erased_by = self._erased_by.get(event.event_id)
            if erased_by is not None and event.erased_by == erased_by:
                self._erased += 1
            elif erased_by is not None:
                self._fail_event(
                    event,
                    f"PayloadErased at position {erased_by} names this event but the erasure "
                    f"records say {event.erased_by}: the erasure records were edited",
                )
            elif not self._streams[event.stream_id].broken:
                self._fail_event(
                    event,
                    "payload is missing and no PayloadErased event names it "
                    "(deleted behind the store's back)",
                )
        failures = sorted(
            self._failures,
            key=lambda f: (f.position if f.position is not None else 1 << 62, f.stream),
        )
        return VerificationReport(
            tenant=self.tenant_id,
            stream=self.stream,
            ok=not failures,
            checked=self.checked,
            erased=self._erased,
            failures=failures,
        )

    # -- per-event checks ------------------------------------------------------------------

    def _check(self, event: StoredEvent) -> None:
        self.checked += 1
        if self.stream is None:
            self._check_position(event)
            self.leaves.append(event.hash)
            if event.type == CHECKPOINT_EVENT_TYPE and event.stream_id == CHECKPOINT_STREAM:
                self.checkpoints.append(
                    LoggedCheckpoint(event.position, str(event.event_id), event.payload)
                )
        self._check_stream_event(event)

    def _check_position(self, event: StoredEvent) -> None:
        position = event.position
        if not isinstance(position, int) or position < self._next_position:
            self._fail_event(
                event,
                f"position {position!r} is out of order (expected {self._next_position})",
                stream_level=False,
            )
            return
        if position > self._next_position:
            missing = (
                f"{self._next_position}"
                if position == self._next_position + 1
                else (f"{self._next_position}..{position - 1}")
            )
            self._fail_event(
                event,
                f"positions {missing} are missing before this event (expected position "
                f"{self._next_position}, found {position}): events were deleted",
                stream_level=False,
            )
        self._next_position = position + 1

    def _check_stream_event(self, event: StoredEvent) -> None:
        stream_id = event.stream_id
        state = self._streams.get(stream_id)
        if state is None:
            # A malformed stream id cannot be hashed for genesis; the event hash check fails
            # for it below anyway, so any bytes do as a placeholder.
            genesis = genesis_hash(self.tenant_id, stream_id) if isinstance(stream_id, str) else b""
            state = self._streams[stream_id] = _StreamState(0, genesis)
        if state.broken:
            state.version = event.version if isinstance(event.version, int) else state.version
            return
        reason = self._first_problem(event, state)
        if reason:
            state.broken = True
            self._fail_event(event, reason)
            return
        state.version = event.version
        state.hash = event.hash
        if event.payload is None:
            self._claims.append(_ErasureClaim(event))
        elif event.erased_by is not None:
            state.broken = True
            self._fail_event(
                event,
                f"an erasure by position {event.erased_by} is recorded for this event but "
                "its payload is present: the erasure records were edited",
            )
        elif event.type == ERASURE_EVENT_TYPE and event.stream_id == ERASURE_STREAM:
            self._record_erasure(event)

    def _first_problem(self, event: StoredEvent, state: _StreamState) -> str | None:
        bad_envelope = malformed(event, self.tenant_id)
        if bad_envelope:
            return bad_envelope
        if event.version != state.version + 1:
            return (
                f"version {event.version} follows version {state.version} "
                f"(expected {state.version + 1}): events are missing or re-ordered"
            )
        if event.prev_hash != state.hash:
            what = "the stream genesis" if state.version == 0 else f"version {state.version}"
            return f"prev_hash does not link to {what}: events were removed or re-ordered"
        return commitment_problem(event)

    def _record_erasure(self, event: StoredEvent) -> None:
        assert event.payload is not None
        try:
            named = decode_json(event.payload)["event_ids"]
        except (ValueError, KeyError, TypeError):
            self._fail_event(event, "PayloadErased payload does not name event_ids")
            return
        for event_id in named:
            self._erased_by.setdefault(str(event_id), event.position)

    # -- failures --------------------------------------------------------------------------

    def _fail_event(self, event: StoredEvent, reason: str, *, stream_level: bool = True) -> None:
        self._fail(
            VerificationFailure(
                tenant=self.tenant_id,
                stream=text(event.stream_id),
                version=event.version if isinstance(event.version, int) else None,
                position=event.position if isinstance(event.position, int) else None,
                event_id=str(event.event_id),
                reason=reason,
            )
        )
        if stream_level:
            state = self._streams.get(event.stream_id)
            if state is not None:
                state.broken = True

    def _fail_stream(self, stream_id: str, version: int | None, reason: str) -> None:
        self._fail(
            VerificationFailure(
                tenant=self.tenant_id,
                stream=text(stream_id),
                version=version,
                position=None,
                event_id=None,
                reason=reason,
            )
        )

    def _fail(self, failure: VerificationFailure) -> None:
        self._failures.append(failure)
