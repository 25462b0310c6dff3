"""Where a render with recall spends its time: the facade's steps timed one by one, for
``python -m tests.benchmarks.bench_recall --phases``.

The steps are the facade's own (``projections.session_reads``): the search index's catch-up,
the search (candidates and BM25, the catch-up included), the candidates' scores (the bodies
they need), the bodies read from the log or the cache, and the pure render (window plans, the
recalled block, assembly). They are wrapped for the length of a ``with`` block, so a renamed
step fails loudly here rather than timing nothing.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import projections.session_reads as reads
from projections.read_model_runner import ReadModelRunner

__all__ = ["PHASES", "Phases", "timed_phases"]

#: The steps timed, in the order a render with recall runs them.
PHASES = ("catch_up", "search", "scores", "bodies", "render")


class Phases:
    """Seconds spent in each step since the last :meth:`take`."""

    def __init__(self) -> None:
        self._spent: dict[str, float] = {}

    @contextmanager
    def clock(self, phase: str) -> Iterator[None]:
        """Add the block's time to ``phase``."""
        began = time.perf_counter()
        try:
            yield
        finally:
            self._spent[phase] = self._spent.get(phase, 0.0) + time.perf_counter() - began

    def take(self) -> dict[str, float]:
        """The time spent per step since the last call (0 for a step that did not run)."""
        spent, self._spent = self._spent, {}
        return {phase: spent.get(phase, 0.0) for phase in PHASES}


def _timed(phases: Phases, phase: str, step: Callable[..., Any]) -> Callable[..., Any]:
    """``step`` (a function or a coroutine function) with its time added to ``phase``."""
    if inspect.iscoroutinefunction(step):

        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            with phases.clock(phase):
                return await step(*args, **kwargs)

        return timed_async

    def timed(*args: Any, **kwargs: Any) -> Any:
        with phases.clock(phase):
            return step(*args, **kwargs)

    return timed


@contextmanager
def timed_phases() -> Iterator[Phases]:
    """Time the facade's steps while the block runs (one process, one event loop)."""
    phases = Phases()
    steps: list[tuple[Any, str, str]] = [
        (ReadModelRunner, "catch_up", "catch_up"),
        (reads.SessionReads, "_find", "search"),
        (reads, "recall_needs", "scores"),
        (reads.SessionReads, "with_bodies", "bodies"),
        (reads, "render", "render"),
    ]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in steps]
    for owner, name, phase in steps:
        setattr(owner, name, _timed(phases, phase, getattr(owner, name)))
    try:
        yield phases
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)
