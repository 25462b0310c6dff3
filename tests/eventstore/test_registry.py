"""Event types: schema versions, validation on append, upcasting on read only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from eventstore import (
    EventStore,
    EventTypeRegistry,
    EventValidationError,
    NewEvent,
    SchemaVersionError,
    UnknownEventTypeError,
)


class Greeting(BaseModel):
    text: str
    language: str


def add_language(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "language": "en"}


async def test_upcasting_on_read_keeps_stored_bytes(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        (old,) = await store.append("acme", "s", [NewEvent(type="Greeting", data={"text": "hi"})])
    registry = EventTypeRegistry()
    registry.register("Greeting", schema_version=2, model=Greeting, upcasters={1: add_language})
    async with EventStore.open(path, registry=registry) as store:
        (read,) = await store.read_stream("acme", "s")
        assert read.data == {"text": "hi", "language": "en"}
        assert (read.schema_version, read.data_schema_version) == (1, 2)
        assert read.payload_hash == old.payload_hash
        (new,) = await store.append(
            "acme", "s", [NewEvent(type="Greeting", data={"text": "你好", "language": "zh"})]
        )
        assert new.schema_version == 2
        with pytest.raises(EventValidationError, match="is not a valid Greeting"):
            await store.append("acme", "s", [NewEvent(type="Greeting", data={"text": 1})])
        assert (await store.verify("acme")).ok


async def test_newer_stored_schema_is_refused_on_read(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    newer = EventTypeRegistry()
    newer.register("Greeting", schema_version=3, upcasters={1: add_language, 2: add_language})
    async with EventStore.open(path, registry=newer) as store:
        await store.append("acme", "s", [NewEvent(type="Greeting", data={"text": "hi"})])
    older = EventTypeRegistry()
    older.register("Greeting", schema_version=2, upcasters={1: add_language})
    async with EventStore.open(path, registry=older) as store:
        with pytest.raises(SchemaVersionError, match=r"schema version 3.*at most version 2"):
            await store.read_stream("acme", "s")


async def test_strict_registry_refuses_unknown_types(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    async with EventStore.open(path) as store:
        await store.append("acme", "s", [NewEvent(type="Mystery", data={})])
    strict = EventTypeRegistry(strict=True)
    strict.register("Known")
    async with EventStore.open(path, registry=strict) as store:
        with pytest.raises(UnknownEventTypeError, match="'Mystery' is not registered"):
            await store.read_stream("acme", "s")
        with pytest.raises(UnknownEventTypeError):
            await store.append("acme", "s", [NewEvent(type="Other", data={})])
        await store.append("acme", "t", [NewEvent(type="Known", data={})])
        assert (await store.verify("acme")).ok  # verification needs no registry


def test_registration_errors() -> None:
    registry = EventTypeRegistry()
    registry.register("A")
    with pytest.raises(ValueError, match="registered already"):
        registry.register("A")
    with pytest.raises(ValueError, match=r"needs upcasters from versions \[2\]"):
        registry.register("B", schema_version=3, upcasters={1: add_language})
    assert registry.names() == ["A"]
    assert "A" in registry
