"""The promoter: the separate process that turns permitted proposals into memories.

Each pass folds a user's proposals, consents, the tenant policy and erasures, plans the
decisions (``rules.plan``) and appends them to ``memory/<user>`` with ``expected_version`` set
to the version it folded. Every decision records the tenant position it was decided from
(``tracking_position``), in the same event, so the tracking position and the decision commit
in one transaction. Decisions have ids derived from what they decide, so a run that is killed
and restarted, or two promoters racing, can neither lose nor duplicate one: the stream's
version refuses a stale plan, and the ids refuse a repeated decision.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from eventstore import (
    ConcurrencyError,
    EventStore,
    IdempotencyConflict,
    LedgerError,
    RecordedEvent,
)
from eventstore.records import ERASURE_STREAM
from projections.memory.events import (
    MEMORY_PROMOTED,
    MEMORY_RETRACTED,
    POLICY_STREAM,
    memory_stream,
    user_of_stream,
)
from projections.memory.rules import plan
from projections.memory.service import Clock, LongTermMemory

__all__ = ["Promoter", "PromotionReport"]

_ATTEMPTS = 50
_BACKOFF_S = 0.002


@dataclass
class PromotionReport:
    """What one pass did in one tenant."""

    tenant_id: str
    users: int = 0
    promoted: int = 0
    retracted: int = 0
    erased: int = 0
    retries: int = 0
    position: int = 0  # the tenant position the pass read up to
    decisions: list[str] = field(default_factory=list)  # ids of the decision events written

    def as_dict(self) -> dict[str, object]:
        """The report as JSON-ready data."""
        return {
            "tenant": self.tenant_id,
            "users": self.users,
            "promoted": self.promoted,
            "retracted": self.retracted,
            "erased": self.erased,
            "retries": self.retries,
            "position": self.position,
        }


class Promoter:
    """Promotes what consent or the tenant policy allows, and retracts what they no longer do.

    Args:
        store: the event log.
        clock: the current time, for consent expiry and memory expiry (UTC now by default).
        batch_size: decisions per transaction (a user's plan is split into batches; a pass
            killed between two batches is completed by the next pass).
    """

    def __init__(
        self, store: EventStore, *, clock: Clock | None = None, batch_size: int = 100
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.store = store
        self.memory = LongTermMemory(store, clock=clock)
        self.batch_size = batch_size

    async def run_once(
        self,
        tenant_id: str,
        users: list[str] | None = None,
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> PromotionReport:
        """One pass over the tenant's users (or the ones given): promote, retract, and finish
        the erasures of forgotten proposals. Running it again at once writes nothing.
        ``progress`` is told ``(done, total)`` users."""
        report = PromotionReport(tenant_id, position=await self.store.tenant_position(tenant_id))
        chosen = users if users is not None else await self.memory.users(tenant_id)
        for user_id in chosen:
            report.users += 1
            await self._promote_user(tenant_id, user_id, report)
            if progress is not None:
                progress(report.users, len(chosen))
        return report

    async def _promote_user(self, tenant_id: str, user_id: str, report: PromotionReport) -> None:
        lost: ConcurrencyError | IdempotencyConflict | None = None
        for attempt in range(_ATTEMPTS):
            state = await self.memory.state(tenant_id, user_id)
            unerased = state.forgotten_proposals()
            if unerased:  # a forget whose erasure did not happen (the caller was killed)
                receipt = await self.store.erase(
                    tenant_id,
                    unerased,
                    reason="memory forgotten: completing an interrupted erasure",
                    requested_by="promoter",
                )
                report.erased += len(receipt.erased)
                continue
            decisions = plan(state, self.memory.clock(), tracking_position=state.position)
            version = state.memory_version
            try:
                for start in range(0, len(decisions), self.batch_size):
                    batch = decisions[start : start + self.batch_size]
                    recorded = await self.store.append(
                        tenant_id, memory_stream(user_id), batch, expected_version=version
                    )
                    version = recorded[-1].version
                    self._count(recorded, report)
                return
            except (ConcurrencyError, IdempotencyConflict) as error:
                # Someone appended to the stream (a proposal, a forget, another promoter):
                # fold again and plan from what is there now. Promoters that lost together
                # retry together and lose again: a short random wait, growing, parts them.
                report.retries += 1
                lost = error
                await asyncio.sleep(random.uniform(0, _BACKOFF_S * (attempt + 1)))
        if lost is not None:
            raise lost  # the stream kept moving under every attempt: its real versions
        raise LedgerError(
            f"the promoter could not settle user {user_id!r} of tenant {tenant_id!r} in "
            f"{_ATTEMPTS} attempts (interrupted erasures kept reappearing): run it again"
        )

    @staticmethod
    def _count(recorded: list[RecordedEvent], report: PromotionReport) -> None:
        for event in recorded:
            report.decisions.append(str(event.event_id))
            if event.type == MEMORY_PROMOTED:
                report.promoted += 1
            elif event.type == MEMORY_RETRACTED:
                report.retracted += 1

    async def follow(
        self,
        tenant_id: str,
        *,
        stop: asyncio.Event | None = None,
        poll_interval: float = 0.5,
        on_report: Callable[[PromotionReport], None] | None = None,
    ) -> None:
        """Run a pass, then follow the tenant's log and run again for the users whose streams
        (or the policy or erasures, which concern every user) changed, until ``stop`` is set."""
        report = await self.run_once(tenant_id)
        if on_report is not None:
            on_report(report)
        subscription = self.store.subscribe(
            tenant_id, after_position=report.position, poll_interval=poll_interval
        )
        try:
            while stop is None or not stop.is_set():
                events = await subscription.next_batch(max_wait=poll_interval)
                if not events:
                    continue
                everyone = any(e.stream_id in (POLICY_STREAM, ERASURE_STREAM) for e in events)
                touched = sorted(
                    {u for e in events if (u := user_of_stream(e.stream_id)) is not None}
                )
                if not everyone and not touched:
                    continue
                report = await self.run_once(tenant_id, None if everyone else touched)
                if on_report is not None and (report.promoted or report.retracted or report.erased):
                    on_report(report)
        finally:
            subscription.close()
