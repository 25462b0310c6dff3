"""The current life of one ADK session stream, folded incrementally (see
:mod:`projections.integrations.adk`): its state, its ADK events and its last ledger event.
Pure: the service feeds it the events it reads."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from google.adk.events.event import Event
from google.adk.sessions.session import Session
from google.adk.sessions.state import State

from eventstore import RecordedEvent
from projections.integrations.stream_view import StreamView

try:  # recent ADK releases
    from google.adk.errors import StaleSessionError
except ImportError:  # older ADK raised ValueError for a stale session: keep that type

    class StaleSessionError(ValueError):  # type: ignore[no-redef]
        """The session changed in storage since this copy was loaded (older ADK releases have
        no error of their own for this; their services raised ``ValueError``)."""


__all__ = [
    "EVENT_APPENDED",
    "SESSION_CREATED",
    "SESSION_DELETED",
    "SESSION_FOLDS",
    "STALE",
    "STATE_CHANGED",
    "STATE_FOLDS",
    "SessionFold",
    "StaleSessionError",
    "StateFold",
    "StreamView",
    "adk_event",
    "refuse_stale",
    "split",
]

SESSION_CREATED = "AdkSessionCreated"
EVENT_APPENDED = "AdkEventAppended"
SESSION_DELETED = "AdkSessionDeleted"
STATE_CHANGED = "AdkStateChanged"


def split(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
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


def adk_event(data: dict[str, Any]) -> Event:
    """The ADK event of an ``AdkEventAppended`` payload (ADK's JSON text, or the parsed form
    older releases wrote)."""
    if "event_json" in data:
        return Event.model_validate_json(data["event_json"])
    return Event.model_validate(data["event"])


@dataclass
class SessionFold:
    """A session stream up to ``version``: whether the session lives, and its current life."""

    version: int = 0
    live: bool = False
    last: RecordedEvent | None = None
    state: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    updated: float = 0.0
    ids: set[str] = field(default_factory=set)  # ledger event ids of the current life
    readable: list[str] = field(default_factory=list)  # those with a payload, to erase

    def feed(self, events: Iterable[RecordedEvent]) -> None:
        """Apply the stream's next events."""
        for recorded in events:
            self.version = recorded.version
            if recorded.type == SESSION_CREATED:
                self._begin(recorded)
            elif recorded.type == SESSION_DELETED:
                self.live, self.last = False, recorded
                self.state, self.events, self.ids, self.readable = {}, [], set(), []
            elif recorded.type == EVENT_APPENDED and self.live:
                self._event(recorded)

    def _begin(self, recorded: RecordedEvent) -> None:
        self.live, self.last = True, recorded
        self.state, self.events = {}, []
        self.ids, self.readable = {str(recorded.event_id)}, []
        self.updated = recorded.recorded_at.timestamp()
        if recorded.data is not None:
            self.state.update(split(recorded.data["state"])["session"])
            self.readable.append(str(recorded.event_id))

    def _event(self, recorded: RecordedEvent) -> None:
        self.last = recorded
        self.ids.add(str(recorded.event_id))
        if recorded.data is None:
            return
        self.readable.append(str(recorded.event_id))
        event = adk_event(recorded.data)
        if event.actions and event.actions.state_delta:
            self.state.update(split(event.actions.state_delta)["session"])
        self.updated = event.timestamp
        self.events.append(event)


@dataclass
class StateFold:
    """An ``adk-app`` or ``adk-user`` stream's state up to ``version``."""

    version: int = 0
    state: dict[str, Any] = field(default_factory=dict)

    def feed(self, events: Iterable[RecordedEvent]) -> None:
        """Apply the stream's next events."""
        for event in events:
            self.version = event.version
            if event.type == STATE_CHANGED and event.data is not None:
                self.state.update(event.data["delta"])


#: ADK's own words for a stale copy (its database service's), which callers may match on.
STALE = (
    "The session has been modified in storage since it was loaded. "
    "Please reload the session before appending more events."
)


def refuse_stale(session: Session, fold: SessionFold) -> None:
    """Refuse a write from a session object that has not seen the latest stored event
    (another writer appended meanwhile), as ADK's database service does: by the stream
    version the object was loaded at (ADK's storage marker), else by its events."""
    marker = session._storage_update_marker
    if marker is not None:
        if marker != str(fold.version):
            raise StaleSessionError(
                f"{STALE} (session {session.id}: stream version {fold.version}, the copy has "
                f"{marker}; reload it with get_session and retry)"
            )
        return
    if not fold.events:
        return
    latest = fold.events[-1]
    if latest.id in {e.id for e in session.events}:
        return
    # A copy loaded without events (num_recent_events=0) can only be judged by time.
    if session.events or latest.timestamp > session.last_update_time:
        raise StaleSessionError(
            f"{STALE} (session {session.id}: its latest event is {latest.id!r}; reload it "
            f"with get_session and retry)"
        )


SESSION_FOLDS: StreamView[SessionFold] = StreamView("adk_session", SessionFold)
STATE_FOLDS: StreamView[StateFold] = StreamView("adk_state", StateFold)
