"""Caches of text in process memory, forgotten when an erasure is seen.

Rolling compaction cleans, renders and judges the same texts again and again, so a few pure
functions remember their results (``functools.lru_cache``). Those results hold message text,
and an erased message's text must not outlive its erasure anywhere ctxledger keeps it: every
such cache is registered here, and :func:`forget_texts` empties them all when the ledger sees
a tenant's erasure stream move (``projections.runner``) or erases itself.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Protocol, TypeVar

__all__ = ["forget_texts", "forgotten", "remembered", "remembered_object"]


class _Cache(Protocol):
    def cache_clear(self) -> None: ...


C = TypeVar("C", bound=_Cache)
_CACHES: list[Callable[[], None]] = []
# Caches that belong to an object with a lifetime (a ledger's body cache): held weakly, so
# registering one never keeps it alive.
_OBJECTS: weakref.WeakSet[_Cache] = weakref.WeakSet()
_FORGOTTEN = [0]  # how many times forget_texts has run (a list: no global statement)


def remembered(cache: C) -> C:
    """Register an ``lru_cache`` of text, to be emptied by :func:`forget_texts`."""
    _CACHES.append(cache.cache_clear)
    return cache


def remembered_object(cache: C) -> C:
    """Register a cache object (held weakly), to be emptied by :func:`forget_texts`."""
    _OBJECTS.add(cache)
    return cache


def forgotten() -> int:
    """How many times :func:`forget_texts` has run in this process. A cache filled by a read
    compares it before and after the read: text read before an erasure and offered to the
    cache after it (the erasure ran while the read was awaited) may hold erased text, and is
    served but not kept."""
    return _FORGOTTEN[0]


def forget_texts() -> None:
    """Empty every registered cache (after an erasure)."""
    _FORGOTTEN[0] += 1
    for clear in _CACHES:
        clear()
    for cache in list(_OBJECTS):
        cache.cache_clear()
