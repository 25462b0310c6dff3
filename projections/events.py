"""Every event type ctxledger writes, registered with its model and schema version.

:func:`register_ledger_events` adds them to an event store's registry (the :class:`Ledger`
and the CLI do it), so an append of a known type with an invalid payload is refused with the
field that is wrong, while events of types ctxledger does not know are still accepted.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from eventstore import EventTypeRegistry
from projections.audit import ACCESS_REFUSED, AccessRefused
from projections.integration_events import INTEGRATION_EVENTS
from projections.memory.events import (
    CONSENT_GRANTED,
    CONSENT_REVOKED,
    MEMORY_FORGOTTEN,
    MEMORY_POLICY_SET,
    MEMORY_PROMOTED,
    MEMORY_PROPOSED,
    MEMORY_RETRACTED,
    ConsentGranted,
    ConsentRevoked,
    MemoryForgotten,
    MemoryPolicySet,
    MemoryPromoted,
    MemoryProposed,
    MemoryRetracted,
)
from projections.session.events import SESSION_EVENTS

__all__ = ["LEDGER_EVENTS", "ledger_registry", "register_ledger_events"]

#: name -> (model, schema version) of every event type ctxledger writes.
LEDGER_EVENTS: Mapping[str, tuple[type[BaseModel], int]] = {
    **{name: (model, model.schema_version) for name, model in SESSION_EVENTS.items()},
    MEMORY_PROPOSED: (MemoryProposed, 1),
    CONSENT_GRANTED: (ConsentGranted, 1),
    CONSENT_REVOKED: (ConsentRevoked, 1),
    MEMORY_PROMOTED: (MemoryPromoted, 1),
    MEMORY_RETRACTED: (MemoryRetracted, 1),
    MEMORY_FORGOTTEN: (MemoryForgotten, 1),
    MEMORY_POLICY_SET: (MemoryPolicySet, 1),
    **{name: (model, 1) for name, model in INTEGRATION_EVENTS.items()},
    ACCESS_REFUSED: (AccessRefused, 1),
}


def register_ledger_events(registry: EventTypeRegistry) -> EventTypeRegistry:
    """Register every ctxledger event type (idempotent: types already registered with the
    same model are left alone) and return the registry.

    Raises:
        ValueError: a type of the same name is registered with another model.
    """
    for name, (model, version) in LEDGER_EVENTS.items():
        if name in registry:
            existing = registry.lookup(name)
            if existing is not None and existing.model is model:
                continue
            raise ValueError(
                f"event type {name!r} is registered with another model; ctxledger's own event "
                f"types cannot be redefined"
            )
        upcasters = getattr(model, "upcasters", {})
        registry.register(name, schema_version=version, model=model, upcasters=upcasters)
    return registry


def ledger_registry() -> EventTypeRegistry:
    """A new (non-strict) registry with every ctxledger event type."""
    return register_ledger_events(EventTypeRegistry())
