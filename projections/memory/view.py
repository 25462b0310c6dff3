"""One user's long-term memory as a projection: the user's memory and consent streams, the
tenant's policy stream and its erasures, merged in position order (it runs on
:class:`~projections.runner.ProjectionRunner`). Pure: no I/O."""

from __future__ import annotations

from typing import Any

from eventstore import RecordedEvent
from eventstore.records import ERASURE_STREAM
from projections.memory.events import POLICY_STREAM, consent_stream, memory_stream
from projections.memory.state import UserMemory

__all__ = ["USER_MEMORY", "UserMemoryView"]


class UserMemoryView:
    """The projection of one user's memory (the key is the user id)."""

    name = "user_memory"
    version = 1

    @staticmethod
    def streams(user_id: str) -> list[str]:
        """The four streams a user's memory folds."""
        return [memory_stream(user_id), consent_stream(user_id), POLICY_STREAM, ERASURE_STREAM]

    @staticmethod
    def initial(tenant_id: str, user_id: str) -> UserMemory:
        """No proposals, consents or memories yet; the default policy."""
        return UserMemory(tenant_id, user_id)

    @staticmethod
    def apply(state: UserMemory, event: RecordedEvent, known: Any = None) -> UserMemory:
        """Fold one event (see :meth:`UserMemory.apply`)."""
        return state.apply(event)


USER_MEMORY = UserMemoryView()
