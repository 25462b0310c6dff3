"""A session's snapshot as a head and immutable parts (issue #28): any history, cut at any part
size and saved at any cadence, opens to the state a fold of the log gives; a part is written
once and never changes; a missing, stale or forged part is never used, and verify names it."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventstore import EventStore
from projections.context.budget import Budget
from projections.ledger import Ledger, Session
from projections.runner import ProjectionRunner
from projections.session.codec import (
    decode_state,
    head_parts,
    snapshot_from_dict,
    snapshot_to_dict,
    state_digest,
)
from projections.session.columns import unpacked
from projections.session.fold import SessionView
from projections.session.segments import decode_slices, encode_slice, end_marks, marks_at
from projections.snapshot_audit import audit_snapshots
from projections.snapshot_parts import load_parts, part_name
from tests.projections.test_masking import BUDGET as MASKING
from tests.projections.test_masking import lookup

STREAM = "session/s"
SERVE = Budget(context_limit=1500, max_output_tokens=0, tool_reserve=0, safety_margin=0)
CALLS = ["k1", "k2", "k3"]  # few call ids: repeats, orphans and missing results happen

_message = st.one_of(
    st.tuples(st.sampled_from(["user", "assistant", "system"]), st.text(max_size=12)),
    st.tuples(
        st.just("calls"), st.lists(st.sampled_from(CALLS), min_size=1, max_size=2, unique=True)
    ),
    st.tuples(st.just("tool"), st.sampled_from(CALLS)),
)
_operation = st.one_of(
    st.tuples(st.just("append"), st.lists(_message, min_size=1, max_size=4)),
    st.tuples(st.sampled_from(["pin", "unpin"]), st.integers(0, 40)),
)
_history = st.lists(_operation, min_size=1, max_size=14).map(
    lambda ops: [("append", [("user", "hi")]), *ops]  # a session that exists
)


def _wire(kind: str, value: Any, number: int) -> dict[str, Any]:
    if kind == "calls":
        calls = [{"id": call, "name": "f", "arguments": "{}"} for call in value]
        return {"id": f"m{number}", "role": "assistant", "tool_calls": calls}
    if kind == "tool":
        return {"id": f"m{number}", "role": "tool", "tool_call_id": value, "content": "ok"}
    return {"id": f"m{number}", "role": kind, "content": value or "."}


def _ledger(store: EventStore, every: int, gap: int) -> Ledger:
    ledger = Ledger(store, snapshot_every=gap)
    cast(SessionView, ledger.sessions.projection).part_versions = every
    return ledger


async def _play(session: Session, operations: list[Any]) -> None:
    count = 0
    for kind, value in operations:
        if kind == "append":
            await session.append([_wire(k, v, count + i) for i, (k, v) in enumerate(value)])
            count += len(value)
        elif count:
            pin = session.pin if kind == "pin" else session.unpin
            await pin([f"m{value % count}"], reason="test")
        await session.latest()  # saves a snapshot when one is due


async def _stored(store: EventStore, stream: str = STREAM) -> tuple[Any, list[bytes]]:
    head = await store.load_snapshot("acme", SessionView.name, stream)
    assert head is not None
    count = len(head_parts(head.state))
    parts = await load_parts(store, "acme", stream, SessionView.name, count)
    assert parts is not None
    return head, parts


@given(
    operations=_history,
    every=st.integers(1, 7),
    gap=st.integers(1, 6),
)
@settings(max_examples=60, deadline=None)
def test_head_and_parts_open_to_the_fold_of_the_log(
    operations: list[Any], every: int, gap: int
) -> None:
    async def check() -> None:
        async with EventStore.open("memory://") as store:
            await _play(_ledger(store, every, gap).session("acme", "s"), operations)
            events = await store.read_stream("acme", STREAM)
            if len(events) >= gap:  # else none was due yet
                head, parts = await _stored(store)
                assert len(parts) == head.version // every
                assert len(events) - head.version < gap  # a cold open folds fewer than gap
                snapshot = decode_state(head.state, parts, every=every)
                rebuilt = SessionView.fold(events[: head.version])
                assert state_digest(snapshot) == state_digest(rebuilt)
            opened = await _ledger(store, every, gap).sessions.current("acme", "s")
            assert state_digest(opened) == state_digest(SessionView.fold(events))

    asyncio.run(check())


@given(operations=_history, data=st.data())
@settings(max_examples=40, deadline=None)
def test_slices_between_any_versions_join_to_the_whole(operations: list[Any], data: Any) -> None:
    async def check() -> None:
        async with EventStore.open("memory://") as store:
            await _play(_ledger(store, 1000, 1000).session("acme", "s"), operations)
            state = SessionView.fold(await store.read_stream("acme", STREAM))
            cuts = sorted(data.draw(st.lists(st.integers(0, state.version), max_size=4)))
            marks = [marks_at(state, v) for v in [0, *cuts]] + [end_marks(state)]
            pieces = [encode_slice(state, a, b) for a, b in itertools.pairwise(marks)]
            whole = encode_slice(state, marks[0], marks[-1])
            assert decode_slices(pieces).keys() == decode_slices([whole]).keys()
            assert _plain(decode_slices(pieces)) == _plain(decode_slices([whole]))

    asyncio.run(check())


def _plain(columns: dict[str, Any]) -> str:
    return json.dumps({k: repr(v) for k, v in columns.items()}, sort_keys=True)


async def _long_session(store: EventStore, every: int = 4) -> Ledger:
    ledger = _ledger(store, every, 3)
    session = ledger.session("acme", "s")
    await session.append([{"id": "sys", "role": "system", "content": "You book flights."}])
    for index in range(8):
        await session.append(lookup(index))
        if index == 2:
            await session.pin(["u1"], reason="the user's reservation")
    await session.latest()
    return ledger


async def test_a_part_is_written_once_and_never_changes(store_url: str) -> None:
    async with EventStore.open(store_url) as store:
        ledger = await _long_session(store)
        _, before = await _stored(store)
        await ledger.session("acme", "s").append(lookup(8) + lookup(9))
        await ledger.session("acme", "s").latest()
        head, after = await _stored(store)
        assert len(after) > len(before) > 0
        assert after[: len(before)] == before
        assert head.version == (await store.stream_head("acme", STREAM)).version
        # The head holds only the rows after its last part: what a save rewrites is bounded
        # by the part size, however long the session (writes amortised O(1)).
        tail = unpacked("q", base64.b64decode(snapshot_to_dict(head.state)["message_versions"]))
        assert tail
        assert all(len(after) * 4 < version <= head.version for version in tail)


async def test_a_forged_part_is_never_served_and_verify_names_it(store_url: str) -> None:
    async with EventStore.open(store_url) as store:
        await _long_session(store)
        honest = await _served(store)
        _head, parts = await _stored(store)
        forged = parts[1].replace(b'"u1"', b'"u9"') if b'"u1"' in parts[1] else parts[1] + b" "
        stored = await store.load_snapshot("acme", part_name(SessionView.name, 1), STREAM)
        assert stored is not None
        await store.save_snapshot(stored.model_copy(update={"state": forged}))  # guard redone
        _, failures = await audit_snapshots(store, "acme")
        assert [f.stream for f in failures] == [STREAM]
        assert "part 1 differs from the digest its head names" in failures[0].reason
        assert await _served(store) == honest


async def test_a_missing_part_means_a_rebuild_from_the_log(store_url: str) -> None:
    async with EventStore.open(store_url) as store:
        await _long_session(store)
        honest = await _served(store)
        head, _parts = await _stored(store)
        # The head edited to name one part more than there is (its guard recomputed).
        raw = snapshot_to_dict(head.state)
        raw["parts"].append("00" * 32)
        await store.save_snapshot(head.model_copy(update={"state": snapshot_from_dict(raw)}))
        _, failures = await audit_snapshots(store, "acme")
        assert "parts missing" in failures[0].reason
        ledger = _ledger(store, 4, 3)
        assert await _served(store, ledger) == honest
        assert ledger.sessions.snapshot_version("acme", "s") == head.version  # saved anew
        assert (await audit_snapshots(store, "acme"))[1] == []


async def test_parts_cut_at_another_size_are_not_added_to(store_url: str) -> None:
    async with EventStore.open(store_url) as store:
        await _long_session(store, every=4)
        honest = await _served(store)
        ledger = _ledger(store, 5, 3)
        assert await _served(store, ledger) == honest
        await ledger.session("acme", "s").append(lookup(8))
        await ledger.session("acme", "s").latest()
        head, parts = await _stored(store)
        assert len(parts) == head.version // 5
        events = await store.read_stream("acme", STREAM)
        rebuilt = SessionView.fold(events[: head.version])
        assert state_digest(decode_state(head.state, parts, every=5)) == state_digest(rebuilt)


async def _served(store: EventStore, ledger: Ledger | None = None) -> str:
    ledger = ledger if ledger is not None else _ledger(store, 4, 3)
    rendered = await ledger.session("acme", "s").render(SERVE, keep_groups=2)
    return json.dumps(rendered.wire, sort_keys=True)


@pytest.mark.parametrize("every", [1, 3])
async def test_an_erasure_drops_the_parts_with_the_head(every: int) -> None:
    async with EventStore.open("memory://") as store:
        ledger = await _long_session(store, every)
        _, parts = await _stored(store)
        assert parts
        events = await store.read_stream("acme", STREAM)
        (target,) = [e for e in events if (e.data or {}).get("message", {}).get("id") == "u3"]
        await ledger.erase("acme", [str(target.event_id)], reason="GDPR", requested_by="dpo")
        names = [part_name(SessionView.name, k) for k in range(len(parts))]
        assert await store.load_snapshots("acme", STREAM, [SessionView.name, *names]) == {}
        await ledger.session("acme", "s").latest()  # rebuilt from the log, saved again
        head, parts = await _stored(store)
        assert parts
        assert all(b'"u3"' not in part for part in [head.state, *parts])


class _Counts:
    """A user's projection with a codec of the earlier protocol (the whole state at once)."""

    name = "message_counts"
    version = 1

    @staticmethod
    def streams(key: str) -> list[str]:
        return [f"session/{key}"]

    @staticmethod
    def initial(tenant_id: str, key: str) -> dict[str, int]:
        return {"messages": 0}

    @staticmethod
    def apply(state: dict[str, int], event: Any, known: Any = None) -> dict[str, int]:
        return {"messages": state["messages"] + (event.type == "MessageAppended")}

    @staticmethod
    def encode(state: dict[str, int]) -> bytes:
        return json.dumps(state).encode()

    @staticmethod
    def decode(data: bytes, tenant_id: str, key: str) -> dict[str, int]:
        return cast(dict[str, int], json.loads(data))


