"""The facade an agent framework calls on every turn: append, pin, render, record the call.

::

    ledger = Ledger(store)
    session = ledger.session("acme", "trip-42")
    await session.append(messages)                      # one event per message, one transaction
    await session.pin(["m12"], reason="user constraint")
    context = await session.render(Budget(context_limit=128_000, max_output_tokens=4_000))

Tokens are counted once, when a message is appended, outside the write transaction, and stored
in its event with the encoding's name; rendering never re-tokenizes history.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import takewhile
from typing import Any

from pydantic import BaseModel, ConfigDict

from eventstore import EventStore, NewEvent, RecordedEvent, Snapshot
from eventstore.records import ERASURE_STREAM
from projections.context.budget import Budget
from projections.context.formats import Format
from projections.context.messages import Message, parse_message
from projections.context.tokens import TiktokenCounter, TokenCounter
from projections.context.view import (
    MESSAGE_APPENDED,
    MESSAGES_PINNED,
    MESSAGES_UNPINNED,
    MODEL_CALL_RECORDED,
    PROTOCOL_ISSUE_RECORDED,
    SUMMARY_COMMITTED,
    SUMMARY_REJECTED,
    SUMMARY_ROLLED_BACK,
    ContextView,
    RenderedContext,
    SessionState,
    fact_diff,
    render,
)
from projections.errors import MemoryRequestError, MessageValidationError
from projections.memory.service import LongTermMemory
from projections.summaries.block import render_summary_block
from projections.summaries.offline import Summarizer, SummaryRequest, offline_summarizer
from projections.summaries.sanitize import sanitize_messages
from projections.summaries.schema import CompactionSummary
from projections.summaries.validation import validate_summary

__all__ = ["CompactionOutcome", "Ledger", "Session", "SyncLedger", "SyncSession"]


class Ledger:
    """Sessions over one event store.

    Args:
        store: the event log.
        counter: the token counter (tiktoken's o200k_base, for gpt-4o, by default).
        snapshot_every: save a ``context_view`` snapshot of a session when it has grown by this
            many events since the last one, or has doubled, whichever is more (so the cost of
            snapshots stays proportional to appends); 0 disables snapshots.
        cached_sessions: how many sessions' states are kept in memory (least recently used
            ones are dropped, and rebuilt from their snapshot when used again).
    """

    def __init__(
        self,
        store: EventStore,
        *,
        counter: TokenCounter | None = None,
        snapshot_every: int = 1000,
        cached_sessions: int = 256,
    ) -> None:
        if snapshot_every < 0:
            raise ValueError(f"snapshot_every must be >= 0, got {snapshot_every}")
        if cached_sessions < 1:
            raise ValueError(f"cached_sessions must be >= 1, got {cached_sessions}")
        self.store = store
        self.snapshot_every = snapshot_every
        self.cached_sessions = cached_sessions
        self._counter = counter
        # Latest state per session (least recently used first), caught up on use; one lock
        # per session guards it.
        self._states: OrderedDict[tuple[str, str], SessionState] = OrderedDict()
        self._snapshot_versions: dict[tuple[str, str], int] = {}
        self._erasure_versions: dict[str, int] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._memory: LongTermMemory | None = None

    def _lock(self, key: tuple[str, str]) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    def _remember(self, key: tuple[str, str], state: SessionState) -> None:
        """Cache a session's state, dropping the least recently used beyond the limit."""
        self._states[key] = state
        self._states.move_to_end(key)
        while len(self._states) > self.cached_sessions:
            old, _ = self._states.popitem(last=False)
            self._snapshot_versions.pop(old, None)
            lock = self._locks.get(old)
            if lock is not None and not lock.locked():
                del self._locks[old]

    @property
    def counter(self) -> TokenCounter:
        """The token counter, loaded on first use (the BPE ranks take a moment to load)."""
        if self._counter is None:
            self._counter = TiktokenCounter()
        return self._counter

    def session(self, tenant_id: str, session_id: str, *, user_id: str | None = None) -> Session:
        """The session ``session_id`` of ``tenant_id`` (stream ``session/<id>``).

        With ``user_id``, the session can propose long-term memories for that user, and
        ``compact`` proposes the facts of its summaries that the tenant's memory policy marks
        as long-term (nothing is promoted without consent or policy: see :attr:`memory`).
        """
        return Session(self, tenant_id, session_id, user_id=user_id)

    @property
    def memory(self) -> LongTermMemory:
        """Long-term memory over the same store (consent, candidates, recall, forget)."""
        if self._memory is None:
            self._memory = LongTermMemory(self.store)
        return self._memory


