"""Backends for the eventstore contract suite: the memory reference, a SQLite file, and a
database on a real PostgreSQL server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from eventstore import EventStore
from tests.postgres import fresh_database

BACKENDS = ["memory", "sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def store_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """The URL of a fresh, empty database of the backend under test."""
    if backend == "memory":
        yield "memory://"
    elif backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'ledger.db'}"
    else:
        async with fresh_database() as url:
            yield url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[EventStore]:
    async with EventStore.open(store_url) as opened:
        yield opened
