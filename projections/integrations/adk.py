"""A Google ADK session service backed by ctxledger.

``LedgerSessionService`` implements ADK's ``BaseSessionService`` on one tenant of a ledger::

    service = LedgerSessionService(store, tenant_id="acme")
    runner = Runner(agent=agent, app_name="trips", session_service=service)

Streams (per tenant):

- ``adk-session/<app>/<user>/<session>``: ``AdkSessionCreated`` (the session-scoped initial
  state), one ``AdkEventAppended`` per ADK event (the event as ADK serialises it, its
  ``temp:`` state already removed, as ADK requires), ``AdkSessionDeleted``;
- ``adk-app/<app>`` and ``adk-user/<app>/<user>``: ``AdkStateChanged`` with the ``app:`` and
  ``user:`` deltas (prefix removed), shared by every session of the app or user, each naming
  the session event it came from.

A session event is written first and its app and user deltas after it, with ids derived from
the session event; if a process dies in between, the next write to that session completes them
(the retry is idempotent). A write from a session object that missed another writer's event
raises ADK's ``StaleSessionError``. Deleting a session appends ``AdkSessionDeleted`` and erases the
payloads of the session's events: never a silent row delete, and ``verify`` stays green.
"""

from __future__ import annotations

import uuid
from typing import Any, TypeVar

from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events.event import Event
from google.adk.sessions.base_session_service import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
)
from google.adk.sessions.session import Session
from google.adk.sessions.state import State
from pydantic_core import to_jsonable_python
from uuid_utils.compat import uuid7

from eventstore import ConcurrencyError, EventStore, NewEvent, RecordedEvent
from eventstore.names import validate_tenant
from projections.adk_ids import adk_id, adk_name
from projections.integration_events import AdkEventAppended
from projections.integrations.adk_fold import (
    EVENT_APPENDED,
    SESSION_CREATED,
    SESSION_DELETED,
    SESSION_FOLDS,
    STALE,
    STATE_CHANGED,
    STATE_FOLDS,
    SessionFold,
    StaleSessionError,
    StateFold,
    refuse_stale,
    split,
)
from projections.integrations.adk_mirror import AdkMirror
from projections.ledger import Ledger
from projections.runner import ProjectionRunner

__all__ = ["LedgerSessionService", "StaleSessionError"]

F = TypeVar("F", SessionFold, StateFold)

_IDS = uuid.UUID("0f9b8f5e-3c1d-4e8a-9a57-6c2d1e4b7a10")


def _name(kind: str, value: str) -> str:
    """One stream-name component for an ADK id, compared exactly as ADK compares it (see
    :mod:`projections.adk_ids`)."""
    try:
        return adk_name(value)
    except ValueError:
        raise ValueError(f"an ADK {kind} is a string, got {value!r}") from None


