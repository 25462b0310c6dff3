"""An OpenAI Agents SDK session backed by ctxledger.

``LedgerSession`` implements the SDK's ``Session`` protocol (``get_items``, ``add_items``,
``pop_item``, ``clear_session``) on the ledger, so an agent keeps its code and changes one
line::

    session = LedgerSession("user-42", ledger, tenant_id="acme")
    result = await Runner.run(agent, "Hello", session=session)

or, like the SDK's ``SQLiteSession("user-42", "conversations.db")``, in one::

    session = LedgerSession.open("user-42", "conversations.db", tenant_id="acme")

Items are Responses-format items, stored as ``MessageAppended`` events through the Responses
adapter: every item type the SDK hands a session is kept losslessly (reasoning, hosted tools,
custom and computer calls, MCP, compaction, and unknown future types as opaque items that
round-trip exactly), tool calls and their outputs stay one group, and a reasoning item stays
with its turn. ``EncryptedSession`` works on top (its envelopes are kept whole). Usage is
recorded per model call with ``hooks=session.usage_hooks()``. The destructive calls are not
destructive underneath: the session's current items live in a *generation* stream
``session/<id>~<generation>``; ``clear_session`` starts an empty generation and ``pop_item``
starts one holding every item but the last, each recorded as ``GenerationStarted`` on
``agents/<id>``. Nothing is deleted: older generations stay in the log, ``verify`` passes, and
:meth:`LedgerSession.items_at` gives the items as they were at any earlier tenant position.

With ``compaction`` set, ``get_items`` returns the compacted context instead of the raw
history: a tool-safe window (old tool results masked), pins and a validated summary under the
token budget, compacting first when the context crosses the trigger (a rejected attempt is not
retried before enough new groups arrived). When even the prefix, the pins and the last turn
are over the usable budget, the caller is told: a :class:`ContextOverBudgetWarning` by
default, a :class:`ContextOverBudgetError` with ``on_over_budget="raise"``.
"""

from __future__ import annotations

import time
import warnings
from os import PathLike
from typing import TYPE_CHECKING, Any, Self

from eventstore import EventStore
from projections.compactor import CompactionOutcome
from projections.context.formats import from_messages, to_messages
from projections.errors import ContextOverBudgetError, ContextOverBudgetWarning
from projections.events import ledger_registry
from projections.integration_events import GENERATION_STARTED
from projections.integrations.agents_recall import add_recalled, window_budget
from projections.integrations.agents_settings import CompactionSettings
from projections.integrations.generations import (
    control_stream,
    current_generation,
    generation_session,
    start_generation,
)
from projections.ledger import Ledger, Session
from projections.session.fold import SessionView
from projections.session.recall_block import RecallPlan
from projections.session.render import Manifest, RenderedContext

if TYPE_CHECKING:
    from agents.memory.session_settings import SessionSettings

__all__ = [
    "GENERATION_STARTED",
    "CompactionSettings",
    "ContextOverBudgetError",
    "ContextOverBudgetWarning",
    "LedgerSession",
    "current_generation",
]


