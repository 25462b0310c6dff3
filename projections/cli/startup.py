"""The console script's start-up: imports run with the cyclic garbage collector paused.

Importing a command allocates hundreds of thousands of long-lived objects (modules, classes,
pydantic schemas, compiled SQL). Each allocation burst triggers the collector, which walks
those objects again and again and finds nothing to free: measured on ``ctxledger context``
over a 1k-message session, 15% of the whole process's CPU. The console script imports with
the collector paused, then freezes what the imports made (``gc.freeze``: moved out of every
generation, never walked again) and resumes collecting, so a long command still frees its
cycles. Imported as a library, ctxledger leaves the caller's collector alone.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["console_script_started", "imports_uncollected"]

_console_script = False


def console_script_started() -> None:
    """Mark this process as the ``ctxledger`` console script (called by its entry point)."""
    global _console_script
    _console_script = True


@contextmanager
def imports_uncollected() -> Iterator[None]:
    """Pause the cyclic collector for the block, then freeze what it allocated.

    A no-op unless :func:`console_script_started` was called: freezing in a host process
    would also keep that host's own uncollected garbage forever.
    """
    if not _console_script:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
