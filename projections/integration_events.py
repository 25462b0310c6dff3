"""The events the framework integrations write, with their models (no framework imports, so
the registry knows them whether or not the frameworks are installed). Pure: no I/O."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "ADK_EVENT_APPENDED",
    "ADK_SESSION_CREATED",
    "ADK_SESSION_DELETED",
    "ADK_STATE_CHANGED",
    "GENERATION_STARTED",
    "INTEGRATION_EVENTS",
    "LANGGRAPH_CHECKPOINT_SAVED",
    "LANGGRAPH_THREAD_DELETED",
    "LANGGRAPH_WRITES_SAVED",
    "AdkEventAppended",
    "AdkSessionCreated",
    "AdkSessionDeleted",
    "AdkStateChanged",
    "GenerationStarted",
    "LangGraphCheckpointSaved",
    "LangGraphThreadDeleted",
    "LangGraphWritesSaved",
]

GENERATION_STARTED = "GenerationStarted"
ADK_SESSION_CREATED = "AdkSessionCreated"
ADK_EVENT_APPENDED = "AdkEventAppended"
ADK_SESSION_DELETED = "AdkSessionDeleted"
ADK_STATE_CHANGED = "AdkStateChanged"
LANGGRAPH_CHECKPOINT_SAVED = "LangGraphCheckpointSaved"
LANGGRAPH_WRITES_SAVED = "LangGraphWritesSaved"
LANGGRAPH_THREAD_DELETED = "LangGraphThreadDeleted"
#: A value as LangGraph's serde typed it: ``[type, base64 of the bytes]``.
Packed = tuple[str, str]

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
    """One ADK event, as ADK serialises it (``temp:`` state already removed): ``event_json``,
    ADK's own JSON text, so that the order of keys inside tool arguments and results (which
    the model reads) survives the log's canonical JSON; ``event``, the parsed form that
    earlier builds wrote (keys sorted)."""

    model_config = _MODEL

    event: dict[str, Any] | None = None
    event_json: str | None = Field(default=None, min_length=2)

    @model_validator(mode="after")
    def _one_form(self) -> AdkEventAppended:
        if (self.event is None) == (self.event_json is None):
            raise ValueError("an AdkEventAppended holds exactly one of event and event_json")
        return self

    def body(self) -> dict[str, Any]:
        """The ADK event as JSON-ready data."""
        if self.event is not None:
            return self.event
        parsed: dict[str, Any] = json.loads(self.event_json or "{}")
        return parsed


class AdkSessionDeleted(BaseModel):
    """An ADK session was deleted (its events' payloads are erased)."""

    model_config = _MODEL

    events: int = Field(ge=0)


class AdkStateChanged(BaseModel):
    """An ``app:`` or ``user:`` state delta, naming the session event it came from."""

    model_config = _MODEL

    delta: dict[str, Any]
    source: str


class LangGraphCheckpointSaved(BaseModel):
    """A LangGraph checkpoint of one namespace: the checkpoint without its channel values,
    its metadata, and the channels whose version changed, whole (``blobs``: channel ->
    ``[version, value]``) or as what was appended to the list stored at ``base``
    (``deltas``: channel -> ``[version, base, items]``)."""

    model_config = _MODEL

    ns: str
    id: str = Field(min_length=1)
    parent: str | None
    checkpoint: Packed
    metadata: Packed
    blobs: dict[str, tuple[str, Packed]]
    deltas: dict[str, tuple[str, str, Packed]] = Field(default_factory=dict)


class LangGraphWritesSaved(BaseModel):
    """A task's pending writes for a checkpoint: ``[index, channel, value]`` each."""

    model_config = _MODEL

    ns: str
    checkpoint_id: str = Field(min_length=1)
    task_id: str
    task_path: str
    writes: list[tuple[int, str, Packed]]


class LangGraphThreadDeleted(BaseModel):
    """The thread was deleted: what came before in its stream is erased and forgotten."""

    model_config = _MODEL


#: Every integration event type, by name.
INTEGRATION_EVENTS: dict[str, type[BaseModel]] = {
    GENERATION_STARTED: GenerationStarted,
    ADK_SESSION_CREATED: AdkSessionCreated,
    ADK_EVENT_APPENDED: AdkEventAppended,
    ADK_SESSION_DELETED: AdkSessionDeleted,
    ADK_STATE_CHANGED: AdkStateChanged,
    LANGGRAPH_CHECKPOINT_SAVED: LangGraphCheckpointSaved,
    LANGGRAPH_WRITES_SAVED: LangGraphWritesSaved,
    LANGGRAPH_THREAD_DELETED: LangGraphThreadDeleted,
}
