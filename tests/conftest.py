"""Shared fixtures: backends for the contract suite, and where the corpora live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


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