class Session:
    """One conversation: the stream ``session/<session_id>`` of a tenant."""

    def __init__(
        self, ledger: Ledger, tenant_id: str, session_id: str, *, user_id: str | None = None
    ) -> None:
        self.ledger = ledger
        self.tenant_id = tenant_id
        self.session_id = session_id
        self.user_id = user_id
        self.stream_id = f"session/{session_id}"

    async def append(
        self, messages: Sequence[Message | dict[str, Any]], *, expected_version: int | None = None
    ) -> list[RecordedEvent]:
        """Append messages: one event each, plus one per protocol issue found, atomically.

        Raises:
            MessageValidationError: a message is malformed or its id is already in the session.
        """
        parsed = [parse_message(m, where=f"message {i}") for i, m in enumerate(messages)]
        state = await self._current()
        batch: set[str] = set()
        for message in parsed:
            if message.id in state.index_of or message.id in batch:
                raise MessageValidationError(
                    f"message id {message.id!r} is already in session {self.session_id}: "
                    f"message ids are unique within a session"
                )
            batch.add(message.id)
        counter = self.ledger.counter
        events = [
            NewEvent(
                type=MESSAGE_APPENDED,
                data={
                    "message": message.model_dump(mode="json"),
                    "tokens": counter.count_message(message),
                    "encoding": counter.encoding_name,
                    "flags": message.flags,
                },
            )
            for message in parsed
        ]
        events += self._new_issues(state, parsed)
        recorded = await self.ledger.store.append(
            self.tenant_id, self.stream_id, events, expected_version=expected_version
        )
        await self._advance(recorded, parsed)
        return recorded

    def _new_issues(self, state: SessionState, parsed: list[Message]) -> list[NewEvent]:
        """Protocol issues that appending ``parsed`` creates (recorded once, when found)."""
        return [
            NewEvent(
                type=PROTOCOL_ISSUE_RECORDED,
                data={
                    "kind": issue.kind,
                    "message_id": issue.message_id,
                    "tool_call_id": issue.tool_call_id,
                    "detail": issue.detail,
                },
            )
            for issue in state.grouper.preview(parsed)
        ]

    async def _advance(
        self, recorded: list[RecordedEvent], messages: Sequence[Message] = ()
    ) -> None:
        """Fold events this session just appended into the cached state, if it is right behind
        them (otherwise the next catch-up reads them from the log). ``messages`` are the
        validated messages of the leading ``MessageAppended`` events, in order."""
        key = (self.tenant_id, self.stream_id)
        async with self.ledger._lock(key):
            state = self.ledger._states.get(key)
            if state is not None and recorded and state.version == recorded[0].version - 1:
                for index, event in enumerate(recorded):
                    known = messages[index] if index < len(messages) else None
                    ContextView.apply(state, event, known)
                await self._maybe_snapshot(state)

    async def _current(self) -> SessionState:
        """The session's latest state: the ledger's cache (or, in a fresh process, the last
        snapshot) caught up with the events after it (O(new events))."""
        key = (self.tenant_id, self.stream_id)
        await self._forget_if_erased()
        async with self.ledger._lock(key):
            state = self.ledger._states.get(key) or await self._from_snapshot()
            events = await self.ledger.store.read_stream(
                self.tenant_id, self.stream_id, from_version=state.version + 1
            )
            state = ContextView.fold(events, state)
            self.ledger._remember(key, state)
            await self._maybe_snapshot(state)
            return state

    async def _forget_if_erased(self) -> None:
        """Drop the tenant's cached states when an erasure happened since they were cached:
        they may hold the erased data, and summaries citing erased messages become tainted."""
        erasures = await self.ledger.store.stream_head(self.tenant_id, ERASURE_STREAM)
        known = self.ledger._erasure_versions.get(self.tenant_id)
        if known is not None and known != erasures.version:
            for key in [k for k in self.ledger._states if k[0] == self.tenant_id]:
                del self.ledger._states[key]
                self.ledger._snapshot_versions.pop(key, None)
        self.ledger._erasure_versions[self.tenant_id] = erasures.version

    async def _from_snapshot(self) -> SessionState:
        """The last snapshot's state when it is usable, else the initial state.

        Checked on load: the store checks its hash; here its projection version must be the
        current one and the event it was taken at must still be at the recorded position.
        """
        key = (self.tenant_id, self.stream_id)
        if not self.ledger.snapshot_every:
            return ContextView.initial()
        snapshot = await self.ledger.store.load_snapshot(
            self.tenant_id, ContextView.name, self.stream_id
        )
        if snapshot is None or snapshot.projection_version != ContextView.version:
            return ContextView.initial()
        at = await self.ledger.store.read_stream(
            self.tenant_id,
            self.stream_id,
            from_version=snapshot.version,
            to_version=snapshot.version,
        )
        if len(at) != 1 or at[0].position != snapshot.position:
            return ContextView.initial()
        self.ledger._snapshot_versions[key] = snapshot.version
        return SessionState.from_bytes(snapshot.state)

    async def _maybe_snapshot(self, state: SessionState) -> None:
        every = self.ledger.snapshot_every
        key = (self.tenant_id, self.stream_id)
        last = self.ledger._snapshot_versions.get(key, 0)
        if not every or state.version - last < max(every, last):
            return
        await self.ledger.store.save_snapshot(
            Snapshot(
                tenant_id=self.tenant_id,
                name=ContextView.name,
                stream_id=self.stream_id,
                projection_version=ContextView.version,
                version=state.version,
                position=state.position,
                state=state.to_bytes(),
            )
        )
        self.ledger._snapshot_versions[key] = state.version

    async def pin(self, message_ids: Sequence[str], *, reason: str) -> RecordedEvent:
        """Pin messages: their groups stay in context verbatim, whatever the budget."""
        return await self._mark(MESSAGES_PINNED, message_ids, reason)

    async def unpin(self, message_ids: Sequence[str], *, reason: str) -> RecordedEvent:
        """Remove pins."""
        return await self._mark(MESSAGES_UNPINNED, message_ids, reason)

    async def _mark(self, kind: str, message_ids: Sequence[str], reason: str) -> RecordedEvent:
        if not message_ids:
            raise MessageValidationError(f"{kind} needs at least one message id")
        if not reason or not reason.strip():
            raise MessageValidationError(f"{kind} needs a reason")
        known = (await self._current()).index_of
        unknown = [i for i in message_ids if i not in known]
        if unknown:
            raise MessageValidationError(
                f"session {self.session_id} has no message {', '.join(map(repr, unknown))}"
            )
        (event,) = await self.ledger.store.append(
            self.tenant_id,
            self.stream_id,
            [NewEvent(type=kind, data={"message_ids": list(message_ids), "reason": reason})],
        )
        await self._advance([event])
        return event

    async def record_model_call(
        self,
        *,
        manifest: dict[str, Any] | None = None,
        input_tokens: int,
        cached_input_tokens: int = 0,
        output_tokens: int,
        request_bytes: int | None = None,
        ttft_ms: float | None = None,
        queue_ms: float | None = None,
        model: str | None = None,
    ) -> RecordedEvent:
        """Record a model call with the figures the seed tracks per call."""
        data = {
            "manifest": manifest,
            "input_tokens": input_tokens,
            "cached_input_tokens": cached_input_tokens,
            "output_tokens": output_tokens,
            "request_bytes": request_bytes,
            "ttft_ms": ttft_ms,
            "queue_ms": queue_ms,
            "model": model,
        }
        (event,) = await self.ledger.store.append(
            self.tenant_id, self.stream_id, [NewEvent(type=MODEL_CALL_RECORDED, data=data)]
        )
        return event

    async def compact(
        self,
        budget: Budget,
        *,
        summarizer: Summarizer | None = None,
        summary_budget: int = 2000,
        keep_groups: int = 6,
        max_chunk: int = 200,
        tool_result_tokens: int = 400,
        target: float | None = None,
    ) -> CompactionOutcome:
        """Summarise the groups the window leaves out, behind the validation gate.

        Nothing happens when the window keeps every group the active summary does not
        already cover. Otherwise the oldest uncovered messages leaving the window (at most
        ``max_chunk``) are sanitised and given, with the previous summary, to ``summarizer``
        (the offline one by default); the result is validated and committed as
        ``SummaryCommitted``, or recorded as ``SummaryRejected`` with the failed checks, in
        which case the window keeps being served. The raw messages always stay in the log.

        Args:
            target: make room: plan the window as if only ``target`` × the usable budget were
                available (e.g. 0.5), so that the groups beyond it are summarised now rather
                than a few at a time on every later call. Prefix, pins and the last
                ``keep_groups`` groups always stay.
        """
        state = await self._current()
        cut = state.cut()
        rendered = render(cut, budget, keep_groups=keep_groups)
        kept = set(rendered.manifest.message_ids)
        if target is not None:
            tight = budget.shrunk(target)
            kept = set(render(cut, tight, keep_groups=keep_groups).manifest.message_ids)
        active = cut.summary()
        start = active.covered_end if active else 0
        chunk = [m for m in state.messages[start:] if m.id not in kept][:max_chunk]
        chunk = [m for m in chunk if m.role not in ("system", "developer")]
        if not chunk:
            return CompactionOutcome(result="not_needed")
        count = self.ledger.counter.count_text
        previous = active.summary if active else None
        covered = set(previous.source_message_ids) if previous else set()
        sources, report_sanitized = sanitize_messages(
            [m for m in state.messages if m.id in covered] + chunk,
            count_tokens=count,
            tool_result_tokens=tool_result_tokens,
        )
        clean_chunk = sources[len(sources) - len(chunk) :]
        request = SummaryRequest(
            previous=previous,
            chunk=clean_chunk,
            budget_tokens=summary_budget,
            created_at=datetime.now(UTC),
            count_tokens=count,
        )
        began = time.perf_counter()
        try:
            summary = await (summarizer or offline_summarizer)(request)
            problem = None
        except Exception as error:  # a failing summarizer is a rejected summary, never a crash
            summary, problem = None, f"{type(error).__name__}: {error}"
        latency_ms = (time.perf_counter() - began) * 1000
        version = max(state.summaries, default=0) + 1
        if summary is not None:
            report = validate_summary(
                summary, sources, parent=previous, budget=summary_budget, count_tokens=count
            )
        if summary is None or not report.ok:
            failed = ["summarizer"] if summary is None else report.failed()
            data: dict[str, Any] = {
                "summary_version": version,
                "failed_checks": failed,
                "reason": problem or "; ".join(c.reason for c in report.checks if not c.ok),
                "latency_ms": latency_ms,
                "sanitized": report_sanitized.as_dict(),
            }
            (event,) = await self.ledger.store.append(
                self.tenant_id,
                self.stream_id,
                [NewEvent(type=SUMMARY_REJECTED, data=data)],
                expected_version=state.version,
            )
            await self._advance([event])
            return CompactionOutcome(
                result="rejected", summary_version=version, failed_checks=failed, event=event
            )
        tokens = count(render_summary_block(summary))
        data = {
            "summary_version": version,
            "parent_version": active.version if active else None,
            "summary": summary.model_dump(mode="json"),
            "covered_ids": summary.source_message_ids,
            "covered_hash": state.covered_hash(summary.source_message_ids),
            "tokens": tokens,
            "tokens_before": rendered.manifest.tokens["total"],
            "tokens_after": cut.tokens_with_summary(
                budget,
                tokens,
                1
                + max(state.index_of[i] for i in summary.source_message_ids if i in state.index_of),
                keep_groups,
            ),
            "validation": report.model_dump(),
            "diff": fact_diff(previous, summary),
            "summarizer": getattr(summarizer, "__name__", "offline_summarizer"),
            "model": getattr(summarizer, "model", None),
            "usage": getattr(summarizer, "last_usage", None),
            "latency_ms": latency_ms,
            "sanitized": report_sanitized.as_dict(),
        }
        (event,) = await self.ledger.store.append(
            self.tenant_id,
            self.stream_id,
            [NewEvent(type=SUMMARY_COMMITTED, data=data)],
            expected_version=state.version,
        )
        await self._advance([event])
        proposed = await self._propose_long_term(summary, version)
        return CompactionOutcome(
            result="committed", summary_version=version, event=event, proposed=proposed
        )

    async def _source_events(self, message_ids: Sequence[str]) -> list[str]:
        """The ids of the events that appended these messages of the session."""
        state = await self._current()
        unknown = [i for i in message_ids if i not in state.index_of]
        if unknown:
            raise MemoryRequestError(
                f"session {self.session_id} has no message {', '.join(map(repr, unknown))} "
                f"(an erased message keeps no id, and cannot be a source)"
            )
        found = []
        for message_id in message_ids:
            version = state.message_versions[state.index_of[message_id]]
            (event,) = await self.ledger.store.read_stream(
                self.tenant_id, self.stream_id, from_version=version, to_version=version
            )
            found.append(str(event.event_id))
        return found

    def _require_user(self, user_id: str | None) -> str:
        user = user_id or self.user_id
        if user is None:
            raise MemoryRequestError(
                f"session {self.session_id} has no user: open it with "
                f"ledger.session(tenant, session, user_id=...) or pass user_id"
            )
        return user

    async def propose_memory(
        self,
        *,
        key: str,
        value: str,
        category: str,
        source_ids: Sequence[str],
        confidence: float,
        user_id: str | None = None,
        ttl_days: float | None = None,
    ) -> RecordedEvent:
        """Propose a long-term memory of the session's user, citing the messages (by id) it
        comes from. Only a proposal: the promoter decides, from consent and the tenant policy.

        Raises:
            MemoryRequestError: no user, no sources, an unknown message id, or a bad field.
        """
        user = self._require_user(user_id)
        if not source_ids:
            raise MemoryRequestError("a memory proposal must cite at least one source message")
        return await self.ledger.memory.propose(
            self.tenant_id,
            user,
            key=key,
            value=value,
            category=category,
            source_ids=list(source_ids),
            source_event_ids=await self._source_events(source_ids),
            confidence=confidence,
            session_id=self.session_id,
            ttl_days=ttl_days,
        )

    async def _propose_long_term(self, summary: CompactionSummary, version: int) -> list[str]:
        """Propose the summary's confirmed facts whose key the tenant policy keeps long-term
        (once per session, key and value); returns the new proposals' ids."""
        if self.user_id is None or not summary.facts:
            return []
        memory = self.ledger.memory
        policy = await memory.policy(self.tenant_id)
        state = await memory.state(self.tenant_id, self.user_id)
        seen = {
            (p.data.key, p.data.value)
            for p in state.proposals.values()
            if p.data is not None and p.data.session_id == self.session_id
        }
        proposed = []
        for fact in summary.facts:
            category = policy.long_term_category(fact.key)
            if category is None or fact.status != "confirmed" or (fact.key, fact.value) in seen:
                continue
            seen.add((fact.key, fact.value))
            event = await memory.propose(
                self.tenant_id,
                self.user_id,
                key=fact.key,
                value=fact.value,
                category=category,
                source_ids=fact.source_ids,
                source_event_ids=await self._source_events(fact.source_ids),
                confidence=fact.confidence,
                session_id=self.session_id,
                origin="summary",
                summary_version=version,
            )
            proposed.append(str(event.event_id))
        return proposed

    async def rollback(self, *, to_version: int | None = None, reason: str) -> RecordedEvent:
        """Move the summary head back (by default to the active summary's parent).

        The restored version is checked against the current log again; when it no longer
        validates (a source was erased, say), the head moves to no summary and the window is
        served.
        """
        if not reason or not reason.strip():
            raise MessageValidationError("rollback needs a reason")
        state = await self._current()
        active = state.cut().summary()
        target = to_version if to_version is not None else (active.parent if active else None)
        if target is not None and target not in state.summaries:
            raise MessageValidationError(
                f"session {self.session_id} has no summary version {target}; versions: "
                f"{sorted(state.summaries) or 'none'}"
            )
        note = reason
        if target is not None:
            restored = state.summaries[target].summary
            sources = [m for m in state.messages if m.id in set(restored.source_message_ids)]
            clean, _ = sanitize_messages(sources, count_tokens=self.ledger.counter.count_text)
            if not validate_summary(restored, clean).ok:
                target, note = None, f"{reason} (version {to_version} no longer validates)"
        (event,) = await self.ledger.store.append(
            self.tenant_id,
            self.stream_id,
            [NewEvent(type=SUMMARY_ROLLED_BACK, data={"to_version": target, "reason": note})],
            expected_version=state.version,
        )
        await self._advance([event])
        return event

    async def latest(self) -> SessionState:
        """The session's latest state, as the ledger keeps it current (O(new events) to catch
        up); read it, never change it. :meth:`state` folds a fresh copy from the log instead."""
        return await self._current()

    async def messages(self) -> list[Message]:
        """The session's messages, in order (from :meth:`latest`)."""
        return list((await self.latest()).messages)

    async def state(
        self,
        *,
        at_version: int | None = None,
        at_position: int | None = None,
        at_time: datetime | None = None,
    ) -> SessionState:
        """The session folded from its events, up to a version, a tenant position or a time.

        A fresh fold from the log (the reference that time-travel renders are checked
        against); it stops at the first event past the given position or time.
        """
        events = await self.ledger.store.read_stream(
            self.tenant_id, self.stream_id, to_version=at_version
        )
        if at_position is not None:
            events = list(takewhile(lambda event: event.position <= at_position, events))
        if at_time is not None:
            events = list(takewhile(lambda event: event.recorded_at <= at_time, events))
        return ContextView.fold(events)

    async def render(
        self,
        budget: Budget,
        *,
        keep_groups: int = 6,
        fmt: Format = "openai",
        at_version: int | None = None,
        at_position: int | None = None,
        at_time: datetime | None = None,
    ) -> RenderedContext:
        """The next request's messages under ``budget``, with its manifest.

        Works on the state the ledger keeps current: a warm render reads only new events and
        touches only the groups it keeps, and an earlier context (time travel by version,
        tenant position or time) is cut out of the same state, never refolded.
        """
        state = await self._current()
        version = at_version
        if at_position is not None or at_time is not None:
            version = state.version_at(position=at_position, time=at_time)
            if at_version is not None:
                version = min(version, at_version)
        return render(state.cut(version), budget, keep_groups=keep_groups, fmt=fmt)