class LedgerSessionService(BaseSessionService):
    """ADK sessions, events and state as ctxledger events of one tenant.

    Args:
        store: the event store.
        tenant_id: the tenant every session belongs to.
        ledger: the ledger the sessions are mirrored into (default: one on ``store``).
        mirror: mirror each ADK session into the ctxledger session
            ``adk/<app>/<user>/<session>`` (see :mod:`.adk_mirror`), so that context, pins,
            compaction, stats, the report and memory work on it.
    """

    def __init__(
        self,
        store: EventStore,
        *,
        tenant_id: str,
        ledger: Ledger | None = None,
        mirror: bool = True,
    ) -> None:
        self.store = store
        self.tenant_id = validate_tenant(tenant_id)
        self.mirror = AdkMirror(ledger or Ledger(store), self.tenant_id) if mirror else None
        # Each stream's fold lives on the ledger's runner, caught up from its last version on
        # every read: loading or appending costs the new events, not the session's length.
        ledger = self.mirror.ledger if self.mirror is not None else ledger or Ledger(store)
        self._folds = ledger.projection(SESSION_FOLDS)
        self._states = ledger.projection(STATE_FOLDS)

    # -- streams -----------------------------------------------------------------------------

    @staticmethod
    def _session_stream(app_name: str, user_id: str, session_id: str) -> str:
        return (
            f"adk-session/{_name('app name', app_name)}/{_name('user id', user_id)}/"
            f"{_name('session id', session_id)}"
        )

    @staticmethod
    def _app_stream(app_name: str) -> str:
        return f"adk-app/{_name('app name', app_name)}"

    @staticmethod
    def _user_stream(app_name: str, user_id: str) -> str:
        return f"adk-user/{_name('app name', app_name)}/{_name('user id', user_id)}"

    async def _fold_state(self, stream: str, head: int | None = None) -> dict[str, Any]:
        return dict((await self._caught_up(self._states, stream, head)).state)

    async def _fold(self, stream: str, head: int | None = None) -> SessionFold:
        return await self._caught_up(self._folds, stream, head)

    async def _appended(self, stream: str, recorded: RecordedEvent) -> SessionFold:
        """The session fold with the event this service just appended folded in (no read when
        the cached fold was right behind it)."""
        await self._folds.advance(self.tenant_id, stream, [recorded], [])
        return await self._fold(stream, recorded.version)

    async def _caught_up(self, folds: ProjectionRunner[F], stream: str, head: int | None) -> F:
        """The stream folded up to its head (reading only what is new; nothing when the caller
        knows the ``head`` version and the cached fold is there already)."""
        cached = folds.cached(self.tenant_id, stream)
        if head is not None and cached is not None and cached.version >= head:
            return cached
        return await folds.current(self.tenant_id, stream)

    async def _shared_deltas(
        self, app_name: str, user_id: str, source: RecordedEvent, state: dict[str, Any]
    ) -> None:
        """Write the ``app:`` and ``user:`` deltas of a session event (idempotent: their ids
        derive from the session event's)."""
        deltas = split(state)
        for scope, stream in (
            ("app", self._app_stream(app_name)),
            ("user", self._user_stream(app_name, user_id)),
        ):
            if deltas[scope]:
                await self.store.append(
                    self.tenant_id,
                    stream,
                    [
                        NewEvent(
                            type=STATE_CHANGED,
                            data={"delta": deltas[scope], "source": str(source.event_id)},
                            event_id=uuid.uuid5(_IDS, f"{source.event_id}/{scope}"),
                        )
                    ],
                )

    async def _complete(self, app_name: str, user_id: str, last: RecordedEvent | None) -> None:
        """Finish the shared deltas of the session's last event, if a crash cut them short."""
        if last is None:
            return
        data = last.data
        if data is None:
            return
        state = (
            data["state"]
            if last.type == SESSION_CREATED
            else (AdkEventAppended.model_validate(data).body().get("actions") or {}).get(
                "state_delta"
            )
            or {}
        )
        await self._shared_deltas(app_name, user_id, last, state)

    async def _merged(
        self, app_name: str, user_id: str, session: Session, heads: dict[str, int] | None = None
    ) -> Session:
        app, user = self._app_stream(app_name), self._user_stream(app_name, user_id)
        known = heads or {}
        for key, value in (
            await self._fold_state(app, known.get(app, 0) if heads else None)
        ).items():
            session.state[State.APP_PREFIX + key] = value
        for key, value in (
            await self._fold_state(user, known.get(user, 0) if heads else None)
        ).items():
            session.state[State.USER_PREFIX + key] = value
        return session

    # -- BaseSessionService ------------------------------------------------------------------

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        session_id = (session_id or "").strip() or str(uuid7())
        stream = self._session_stream(app_name, user_id, session_id)
        fold = await self._fold(stream)
        if fold.live:
            raise AlreadyExistsError(f"Session with id {session_id} already exists.")
        initial = to_jsonable_python(state or {})
        (created,) = await self.store.append(
            self.tenant_id,
            stream,
            [
                NewEvent(
                    type=SESSION_CREATED,
                    data={"app_name": app_name, "user_id": user_id, "state": initial},
                )
            ],
            expected_version=fold.version,
        )
        fold = await self._appended(stream, created)
        await self._shared_deltas(app_name, user_id, created, initial)
        session = Session(
            app_name=app_name,
            user_id=user_id,
            id=session_id,
            state=split(initial)["session"],
            last_update_time=created.recorded_at.timestamp(),
        )
        session._storage_update_marker = str(created.version)
        return await self._merged(app_name, user_id, session)

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        session = await self._load(app_name, user_id, session_id.strip(), with_events=True)
        if session is None:
            return None
        if config is not None:
            events = session.events
            if config.num_recent_events is not None:
                events = events[-config.num_recent_events :] if config.num_recent_events else []
            if config.after_timestamp is not None:
                events = [e for e in events if e.timestamp >= config.after_timestamp]
            session.events = events
        return session

    async def _load(
        self,
        app_name: str,
        user_id: str,
        session_id: str,
        *,
        with_events: bool,
        heads: dict[str, int] | None = None,
    ) -> Session | None:
        stream = self._session_stream(app_name, user_id, session_id)
        fold = await self._fold(stream, heads.get(stream, 0) if heads is not None else None)
        if not fold.live:
            return None
        await self._complete(app_name, user_id, fold.last)
        session = Session(
            app_name=app_name,
            user_id=user_id,
            id=session_id,
            state=dict(fold.state),
            events=list(fold.events) if with_events else [],
            last_update_time=fold.updated,
        )
        session._storage_update_marker = str(fold.version)
        return await self._merged(app_name, user_id, session, heads)

    async def list_sessions(
        self, *, app_name: str, user_id: str | None = None
    ) -> ListSessionsResponse:
        prefix = f"adk-session/{_name('app name', app_name)}/"
        if user_id is not None:
            prefix += f"{_name('user id', user_id)}/"
        sessions = []
        for folds in (self._folds, self._states):
            await folds.check_erasures(self.tenant_id)
        # One read of every head; a fold already at its head is not read again.
        heads = {h.stream_id: h.version for h in await self.store.streams(self.tenant_id)}
        for stream_id in heads:
            if not stream_id.startswith(prefix):
                continue
            _, _, owner, session_id = stream_id.split("/", 3)
            session = await self._load(
                app_name, adk_id(owner), adk_id(session_id), with_events=False, heads=heads
            )
            if session is not None:
                sessions.append(session)
        sessions.sort(key=lambda s: (s.last_update_time, s.user_id, s.id))
        return ListSessionsResponse(sessions=sessions)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        stream = self._session_stream(app_name, user_id, session_id.strip())
        fold = await self._fold(stream)
        if not fold.live:
            return
        readable = list(fold.readable)
        (deleted,) = await self.store.append(
            self.tenant_id,
            stream,
            [NewEvent(type=SESSION_DELETED, data={"events": len(fold.ids)})],
            expected_version=fold.version,
        )
        fold = await self._appended(stream, deleted)
        if self.mirror is not None:
            readable += await self.mirror.event_ids(app_name, user_id, session_id.strip())
        await self.store.erase(
            self.tenant_id,
            readable,
            reason=f"ADK delete_session {app_name}/{user_id}/{session_id}",
            requested_by="adk-session-service",
        )

    async def get_user_state(self, *, app_name: str, user_id: str) -> dict[str, Any]:
        return await self._fold_state(self._user_stream(app_name, user_id))

    async def append_event(self, session: Session, event: Event) -> Event:
        if event.partial:
            return event
        stream = self._session_stream(session.app_name, session.user_id, session.id)
        fold = await self._fold(stream)
        if not fold.live:
            raise SessionNotFoundError(f"Session {session.id} not found.")
        await self._complete(session.app_name, session.user_id, fold.last)
        refuse_stale(session, fold)
        # ADK's own bookkeeping: temp: state into the in-memory session only, then the delta
        # trimmed of temp: keys, then the event applied to the session object.
        event = await super().append_event(session=session, event=event)
        new = await self._new_event(stream, fold, event)
        if new is None:
            return event  # an equal re-delivery: recorded already
        try:
            (recorded,) = await self.store.append(
                self.tenant_id, stream, [new], expected_version=fold.version
            )
        except ConcurrencyError:
            raise StaleSessionError(
                f"{STALE} (session {session.id} changed while this event was written; reload "
                f"it with get_session and retry)"
            ) from None
        fold = await self._appended(stream, recorded)
        state_delta = (event.actions.state_delta if event.actions else None) or {}
        await self._shared_deltas(session.app_name, session.user_id, recorded, state_delta)
        if self.mirror is not None:
            await self.mirror.catch_up(session.app_name, session.user_id, session.id, fold.events)
        session.last_update_time = event.timestamp
        session._storage_update_marker = str(recorded.version)
        return event

    async def _new_event(self, stream: str, fold: SessionFold, event: Event) -> NewEvent | None:
        """The ledger event for an ADK event (its id derived from the ADK event's, so a
        re-delivery is recognised), or None when an equal one is recorded already."""
        data = {"event_json": event.model_dump_json(exclude_none=True)}
        event_id = uuid.uuid5(_IDS, f"{self.tenant_id}/{stream}/{event.id}")
        if str(event_id) not in fold.ids:
            return NewEvent(type=EVENT_APPENDED, data=data, event_id=event_id)
        found = await self.store.read_events(self.tenant_id, [event_id])
        if found and found[0].type == EVENT_APPENDED and found[0].data == data:
            return None
        return NewEvent(type=EVENT_APPENDED, data=data)  # a distinct event reusing an id
