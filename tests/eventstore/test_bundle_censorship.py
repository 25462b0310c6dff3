"""Adversarial bundle tests: censorship passed off as erasure, dropped checkpoints, and bundles
cut from a truncated or old copy of the log, each caught offline and located."""

from __future__ import annotations

import copy
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from eventstore import EventStore, LedgerError
from eventstore.bundle import StoreSource, export_bundle, verify_bundle
from tests.eventstore.test_bundle import SIGNER, fill

KEYS = [SIGNER.verifier]


async def _checkpointed(path: Path) -> tuple[EventStore, list[str]]:
    store = EventStore.open(path)
    await fill(store)
    first = await store.checkpoint("acme", SIGNER)
    await fill(store, count=100)
    second = await store.checkpoint("acme", SIGNER)
    assert first.data is not None
    assert second.data is not None
    return store, [first.data["note"], second.data["note"]]


def _checks(bundle: dict[str, Any], trusted: list[str] | None = None) -> set[str]:
    return {f.check for f in verify_bundle(bundle, KEYS, trusted or []).failures}


async def test_an_erased_flag_without_payload_erased_is_censorship(tmp_path: Path) -> None:
    store, _ = await _checkpointed(tmp_path / "ledger.db")
    async with store:
        bundle = await export_bundle(StoreSource(store), "acme")
    forged = copy.deepcopy(bundle)
    forged["events"][7].update(payload=None, salt=None, erased=True)
    report = verify_bundle(forged, KEYS)
    (failure,) = report.failures
    assert failure.check == "erasure"
    assert failure.position == 8
    assert "censorship" in failure.detail


async def test_genuine_erasures_are_explained_in_full_and_stream_bundles(tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        await fill(store)
        victim = (await store.read_stream("acme", "session/0"))[3]
        await store.erase("acme", [victim.event_id], reason="GDPR", requested_by="dpo")
        await store.checkpoint("acme", SIGNER)
        full = await export_bundle(StoreSource(store), "acme")
        one = await export_bundle(StoreSource(store), "acme", stream="session/0")
    assert verify_bundle(full, KEYS).ok
    report = verify_bundle(one, KEYS)
    assert report.ok, report.failures
    assert report.erased == 1
    assert [e["type"] for e in one["erasures"]] == ["PayloadErased"]
    stripped = copy.deepcopy(one)
    stripped["erasures"] = []
    assert "erasure" in _checks(stripped)
    forged = copy.deepcopy(one)
    forged["erasures"][0]["reason"] = "x"  # unknown keys are ignored; edit what is hashed
    forged["erasures"][0]["actor"] = "mallory"
    assert "event hash" in _checks(forged)


async def test_export_refuses_a_payload_deleted_behind_the_store(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    store, _ = await _checkpointed(path)
    async with store:
        pass
    connection = sqlite3.connect(path, isolation_level=None)
    for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
        connection.execute(f"DROP TRIGGER {name}")
    connection.execute(
        "DELETE FROM payloads WHERE event_id = (SELECT event_id FROM events WHERE position = 9)"
    )
    connection.close()
    async with EventStore.open(path) as store:
        with pytest.raises(LedgerError, match=r"position 9\) has no payload and no PayloadErased"):
            await export_bundle(StoreSource(store), "acme")
        report = await store.verify("acme")
    assert [f.position for f in report.failures] == [9]


async def test_a_dropped_checkpoint_is_caught(tmp_path: Path) -> None:
    store, _ = await _checkpointed(tmp_path / "ledger.db")
    async with store:
        bundle = await export_bundle(StoreSource(store), "acme")
    dropped = copy.deepcopy(bundle)
    dropped["checkpoints"] = dropped["checkpoints"][1:]
    dropped["consistency"] = []
    assert "checkpoint" in _checks(dropped)
    erased = copy.deepcopy(bundle)
    checkpoint_event = next(e for e in erased["events"] if e["type"] == "CheckpointRecorded")
    checkpoint_event.update(payload=None, salt=None, erased=True)
    assert "erasure" in _checks(erased)


async def test_a_bundle_of_a_truncated_log_fails_the_trusted_checkpoint(tmp_path: Path) -> None:
    """An old copy of the log (before the second checkpoint) exports a bundle that verifies
    alone; the auditor's copy of the second checkpoint shows it ends too soon."""
    old = tmp_path / "old.db"
    async with EventStore.open(old) as store:
        await fill(store)
        await store.checkpoint("acme", SIGNER)
        stale = await export_bundle(StoreSource(store), "acme")
        await fill(store, count=100)
        newer = await store.checkpoint("acme", SIGNER)
        assert newer.data is not None
        current = await export_bundle(StoreSource(store), "acme")
        one = await export_bundle(
            StoreSource(store), "acme", stream="session/1", trusted_size=newer.data["size"]
        )
    published = newer.data["note"]
    assert verify_bundle(stale, KEYS).ok
    assert "trusted checkpoint" in _checks(stale, [published])
    assert verify_bundle(current, KEYS, [published]).ok
    assert verify_bundle(one, KEYS, [published]).ok


async def test_a_stream_bundle_proves_it_extends_an_older_trusted_checkpoint(
    tmp_path: Path,
) -> None:
    store, notes = await _checkpointed(tmp_path / "ledger.db")
    async with store:
        plain = await export_bundle(StoreSource(store), "acme", stream="session/2")
    assert verify_bundle(plain, KEYS, [notes[0]]).ok  # its size is one of the bundle's
    rolled = copy.deepcopy(plain)
    rolled["consistency"] = []
    assert "consistency" in _checks(rolled, [notes[0]])
