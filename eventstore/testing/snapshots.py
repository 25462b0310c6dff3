"""Projection snapshots' part of the contract: save and load (one or several at once, all or
none), guard hashes, tenant isolation, and erasure dropping a stream's snapshots."""

from __future__ import annotations

import pytest

from eventstore.events import Snapshot
from eventstore.records import SnapshotRecord
from eventstore.store import EventStore
from eventstore.testing.log import StoreFixture, message

__all__ = ["SnapshotContract"]


class SnapshotContract(StoreFixture):
    """Snapshots beside the log."""

    async def test_snapshots(self, store: EventStore) -> None:
        assert await store.load_snapshot("acme", "view", "s") is None
        first = Snapshot(
            tenant_id="acme",
            name="view",
            stream_id="s",
            projection_version=1,
            version=3,
            position=7,
            state=b'{"n": 3}',
        )
        await store.save_snapshot(first)
        assert await store.load_snapshot("acme", "view", "s") == first
        newer = first.model_copy(update={"version": 5, "position": 9, "state": b'{"n": 5}'})
        await store.save_snapshot(newer)
        assert await store.load_snapshot("acme", "view", "s") == newer  # replaced
        assert await store.load_snapshot("globex", "view", "s") is None  # per tenant
        # A damaged or misplaced snapshot is never used.
        (stored,) = await store.recorder.load_snapshots("acme", "s", ["view"])
        await store.recorder.save_snapshots([stored._replace(state=b'{"n": 6}')])
        assert await store.load_snapshot("acme", "view", "s") is None
        moved = SnapshotRecord("acme", "view", "t", *stored[3:])
        await store.recorder.save_snapshots([moved])
        assert await store.load_snapshot("acme", "view", "t") is None

    async def test_several_snapshots_saved_and_loaded_at_once(self, store: EventStore) -> None:
        def part(name: str, stream: str = "s", tenant: str = "acme") -> Snapshot:
            return Snapshot(
                tenant_id=tenant,
                name=name,
                stream_id=stream,
                projection_version=1,
                version=4,
                position=9,
                state=name.encode(),
            )

        saved = [part("view"), part("view.1"), part("view.2"), part("view.1", stream="s2")]
        await store.save_snapshots(saved)
        found = await store.load_snapshots("acme", "s", ["view.2", "view", "view.3", "view"])
        assert found == {"view": saved[0], "view.2": saved[2]}  # by name; absent ones left out
        assert await store.load_snapshots("acme", "s", []) == {}
        assert await store.load_snapshots("globex", "s", ["view"]) == {}
        assert (await store.load_snapshots("acme", "s2", ["view.1"]))["view.1"] == saved[3]
        # A damaged one is left out, as if absent; the others still load.
        (stored,) = await store.recorder.load_snapshots("acme", "s", ["view.1"])
        await store.recorder.save_snapshots([stored._replace(state=b"edited")])
        assert set(await store.load_snapshots("acme", "s", ["view", "view.1"])) == {"view"}
        with pytest.raises(ValueError, match="one tenant"):
            await store.save_snapshots([part("x"), part("x", tenant="globex")])
        assert await store.load_snapshot("acme", "x", "s") is None  # nothing half-written

    async def test_erasure_drops_snapshots_of_the_stream(self, store: EventStore) -> None:
        (event,) = await store.append("acme", "session/1", [message("my phone is 123")])
        for stream in ("session/1", "session/2"):
            await store.save_snapshot(
                Snapshot(
                    tenant_id="acme",
                    name="view",
                    stream_id=stream,
                    projection_version=1,
                    version=1,
                    position=1,
                    state=b"copy of: my phone is 123",
                )
            )
            # A projection's parts live under their own names, on the same stream.
            part = Snapshot(
                tenant_id="acme", name="view.1", stream_id=stream, projection_version=1,
                version=1, position=1, state=b"part of: my phone is 123",
            )  # fmt: skip
            await store.save_snapshots([part])
        await store.erase("acme", [event.event_id], reason="GDPR", requested_by="dpo")
        assert await store.load_snapshots("acme", "session/1", ["view", "view.1"]) == {}
        assert len(await store.load_snapshots("acme", "session/2", ["view", "view.1"])) == 2
        assert await store.load_snapshot("acme", "view", "session/2") is not None
