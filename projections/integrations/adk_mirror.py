"""ADK sessions mirrored into ctxledger sessions, so that context, pins, compaction, stats,
the report, search and memory proposals work on them (see :mod:`.adk_messages` for the mapping).

The ADK stream stays the source of truth, and ADK reads only it: its own compaction and rewind
give ADK's results. After each ``append_event`` the mirror appends the messages of the ADK
events it has not mirrored yet (the ones after the ADK event of its last message), so a crash
between the two appends is healed by the next one; a message id already in the session is
never appended twice. Rewound turns stay in the mirror's history (ctxledger never rewrites
history; ADK's view skips them).
"""

from __future__ import annotations

from collections.abc import Sequence

from google.adk.events.event import Event

from eventstore import EventStore
from projections.integrations.adk_messages import adk_messages, mirror_session_id
from projections.ledger import Ledger, Session

__all__ = ["AdkMirror"]


class AdkMirror:
    """Keeps the ctxledger session of each ADK session of one tenant current."""

    def __init__(self, ledger: Ledger, tenant_id: str) -> None:
        self.ledger = ledger
        self.tenant_id = tenant_id

    @property
    def store(self) -> EventStore:
        """The ledger's store."""
        return self.ledger.store

    async def catch_up(
        self, app_name: str, user_id: str, session_id: str, events: Sequence[Event]
    ) -> int:
        """Append the messages of the ADK ``events`` (the session's, in order) that the mirror
        lacks; returns how many were appended."""
        session = self.ledger.session(
            self.tenant_id, mirror_session_id(app_name, user_id, session_id)
        )
        state = await session.latest()
        start = _after_last_mirrored(await _last_mirrored(session), events)
        new = [
            message
            for event in events[start:]
            for message in adk_messages(event.model_dump(mode="json", exclude_none=True))
            if message.id not in state.index_of
        ]
        if new:
            await session.append(new)
        return len(new)

    async def event_ids(self, app_name: str, user_id: str, session_id: str) -> list[str]:
        """The ids of the mirror's readable events (to erase them with the ADK session)."""
        stream = f"session/{mirror_session_id(app_name, user_id, session_id)}"
        events = await self.store.read_stream(self.tenant_id, stream)
        return [str(event.event_id) for event in events if event.data is not None]


async def _last_mirrored(session: Session, page: int = 16) -> str | None:
    """The ADK event id of the mirror's last message that names one, its bodies read from
    the log a page at a time from the newest (most often the first page holds it)."""

    async def newest_first() -> str | None:
        cut = (await session.latest()).cut()
        end = cut.count
        while end > 0:
            first = max(0, end - page)
            cut = await session.with_bodies(cut, range(first, end))
            for message in reversed(cut.messages(first, end)):
                if (last := message.metadata.get("adk_event")) is not None:
                    return str(last)
            end = first
        return None

    return await session._checked(newest_first)


def _after_last_mirrored(last: str | None, events: Sequence[Event]) -> int:
    """The index in ``events`` after the ADK event ``last`` (0: none, or not among them)."""
    if last is None:
        return 0
    for index in range(len(events) - 1, -1, -1):
        if events[index].id == last:
            return index + 1
    return 0
