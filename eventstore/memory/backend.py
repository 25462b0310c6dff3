"""Opening the in-memory backend (``memory://``): the reference semantics of every recorder.

A backend is this much: a folder with its recorder and an ``open_recorder(url, options)``
factory, one line in :data:`eventstore.backends.BACKENDS`, and one subclass of the contract
suite in :mod:`eventstore.testing` (tests/eventstore/test_contract.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eventstore.backends import read_options
from eventstore.memory.recorder import MemoryRecorder

__all__ = ["MemoryRecorder", "open_recorder"]


def open_recorder(url: str, options: Mapping[str, Any]) -> MemoryRecorder:
    """A new, empty in-memory log for ``memory://`` (``create`` is accepted and has no effect:
    a memory log is always new)."""
    read_options("memory", url, options, {"create": bool})
    return MemoryRecorder()
