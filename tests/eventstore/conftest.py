"""Fixtures of the eventstore tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.postgres import fresh_database


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    """A fresh database on the test server (skips, or fails under CI=true, without one)."""
    async with fresh_database() as url:
        yield url
