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

__all__ = ["forget_texts", "remembered", "remembered_object"]


class _Cache(Protocol):
    def cache_clear(self) -> None: ...


C = TypeVar("C", bound=_Cache)
_CACHES: list[Callable[[], None]] = []
# Caches that belong to an object with a lifetime (a ledger's body cache): held weakly, so
# registering one never keeps it alive.
_OBJECTS: weakref.WeakSet[_Cache] = weakref.WeakSet()


def remembered(cache: C) -> C:
    """Register an ``lru_cache`` of text, to be emptied by :func:`forget_texts`."""
    _CACHES.append(cache.cache_clear)
    return cache


def remembered_object(cache: C) -> C:
    """Register a cache object (held weakly), to be emptied by :func:`forget_texts`."""
    _OBJECTS.add(cache)
    return cache


def forget_texts() -> None:
    """Empty every registered cache (after an erasure)."""
    for clear in _CACHES:
        clear()
    for cache in list(_OBJECTS):
        cache.cache_clear()
