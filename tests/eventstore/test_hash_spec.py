"""docs/hash-spec.md is the truth: its vectors match the code, and a verifier written from the
page alone (below, sharing no code with eventstore) accepts what the store writes."""

from __future__ import annotations

import json
import re
import sqlite3
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from blake3 import blake3

from eventstore import EventStore, NewEvent
from eventstore.encoding import canonical_json
from eventstore.hashing import genesis_hash, payload_hash
from eventstore.records import PendingEvent, StreamHead, chain_events

SPEC = Path(__file__).resolve().parents[2] / "docs" / "hash-spec.md"


def spec_vectors() -> dict[str, Any]:
    text = SPEC.read_text(encoding="utf-8")
    match = re.search(r"<!-- hash-spec-vectors -->\s*```json\n(.*?)\n```", text, re.S)
    assert match, "docs/hash-spec.md lost its vectors block"
    vectors: dict[str, Any] = json.loads(match.group(1))
    return vectors


# -- an independent verifier, written from docs/hash-spec.md only -----------------------------


def _derive(context: str, material: bytes) -> bytes:
    return blake3(material, derive_key_context=context).digest()


def _json_string(value: str) -> str:
    # §1: names hold no control characters, so only " and \ need escaping.
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def independent_event_hash(envelope: dict[str, Any]) -> bytes:
    fields = {
        "actor": "null" if envelope["actor"] is None else _json_string(envelope["actor"]),
        "event_id": _json_string(envelope["event_id"]),
        "payload_hash": _json_string(envelope["payload_hash"].hex()),
        "position": str(envelope["position"]),
        "prev_hash": _json_string(envelope["prev_hash"].hex()),
        "recorded_at": _json_string(envelope["recorded_at"]),
        "schema_version": str(envelope["schema_version"]),
        "stream_id": _json_string(envelope["stream_id"]),
        "tenant_id": _json_string(envelope["tenant_id"]),
        "type": _json_string(envelope["type"]),
        "version": str(envelope["version"]),
    }
    header = "{" + ",".join(f'"{key}":{value}' for key, value in sorted(fields.items())) + "}"
    return _derive("ctxledger event v1", envelope["prev_hash"] + header.encode("utf-8"))


def independent_genesis(tenant_id: str, stream_id: str) -> bytes:
    return _derive(
        "ctxledger genesis v1", tenant_id.encode("utf-8") + b"\x00" + stream_id.encode("utf-8")
    )


def independent_verify(database: Path, tenant_id: str) -> int:
    """Verify a tenant straight from the SQLite file; return the number of events checked."""
    connection = sqlite3.connect(database)
    rows = connection.execute(
        "SELECT e.tenant_id, e.stream_id, e.version, e.position, e.event_id, e.type, "
        "e.schema_version, e.recorded_at, e.actor, e.payload_hash, e.prev_hash, e.hash, "
        "p.salt, p.payload FROM events e LEFT JOIN payloads p ON p.event_id = e.event_id "
        "WHERE e.tenant_id = ? ORDER BY e.position",
        (tenant_id,),
    ).fetchall()
    heads: dict[str, tuple[int, bytes]] = {}
    for expected_position, row in enumerate(rows, start=1):
        envelope = dict(
            zip(
                [
                    "tenant_id",
                    "stream_id",
                    "version",
                    "position",
                    "event_id",
                    "type",
                    "schema_version",
                    "recorded_at",
                    "actor",
                    "payload_hash",
                    "prev_hash",
                    "hash",
                ],
                row[:12],
                strict=True,
            )
        )
        envelope["event_id"] = str(uuid.UUID(bytes=envelope["event_id"]))
        # §1: stored as integer microseconds since the epoch, hashed as text.
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=envelope["recorded_at"])
        envelope["recorded_at"] = moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        salt, payload = row[12], row[13]
        assert envelope["position"] == expected_position
        version, previous = heads.get(
            envelope["stream_id"], (0, independent_genesis(tenant_id, envelope["stream_id"]))
        )
        assert envelope["version"] == version + 1
        assert envelope["prev_hash"] == previous
        assert _derive("ctxledger payload v1", salt + payload) == envelope["payload_hash"]
        assert independent_event_hash(envelope) == envelope["hash"]
        heads[envelope["stream_id"]] = (envelope["version"], envelope["hash"])
    stored_heads = {
        stream: (version, digest)
        for stream, version, digest in connection.execute(
            "SELECT stream_id, version, hash FROM stream_heads WHERE tenant_id = ?", (tenant_id,)
        )
    }
    assert stored_heads == heads
    connection.close()
    return len(rows)


