"""The log's part of the contract: appends, concurrency, retries, validation, isolation,
verification, erasure, subscriptions and snapshots."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest

from eventstore.errors import (
    ConcurrencyError,
    ErasureError,
    EventNotFoundError,
    EventValidationError,
    IdempotencyConflict,
    InvalidNameError,
    LogMovedError,
    PayloadTooLargeError,
)
from eventstore.events import NewEvent, RecordedEvent
from eventstore.hashing import genesis_hash
from eventstore.store import EventStore

__all__ = ["LogContract", "StoreFixture", "content", "message"]


def message(text: str, **extra: object) -> NewEvent:
    return NewEvent(type="MessageAppended", data={"role": "user", "content": text, **extra})


def content(event: RecordedEvent) -> object:
    """The ``content`` of a test message's data."""
    assert event.data is not None
    return event.data["content"]


class StoreFixture:
    """A fresh store per test, opened on the ``store_url`` fixture the subclass provides."""

    @pytest.fixture
    async def store(self, store_url: str) -> AsyncIterator[EventStore]:
        async with EventStore.open(store_url) as opened:
            yield opened


class LogContract(StoreFixture):
    """The log's contract; subclasses provide the ``store_url`` fixture (a fresh database)."""

    async def test_append_returns_chained_records(self, store: EventStore) -> None:
        recorded = await store.append(
            "acme", "session/1", [message("a"), message("b")], expected_version=0
        )
        assert [(e.version, e.position) for e in recorded] == [(1, 1), (2, 2)]
        assert recorded[0].prev_hash == genesis_hash("acme", "session/1").hex()
        assert recorded[1].prev_hash == recorded[0].hash
        assert recorded[0].data == {"role": "user", "content": "a"}
        assert recorded[0].event_id.version == 7
        assert recorded[0].recorded_at.tzinfo is not None

    async def test_read_stream_and_ranges(self, store: EventStore) -> None:
        await store.append("acme", "s", [message(str(i)) for i in range(5)])
        assert [content(e) for e in await store.read_stream("acme", "s")] == list("01234")
        part = await store.read_stream("acme", "s", from_version=2, to_version=4)
        assert [e.version for e in part] == [2, 3, 4]
        assert await store.read_stream("acme", "unknown") == []

    async def test_read_stream_watching_another_head(self, store: EventStore) -> None:
        await store.append("acme", "s", [message(str(i)) for i in range(3)])
        events, watched = await store.read_stream_watching("acme", "s", from_version=2, watch="t")
        assert [e.version for e in events] == [2, 3]
        assert (watched.version, watched.hash) == (0, genesis_hash("acme", "t").hex())
        recorded = await store.append("acme", "t", [message("x")])
        events, watched = await store.read_stream_watching("acme", "s", from_version=4, watch="t")
        assert events == []
        assert (watched.version, watched.hash) == (1, recorded[0].hash)

    async def test_read_log_orders_by_position_across_streams(self, store: EventStore) -> None:
        for i in range(7):
            await store.append("acme", f"s{i % 3}", [message(str(i))])
        log = [e async for e in store.read_log("acme", batch_size=2)]
        assert [e.position for e in log] == list(range(1, 8))
        assert [content(e) for e in log] == [str(i) for i in range(7)]
        after = [e.position async for e in store.read_log("acme", after_position=4)]
        assert after == [5, 6, 7]
        bounded = [
            e.position async for e in store.read_log("acme", after_position=1, to_position=3)
        ]
        assert bounded == [2, 3]

    async def test_stream_head_and_tenant_position(self, store: EventStore) -> None:
        empty = await store.stream_head("acme", "s")
        assert (empty.version, empty.hash) == (0, genesis_hash("acme", "s").hex())
        recorded = await store.append("acme", "s", [message("a"), message("b")])
        await store.append("acme", "t", [message("c")])
        head = await store.stream_head("acme", "s")
        assert (head.version, head.hash) == (2, recorded[-1].hash)
        assert await store.tenant_position("acme") == 3
        assert [s.stream_id for s in await store.streams("acme")] == ["s", "t"]
        assert await store.tenants() == ["acme"]

    async def test_concurrency_error_when_stream_moved(self, store: EventStore) -> None:
        await store.append("acme", "s", [message("a")], expected_version=0)
        with pytest.raises(ConcurrencyError) as caught:
            await store.append("acme", "s", [message("b"), message("c")], expected_version=0)
        error = caught.value
        assert (error.stream, error.expected, error.actual) == ("s", 0, 1)
        assert "expected stream s of tenant acme at version 0, found 1" in str(error)
        assert len(await store.read_stream("acme", "s")) == 1
        assert await store.tenant_position("acme") == 1

    async def test_concurrent_appends_to_one_stream_one_wins(self, store: EventStore) -> None:
        await store.append("acme", "s", [message("base")])
        results = await asyncio.gather(
            *(store.append("acme", "s", [message(str(i))], expected_version=1) for i in range(5)),
            return_exceptions=True,
        )
        winners = [r for r in results if not isinstance(r, BaseException)]
        losers = [r for r in results if isinstance(r, ConcurrencyError)]
        assert (len(winners), len(losers)) == (1, 4)
        assert (await store.stream_head("acme", "s")).version == 2

    async def test_batch_is_atomic_when_one_event_is_invalid(self, store: EventStore) -> None:
        with pytest.raises(EventValidationError):
            await store.append(
                "acme", "s", [message("ok"), NewEvent(type="T", data={"bad": float("nan")})]
            )
        assert await store.read_stream("acme", "s") == []
        assert await store.tenant_position("acme") == 0

    @pytest.mark.parametrize(
        ("data", "fragment"),
        [
            ({"x": float("nan")}, "NaN"),
            ({"x": float("inf")}, "Infinity"),
            ({"x": {1: "a"}}, "key 1 of type int"),
            ({"x": {1, 2}}, "set, which is not JSON"),
            ({"x": b"bytes"}, "bytes, which is not JSON"),
            ({"x": "\ud800"}, "canonical JSON"),
        ],
    )
    async def test_non_json_data_is_refused_with_its_path(
        self, store: EventStore, data: dict[str, object], fragment: str
    ) -> None:
        with pytest.raises(EventValidationError, match=fragment):
            await store.append("acme", "s", [NewEvent(type="T", data=data)])
        assert await store.tenant_position("acme") == 0

    async def test_payload_limit(self, store_url: str) -> None:
        async with EventStore.open(store_url, max_payload_bytes=100) as small:
            await small.append("acme", "s", [NewEvent(type="T", data={"x": "a" * 80})])
            with pytest.raises(PayloadTooLargeError, match="over the limit of 100 bytes"):
                await small.append("acme", "s", [NewEvent(type="T", data={"x": "a" * 100})])

    @pytest.mark.parametrize(
        ("tenant", "stream", "fragment"),
        [
            ("", "s", "must not be empty"),
            ("   ", "s", "must not be empty"),
            ("a" * 129, "s", "limit is 128"),
            ("ac\x00me", "s", "control character"),
            ("acme", "", "must not be empty"),
            ("acme", "s" * 257, "limit is 256"),
            ("acme", "line\nbreak", "control character"),
            ("acme", "zero\u200bwidth", "format character"),
            ("acme", "ledger/erasures", "reserved"),
        ],
    )
    async def test_names_are_validated(
        self, store: EventStore, tenant: str, stream: str, fragment: str
    ) -> None:
        with pytest.raises(InvalidNameError, match=fragment):
            await store.append(tenant, stream, [message("x")])

    async def test_bad_arguments(self, store: EventStore) -> None:
        with pytest.raises(EventValidationError, match="at least one event"):
            await store.append("acme", "s", [])
        with pytest.raises(EventValidationError, match="wrap a single event in a list"):
            await store.append("acme", "s", message("x"))  # type: ignore[arg-type]
        with pytest.raises(EventValidationError, match="expected_version"):
            await store.append("acme", "s", [message("x")], expected_version=-1)
        duplicate = uuid.uuid4()
        with pytest.raises(EventValidationError, match="occurs twice"):
            await store.append(
                "acme",
                "s",
                [
                    NewEvent(type="T", data={}, event_id=duplicate),
                    NewEvent(type="T", data={}, event_id=duplicate),
                ],
            )
        with pytest.raises(InvalidNameError, match="event type"):
            await store.append("acme", "s", [NewEvent(type="", data={})])
        assert await store.tenant_position("acme") == 0

    async def test_tenants_are_isolated(self, store: EventStore) -> None:
        mine = await store.append("acme", "s", [message("secret")])
        await store.append("globex", "s", [message("other")])
        assert [content(e) for e in await store.read_stream("globex", "s")] == ["other"]
        assert [e.tenant_id async for e in store.read_log("globex")] == ["globex"]
        assert await store.read_events("globex", [mine[0].event_id]) == []
        assert (await store.stream_head("globex", "s")).version == 1
        with pytest.raises(EventNotFoundError):
            await store.erase("globex", [mine[0].event_id], reason="r", requested_by="x")
        assert (await store.read_stream("acme", "s"))[0].data == {
            "role": "user",
            "content": "secret",
        }
        # Positions are per tenant.
        assert await store.tenant_position("acme") == 1
        assert await store.tenant_position("globex") == 1

    async def test_verify_clean_log(self, store: EventStore) -> None:
        for i in range(20):
            await store.append("acme", f"s{i % 4}", [message(str(i)), message("again")])
        report = await store.verify("acme")
        assert report.ok
        assert (report.checked, report.erased, report.failures) == (40, 0, [])
        stream_report = await store.verify("acme", stream="s1")
        assert stream_report.ok
        assert stream_report.checked == 10
        empty = await store.verify("nobody")
        assert empty.ok
        assert empty.checked == 0

    async def test_verify_reports_progress(self, store: EventStore) -> None:
        await store.append("acme", "s", [message(str(i)) for i in range(10)])
        seen: list[tuple[int, int]] = []
        await store.verify("acme", progress=lambda done, total: seen.append((done, total)))
        assert seen[-1] == (10, 10)

    async def test_erasure(self, store: EventStore) -> None:
        recorded = await store.append("acme", "s", [message("my name is Ada"), message("keep")])
        target = recorded[0].event_id
        receipt = await store.erase(
            "acme", [target], reason="GDPR art. 17", requested_by="dpo@acme"
        )
        assert receipt.erasure is not None
        assert receipt.erasure.type == "PayloadErased"
        assert receipt.erasure.stream_id == "ledger/erasures"
        assert receipt.erasure.data == {
            "event_ids": [str(target)],
            "reason": "GDPR art. 17",
            "requested_by": "dpo@acme",
        }
        assert receipt.erased == [target]
        erased, kept = await store.read_stream("acme", "s")
        assert erased.erased
        assert erased.data is None
        assert erased.erased_by == receipt.erasure.position
        assert erased.hash == recorded[0].hash  # the envelope stays
        assert kept.data == {"role": "user", "content": "keep"}
        report = await store.verify("acme")
        assert report.ok, report.failures
        assert (report.checked, report.erased) == (3, 1)
        stream_report = await store.verify("acme", stream="s")
        assert stream_report.ok
        assert stream_report.erased == 1
        again = await store.erase("acme", [target], reason="again", requested_by="dpo@acme")
        assert again.erasure is None
        assert again.already_erased == {target: receipt.erasure.position}

    async def test_erasure_refusals(self, store: EventStore) -> None:
        recorded = await store.append("acme", "s", [message("x")])
        receipt = await store.erase("acme", [recorded[0].event_id], reason="r", requested_by="dpo")
        assert receipt.erasure is not None
        with pytest.raises(ErasureError, match="cannot be erased"):
            await store.erase("acme", [receipt.erasure.event_id], reason="r", requested_by="dpo")
        with pytest.raises(EventNotFoundError, match="has no event"):
            await store.erase("acme", [uuid.uuid4()], reason="r", requested_by="dpo")
        with pytest.raises(EventValidationError, match="not an event id"):
            await store.erase("acme", ["nope"], reason="r", requested_by="dpo")
        with pytest.raises(EventValidationError, match="non-empty reason"):
            await store.erase("acme", [recorded[0].event_id], reason=" ", requested_by="dpo")
        with pytest.raises(InvalidNameError, match="reserved"):
            await store.append("acme", "ledger/erasures", [message("forged")])

    async def test_erasure_planned_at_a_position_is_refused_once_the_log_moved(
        self, store: EventStore
    ) -> None:
        (event,) = await store.append("acme", "s", [message("x")])
        planned = await store.tenant_position("acme")
        await store.append("acme", "t", [message("arrived in between")])
        with pytest.raises(LogMovedError, match="appended since"):
            await store.erase("acme", [event.event_id], reason="r", requested_by="dpo",
                              expected_position=planned)  # fmt: skip
        assert (await store.read_stream("acme", "s"))[0].data is not None  # nothing erased
        now = await store.tenant_position("acme")
        receipt = await store.erase(
            "acme", [event.event_id], reason="r", requested_by="dpo", expected_position=now
        )
        assert receipt.erased == [event.event_id]

    async def test_retry_of_erased_event_conflicts(self, store: EventStore) -> None:
        event = message("x").model_copy(update={"event_id": uuid.uuid4()})
        await store.append("acme", "s", [event])
        await store.erase("acme", [event.event_id], reason="r", requested_by="dpo")
        with pytest.raises(IdempotencyConflict, match="erased"):
            await store.append("acme", "s", [event])

    async def test_subscription_catches_up_then_follows(self, store: EventStore) -> None:
        await store.append("acme", "s", [message(str(i)) for i in range(3)])
        subscription = store.subscribe("acme", after_position=1, poll_interval=5)
        first = [await anext(subscription) for _ in range(2)]
        assert [e.position for e in first] == [2, 3]

        async def later() -> None:
            await asyncio.sleep(0.01)
            await store.append("acme", "t", [message("new")])

        task = asyncio.create_task(later())
        # Woken by the in-process append, long before the 5 s poll interval.
        event = await asyncio.wait_for(anext(subscription), timeout=2)
        await task
        assert (event.position, event.stream_id) == (4, "t")
        assert subscription.position == 4
        assert await subscription.next_batch(max_wait=0.05) == []
        subscription.close()
        with pytest.raises(StopAsyncIteration):
            await anext(subscription)

    async def test_read_events_by_id(self, store: EventStore) -> None:
        recorded = await store.append("acme", "s", [message("a"), message("b")])
        found = await store.read_events("acme", [str(recorded[1].event_id), recorded[0].event_id])
        assert [e.position for e in found] == [1, 2]

    async def test_unicode_round_trip(self, store: EventStore) -> None:
        data = {
            "content": "2026 年 9 月 19 日上午出发，不自动购票 🚄",
            "n": 1.5,
            "nested": [None, True],
        }
        await store.append("租户", "session/旅行", [NewEvent(type="T", data=data, actor="用户")])
        (event,) = await store.read_stream("租户", "session/旅行")
        assert event.data == data
        assert event.actor == "用户"
        assert (await store.verify("租户")).ok
