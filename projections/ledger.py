"""The facade an agent framework calls on every turn: append, pin, render, compact, record.

::

    ledger = Ledger(store)
    session = ledger.session("acme", "trip-42")
    await session.append(messages)                      # one event per message, one transaction
    await session.pin(["m12"], reason="user constraint")
    context = await session.render(Budget(context_limit=128_000, max_output_tokens=4_000))

Each verb validates, builds its typed events (a pure plan where there is one), appends them
and lets the runner fold them in. Tokens are counted once, when a message is appended, outside
the write transaction; rendering never re-tokenizes history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from eventstore import EventStore, RecordedEvent
from eventstore.names import validate_stream, validate_tenant
from projections.arguments import check_budget, check_count, check_text
from projections.context.budget import Budget
from projections.context.tokens import TiktokenCounter, TokenCounter
from projections.errors import MessageValidationError
from projections.events import register_ledger_events
from projections.projection import Projection, ReadModel
from projections.read_model_runner import ReadModelRunner, read_model_name
from projections.recall.vector_cache import DEFAULT_VECTOR_BYTES
from projections.runner import ProjectionRunner
from projections.session.bodies import DEFAULT_BODY_BYTES, DEFAULT_INDEX_BYTES, BodyCache
from projections.session.events import (
    SummaryRolledBack,
)
from projections.session.fold import SessionView
from projections.session_writes import SessionWrites
from projections.telemetry import conversation, operation

# Compaction, erasure and long-term memory are imported by the verbs that use them: a process
# that only reads (``ctxledger context``) does not pay for their modules (about 0.1 s of CPU).
if TYPE_CHECKING:
    from projections.compactor import CompactionOutcome
    from projections.erasure import CascadedErasure
    from projections.memory.service import LongTermMemory
    from projections.recall.vectors import Embedder, VectorIndex
    from projections.summaries.summarizer import Summarizer, SummarizerFunction

__all__ = ["Ledger", "Session"]

S = TypeVar("S")


class Ledger:
    """Sessions over one event store (it registers ctxledger's event types in the store's
    registry, so invalid payloads of those types are refused at append).

    Args:
        store: the event log.
        counter: the token counter (tiktoken's o200k_base, for gpt-4o, by default).
        snapshot_every: save a session snapshot when it has grown by this many events since
            the last one (0: never): a new process opening the session folds at most this many
            events after it. A save writes the snapshot's head and the parts of 1,024 events
            completed since (about 100 kB each), whatever the session's length.
        cached_sessions: sessions whose states stay in memory (least recently used first out;
            rebuilt from their snapshot when used again).
        cached_bytes: and the memory their indexes may hold together (about 480 bytes a
            message; None: no bound), the newest always kept.
        body_cache_bytes: the bound of the cache of message bodies the cached sessions share
            (least recently used first out; a body not in it is read back from the log, checked
            against the session's index). A session's state itself holds no bodies.
        embedder: the optional embedding ranker's model (:mod:`projections.recall.vectors`):
            with one, recall ranks by BM25 and the messages' vectors together (their rows are
            derived data, erased with their message); None: BM25 alone.
        vector_cache_bytes: with an embedder, the bound of the memory the sessions' decoded
            vectors may hold (least recently used session first out; emptied by any erasure
            seen): a render with recall then reads only the vectors of messages appended
            since its session's last (:mod:`projections.recall.vector_cache`).
    """

    def __init__(
        self,
        store: EventStore,
        *,
        counter: TokenCounter | None = None,
        snapshot_every: int = 100,
        cached_sessions: int = 256,
        cached_bytes: int | None = DEFAULT_INDEX_BYTES,
        body_cache_bytes: int = DEFAULT_BODY_BYTES,
        embedder: Embedder | None = None,
        vector_cache_bytes: int = DEFAULT_VECTOR_BYTES,
    ) -> None:
        self.store = store
        self.vectors: VectorIndex | None = None
        if embedder is not None:  # imported only when used: a plain read loads no ranker
            from projections.recall.vectors import VectorIndex

            self.vectors = VectorIndex(embedder, cache_bytes=vector_cache_bytes)
        register_ledger_events(store.registry)
        self.bodies = BodyCache(body_cache_bytes)
        self.sessions = ProjectionRunner(
            store,
            SessionView(self.bodies),
            cache_size=cached_sessions,
            cache_bytes=cached_bytes,
            snapshot_every=snapshot_every,
        )
        self._counter = counter
        self._memory: LongTermMemory | None = None
        self._runners: dict[str, Any] = {SessionView.name: self.sessions}
        self._read_models: dict[str, ReadModelRunner] = {}

    def projection(self, projection: Projection[S]) -> ProjectionRunner[S]:
        """The runner that keeps ``projection`` current over this store (one per projection
        name, so its cache is shared by every caller): register a new in-memory read model
        by calling this with it."""
        runner = self._runners.get(projection.name)
        if runner is None:
            runner = ProjectionRunner(
                self.store, projection, cache_size=self.sessions.cache_size, snapshot_every=0
            )
            self._runners[projection.name] = runner
        return cast(ProjectionRunner[S], runner)

    def read_model(self, model: ReadModel) -> ReadModelRunner:
        """The runner of a read model with rows of its own (one per name and version)."""
        runner = self._read_models.get(read_model_name(model))
        if runner is None:
            runner = self._read_models[read_model_name(model)] = ReadModelRunner(self.store, model)
        return runner

    @property
    def counter(self) -> TokenCounter:
        """The token counter, loaded on first use (the BPE ranks take a moment to load)."""
        if self._counter is None:
            self._counter = TiktokenCounter()
        return self._counter

    @property
    def memory(self) -> LongTermMemory:
        """Long-term memory over the same store (consent, candidates, recall, forget)."""
        if self._memory is None:
            from projections.memory.service import LongTermMemory

            self._memory = LongTermMemory(self.store)
        return self._memory

    def session(self, tenant_id: str, session_id: str, *, user_id: str | None = None) -> Session:
        """The session ``session_id`` of ``tenant_id`` (stream ``session/<id>``).

        With ``user_id``, the session can propose long-term memories for that user, and
        ``compact`` proposes the facts of its summaries that the tenant's memory policy marks
        as long-term (nothing is promoted without consent or policy: see :attr:`memory`).
        """
        return Session(self, tenant_id, session_id, user_id=user_id)

    async def erase(
        self, tenant_id: str, event_ids: Sequence[str], *, reason: str, requested_by: str
    ) -> CascadedErasure:
        """Erase the payloads of ``event_ids`` and of every event derived from them (summaries
        that quote them, masked digests, copies, memory proposals: see
        :mod:`projections.erasure`), in one ``PayloadErased``. The sessions' next render or
        compaction re-derives their summaries without the erased text.

        Raises:
            ErasureError: an id is not in the tenant's log, or the log kept moving.
        """
        from projections.erasure import erase_events

        return await erase_events(
            self.store, tenant_id, event_ids, reason=reason, requested_by=requested_by
        )


class Session(SessionWrites):
    """One conversation: the stream ``session/<session_id>`` of a tenant (the read verbs,
    render and search among them, come from :class:`~projections.session_reads.SessionReads`,
    the memory proposals from :class:`~projections.session_memory.SessionMemory`, the appends
    from :class:`~projections.session_writes.SessionWrites`)."""

    ledger: Ledger  # all of it, where the reads need only LedgerParts

    def __init__(
        self, ledger: Ledger, tenant_id: str, session_id: str, *, user_id: str | None = None
    ) -> None:
        self.ledger = ledger
        self.tenant_id = validate_tenant(tenant_id)  # named now, not at the first write
        self.session_id = session_id
        self.user_id = user_id
        check_text("session_id", session_id)
        self.stream_id = validate_stream(f"session/{session_id}")

    @property
    def counter(self) -> TokenCounter:
        """The ledger's token counter."""
        return self.ledger.counter

    async def compact(
        self,
        budget: Budget,
        *,
        summarizer: Summarizer | SummarizerFunction | None = None,
        summary_budget: int | None = None,
        keep_groups: int = 6,
        max_chunk: int = 500,
        tool_result_tokens: int = 400,
        target: float | None = None,
        max_steps: int = 4,
        backoff_groups: int = 4,
        mask_results: bool = True,
    ) -> CompactionOutcome:
        """Summarise what the window leaves out, behind the validation gate, until the rendered
        context is at or under the trigger (DESIGN §5; see ``session.compaction``).

        The oldest messages that the served summary does not cover and that do not fit next to
        the summary are sanitised and given, with the previous summary, to ``summarizer`` (the
        offline one by default); the result is validated and committed as ``SummaryCommitted``
        (rolling: up to ``max_steps`` chunks of ``max_chunk`` messages), or recorded as
        ``SummaryRejected`` with the failed checks, and the window keeps being served. The raw
        messages always stay in the log. The outcome says whether the context reached the
        trigger, and why not when it cannot (the prefix and pins alone are too big, say).

        Args:
            summary_budget: an upper bound for the summary's tokens (the default is a share of
                the room left under ``target``, never more).
            target: aim the context at what must stay (prefix, pins, current turn) plus
                ``target`` of the room the trigger leaves above it (default 0.75).
            backoff_groups: after a rejected attempt, the next one waits for this many new
                groups (0: try again now, as an operator with another summarizer may).
            mask_results: first mask tool results older than the last ``keep_groups`` groups
                (recorded as ``ResultsMasked``; the ladder's cheapest step) and summarise only
                when the context is still over the aim.
        """
        from projections.compactor import compact_session
        from projections.session.compaction import CompactionOptions

        check_budget(budget)
        check_count("keep_groups", keep_groups)

        options = CompactionOptions(
            keep_groups=keep_groups,
            target=target,
            max_chunk=max_chunk,
            summary_budget=summary_budget,
            tool_result_tokens=tool_result_tokens,
            backoff_groups=backoff_groups,
            mask_results=mask_results,
        )
        with operation("compact", conversation(self.tenant_id, self.session_id)) as span:
            outcome = await self._checked(
                lambda: compact_session(self, budget, options, summarizer, max_steps)
            )
            span.update(result=outcome.result, masked=bool(outcome.masked))
            if outcome.summary_version is not None:
                span["summary_version"] = outcome.summary_version
        return outcome

    async def rollback(self, *, to_version: int | None = None, reason: str) -> RecordedEvent:
        """Move the summary head back (by default to the served summary's parent).

        The restored version is checked against the current log again; when it no longer
        validates (a source was erased, say), the head moves to no summary and the window is
        served.
        """
        if not isinstance(reason, str) or not reason.strip():
            raise MessageValidationError("rollback needs a reason")
        from projections.session.rollback import rollback_target

        count = self.ledger.counter.count_text
        cut = await self._checked(self.all_messages)
        target, note = rollback_target(cut, to_version, reason, count)
        state = cut.state
        rolled = SummaryRolledBack(to_version=target, reason=note)
        (event,) = await self.append_events([rolled], expected_version=state.version)
        return event
