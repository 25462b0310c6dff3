"""Names a package imports on first use (PEP 562): ``import projections`` and the CLI's
start-up stay cheap, and type checkers see the names as the package's ordinary imports.

::

    __getattr__, __dir__ = lazy_exports(__name__, {"Ledger": "projections.ledger"})
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's ``__getattr__`` (import the module that defines a name, keep the value)
    and ``__dir__``, for ``exports``: name -> the module defining it."""

    def attribute(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def names() -> list[str]:
        return sorted(exports)

    return attribute, names
