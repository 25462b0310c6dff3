"""The projection runner's cache against writers it does not see: another store object on
the same SQLite file stands for another process (SQLite knows no difference); and bodies read
across an erasure are served, not kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eventstore import EventStore
from eventstore.records import ERASURE_STREAM
from projections.context.budget import Budget
from projections.ledger import Ledger
from projections.session.codec import state_digest
from projections.session.fold import ERASED
from projections.text_caches import forget_texts

BUDGET = Budget(context_limit=2000, max_output_tokens=0, tool_reserve=0, safety_margin=0)


def turn(index: int) -> dict[str, str]:
    return {"id": f"m{index}", "role": "user", "content": f"turn {index} about Hangzhou"}


async def test_a_cached_state_catches_up_with_another_writer(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as ours, EventStore.open(path) as theirs:
        reader = Ledger(ours).session("acme", "s")
        await reader.append([turn(0)])
        cached = await reader.latest()
        await Ledger(theirs).session("acme", "s").append([turn(1), turn(2)])

        caught_up = await reader.latest()
        assert caught_up is cached  # folded on, not rebuilt
        assert [m.id for m in caught_up.messages] == ["m0", "m1", "m2"]
        rebuilt = await Ledger(ours).sessions.fold("acme", "s")
        assert state_digest(caught_up) == state_digest(rebuilt)


async def test_another_writers_erasure_drops_the_cached_state(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as ours, EventStore.open(path) as theirs:
        reader = Ledger(ours).session("acme", "s")
        recorded = await reader.append([turn(0), turn(1)])
        cached = await reader.latest()
        assert cached.messages[0].content == "turn 0 about Hangzhou"

        await theirs.erase(
            "acme", [str(recorded[0].event_id)], reason="request", requested_by="dpo"
        )
        after = await reader.latest()
        assert after is not cached  # the cached copy held the erased text
        assert after.messages[0].content == ERASED
        assert "Hangzhou" not in after.messages[0].model_dump_json()
        assert after.messages[1].content == "turn 1 about Hangzhou"


async def test_one_read_gives_the_stream_and_the_watched_head(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        session = Ledger(store).session("acme", "s")
        recorded = await session.append([turn(0), turn(1), turn(2)])
        await store.erase("acme", [str(recorded[2].event_id)], reason="r", requested_by="dpo")

        events, erasures = await store.read_stream_watching(
            "acme", "session/s", from_version=2, watch=ERASURE_STREAM
        )
        assert [event.version for event in events] == [2, 3]
        assert events[1].erased
        assert events[1].data is None
        assert (erasures.stream_id, erasures.version) == (ERASURE_STREAM, 1)
        head = await store.stream_head("acme", ERASURE_STREAM)
        assert erasures == head


async def test_the_cache_of_indexes_and_bodies_keeps_its_byte_bounds(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        writer = Ledger(store)
        for name in range(6):
            await writer.session("acme", f"s{name}").append(
                [{"id": f"m{i}", "role": "user", "content": "a message " * 20} for i in range(200)]
            )
        per_session = (await writer.session("acme", "s0").latest()).approx_bytes()
        bound, bodies = 3 * per_session, 40_000
        reader = Ledger(store, cached_bytes=bound, body_cache_bytes=bodies)
        for name in range(6):
            session = reader.session("acme", f"s{name}")
            await session.render(BUDGET)
            assert len(await session.messages()) == 200  # every body read back, checked
            assert reader.sessions.cached_bytes() <= bound
            assert reader.bodies.bytes <= bodies
        assert [key for _, key in reader.sessions.cached_keys()] == ["s3", "s4", "s5"]
        # Evicted states and bodies are read again from snapshots and the log, the same.
        again = await reader.session("acme", "s0").render(BUDGET)
        first = await writer.session("acme", "s0").render(BUDGET)
        assert again.wire == first.wire


async def test_bodies_read_while_an_erasure_empties_the_caches_are_served_not_kept(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = Ledger(store)
    session = ledger.session("acme", "s")
    await session.append([{"role": "user", "content": f"note {i}"} for i in range(3)])
    ledger.bodies.cache_clear()
    reads = (store.read_events, store.read_stream)

    def forgetting(read: Any) -> Any:
        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            found = await read(*args, **kwargs)
            forget_texts()  # an erasure seen while the read was under way
            return found

        return wrapped

    monkeypatch.setattr(store, "read_events", forgetting(reads[0]))
    monkeypatch.setattr(store, "read_stream", forgetting(reads[1]))
    rendered = await session.render(BUDGET)
    assert [message.content for message in rendered.messages] == ["note 0", "note 1", "note 2"]
    assert len(ledger.bodies) == 0
