"""Database URL -> backend: one table, and each backend parses its own URL and options.

``BACKENDS`` maps a URL scheme to the ``module:function`` that opens it; the module is imported
only when its scheme is used, so an optional driver (asyncpg) is needed only by its backend,
and opening SQLite never imports PostgreSQL code. A plain file path is a SQLite database.

Options reach a backend as keyword arguments of :meth:`EventStore.open` or as the URL's query
string (``ledger.db?synchronous=NORMAL``); each backend declares the options it takes with
:func:`read_options`, and anything else is refused with the list of what it does take.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl

from eventstore.errors import UnsupportedDatabaseError
from eventstore.recorder import Recorder

__all__ = ["BACKENDS", "SUPPORTED_URLS", "open_recorder", "read_options", "safe_url", "unsupported"]

#: URL scheme -> ``"module:function"``; the function takes ``(url, options)``.
BACKENDS: dict[str, str] = {
    "memory": "eventstore.memory.backend:open_recorder",
    "sqlite": "eventstore.sql.sqlite.backend:open_recorder",
    "sqlite+aiosqlite": "eventstore.sql.sqlite.backend:open_recorder",
    "postgresql": "eventstore.sql.postgres.backend:open_recorder",
    "postgresql+asyncpg": "eventstore.sql.postgres.backend:open_recorder",
    "postgres": "eventstore.sql.postgres.backend:open_recorder",
}

SUPPORTED_URLS = (
    "postgresql+asyncpg://user:password@host:5432/database",
    "sqlite+aiosqlite:///path/to/ledger.db",
    "sqlite:///path/to/ledger.db",
    "path/to/ledger.db",
    "memory://",
)

BackendFactory = Callable[[str, Mapping[str, Any]], Recorder]


def open_recorder(url: str | os.PathLike[str], options: Mapping[str, Any]) -> Recorder:
    """The recorder a URL names, configured with ``options``.

    Raises:
        UnsupportedDatabaseError: the URL names no backend, or an option is not the backend's.
    """
    given: object = url  # an untyped caller may pass anything: name it, not a bare TypeError
    text = os.fspath(given) if isinstance(given, (str, os.PathLike)) else given
    if not isinstance(text, str):
        found = type(text).__name__
        raise UnsupportedDatabaseError(
            unsupported(repr(url), f"expected a URL or a path (str or os.PathLike), found {found}")
        )
    if not text:
        raise UnsupportedDatabaseError(unsupported(text, "the URL is empty"))
    scheme = text.split("://", 1)[0].lower() if "://" in text else "sqlite"
    if text in ("memory:", "memory://"):
        scheme = "memory"
    target = BACKENDS.get(scheme)
    if target is None:
        raise UnsupportedDatabaseError(
            unsupported(text, f"this version of ctxledger has no {scheme!r} backend")
        )
    module, function = target.split(":")
    factory: BackendFactory = getattr(importlib.import_module(module), function)
    return factory(text, options)


def read_options(
    backend: str,
    url: str,
    given: Mapping[str, Any],
    spec: Mapping[str, Callable[[Any], Any]],
) -> dict[str, Any]:
    """The options of a backend: keyword options and the URL's query string, converted.

    Args:
        backend: the backend's name, for messages.
        url: the URL; its query string (after ``?``) adds options given as text.
        given: keyword options of :meth:`EventStore.open` (they win over the URL's).
        spec: option name -> converter (``bool`` accepts ``true/false/1/0/yes/no`` as text).

    Raises:
        UnsupportedDatabaseError: an option the backend does not take, or a value that does
            not convert.
    """
    merged: dict[str, Any] = dict(parse_qsl(url.split("?", 1)[1])) if "?" in url else {}
    merged.update(given)
    unknown = sorted(set(merged) - set(spec))
    if unknown:
        raise UnsupportedDatabaseError(
            f"the {backend} backend has no option {', '.join(map(repr, unknown))}; its options "
            f"are: {', '.join(sorted(spec)) or 'none'}"
        )
    values: dict[str, Any] = {}
    for name, raw in merged.items():
        convert = _as_bool if spec[name] is bool else spec[name]
        try:
            values[name] = None if raw is None else convert(raw)
        except (TypeError, ValueError) as error:
            raise UnsupportedDatabaseError(
                f"option {name!r} of the {backend} backend cannot be {raw!r}: {error}"
            ) from error
    return values


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected true or false")


def safe_url(url: str) -> str:
    """The URL without its password (for messages)."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"


def unsupported(text: str, why: str) -> str:
    """The message for a URL that cannot be opened, with the forms that can."""
    forms = ", ".join(SUPPORTED_URLS)
    return f"cannot open database {safe_url(text)!r}: {why}; use one of: {forms}"