async def test_a_codec_of_the_whole_state_still_snapshots_and_opens(store_url: str) -> None:
    async with EventStore.open(store_url) as store:
        await _long_session(store)
        runner = ProjectionRunner(store, _Counts(), snapshot_every=5)
        assert await runner.current("acme", "s") == {"messages": 33}
        saved = await store.load_snapshot("acme", "message_counts", STREAM)
        assert saved is not None
        assert json.loads(saved.state) == {"messages": 33}
        fresh = ProjectionRunner(store, _Counts(), snapshot_every=5)
        assert await fresh.current("acme", "s") == {"messages": 33}
        assert fresh.snapshot_version("acme", "s") == saved.version


async def test_a_ledger_behind_an_erasure_saves_no_erased_digest(store_url: str) -> None:
    """One ledger holds a masked session cached; another erases a masked result; the first
    appends and saves a snapshot: the erased result's digest is in none of its bytes."""
    async with EventStore.open(store_url) as store:
        first = Ledger(store, snapshot_every=1)
        session = first.session("acme", "agent")
        await session.append([{"id": "sys", "role": "system", "content": "You book flights."}])
        for index in range(8):
            await session.append(lookup(index))
        assert (await session.compact(MASKING, keep_groups=2)).masked > 0
        await session.latest()  # saves a snapshot holding the digests
        head, parts = await _stored(store, "session/agent")
        assert b"RX0003Q" in b"".join([head.state, *parts])
        events = await store.read_stream("acme", "session/agent")
        (result,) = [e for e in events if (e.data or {}).get("message", {}).get("id") == "t3"]
        await Ledger(store).erase("acme", [str(result.event_id)], reason="GDPR", requested_by="dpo")
        await session.append(lookup(8))
        head, parts = await _stored(store, "session/agent")
        assert b"RX0003Q" not in b"".join([head.state, *parts])


async def test_a_cold_open_reads_the_snapshots_event_and_what_follows_in_one_read(
    store_url: str,
) -> None:
    """The snapshot is checked against its own event and the events after it are folded from
    the same read of the stream: a cold open reads the session's stream once."""
    async with EventStore.open(store_url) as store:
        await _long_session(store)
        head, _parts = await _stored(store)
        # Events after the snapshot, appended by a ledger that saves none.
        await Ledger(store, snapshot_every=0).session("acme", "s").append(lookup(8))
        assert (await store.stream_head("acme", STREAM)).version > head.version

        reads: list[tuple[int, int | None]] = []
        read_stream = store.read_stream

        async def counted(tenant_id: str, stream_id: str, **bounds: Any) -> Any:
            if stream_id == STREAM:
                reads.append((bounds.get("from_version", 1), bounds.get("to_version")))
            return await read_stream(tenant_id, stream_id, **bounds)

        store.read_stream = counted  # type: ignore[method-assign]
        ledger = _ledger(store, 4, 3)
        opened = await ledger.session("acme", "s").latest()
        assert reads == [(head.version, None)]
        rebuilt = await ledger.sessions.fold("acme", "s")
        assert state_digest(opened) == state_digest(rebuilt)