class LedgerSession:
    """A ``Session`` of the OpenAI Agents SDK on a ctxledger ledger (see the module doc).

    Args:
        session_id: the SDK's session id.
        ledger: the ledger (its store holds everything).
        tenant_id: the tenant; required, like everywhere in ctxledger.
        user_id: the user, for long-term memory proposals from summaries.
        compaction: return the compacted context from ``get_items`` (off by default).
        session_settings: the SDK's ``SessionSettings`` (or a dict of them); its ``limit`` is
            what ``get_items()`` returns when called without one. Default:
            ``SessionSettings()``, as the SDK's own sessions.
    """

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        ledger: Ledger,
        *,
        tenant_id: str,
        user_id: str | None = None,
        compaction: CompactionSettings | None = None,
        session_settings: SessionSettings | dict[str, Any] | None = None,
    ) -> None:
        if not session_id or "/" in session_id or "~" in session_id:
            raise ValueError(f"a session id is non-empty, without '/' or '~', got {session_id!r}")
        self.session_settings = _settings(session_settings)
        self.session_id = session_id
        self.ledger = ledger
        self.tenant_id = tenant_id
        self.user_id = user_id
        self.compaction = compaction
        self.control_stream = control_stream(session_id)
        self._owns_store = False  # only a session made by open() closes its store
        #: the manifest of the context ``get_items`` last served (with ``compaction``)
        self.last_manifest: Manifest | None = None
        #: what the last compaction ``get_items`` ran did (None: none was due, or the
        #: summarizer was unavailable less than ``retry_unavailable_after`` seconds ago)
        self.last_compaction: CompactionOutcome | None = None
        self._retry_at = 0.0  # monotonic time before which an unavailable summarizer rests
        #: the block the recall filter last added (its entries: what was recalled, and why)
        self.last_recall: RecallPlan | None = None

    @classmethod
    def open(
        cls,
        session_id: str,
        database: str | PathLike[str] = "ctxledger.db",
        *,
        tenant_id: str,
        user_id: str | None = None,
        compaction: CompactionSettings | None = None,
        session_settings: SessionSettings | dict[str, Any] | None = None,
    ) -> LedgerSession:
        """A session on the store at ``database`` (a SQLite file path or any store URL),
        opened on first use; ``await session.close()`` (or ``async with``) closes it."""
        store = EventStore.open(database, registry=ledger_registry())
        session = cls(
            session_id,
            Ledger(store),
            tenant_id=tenant_id,
            user_id=user_id,
            compaction=compaction,
            session_settings=session_settings,
        )
        session._owns_store = True
        return session

    async def close(self) -> None:
        """Close the store of a session made by :meth:`open`; a ledger passed in is its
        owner's to close, and stays open."""
        if self._owns_store:
            await self.ledger.store.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _generation(self, at_position: int | None = None) -> tuple[str, int]:
        """The current generation's name and the control stream's version."""
        return await current_generation(
            self.ledger.store, self.tenant_id, self.session_id, at_position=at_position
        )

    def _session(self, generation: str) -> Session:
        return generation_session(
            self.ledger, self.tenant_id, self.session_id, generation, self.user_id
        )

    async def current(self) -> Session:
        """The ctxledger session holding the current items."""
        return self._session((await self._generation())[0])

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The session's items, oldest first (the latest ``limit``; without one, the
        ``session_settings.limit``), or with ``compaction`` the compacted context in
        Responses format."""
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        session = await self.current()
        items: list[Any]
        if self.compaction is None:
            items = from_messages("responses", await session.messages())
        else:
            items = await self._compacted(session)
        if limit is not None:
            items = items[-limit:] if limit > 0 else []
        return items

    async def _compacted(self, session: Session) -> list[Any]:
        settings = self.compaction
        assert settings is not None
        budget, keep = window_budget(settings.budget, settings.recall), settings.keep_groups
        rendered = await session.render(
            budget, keep_groups=keep, fmt="responses", over_budget="serve"
        )
        self.last_compaction = None
        manifest = rendered.manifest
        due = budget.need_compaction(manifest.tokens["total"]) or manifest.uncovered_groups
        if due and time.monotonic() >= self._retry_at:
            outcome = await session.compact(
                budget,
                summarizer=settings.summarizer,
                keep_groups=keep,
                target=settings.target,
                summary_budget=settings.summary_budget,
                backoff_groups=settings.backoff_groups,
                mask_results=settings.mask_results,
            )
            self.last_compaction = outcome
            if outcome.result == "unavailable":  # do not call a service that is down every turn
                self._retry_at = time.monotonic() + settings.retry_unavailable_after
            if outcome.result not in ("not_needed", "backoff", "unavailable") or outcome.masked:
                rendered = await session.render(
                    budget, keep_groups=keep, fmt="responses", over_budget="serve"
                )
        self.last_manifest = rendered.manifest
        self._tell_if_over(rendered)
        items: list[Any] = rendered.wire
        return items

    def _tell_if_over(self, rendered: RenderedContext) -> None:
        settings = self.compaction
        assert settings is not None
        tokens = rendered.manifest.tokens
        usable = window_budget(settings.budget, settings.recall).usable
        if tokens["total"] <= usable or settings.on_over_budget == "ignore":
            return
        why = rendered.manifest.over_why or "the parts that must be served do not fit"
        if settings.on_over_budget == "raise":
            raise ContextOverBudgetError(tokens["total"], usable, why)
        message = f"session {self.session_id!r}: the context is {tokens['total']} tokens, over "
        warnings.warn(
            ContextOverBudgetWarning(f"{message}the usable budget of {usable}: {why}"),
            stacklevel=3,
        )

    async def add_items(self, items: list[Any]) -> None:
        """Append items (one event per message; a call and its outputs stay one group)."""
        if not items:
            return
        session = await self.current()
        await session.append(to_messages("responses", [dict(item) for item in items]))

    async def pop_item(self) -> Any | None:
        """Remove the most recent item from what the session returns, and return it. The log
        keeps it: a new generation starts with every item but the last."""
        generation, version = await self._generation()
        items = from_messages("responses", await self._session(generation).messages())
        if not items:
            return None
        await self._start_generation(version, "pop_item", items[:-1])
        return items[-1]

    async def clear_session(self) -> None:
        """Return no items from now on. The log keeps them: a new, empty generation starts."""
        _, version = await self._generation()
        await self._start_generation(version, "clear_session", [])

    async def _start_generation(self, version: int, reason: str, items: list[Any]) -> None:
        kept = to_messages("responses", items) if items else []
        await start_generation(
            self.ledger,
            self.tenant_id,
            self.session_id,
            version=version,
            reason=reason,
            kept=kept,
            user_id=self.user_id,
        )

    async def recall_filter(self, data: Any) -> Any:
        """A ``call_model_input_filter`` adding the recalled block for the run's input before
        each model call (see :mod:`projections.integrations.agents_recall`)."""
        settings = self.compaction
        if settings is None or settings.recall is None:
            return data.model_data
        served = self.last_manifest.message_ids if self.last_manifest else []
        session = await self.current()
        updated, self.last_recall = await add_recalled(
            data, session, settings.budget, settings.recall, served
        )
        return updated

    def recall_tools(self) -> list[Any]:
        """``search_history`` and ``read_message`` on this session, as the SDK's
        ``FunctionTool`` objects for an agent's ``tools`` (:mod:`.agents_tools`)."""
        from projections.integrations.agents_tools import recall_tools

        return recall_tools(self)

    def run_config(self, **options: Any) -> Any:
        """A ``RunConfig`` (with ``options``) whose model input filter adds recall."""
        from agents import RunConfig

        return RunConfig(call_model_input_filter=self.recall_filter, **options)

    def usage_hooks(self) -> Any:
        """``RunHooks`` that record every model call of a run on this session (input, cached
        and output tokens, the model, and the manifest of the context last served), so that
        ``ctxledger stats`` and the report see them::

            await Runner.run(agent, "Hi", session=session, hooks=session.usage_hooks())
        """
        from agents.lifecycle import RunHooks

        ledger_session = self

        class _UsageHooks(RunHooks[Any]):
            async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
                await ledger_session.record_usage(response.usage, model=_model_name(agent))

        return _UsageHooks()

    async def record_usage(self, usage: Any, *, model: str | None = None) -> None:
        """Record one model call from an SDK ``Usage`` (what ``usage_hooks`` does per call)."""
        details = getattr(usage, "input_tokens_details", None)
        session = await self.current()
        await session.record_model_call(
            manifest=self.last_manifest.model_dump(mode="json") if self.last_manifest else None,
            input_tokens=int(getattr(usage, "input_tokens", 0) or 0),
            cached_input_tokens=int(getattr(details, "cached_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
            model=model,
        )

    async def items_at(self, position: int) -> list[Any]:
        """The items the session returned when the tenant's log was at ``position`` (time
        travel across pops and clears)."""
        generation, _ = await self._generation(at_position=position)
        session = self._session(generation)
        events = await self.ledger.store.read_stream(self.tenant_id, session.stream_id)
        state = SessionView.fold([e for e in events if e.position <= position])
        items: list[Any] = from_messages("responses", state.cut().messages())
        return items


def _settings(given: SessionSettings | dict[str, Any] | None) -> SessionSettings | None:
    """The SDK's settings as its own sessions hold them (None on an SDK without them)."""
    try:
        from agents.memory.session_settings import SessionSettings, coerce_session_settings
    except ImportError:  # pragma: no cover - SDK releases before session settings
        return None
    return coerce_session_settings(given) if given is not None else SessionSettings()


def _model_name(agent: Any) -> str | None:
    model = getattr(agent, "model", None)
    if isinstance(model, str):
        return model
    return getattr(model, "model", None) if model is not None else None