# -- the tests ---------------------------------------------------------------------------------


def test_genesis_vectors() -> None:
    for vector in spec_vectors()["genesis"]:
        expected = bytes.fromhex(vector["hash"])
        assert genesis_hash(vector["tenant_id"], vector["stream_id"]) == expected
        assert independent_genesis(vector["tenant_id"], vector["stream_id"]) == expected


def test_event_vectors_match_the_code_and_the_independent_verifier() -> None:
    heads: dict[str, StreamHead] = {}
    for position, vector in enumerate(spec_vectors()["events"]):
        expected = vector["expected"]
        payload = canonical_json(vector["data"])
        assert payload.decode("utf-8") == expected["canonical_payload"]
        salt = bytes.fromhex(vector["salt"])
        assert payload_hash(salt, payload).hex() == expected["payload_hash"]
        stream = vector["stream_id"]
        head = heads.get(stream) or StreamHead.empty(vector["tenant_id"], stream)
        pending = PendingEvent(
            vector["event_id"],
            vector["type"],
            vector["schema_version"],
            vector["actor"],
            payload,
            salt,
            payload_hash(salt, payload),
        )
        (event,) = chain_events(head, position, [pending], vector["recorded_at"])
        assert (event.version, event.position) == (expected["version"], expected["position"])
        assert event.prev_hash.hex() == expected["prev_hash"]
        assert event.hash.hex() == expected["hash"]
        envelope = {
            "tenant_id": vector["tenant_id"],
            "stream_id": stream,
            "version": event.version,
            "position": event.position,
            "event_id": vector["event_id"],
            "type": vector["type"],
            "schema_version": vector["schema_version"],
            "recorded_at": vector["recorded_at"],
            "actor": vector["actor"],
            "payload_hash": bytes.fromhex(expected["payload_hash"]),
            "prev_hash": bytes.fromhex(expected["prev_hash"]),
        }
        assert independent_event_hash(envelope).hex() == expected["hash"]
        heads[stream] = StreamHead(vector["tenant_id"], stream, event.version, event.hash)


async def test_independent_verifier_accepts_a_real_database(tmp_path: Path) -> None:
    database = tmp_path / "ledger.db"
    async with EventStore.open(database) as store:
        for i in range(12):
            await store.append(
                "acme",
                f"session/{i % 3}",
                [
                    NewEvent(
                        type="MessageAppended",
                        data={"content": f'消息 {i} "quoted" \\'},
                        actor=None if i % 2 else "agent",
                    )
                ],
            )
        await store.append("租户", "session/旅行", [NewEvent(type="T", data={"n": 1.5})])
    assert independent_verify(database, "acme") == 12
    assert independent_verify(database, "租户") == 1


def test_merkle_vectors_of_the_spec() -> None:
    from eventstore.merkle import (
        consistency_proof,
        empty_root,
        inclusion_proof,
        leaf_hash,
        root,
        verify_consistency,
        verify_inclusion,
    )

    text = SPEC.read_text(encoding="utf-8")
    match = re.search(r"<!-- merkle-vectors -->\s*```json\n(.*?)\n```", text, re.S)
    assert match, "docs/hash-spec.md lost its Merkle vectors"
    vectors = json.loads(match.group(1))
    leaves = [bytes.fromhex(h) for h in vectors["leaves"]]
    assert empty_root().hex() == vectors["empty_root"]
    assert [root(leaves[:n]).hex() for n in range(1, 9)] == vectors["roots"]

    def subtree(lo: int, hi: int) -> bytes:
        return root(leaves[lo:hi])

    for case in vectors["inclusion"]:
        index, size = case["index"], case["size"]
        proof = [bytes.fromhex(p) for p in case["proof"]]
        assert inclusion_proof(index, size, subtree) == proof
        verify_inclusion(index, size, leaf_hash(leaves[index]), proof, root(leaves[:size]))
    for case in vectors["consistency"]:
        size1, size2 = case["size1"], case["size2"]
        proof = [bytes.fromhex(p) for p in case["proof"]]
        assert consistency_proof(size1, size2, subtree) == proof
        verify_consistency(size1, size2, root(leaves[:size1]), root(leaves[:size2]), proof)
