"""Backends for the eventstore contract suite: the memory reference and a SQLite file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from eventstore import EventStore

BACKENDS = ["memory", "sqlite"]


def store_url(backend: str, tmp_path: Path) -> str:
    """The URL of a fresh database of ``backend`` under ``tmp_path``."""
    if backend == "memory":
        return "memory://"
    if backend == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'ledger.db'}"
    raise ValueError(backend)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def store(backend: str, tmp_path: Path) -> AsyncIterator[EventStore]:
    async with EventStore.open(store_url(backend, tmp_path)) as opened:
        yield opened


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[EventStore]:
    async with EventStore.open(tmp_path / "ledger.db") as opened:
        yield opened
