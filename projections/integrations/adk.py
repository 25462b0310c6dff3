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
from typing import Any

from google.adk.errors._stale_session_error import StaleSessionError
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

from eventstore import EventStore, NewEvent, RecordedEvent
from eventstore.names import validate_tenant

__all__ = ["LedgerSessionService"]

SESSION_CREATED = "AdkSessionCreated"
EVENT_APPENDED = "AdkEventAppended"
SESSION_DELETED = "AdkSessionDeleted"
STATE_CHANGED = "AdkStateChanged"
_IDS = uuid.UUID("0f9b8f5e-3c1d-4e8a-9a57-6c2d1e4b7a10")


def _split(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``app:``, ``user:`` and session deltas; ``temp:`` keys are dropped (never persisted)."""
    deltas: dict[str, dict[str, Any]] = {"app": {}, "user": {}, "session": {}}
    for key, value in state.items():
        if key.startswith(State.APP_PREFIX):
            deltas["app"][key.removeprefix(State.APP_PREFIX)] = value
        elif key.startswith(State.USER_PREFIX):
            deltas["user"][key.removeprefix(State.USER_PREFIX)] = value
        elif not key.startswith(State.TEMP_PREFIX):
            deltas["session"][key] = value
    return deltas


def _name(kind: str, value: str) -> str:
    if not isinstance(value, str) or not value.strip() or "/" in value:
        raise ValueError(f"an ADK {kind} is a non-empty string without '/', got {value!r}")
    return value.strip()


class LedgerSessionService(BaseSessionService):
    """ADK sessions, events and state as ctxledger events of one tenant."""

    def __init__(self, store: EventStore, *, tenant_id: str) -> None:
        self.store = store
        self.tenant_id = validate_tenant(tenant_id)

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

    async def _fold_state(self, stream: str) -> dict[str, Any]:
        state: dict[str, Any] = {}
        for event in await self.store.read_stream(self.tenant_id, stream):
            if event.type == STATE_CHANGED and event.data is not None:
                state.update(event.data["delta"])
        return state

    async def _live(self, stream: str) -> list[RecordedEvent]:
        """The events of the session's current life (after its last creation), or [] if it
        does not exist or was deleted."""
        events = await self.store.read_stream(self.tenant_id, stream)
        starts = [i for i, e in enumerate(events) if e.type == SESSION_CREATED]
        if not starts or any(e.type == SESSION_DELETED for e in events[starts[-1] :]):
            return []
        return events[starts[-1] :]

    async def _shared_deltas(
        self, app_name: str, user_id: str, source: RecordedEvent, state: dict[str, Any]
    ) -> None:
        """Write the ``app:`` and ``user:`` deltas of a session event (idempotent: their ids
        derive from the session event's)."""
        deltas = _split(state)
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

    async def _complete(self, app_name: str, user_id: str, events: list[RecordedEvent]) -> None:
        """Finish the shared deltas of the session's last event, if a crash cut them short."""
        if not events:
            return
        last = events[-1]
        data = last.data
        if data is None:
            return
        state = (
            data["state"]
            if last.type == SESSION_CREATED
            else (data.get("event", {}).get("actions") or {}).get("state_delta") or {}
        )
        await self._shared_deltas(app_name, user_id, last, state)

    async def _merged(self, app_name: str, user_id: str, session: Session) -> Session:
        for key, value in (await self._fold_state(self._app_stream(app_name))).items():
            session.state[State.APP_PREFIX + key] = value
        for key, value in (await self._fold_state(self._user_stream(app_name, user_id))).items():
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
        if await self._live(stream):
            raise AlreadyExistsError(f"Session with id {session_id} already exists.")
        head = await self.store.stream_head(self.tenant_id, stream)
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
            expected_version=head.version,
        )
        await self._shared_deltas(app_name, user_id, created, initial)
        session = Session(
            app_name=app_name,
            user_id=user_id,
            id=session_id,
            state=_split(initial)["session"],
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
        self, app_name: str, user_id: str, session_id: str, *, with_events: bool
    ) -> Session | None:
        events = await self._live(self._session_stream(app_name, user_id, session_id))
        if not events:
            return None
        await self._complete(app_name, user_id, events)
        state: dict[str, Any] = {}
        loaded: list[Event] = []
        updated = events[0].recorded_at.timestamp()
        for recorded in events:
            if recorded.data is None:
                continue
            if recorded.type == SESSION_CREATED:
                state.update(_split(recorded.data["state"])["session"])
            elif recorded.type == EVENT_APPENDED:
                event = Event.model_validate(recorded.data["event"])
                if event.actions and event.actions.state_delta:
                    state.update(_split(event.actions.state_delta)["session"])
                updated = event.timestamp
                if with_events:
                    loaded.append(event)
        session = Session(
            app_name=app_name,
            user_id=user_id,
            id=session_id,
            state=state,
            events=loaded,
            last_update_time=updated,
        )
        session._storage_update_marker = str(events[-1].version)
        return await self._merged(app_name, user_id, session)

    async def list_sessions(
        self, *, app_name: str, user_id: str | None = None
    ) -> ListSessionsResponse:
        prefix = f"adk-session/{_name('app name', app_name)}/"
        if user_id is not None:
            prefix += f"{_name('user id', user_id)}/"
        sessions = []
        for stream in await self.store.streams(self.tenant_id):
            if not stream.stream_id.startswith(prefix):
                continue
            _, _, owner, session_id = stream.stream_id.split("/", 3)
            session = await self._load(app_name, owner, session_id, with_events=False)
            if session is not None:
                sessions.append(session)
        sessions.sort(key=lambda s: (s.last_update_time, s.user_id, s.id))
        return ListSessionsResponse(sessions=sessions)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        stream = self._session_stream(app_name, user_id, session_id.strip())
        events = await self._live(stream)
        if not events:
            return
        await self.store.append(
            self.tenant_id,
            stream,
            [NewEvent(type=SESSION_DELETED, data={"events": len(events)})],
            expected_version=events[-1].version,
        )
        await self.store.erase(
            self.tenant_id,
            [e.event_id for e in events if e.data is not None],
            reason=f"ADK delete_session {app_name}/{user_id}/{session_id}",
            requested_by="adk-session-service",
        )

    @staticmethod
    def _refuse_stale(session: Session, live: list[RecordedEvent]) -> None:
        """Refuse a write from a session object that has not seen the latest stored event
        (another writer appended meanwhile), as ADK's database service does: by the stream
        version the object was loaded at (ADK's storage marker), else by its events."""
        marker = session._storage_update_marker
        if marker is not None:
            if marker != str(live[-1].version):
                raise StaleSessionError(
                    f"session {session.id} changed since this copy was loaded (stream version "
                    f"{live[-1].version}, the copy has {marker}); reload it with get_session "
                    f"and retry"
                )
            return
        stored = [e for e in live if e.type == EVENT_APPENDED and e.data is not None]
        if not stored:
            return
        assert stored[-1].data is not None
        latest = stored[-1].data["event"]
        if latest.get("id") in {e.id for e in session.events}:
            return
        # A copy loaded without events (num_recent_events=0) can only be judged by time.
        if session.events or latest.get("timestamp", 0) > session.last_update_time:
            raise StaleSessionError(
                f"session {session.id} changed since this copy was loaded (its latest event "
                f"is {latest.get('id')!r}); reload it with get_session and retry"
            )

    async def get_user_state(self, *, app_name: str, user_id: str) -> dict[str, Any]:
        return await self._fold_state(self._user_stream(app_name, user_id))

    async def append_event(self, session: Session, event: Event) -> Event:
        if event.partial:
            return event
        stream = self._session_stream(session.app_name, session.user_id, session.id)
        live = await self._live(stream)
        if not live:
            raise SessionNotFoundError(f"Session {session.id} not found.")
        await self._complete(session.app_name, session.user_id, live)
        self._refuse_stale(session, live)
        # ADK's own bookkeeping: temp: state into the in-memory session only, then the delta
        # trimmed of temp: keys, then the event applied to the session object.
        event = await super().append_event(session=session, event=event)
        data = {"event": event.model_dump(mode="json", exclude_none=True)}
        new = NewEvent(
            type=EVENT_APPENDED,
            data=data,
            event_id=uuid.uuid5(_IDS, f"{self.tenant_id}/{stream}/{event.id}"),
        )
        if any(
            e.type == EVENT_APPENDED and e.event_id == new.event_id and e.data == data for e in live
        ):
            return event  # an equal re-delivery: recorded already
        if any(e.event_id == new.event_id for e in live):
            new = NewEvent(type=EVENT_APPENDED, data=data)  # a distinct event reusing an id
        (recorded,) = await self.store.append(self.tenant_id, stream, [new])
        state_delta = (event.actions.state_delta if event.actions else None) or {}
        await self._shared_deltas(session.app_name, session.user_id, recorded, state_delta)
        session.last_update_time = event.timestamp
        session._storage_update_marker = str(recorded.version)
        return event
