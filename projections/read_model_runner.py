"""The read models' runner: a tenant's log folded into a
:class:`~projections.projection.ReadModel`'s rows, committed with its checkpoint in one
transaction; a concurrent committer makes it re-read and retry, so every event is applied once.
"""

from __future__ import annotations

import asyncio

from eventstore import EventStore
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

    async def catch_up(self, tenant_id: str, *, to_position: int | None = None) -> int:
        """Apply every event after the read model's checkpoint (up to ``to_position``); returns
        the checkpoint reached."""
        models = self.store.read_models
        position = await models.position(tenant_id, self.name)
        while to_position is None or position < to_position:
            events = await self.store.read_batch(
                tenant_id, after_position=position, limit=self.batch_size, to_position=to_position
            )
            if not events:
                return position
            if getattr(self.model, "blocking", False):
                changes = await asyncio.to_thread(self.model.changes, events)
            else:
                changes = self.model.changes(events)
            done = await models.commit(
                tenant_id,
                self.name,
                expected_position=position,
                position=events[-1].position,
                upserts=changes.upserts,
                deletes=changes.deletes,
            )
            if not done:  # another process committed first: start again from its checkpoint
                position = await models.position(tenant_id, self.name)
                continue
            position = events[-1].position
            if len(events) < self.batch_size:
                # A short batch was the log's end when it was read: caught up as of then, as
                # an empty read one round trip later would say (one hop less per turn).
                return position
        return position

    async def rebuild(self, tenant_id: str) -> int:
        """Drop the rows and fold the whole log again (the rows are derived data)."""
        await self.store.read_models.reset(tenant_id, self.name)
        return await self.catch_up(tenant_id)
