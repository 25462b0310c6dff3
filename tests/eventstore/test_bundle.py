"""Checkpoints, export bundles and the offline verifier: round trips on every backend, and a
malicious store whose every lie the verifier catches."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest

from eventstore import EventStore, NewEvent
from eventstore.bundle import StoreSource, export_bundle, verify_bundle
from eventstore.merkle import ProofError, leaf_hash, verify_inclusion
from eventstore.notes import Checkpoint, Signer, Verifier, checkpoint_body, open_note, sign_note
from eventstore.records import StoredEvent

SIGNER = Signer.generate("acme-audit-2026")
OTHER = Signer.generate("mallory")


async def fill(store: EventStore, tenant: str = "acme", count: int = 300) -> None:
    for start in range(0, count, 50):
        await store.append(
            tenant,
            f"session/{start % 3}",
            [NewEvent(type="E", data={"n": n, "tenant": tenant}) for n in range(start, start + 50)],
        )


async def test_round_trip_with_erasure_and_rotation(store: EventStore) -> None:
    await fill(store)
    first = await store.checkpoint("acme", SIGNER)
    victim = (await store.read_stream("acme", "session/0"))[3]
    await store.erase("acme", [victim.event_id], reason="GDPR", requested_by="dpo")
    await fill(store, count=100)
    rotated = Signer.generate("acme-audit-2027")  # key rotation: a new key signs from now on
    second = await store.checkpoint("acme", rotated)
    assert first.data is not None
    assert second.data is not None
    assert second.data["size"] > first.data["size"]
    source = StoreSource(store)
    keys = [SIGNER.verifier, rotated.verifier]
    full = await export_bundle(source, "acme")
    report = verify_bundle(full, keys)
    assert report.ok, report.failures
    assert report.erased == 1
    assert report.signatures_verified == 2
    one = await export_bundle(source, "acme", stream="session/0")
    report = verify_bundle(one, keys)
    assert report.ok, report.failures
    assert report.events == len([e for e in full["events"] if e["stream_id"] == "session/0"])
    unsigned = verify_bundle(full)
    assert unsigned.ok
    assert not unsigned.signatures_checked
    only_old_key = verify_bundle(full, [SIGNER.verifier])
    assert [f.check for f in only_old_key.failures] == ["signature"]
    assert (await store.verify("acme")).ok


class Malicious(StoreSource):
    """A store that lies in one way, chosen by ``lie``."""

    def __init__(self, store: EventStore, lie: str) -> None:
        super().__init__(store)
        self.lie = lie

    async def events(self, tenant_id: str, last: int) -> list[StoredEvent]:
        events = await super().events(tenant_id, last)
        if self.lie == "drop":
            del events[10]
        elif self.lie == "reorder":
            events[10], events[11] = events[11], events[10]
        elif self.lie == "rewrite":
            events[5] = events[5]._replace(payload=events[5].payload.replace(b"5", b"6"))  # type: ignore[union-attr]
        elif self.lie == "foreign":
            foreign = await super().events("globex", 1)
            events[7] = foreign[0]._replace(position=events[7].position)
        return events

    async def checkpoint_notes(self, tenant_id: str) -> list[str]:
        notes = await super().checkpoint_notes(tenant_id)
        body = open_note(notes[-1], [])[0]
        lines = body.splitlines()
        if self.lie == "inflate":  # a bigger size, re-signed by a key the auditor does not trust
            lines[1] = str(int(lines[1]) + 100)
            notes[-1] = sign_note("\n".join(lines) + "\n", [OTHER])
        elif self.lie == "fork":  # the real key signing a second root for the same size
            forged = Checkpoint(lines[0], int(lines[1]), b"\x07" * 32, "blake3")
            notes.append(sign_note(checkpoint_body(forged), [SIGNER]))
        elif self.lie == "overclaim":  # the real key claiming events that were never exported
            claim = Checkpoint(lines[0], int(lines[1]) + 5, b"\x01" * 32, "blake3")
            notes.append(sign_note(checkpoint_body(claim), [SIGNER]))
        return notes

    async def inclusion_proof(self, tenant_id: str, position: int, size: int) -> list[bytes]:
        proof = await super().inclusion_proof(tenant_id, position, size)
        if self.lie == "inclusion":
            proof[0] = bytes([proof[0][0] ^ 1]) + proof[0][1:]
        return proof

    async def consistency_proof(self, tenant_id: str, size1: int, size2: int) -> list[bytes]:
        if size2 > await self.store.tenant_position(tenant_id):
            return [b"\x03" * 32]  # a lie needs a made-up proof
        proof = await super().consistency_proof(tenant_id, size1, size2)
        if self.lie == "consistency":
            proof = proof[:-1]
        return proof


@pytest.mark.parametrize(
    ("lie", "stream", "checks"),
    [
        ("drop", None, {"missing", "root"}),
        ("reorder", None, {"order", "root"}),
        ("rewrite", None, {"payload"}),
        ("foreign", None, {"tenant"}),
        ("inflate", None, {"signature"}),
        ("fork", None, {"fork"}),
        ("overclaim", None, {"tree size"}),
        ("inclusion", "session/1", {"inclusion"}),
        ("consistency", None, {"consistency"}),
    ],
)
async def test_every_lie_is_caught(
    tmp_path: Any, lie: str, stream: str | None, checks: set[str]
) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        await fill(store)
        await fill(store, "globex", 50)
        await store.checkpoint("acme", SIGNER)
        await fill(store, count=100)
        await store.checkpoint("acme", SIGNER)
        bundle = await export_bundle(Malicious(store, lie), "acme", stream=stream)
        honest = await export_bundle(StoreSource(store), "acme", stream=stream)
    assert verify_bundle(honest, [SIGNER.verifier]).ok
    report = verify_bundle(bundle, [SIGNER.verifier])
    assert not report.ok
    assert checks <= {f.check for f in report.failures}, report.failures


async def test_edits_to_the_bundle_file_are_caught(tmp_path: Any) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        await fill(store)
        await store.checkpoint("acme", SIGNER)
        bundle = await export_bundle(StoreSource(store), "acme")
    envelope = copy.deepcopy(bundle)
    envelope["events"][4]["actor"] = "someone else"
    assert "event hash" in {f.check for f in verify_bundle(envelope).failures}
    size = copy.deepcopy(bundle)
    size["tree_size"] += 1
    assert "tree size" in {f.check for f in verify_bundle(size).failures}
    erased_claim = copy.deepcopy(bundle)
    erased_claim["events"][2]["payload"] = None
    assert "payload" in {f.check for f in verify_bundle(erased_claim).failures}
    assert verify_bundle({"format": "zip"}).failures[0].check == "format"


async def test_tenants_are_separated(tmp_path: Any) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        await fill(store, "acme", 100)
        await fill(store, "globex", 100)
        roots = {t: await store.tree(t).root(100) for t in ("acme", "globex")}
        proof = await store.tree("acme").inclusion_proof(10, 100)
        leaf = await store.tree("acme").leaf(10)
    verify_inclusion(9, 100, leaf, proof, roots["acme"])
    with pytest.raises(ProofError):
        verify_inclusion(9, 100, leaf, proof, roots["globex"])
    # An event hash commits to its tenant, so the same data in another tenant is another leaf.
    assert leaf != leaf_hash(b"\x00" * 32)


def test_notes_reject_tampering() -> None:
    body = checkpoint_body(Checkpoint("ctxledger/acme", 5, b"\x02" * 32, "blake3"))
    note = sign_note(body, [SIGNER])
    assert open_note(note, [SIGNER.verifier]) == (body, [SIGNER.name])
    altered = note.replace("\n5\n", "\n6\n")
    with pytest.raises(Exception, match="does not verify"):
        open_note(altered, [SIGNER.verifier])
    assert base64.b64decode(note.splitlines()[-1].split(" ")[2])[:4] == SIGNER.verifier.key_id


def test_verifier_keys_round_trip() -> None:
    # Base64 keys often hold '+': only the first two separate the fields.
    for _ in range(50):
        verifier = Signer.generate("k").verifier
        assert Verifier.parse(verifier.encode()) == verifier
