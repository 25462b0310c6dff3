"""The read models' part of the contract: rows and checkpoint committed together, the
full-text pre-filter, corpus figures, isolation, rebuilds, erasure of derived rows, options."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore.errors import UnsupportedDatabaseError
from eventstore.events import NewEvent
from eventstore.recorder import Document, DocumentStats
from eventstore.store import EventStore
from eventstore.testing.log import StoreFixture

__all__ = ["ReadModelContract", "document"]

_WORDS = st.sampled_from(["tea", "train", "200", "预算", "budget", "paris"])
# One step: (kind, key number, scope number, terms) — a commit of rows (replacing a key when
# it exists), a delete of a key, the erasure of a key's event, or a reset of the read model.
_STEPS = st.lists(
    st.tuples(
        st.sampled_from(["put", "put", "put", "delete", "erase", "reset"]),
        st.integers(1, 6),
        st.integers(1, 3),
        st.lists(_WORDS, min_size=1, max_size=5).map(" ".join),
    ),
    max_size=14,
)


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

    async def test_find_is_the_figures_and_the_rarest_terms_rows(self, store: EventStore) -> None:
        rows = [
            document("k1", "train budget", position=1),
            document("k2", "train paris", position=2),
            document("k3", "train tea", position=3),
            document("k4", "paris tea", scope="session/2", position=4),
        ]
        models = store.read_models
        await models.commit("acme", "index", expected_position=0, position=4, upserts=rows)
        asked = ["train", "paris", "budget", "absent"]
        for limit, keys in ((1, ["k1"]), (3, ["k4", "k2", "k1"]), (10, ["k4", "k3", "k2", "k1"])):
            found, stats = await models.find("acme", "index", asked, limit=limit)
            assert stats == await models.stats("acme", "index", asked)
            assert [d.key for d in found] == keys  # budget (1), then paris (2), then train (3)
        found, stats = await models.find("acme", "index", asked, scopes=["session/1"], limit=2)
        assert [d.key for d in found] == ["k2", "k1"]
        assert stats.frequencies == {"train": 3, "paris": 1, "budget": 1, "absent": 0}
        found, stats = await models.find("acme", "index", ["paris"], limit=5, max_position=3)
        assert ([d.key for d in found], stats.count) == (["k2"], 3)
        assert await models.find("acme", "index", ["absent"], limit=5) == (
            [],
            DocumentStats(4, 8, {"absent": 0}),
        )

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

    # Each backend's subclass runs this test with its own store (differing executors by
    # design); every example works in a tenant of its own, so the fixture's store is shared.
    @settings(
        max_examples=15,
        deadline=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.differing_executors,
        ],
    )
    @given(steps=_STEPS)
    async def test_kept_figures_equal_a_recount_at_every_position(
        self, store: EventStore, steps: list[tuple[str, int, int, str]]
    ) -> None:
        tenant, models = f"t{uuid.uuid4().hex[:12]}", store.read_models
        rows: dict[str, Document] = {}
        for kind, number, scope, terms in steps:
            key = f"k{number}"
            if kind == "reset":
                await models.reset(tenant, "index")
                rows.clear()
                continue
            at = await models.position(tenant, "index")
            if kind == "put":
                event = (await store.append(tenant, "s", [NewEvent(type="T", data={})]))[0]
                row = Document(key, f"session/{scope}", str(event.event_id), at + 1, terms, b"{}")
                await models.commit(
                    tenant, "index", expected_position=at, position=at + 1, upserts=[row]
                )
                rows[key] = row
            elif kind == "delete":
                await models.commit(
                    tenant, "index", expected_position=at, position=at, deletes=[key]
                )
                rows.pop(key, None)
            elif key in rows:
                await store.erase(tenant, [rows.pop(key).event_id], reason="test", requested_by="t")
        for scopes in (None, ["session/1"], ["session/2", "session/3"], []):
            for position in (None, *sorted({row.position for row in rows.values()})):
                kept = await models.stats(
                    tenant,
                    "index",
                    ["tea", "200", "预算", "absent"],
                    scopes=scopes,
                    max_position=position,
                )
                assert kept == _recount(rows.values(), kept.frequencies, scopes, position)

    async def test_unknown_options_are_refused(self, store_url: str) -> None:
        with pytest.raises(UnsupportedDatabaseError, match="has no option 'colour'"):
            EventStore.open(store_url, colour="blue")


def _recount(
    rows: Iterable[Document],
    asked: dict[str, int],
    scopes: list[str] | None,
    position: int | None,
) -> DocumentStats:
    """The figures counted from the rows themselves."""
    within = [
        row
        for row in rows
        if (scopes is None or row.scope in scopes)
        and (position is None or row.position <= position)
    ]
    frequencies = {term: sum(term in row.terms.split() for row in within) for term in asked}
    return DocumentStats(len(within), sum(row.length for row in within), frequencies)
