"""Erasure that reaches every copy: the named events, what projections derived from them
(:mod:`.cascade`), and everything of a session or a user (:mod:`.scopes`)."""

from projections.erasure.cascade import (
    CascadedErasure,
    DerivedEvent,
    derived_events,
    erase_events,
)
from projections.erasure.scopes import erase_sessions, erase_users

__all__ = [
    "CascadedErasure",
    "DerivedEvent",
    "derived_events",
    "erase_events",
    "erase_sessions",
    "erase_users",
]
