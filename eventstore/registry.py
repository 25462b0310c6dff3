"""The event-type registry: schema versions, optional payload models, and read-side upcasters.

Upcasters run on read only. Stored bytes never change, so the hash chain survives any schema
evolution: a payload written as version 1 stays version 1 in the log and is presented as the
current version by chaining ``upcasters[1]``, ``upcasters[2]``, … Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from eventstore.errors import EventValidationError, SchemaVersionError, UnknownEventTypeError
from eventstore.names import validate_event_type

__all__ = ["EventType", "EventTypeRegistry", "Upcaster"]

#: Turns the data of schema version ``n`` into the data of version ``n + 1``.
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class EventType:
    """A registered event type."""

    name: str
    schema_version: int = 1
    model: type[BaseModel] | None = None
    upcasters: Mapping[int, Upcaster] = field(default_factory=dict)


class EventTypeRegistry:
    """Known event types.

    A non-strict registry (the default) accepts unregistered types as schema version 1 with no
    validation; a strict one raises :class:`UnknownEventTypeError` for them on append and read.
    """

    def __init__(self, *, strict: bool = False) -> None:
        self.strict = strict
        self._types: dict[str, EventType] = {}

    def register(
        self,
        name: str,
        *,
        schema_version: int = 1,
        model: type[BaseModel] | None = None,
        upcasters: Mapping[int, Upcaster] | None = None,
    ) -> EventType:
        """Register an event type.

        Args:
            name: the type name.
            schema_version: the version new events of this type are written with.
            model: a pydantic model that appended data must validate against (optional).
            upcasters: ``{n: f}`` where ``f`` turns version-``n`` data into version ``n + 1``;
                one for every version below ``schema_version``.

        Raises:
            ValueError: a type of this name is registered already, or upcasters are missing.
        """
        validate_event_type(name)
        if name in self._types:
            raise ValueError(f"event type {name!r} is registered already")
        if schema_version < 1:
            raise ValueError(f"schema_version must be at least 1, got {schema_version}")
        steps = dict(upcasters or {})
        missing = [n for n in range(1, schema_version) if n not in steps]
        if missing:
            raise ValueError(
                f"event type {name!r} at schema version {schema_version} needs upcasters from "
                f"versions {missing} (each turns version n into n + 1)"
            )
        event_type = EventType(name, schema_version, model, steps)
        self._types[name] = event_type
        return event_type

    def __contains__(self, name: object) -> bool:
        return name in self._types

    def names(self) -> list[str]:
        """The registered type names, sorted."""
        return sorted(self._types)

    def lookup(self, name: str) -> EventType | None:
        """The registered type, ``None`` if unregistered and the registry is not strict."""
        event_type = self._types.get(name)
        if event_type is None and self.strict:
            raise UnknownEventTypeError(name, self.names())
        return event_type

    def schema_version(self, name: str) -> int:
        """The version new events of type ``name`` are written with."""
        event_type = self.lookup(name)
        return event_type.schema_version if event_type else 1

    def validate(self, name: str, data: dict[str, Any]) -> None:
        """Check ``data`` against the type's model, if it has one."""
        event_type = self.lookup(name)
        if event_type is None or event_type.model is None:
            return
        try:
            event_type.model.model_validate(data)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in item['loc']) or 'data'}: {item['msg']}"
                for item in error.errors()[:5]
            )
            raise EventValidationError(
                f"data of event type {name!r} is not a valid {event_type.model.__name__} "
                f"({problems}); nothing was written"
            ) from error

    def upcast(self, name: str, stored_version: int, data: dict[str, Any]) -> tuple[int, Any]:
        """Bring ``data`` written at ``stored_version`` up to the current version.

        Returns:
            ``(version, data)`` after upcasting.

        Raises:
            SchemaVersionError: the stored version is newer than the registered one.
        """
        event_type = self.lookup(name)
        if event_type is None:
            return stored_version, data
        if stored_version > event_type.schema_version:
            raise SchemaVersionError(
                f"an event of type {name!r}",
                stored_version,
                event_type.schema_version,
                "upgrade ctxledger (or the code that registers this type) before reading it",
            )
        version = stored_version
        while version < event_type.schema_version:
            data = event_type.upcasters[version](data)
            version += 1
        return version, data
