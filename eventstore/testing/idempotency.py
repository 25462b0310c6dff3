"""The idempotency part of the contract: a retried batch returns the originals and writes
nothing, the same id with other content conflicts, a batch is recorded whole or not at all,
and an event id is scoped to its tenant."""

from __future__ import annotations

import uuid

import pytest

from eventstore.errors import IdempotencyConflict
from eventstore.events import NewEvent
from eventstore.store import EventStore
from eventstore.testing.log import StoreFixture, message

__all__ = ["IdempotencyContract"]


class IdempotencyContract(StoreFixture):
    """The idempotency contract; subclasses provide the ``store_url`` fixture."""

    async def test_idempotent_retry_returns_original_and_writes_nothing(
        self, store: EventStore
    ) -> None:
        batch = [message("a").model_copy(update={"event_id": uuid.uuid4()}) for _ in range(3)]
        first = await store.append("acme", "s", batch, expected_version=0)
        again = await store.append("acme", "s", batch, expected_version=0)
        assert again == first
        assert await store.tenant_position("acme") == 3
        without_check = await store.append("acme", "s", batch)
        assert without_check == first

    async def test_same_id_different_content_conflicts(self, store: EventStore) -> None:
        event_id = uuid.uuid4()
        await store.append("acme", "s", [NewEvent(type="T", data={"n": 1}, event_id=event_id)])
        cases = [
            ("acme", "s", NewEvent(type="T", data={"n": 2}, event_id=event_id), "different data"),
            ("acme", "s", NewEvent(type="U", data={"n": 1}, event_id=event_id), "type"),
            ("acme", "other", NewEvent(type="T", data={"n": 1}, event_id=event_id), "stream"),
        ]
        for tenant, stream, event, reason in cases:
            with pytest.raises(IdempotencyConflict, match=reason):
                await store.append(tenant, stream, [event])
        assert await store.tenant_position("acme") == 1

    async def test_an_event_id_is_scoped_to_its_tenant(self, store: EventStore) -> None:
        # Another tenant's ids are its own: reusing one neither conflicts nor tells the writer
        # that it exists, and reads, retries and erasure stay within each tenant.
        event_id = uuid.uuid4()
        ours = await store.append(
            "acme", "s", [NewEvent(type="T", data={"n": 1}, event_id=event_id)]
        )
        theirs = await store.append(
            "evil", "s", [NewEvent(type="U", data={"n": 2}, event_id=event_id)]
        )
        assert ours[0].event_id == theirs[0].event_id
        assert [e.data for e in await store.read_events("acme", [str(event_id)])] == [{"n": 1}]
        assert [e.data for e in await store.read_events("evil", [str(event_id)])] == [{"n": 2}]
        again = await store.append(
            "evil", "s", [NewEvent(type="U", data={"n": 2}, event_id=event_id)]
        )
        assert again == theirs  # an idempotent retry, in its own tenant
        await store.erase("evil", [str(event_id)], reason="test", requested_by="test")
        assert (await store.read_events("acme", [str(event_id)]))[0].data == {"n": 1}
        assert (await store.read_events("evil", [str(event_id)]))[0].data is None
        for tenant in ("acme", "evil"):
            assert (await store.verify(tenant)).ok

    async def test_partial_retry_conflicts_and_writes_nothing(self, store: EventStore) -> None:
        known = NewEvent(type="T", data={}, event_id=uuid.uuid4())
        await store.append("acme", "s", [known])
        with pytest.raises(IdempotencyConflict, match="recorded whole or not at all"):
            await store.append("acme", "s", [known, NewEvent(type="T", data={"new": True})])
        # The recorded id last: the rows inserted before it are undone with it.
        new = NewEvent(type="T", data={"new": True})
        with pytest.raises(IdempotencyConflict, match="recorded whole or not at all"):
            await store.append("acme", "s", [new, known])
        assert await store.tenant_position("acme") == 1
        assert await store.read_events("acme", [str(new.event_id)]) == []
        assert (await store.verify("acme")).ok
