"""The events of long-term memory, their streams, and the pydantic models of their data.

Per tenant and user: ``memory/<user>`` holds proposals and the promoter's decisions,
``consent/<user>`` the user's consent decisions; ``policy/memory`` holds the tenant's policy.
Decision events carry ids, never the remembered value, so forgetting a memory erases only the
proposals that hold it. Pure: no I/O.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from projections.memory.policy import MemoryPolicy

__all__ = [
    "CONSENT_GRANTED",
    "CONSENT_REVOKED",
    "MEMORY_EVENT_TYPES",
    "MEMORY_FORGOTTEN",
    "MEMORY_POLICY_SET",
    "MEMORY_PROMOTED",
    "MEMORY_PROPOSED",
    "MEMORY_RETRACTED",
    "POLICY_STREAM",
    "ConsentGranted",
    "ConsentRevoked",
    "MemoryForgotten",
    "MemoryPolicySet",
    "MemoryPromoted",
    "MemoryProposed",
    "MemoryRetracted",
    "RetractionReason",
    "consent_stream",
    "memory_stream",
    "user_of_stream",
]

MEMORY_PROPOSED = "MemoryProposed"
CONSENT_GRANTED = "ConsentGranted"
CONSENT_REVOKED = "ConsentRevoked"
MEMORY_PROMOTED = "MemoryPromoted"
MEMORY_RETRACTED = "MemoryRetracted"
MEMORY_FORGOTTEN = "MemoryForgotten"
MEMORY_POLICY_SET = "MemoryPolicySet"
MEMORY_EVENT_TYPES = frozenset(
    {
        MEMORY_PROPOSED,
        CONSENT_GRANTED,
        CONSENT_REVOKED,
        MEMORY_PROMOTED,
        MEMORY_RETRACTED,
        MEMORY_FORGOTTEN,
        MEMORY_POLICY_SET,
    }
)

POLICY_STREAM = "policy/memory"
_MEMORY_PREFIX = "memory/"
_CONSENT_PREFIX = "consent/"


def _check_user(user_id: str) -> str:
    if not isinstance(user_id, str) or not user_id.strip() or "/" in user_id:
        raise ValueError(f"a user id must be a non-empty string without '/', got {user_id!r}")
    return user_id


def memory_stream(user_id: str) -> str:
    """The stream of a user's proposals and promotions: ``memory/<user>``."""
    return _MEMORY_PREFIX + _check_user(user_id)


def consent_stream(user_id: str) -> str:
    """The stream of a user's consent decisions: ``consent/<user>``."""
    return _CONSENT_PREFIX + _check_user(user_id)


def user_of_stream(stream_id: str) -> str | None:
    """The user of a ``memory/<user>`` or ``consent/<user>`` stream, else None."""
    for prefix in (_MEMORY_PREFIX, _CONSENT_PREFIX):
        if stream_id.startswith(prefix) and "/" not in stream_id[len(prefix) :]:
            return stream_id[len(prefix) :] or None
    return None


_MODEL = ConfigDict(frozen=True, extra="forbid")
_Key = Field(min_length=1, max_length=200)


class MemoryProposed(BaseModel):
    """A candidate for long-term memory, with where it comes from."""

    model_config = _MODEL

    key: str = _Key
    value: str = Field(min_length=1, max_length=4000)
    category: str = Field(min_length=1, max_length=64)
    source_ids: list[str] = Field(description="message ids, as the session names them")
    source_event_ids: list[str] = Field(min_length=1, description="events holding the sources")
    confidence: float = Field(ge=0, le=1)
    session_id: str | None = None
    origin: Literal["explicit", "summary"] = "explicit"
    summary_version: int | None = None
    ttl_days: float | None = Field(default=None, gt=0)

    @field_validator("key", "value", "category")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be only white space")
        return value


class ConsentGranted(BaseModel):
    """The user allowed memories of some categories and/or keys (glob patterns) to be kept."""

    model_config = _MODEL

    consent_id: str = Field(min_length=1)
    user_id: str = Field(min_length=1)
    categories: list[str] = Field(default_factory=list)
    keys: list[str] = Field(default_factory=list)
    expires_at: datetime | None = None
    method: str = Field(min_length=1, description="how it was given: chat, settings, cli…")
    evidence_ids: list[str] = Field(default_factory=list)
    session_id: str | None = None

    @field_validator("expires_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("expires_at must carry a time zone (e.g. 2027-01-01T00:00:00Z)")
        return value


class ConsentRevoked(BaseModel):
    """The user withdrew consents; what they allowed is retracted by the promoter."""

    model_config = _MODEL

    consent_ids: list[str] = Field(min_length=1)
    reason: str = Field(min_length=1)
    method: str = Field(min_length=1)


class MemoryPromoted(BaseModel):
    """The promoter kept a proposal as a memory (the memory id is this event's id)."""

    model_config = _MODEL

    proposal_id: str
    basis: Literal["consent", "policy"]
    consent_id: str | None = None
    expires_at: datetime
    policy_version: int = Field(ge=0)
    tracking_position: int = Field(ge=0, description="the tenant position decided from")


RetractionReason = Literal["consent_revoked", "source_erased", "superseded", "policy_changed"]


class MemoryRetracted(BaseModel):
    """A memory stopped being served, and why."""

    model_config = _MODEL

    memory_id: str
    reason: RetractionReason
    detail: str = ""
    superseded_by: str | None = None
    tracking_position: int = Field(ge=0)


class MemoryForgotten(BaseModel):
    """The user asked to forget memories; the proposals holding their values are erased next."""

    model_config = _MODEL

    memory_ids: list[str]
    proposal_ids: list[str] = Field(min_length=1)
    requested_by: str = Field(min_length=1)
    reason: str = Field(min_length=1)


class MemoryPolicySet(BaseModel):
    """The tenant's memory policy from now on."""

    model_config = _MODEL

    policy: MemoryPolicy


_MODELS: dict[str, type[BaseModel]] = {
    MEMORY_PROPOSED: MemoryProposed,
    CONSENT_GRANTED: ConsentGranted,
    CONSENT_REVOKED: ConsentRevoked,
    MEMORY_PROMOTED: MemoryPromoted,
    MEMORY_RETRACTED: MemoryRetracted,
    MEMORY_FORGOTTEN: MemoryForgotten,
    MEMORY_POLICY_SET: MemoryPolicySet,
}


def parse_event_data(event_type: str, data: dict[str, Any]) -> BaseModel:
    """The model of a memory event's data (raises pydantic's ValidationError if malformed)."""
    return _MODELS[event_type].model_validate(data)
