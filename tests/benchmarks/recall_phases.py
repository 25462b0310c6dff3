"""Where a render with recall spends its time: the facade's steps timed one by one, for
``python -m tests.benchmarks.bench_recall --phases``.

The steps are the facade's own (``projections.session_reads``): the search index's catch-up,
the search (candidates and BM25, the catch-up included), the candidates' scores (the bodies
they need), the bodies read from the log or the cache, and the pure render (window plans, the
recalled block, assembly). They are wrapped for the length of a ``with`` block, so a renamed
step fails loudly here rather than timing nothing.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import projections.session_reads as reads
from projections.runner import ReadModelRunner

__all__ = ["PHASES", "Phases", "timed_phases"]

#: The steps timed, in the order a render with recall runs them.
PHASES = ("catch_up", "search", "scores", "bodies", "render")


class Phases:
    """Seconds spent in each step since the last :meth:`take`."""

    def __init__(self) -> None:
        self._spent: dict[str, float] = {}

    def add(self, phase: str, seconds: float) -> None:
        self._spent[phase] = self._spent.get(phase, 0.0) + seconds

    def take(self) -> dict[str, float]:
        """The time spent per step since the last call (0 for a step that did not run)."""
        spent, self._spent = self._spent, {}
        return {phase: spent.get(phase, 0.0) for phase in PHASES}


def _timed(phases: Phases, phase: str, step: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return step(*args, **kwargs)
        finally:
            phases.add(phase, time.perf_counter() - began)

    return timed


def _timed_async(
    phases: Phases, phase: str, step: Callable[..., Awaitable[Any]]
) -> Callable[..., Awaitable[Any]]:
    async def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return await step(*args, **kwargs)
        finally:
            phases.add(phase, time.perf_counter() - began)

    return timed


@contextmanager
def timed_phases() -> Iterator[Phases]:
    """Time the facade's steps while the block runs (one process, one event loop)."""
    phases = Phases()
    wrapped: list[tuple[Any, str, Any, bool]] = [
        (ReadModelRunner, "catch_up", "catch_up", True),
        (reads.SessionReads, "_find", "search", True),
        (reads, "recall_needs", "scores", False),
        (reads.SessionReads, "with_bodies", "bodies", True),
        (reads, "render", "render", False),
    ]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _, _ in wrapped]
    for owner, name, phase, is_async in wrapped:
        wrap = _timed_async if is_async else _timed
        setattr(owner, name, wrap(phases, phase, getattr(owner, name)))
    try:
        yield phases
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)
