"""Fixtures shared by the projections tests."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from projections.demo import run_demo


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's log, written once; tests that use it only read it (a test that writes makes
    its own, as the report test does)."""
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    asyncio.run(run_demo(path))
    return path
