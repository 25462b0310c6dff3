"""Shared fixtures: the backends every contract suite runs against (the memory reference, a
SQLite file, a database on a real PostgreSQL server), and where the corpora live."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from eventstore import EventStore
from tests.postgres import fresh_database

ROOT = Path(__file__).resolve().parent.parent

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


def corpora_dir() -> Path:
    """The third-party corpora: ``$CTXLEDGER_CORPORA`` or ``../shared/corpora``."""
    return Path(os.environ.get("CTXLEDGER_CORPORA", ROOT.parent / "shared" / "corpora"))


@pytest.fixture
def corpora() -> Path:
    """The corpora folder; tests that need it skip with a reason when it is absent."""
    path = corpora_dir()
    if not path.is_dir():
        pytest.skip(f"corpora not found at {path} (set CTXLEDGER_CORPORA)")
    return path
