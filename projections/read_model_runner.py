"""The read models' runner: a tenant's log folded into a
:class:`~projections.projection.ReadModel`'s rows, committed with its checkpoint in one
transaction; a concurrent committer makes it re-read and retry, so every event is applied once.
"""

from __future__ import annotations

import asyncio

from eventstore import EventStore, RecordedEvent
from projections.projection import ReadModel

__all__ = ["ReadModelRunner", "read_model_name"]

_LOG_BATCH = 500


def read_model_name(model: ReadModel) -> str:
    """The stored name of a read model's rows: its name and version."""
    return f"{model.name}.v{model.version}"


class ReadModelRunner:
    """Folds tenants' logs into a read model's rows, checkpointed with them (see the module
    docstring)."""

    def __init__(self, store: EventStore, model: ReadModel, *, batch_size: int = _LOG_BATCH):
        self.store = store
        self.model = model
        self.batch_size = batch_size
        self.name = read_model_name(model)
        self._reached: dict[str, int] = {}  # by tenant: the checkpoint last reached here

    async def catch_up(self, tenant_id: str, *, to_position: int | None = None) -> int:
        """Apply every event after the read model's checkpoint (up to ``to_position``); returns
        the checkpoint reached."""
        models = self.store.read_models
        # The checkpoint this runner last reached is where it reads from (a hop less per
        # turn); the commit's expected position checks it, and when nothing follows it is
        # read again (another process may have reset the rows since).
        position = self._reached.get(tenant_id)
        trusted = position is None
        if position is None:
            position = await models.position(tenant_id, self.name)
        while True:
            events = await self._after(tenant_id, position, to_position)
            if not events:
                if trusted:
                    break
                position, trusted = await models.position(tenant_id, self.name), True
                continue
            if not await self._commit(tenant_id, position, events):
                # another process committed first: start again from its checkpoint
                position, trusted = await models.position(tenant_id, self.name), True
                continue
            position, trusted = events[-1].position, True
            if len(events) < self.batch_size:
                # A short batch was the log's end when it was read: caught up as of then, as
                # an empty read one round trip later would say (one hop less per turn).
                break
        self._reached[tenant_id] = position
        return position

    async def _after(
        self, tenant_id: str, position: int, to_position: int | None
    ) -> list[RecordedEvent]:
        if to_position is not None and position >= to_position:
            return []
        return await self.store.read_batch(
            tenant_id, after_position=position, limit=self.batch_size, to_position=to_position
        )

    async def _commit(self, tenant_id: str, position: int, events: list[RecordedEvent]) -> bool:
        """The events' rows committed with the checkpoint, if it is still ``position``."""
        if getattr(self.model, "blocking", False):
            changes = await asyncio.to_thread(self.model.changes, events)
        else:
            changes = self.model.changes(events)
        return await self.store.read_models.commit(
            tenant_id,
            self.name,
            expected_position=position,
            position=events[-1].position,
            upserts=changes.upserts,
            deletes=changes.deletes,
        )

    async def rebuild(self, tenant_id: str) -> int:
        """Drop the rows and fold the whole log again (the rows are derived data)."""
        await self.store.read_models.reset(tenant_id, self.name)
        self._reached.pop(tenant_id, None)
        return await self.catch_up(tenant_id)
