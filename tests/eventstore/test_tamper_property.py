"""Property: any single-byte change in any stored column of the log is detected by ``verify``."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.eventstore.tamper import TENANT, build_log, raw, verify

# Every column the audit depends on, with the primary key that finds its row.
KEYS = {
    "events": "tenant_id, position",
    "payloads": "event_id",
    "erasures": "event_id",
    "stream_heads": "tenant_id, stream_id",
    "tenant_heads": "tenant_id",
}
COLUMNS = [
    ("events", column)
    for column in (
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
    )
] + [("payloads", column) for column in ("event_id", "tenant_id", "salt", "payload")]
COLUMNS += [("erasures", column) for column in ("event_id", "tenant_id", "erased_by")]
COLUMNS += [("stream_heads", column) for column in ("tenant_id", "stream_id", "version", "hash")]
COLUMNS += [("tenant_heads", column) for column in ("tenant_id", "position")]


@pytest.fixture(scope="module")
def base_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("base") / "ledger.db"

    async def build() -> None:
        from eventstore import EventStore

        await build_log(path, events=8, streams=3)
        async with EventStore.open(path) as store:
            (first,) = await store.read_stream(TENANT, "session/1", to_version=1)
            await store.erase(TENANT, [first.event_id], reason="test", requested_by="dpo")

    asyncio.run(build())
    return path


def flip(value: object, index: int, mask: int) -> object:
    """Change exactly one byte of a stored value."""
    if isinstance(value, int):
        data = bytearray(struct.pack(">q", value))
        data[index % 8] ^= mask
        return struct.unpack(">q", bytes(data))[0]
    data = bytearray(value.encode("utf-8") if isinstance(value, str) else value)  # type: ignore[attr-defined]
    data[index % len(data)] ^= mask
    if isinstance(value, str):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return bytes(data)  # stored as a BLOB: still one changed byte
    return bytes(data)


@settings(
    max_examples=int(os.environ.get("CTXLEDGER_TAMPER_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    column=st.sampled_from(COLUMNS),
    row=st.integers(min_value=0, max_value=1000),
    index=st.integers(min_value=0, max_value=4000),
    mask=st.integers(min_value=1, max_value=255),
)
def test_any_single_byte_change_is_detected(
    base_log: Path,
    tmp_path_factory: pytest.TempPathFactory,
    column: tuple[str, str, str],
    row: int,
    index: int,
    mask: int,
) -> None:
    table, name = column
    key = KEYS[table]
    width = key.count(",") + 1
    path = tmp_path_factory.mktemp("mutant") / "ledger.db"
    shutil.copy(base_log, path)
    connection = raw(path)
    rows = connection.execute(
        f"SELECT {key}, {name} FROM {table} WHERE {name} IS NOT NULL AND tenant_id = ? "
        f"ORDER BY {key}",
        (TENANT,),
    ).fetchall()
    assert rows, f"no rows in {table}"
    *identity, value = rows[row % len(rows)]
    changed = flip(value, index, mask)
    match = " AND ".join(f"{part.strip()} = ?" for part in key.split(","))
    assert len(identity) == width
    try:
        connection.execute(f"UPDATE {table} SET {name} = ? WHERE {match}", (changed, *identity))
    except sqlite3.IntegrityError:
        return  # the change collides with a unique key: the database itself refuses it
    finally:
        connection.close()
    report = verify(path)
    assert not report.ok, f"undetected: {table}.{name} of {identity}: {value!r} -> {changed!r}"
