"""The SQLite backend (``sqlite:///path``, ``sqlite+aiosqlite:///path`` or a plain path)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eventstore.backends import read_options, unsupported
from eventstore.errors import UnsupportedDatabaseError
from eventstore.sql.sqlite.recorder import SYNCHRONOUS_MODES, SqliteRecorder

__all__ = ["SYNCHRONOUS_MODES", "SqliteRecorder", "open_recorder"]

_OPTIONS = {
    "synchronous": str,
    "busy_timeout": float,
    "create": bool,
    "journal_wal": bool,
    "read_only": bool,
}


def open_recorder(url: str, options: Mapping[str, Any]) -> SqliteRecorder:
    """A recorder for a SQLite URL or plain path.

    Options (keywords of ``EventStore.open`` or the URL's query string): ``synchronous``
    (``OFF``/``NORMAL``/``FULL``/``EXTRA``, default ``FULL``), ``busy_timeout`` (seconds, 5),
    ``create`` (default true), ``journal_wal`` (default true) and ``read_only`` (default false:
    open with ``mode=ro``, never writing, for tools that only read or verify).
    """
    path = _path_of(url)
    values = read_options("SQLite", url, options, _OPTIONS)
    try:
        return SqliteRecorder(path, **values)
    except ValueError as error:
        raise UnsupportedDatabaseError(f"cannot open SQLite database {path}: {error}") from error


def _path_of(url: str) -> str:
    text = url.split("?", 1)[0]
    if "://" not in text:
        return text
    rest = text.split("://", 1)[1]
    if not rest.startswith("/") or rest == "/":
        raise UnsupportedDatabaseError(unsupported(url, "it names no database file"))
    return rest[1:]