class CompactionOutcome(BaseModel):
    """What ``compact`` did: ``committed``, ``rejected`` or ``not_needed``, and the event."""

    model_config = ConfigDict(frozen=True)

    result: str
    summary_version: int | None = None
    failed_checks: list[str] = []
    event: RecordedEvent | None = None
    proposed: list[str] = []  # memory proposals made from the summary's long-term facts


class SyncSession:
    """:class:`Session` for callers without an event loop: each method runs the async one."""

    def __init__(self, session: Session, runner: asyncio.Runner) -> None:
        self._session = session
        self._runner = runner

    def append(self, messages: Sequence[Message | dict[str, Any]], **options: Any) -> Any:
        """See :meth:`Session.append`."""
        return self._runner.run(self._session.append(messages, **options))

    def pin(self, message_ids: Sequence[str], *, reason: str) -> RecordedEvent:
        """See :meth:`Session.pin`."""
        return self._runner.run(self._session.pin(message_ids, reason=reason))

    def unpin(self, message_ids: Sequence[str], *, reason: str) -> RecordedEvent:
        """See :meth:`Session.unpin`."""
        return self._runner.run(self._session.unpin(message_ids, reason=reason))

    def record_model_call(self, **figures: Any) -> RecordedEvent:
        """See :meth:`Session.record_model_call`."""
        return self._runner.run(self._session.record_model_call(**figures))

    def state(self, **as_of: Any) -> SessionState:
        """See :meth:`Session.state`."""
        return self._runner.run(self._session.state(**as_of))

    def render(self, budget: Budget, **options: Any) -> RenderedContext:
        """See :meth:`Session.render`."""
        return self._runner.run(self._session.render(budget, **options))


class SyncLedger:
    """A :class:`Ledger` for synchronous code; owns an event loop, use it as a context manager.

    ::

        with SyncLedger("ledger.db") as ledger:
            ledger.session("acme", "trip-42").append([{"role": "user", "content": "hi"}])
    """

    def __init__(self, url: str = "ctxledger.db", *, counter: TokenCounter | None = None) -> None:
        self._runner = asyncio.Runner()
        self._store = EventStore.open(url)
        self.ledger = Ledger(self._store, counter=counter)

    def session(self, tenant_id: str, session_id: str) -> SyncSession:
        """The session ``session_id`` of ``tenant_id``."""
        return SyncSession(self.ledger.session(tenant_id, session_id), self._runner)

    def close(self) -> None:
        """Close the store and the event loop."""
        self._runner.run(self._store.close())
        self._runner.close()

    def __enter__(self) -> SyncLedger:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
