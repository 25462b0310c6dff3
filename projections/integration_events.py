"""The events the framework integrations write, with their models (no framework imports, so
the registry knows them whether or not the frameworks are installed). Pure: no I/O."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ADK_EVENT_APPENDED",
    "ADK_SESSION_CREATED",
    "ADK_SESSION_DELETED",
    "ADK_STATE_CHANGED",
    "GENERATION_STARTED",
    "INTEGRATION_EVENTS",
    "AdkEventAppended",
    "AdkSessionCreated",
    "AdkSessionDeleted",
    "AdkStateChanged",
    "GenerationStarted",
]

GENERATION_STARTED = "GenerationStarted"
ADK_SESSION_CREATED = "AdkSessionCreated"
ADK_EVENT_APPENDED = "AdkEventAppended"
ADK_SESSION_DELETED = "AdkSessionDeleted"
ADK_STATE_CHANGED = "AdkStateChanged"

_MODEL = ConfigDict(frozen=True, extra="forbid")


class GenerationStarted(BaseModel):
    """The Agents SDK session's current items now live in generation ``generation``."""

    model_config = _MODEL

    generation: str = Field(min_length=1)
    reason: str = Field(min_length=1)
    items: int = Field(ge=0)


class AdkSessionCreated(BaseModel):
    """An ADK session was created with this session-scoped initial state."""

    model_config = _MODEL

    app_name: str
    user_id: str
    state: dict[str, Any]


class AdkEventAppended(BaseModel):
    """One ADK event, as ADK serialises it (``temp:`` state already removed)."""

    model_config = _MODEL

    event: dict[str, Any]


class AdkSessionDeleted(BaseModel):
    """An ADK session was deleted (its events' payloads are erased)."""

    model_config = _MODEL

    events: int = Field(ge=0)


class AdkStateChanged(BaseModel):
    """An ``app:`` or ``user:`` state delta, naming the session event it came from."""

    model_config = _MODEL

    delta: dict[str, Any]
    source: str


#: Every integration event type, by name.
INTEGRATION_EVENTS: dict[str, type[BaseModel]] = {
    GENERATION_STARTED: GenerationStarted,
    ADK_SESSION_CREATED: AdkSessionCreated,
    ADK_EVENT_APPENDED: AdkEventAppended,
    ADK_SESSION_DELETED: AdkSessionDeleted,
    ADK_STATE_CHANGED: AdkStateChanged,
}
