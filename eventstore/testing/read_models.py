"""The read models' part of the contract: rows and checkpoint committed together, the
full-text pre-filter, corpus figures, isolation, rebuilds, erasure of derived rows, options."""

from __future__ import annotations

import pytest

from eventstore.errors import UnsupportedDatabaseError
from eventstore.events import NewEvent
from eventstore.recorder import Document
from eventstore.store import EventStore
from eventstore.testing.log import StoreFixture

__all__ = ["ReadModelContract", "document"]


def document(key: str, terms: str, *, scope: str = "session/1", position: int = 1) -> Document:
    """A read-model row for the tests (its event id derived from the key)."""
    event_id = f"00000000-0000-7000-8000-{int(key.removeprefix('k')):012d}"
    return Document(key, scope, event_id, position, terms, b'{"k": "' + key.encode() + b'"}')


class ReadModelContract(StoreFixture):
    """The read models' contract; subclasses provide the ``store_url`` fixture."""

    async def test_rows_and_checkpoint_commit_together(self, store: EventStore) -> None:
        models = store.read_models
        assert await models.position("acme", "index") == 0
        rows = [document("k1", "budget 200 cny"), document("k2", "train g7311 morning")]
        assert await models.commit("acme", "index", expected_position=0, position=5, upserts=rows)
        assert await models.position("acme", "index") == 5
        assert await models.read("acme", "index", ["k2", "k1", "k9"]) == [rows[1], rows[0]]
        # A committer that read an older checkpoint writes nothing.
        late = [document("k3", "late")]
        assert not await models.commit(
            "acme", "index", expected_position=0, position=6, upserts=late
        )
        assert await models.read("acme", "index", ["k3"]) == []
        assert await models.position("acme", "index") == 5
        replaced = document("k1", "budget 300 cny")
        assert await models.commit(
            "acme", "index", expected_position=5, position=7, upserts=[replaced], deletes=["k2"]
        )
        assert await models.read("acme", "index", ["k1", "k2"]) == [replaced]

    async def test_search_prefilter_and_stats(self, store: EventStore) -> None:
        rows = [
            document("k1", "budget 200 cny budget", position=1),
            document("k2", "train g7311 morning", position=2),
            document("k3", "预算 200", scope="session/2", position=3),
            document("k4", "weather sunny", position=4),
        ]
        models = store.read_models
        await models.commit("acme", "index", expected_position=0, position=4, upserts=rows)
        found = await models.search("acme", "index", ["budget", "g7311"], limit=10)
        assert [d.key for d in found] == ["k2", "k1"]  # the newest first, on every backend
        assert [d.key for d in await models.search("acme", "index", ["预算"], limit=10)] == ["k3"]
        scoped = await models.search("acme", "index", ["200"], scopes=["session/1"], limit=10)
        assert [d.key for d in scoped] == ["k1"]
        early = await models.search("acme", "index", ["200"], limit=10, max_position=2)
        assert [d.key for d in early] == ["k1"]
        newest = await models.search("acme", "index", ["200", "sunny"], limit=1)
        assert [d.key for d in newest] == ["k4"]
        assert await models.search("acme", "index", ["absent"], limit=10) == []
        stats = await models.stats("acme", "index", ["200", "budget", "absent"])
        assert (stats.count, stats.total_length) == (4, 4 + 3 + 2 + 2)
        assert stats.frequencies == {"200": 2, "budget": 1, "absent": 0}
        scoped_stats = await models.stats("acme", "index", ["200"], scopes=["session/2"])
        assert (scoped_stats.count, scoped_stats.frequencies) == (1, {"200": 1})

    async def test_tenants_and_read_models_are_isolated(self, store: EventStore) -> None:
        models = store.read_models
        await models.commit(
            "acme", "index", expected_position=0, position=1, upserts=[document("k1", "secret")]
        )
        assert await models.search("globex", "index", ["secret"], limit=10) == []
        assert await models.read("globex", "index", ["k1"]) == []
        assert await models.position("globex", "index") == 0
        assert await models.search("acme", "other", ["secret"], limit=10) == []
        assert (await models.stats("globex", "index", ["secret"])).frequencies == {"secret": 0}

    async def test_reset_drops_rows_and_checkpoint(self, store: EventStore) -> None:
        models = store.read_models
        await models.commit(
            "acme", "index", expected_position=0, position=3, upserts=[document("k1", "a b")]
        )
        await models.reset("acme", "index")
        assert await models.position("acme", "index") == 0
        assert await models.search("acme", "index", ["a"], limit=10) == []

    async def test_erasure_deletes_rows_derived_from_the_event(self, store: EventStore) -> None:
        erased, kept = await store.append(
            "acme",
            "session/1",
            [NewEvent(type="T", data={"text": "phone"}), NewEvent(type="T", data={})],
        )
        rows = [
            Document("a", "session/1", str(erased.event_id), 1, "phone 123", b"{}"),
            Document("b", "session/1", str(kept.event_id), 2, "phone kept", b"{}"),
        ]
        models = store.read_models
        await models.commit("acme", "index", expected_position=0, position=2, upserts=rows)
        await store.erase("acme", [erased.event_id], reason="GDPR", requested_by="dpo")
        assert [d.key for d in await models.search("acme", "index", ["phone"], limit=10)] == ["b"]
        assert await models.read("acme", "index", ["a"]) == []
        assert (await models.stats("acme", "index", ["123"])).frequencies == {"123": 0}

    async def test_unknown_options_are_refused(self, store_url: str) -> None:
        with pytest.raises(UnsupportedDatabaseError, match="has no option 'colour'"):
            EventStore.open(store_url, colour="blue")
