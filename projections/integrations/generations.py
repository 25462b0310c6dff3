"""Non-destructive clears for adapters whose framework expects ``clear`` and ``pop`` to delete:
the session's current messages live in a *generation*, the ctxledger session
``<id>~<generation>``; starting a new generation (empty, or holding what is kept) is recorded
as ``GenerationStarted`` on the control stream ``agents/<id>``. Nothing is deleted: older
generations stay in the log and verify. The Agents SDK's ``LedgerSession`` and LangChain's
``LedgerChatMessageHistory`` share it, so the CLI finds either by the id the user gave.
"""

from __future__ import annotations

from collections.abc import Sequence

from uuid_utils.compat import uuid7

from eventstore import EventStore, NewEvent
from projections.context.messages import Message
from projections.integration_events import GENERATION_STARTED
from projections.ledger import Ledger, Session

__all__ = ["control_stream", "current_generation", "generation_session", "start_generation"]


def control_stream(session_id: str) -> str:
    """The stream naming a session's current generation."""
    return f"agents/{session_id}"


def generation_session(
    ledger: Ledger, tenant_id: str, session_id: str, generation: str, user_id: str | None = None
) -> Session:
    """The ctxledger session holding one generation."""
    return ledger.session(tenant_id, f"{session_id}~{generation}", user_id=user_id)


async def current_generation(
    store: EventStore, tenant_id: str, session_id: str, *, at_position: int | None = None
) -> tuple[str, int]:
    """The generation holding a session's messages (``session/<id>~<generation>``) and the
    version of its control stream (as of ``at_position``, if given)."""
    events = await store.read_stream(tenant_id, control_stream(session_id))
    if at_position is not None:
        events = [e for e in events if e.position <= at_position]
    if not events or events[-1].data is None:
        return "0", len(events)
    return str(events[-1].data["generation"]), events[-1].version


async def start_generation(
    ledger: Ledger,
    tenant_id: str,
    session_id: str,
    *,
    version: int,
    reason: str,
    kept: Sequence[Message] = (),
    user_id: str | None = None,
) -> str:
    """Start a new generation holding ``kept`` (none: empty); returns its name.

    Raises:
        ConcurrencyError: another clear or pop moved the control stream from ``version``.
    """
    # The new generation's stream is written first and only then named on the control stream,
    # so a crash in between leaves an unreferenced stream, never a half state.
    generation = f"{version + 1}-{str(uuid7())[-12:]}"
    if kept:
        session = generation_session(ledger, tenant_id, session_id, generation, user_id)
        await session.append(list(kept), expected_version=0)
    # expected_version: a concurrent pop or clear fails instead of silently forking.
    await ledger.store.append(
        tenant_id,
        control_stream(session_id),
        [
            NewEvent(
                type=GENERATION_STARTED,
                data={"generation": generation, "reason": reason, "items": len(kept)},
            )
        ],
        expected_version=version,
    )
    return generation
