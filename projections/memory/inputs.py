"""Checking what callers pass to long-term memory: event data through its model, user ids."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from projections.errors import MemoryRequestError
from projections.memory.events import memory_stream

__all__ = ["checked_user", "validated"]


def validated(model: type[BaseModel], what: str, **fields: Any) -> dict[str, Any]:
    """Validate fields into an event's data, turning pydantic's error into ours."""
    try:
        return model.model_validate(fields).model_dump(mode="json")
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or what}: {e['msg']}" for e in error.errors()
        )
        raise MemoryRequestError(f"{what} is not valid: {problems}") from None


def checked_user(user_id: str) -> str:
    """``user_id`` if it can name a memory stream, else a :class:`MemoryRequestError`."""
    try:
        memory_stream(user_id)
    except ValueError as error:
        raise MemoryRequestError(str(error)) from None
    return user_id
