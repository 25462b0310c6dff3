"""The shipped contract suite (eventstore.testing), run against every backend in the repo.

A backend is one folder, one line of ``eventstore.backends.BACKENDS`` and one subclass here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from eventstore.testing import EventStoreContract
from tests.postgres import fresh_database


class TestMemoryBackend(EventStoreContract):
    @pytest.fixture
    def store_url(self) -> str:
        return "memory://"


class TestSqliteBackend(EventStoreContract):
    @pytest.fixture
    def store_url(self, tmp_path: Path) -> str:
        return f"sqlite+aiosqlite:///{tmp_path / 'ledger.db'}"


class TestPostgresBackend(EventStoreContract):
    @pytest.fixture
    async def store_url(self) -> AsyncIterator[str]:
        async with fresh_database() as url:
            yield url
