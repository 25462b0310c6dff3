"""Adversarial: a one-stream bundle cannot be sliced. Dropping the first events, the last ones,
or keeping two in the middle was accepted (each remaining event verifies on its own); now the
range is proved from the stream's genesis to the head its checkpoint signs, or the bundle is
reported partial and does not verify unless the auditor accepts that. Also: the ``stream``
label is checked, a public key without any signed checkpoint fails, and an export refuses a
checkpoint of another log."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from eventstore import EventStore, LedgerError
from eventstore.bundle import StoreSource, export_bundle, verify_bundle
from eventstore.notes import open_note, parse_checkpoint
from tests.eventstore.test_bundle import SIGNER, fill

KEYS = [SIGNER.verifier]


async def stream_bundle(store: EventStore) -> tuple[dict[str, Any], str]:
    await fill(store)
    checkpoint = await store.checkpoint("acme", SIGNER)
    assert checkpoint.data is not None
    bundle = await export_bundle(StoreSource(store), "acme", stream="session/0")
    return bundle, checkpoint.data["note"]


SLICES: dict[str, Callable[[list[Any]], list[Any]]] = {
    "drop the first": lambda events: events[3:],
    "drop the last": lambda events: events[:-3],
    "keep two in the middle": lambda events: events[40:42],
}


async def test_the_whole_stream_verifies_and_says_so(store: EventStore) -> None:
    bundle, note = await stream_bundle(store)
    report = verify_bundle(bundle, KEYS, [note])
    assert report.ok, report.failures
    assert report.partial is None
    assert bundle["stream_head"]["count"] >= 3


@pytest.mark.parametrize("cut", SLICES)
async def test_a_sliced_stream_bundle_does_not_verify(store: EventStore, cut: str) -> None:
    bundle, note = await stream_bundle(store)
    sliced = copy.deepcopy(bundle)
    sliced["events"] = SLICES[cut](sliced["events"])
    report = verify_bundle(sliced, KEYS, [note])
    assert not report.ok
    assert report.partial is not None or "range" in {f.check for f in report.failures}
    accepted = verify_bundle(sliced, KEYS, [note], allow_partial=True)
    if cut == "drop the first":  # a prefix missing: partial, accepted only when asked
        assert accepted.ok, accepted.failures
        first, last = sliced["events"][0]["version"], bundle["events"][-1]["version"]
        assert accepted.partial == f"partial: versions {first}–{last} of {last}"
    else:  # the tail missing: the last event is not the signed head, which no option accepts
        assert not accepted.ok
        assert "range" in {f.check for f in accepted.failures}


async def test_the_stream_label_is_checked(store: EventStore) -> None:
    bundle, _ = await stream_bundle(store)
    relabelled = {**bundle, "stream": "session/1"}
    report = verify_bundle(relabelled, KEYS)
    assert not report.ok
    assert "stream" in {f.check for f in report.failures}


async def test_a_public_key_without_a_signed_checkpoint_fails(store: EventStore) -> None:
    await fill(store, count=50)
    report = await store.verify("acme", verifiers=KEYS)
    assert not report.ok
    assert "no checkpoint signed by the given keys" in str(report.failures)
    assert (await store.verify("acme")).ok  # without a key nothing is claimed


async def test_export_refuses_a_checkpoint_of_another_log(store: EventStore) -> None:
    await fill(store, count=100)
    await store.checkpoint("acme", SIGNER)
    await fill(store, "globex", count=50)
    theirs = await store.checkpoint("globex", SIGNER, origin="ctxledger/acme")  # same origin
    assert theirs.data is not None
    foreign = parse_checkpoint(open_note(theirs.data["note"], [])[0])
    with pytest.raises(LedgerError, match="not a checkpoint of tenant acme's log"):
        await export_bundle(StoreSource(store), "acme", trusted=foreign)
    ours = (await store.read_stream("acme", "ledger/checkpoints"))[0]
    assert ours.data is not None
    mine = parse_checkpoint(open_note(ours.data["note"], [])[0])
    assert (await export_bundle(StoreSource(store), "acme", trusted=mine))["consistency"] == []
