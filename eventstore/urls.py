"""Turn a database URL (or a plain path) into a recorder."""

from __future__ import annotations

import os

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from eventstore.errors import UnsupportedDatabaseError
from eventstore.memory import MemoryRecorder
from eventstore.recorder import Recorder
from eventstore.sql.sqlite import SqliteRecorder

__all__ = ["SUPPORTED_URLS", "recorder_for_url"]

SUPPORTED_URLS = (
    "postgresql+asyncpg://user:password@host:5432/database",
    "sqlite+aiosqlite:///path/to/ledger.db",
    "sqlite:///path/to/ledger.db",
    "path/to/ledger.db",
    "memory://",
)


def recorder_for_url(
    url: str | os.PathLike[str],
    *,
    synchronous: str = "FULL",
    busy_timeout: float = 5.0,
    create: bool = True,
    lock_timeout: float | None = 10.0,
    row_level_security: bool = False,
) -> Recorder:
    """The recorder a URL names.

    Raises:
        UnsupportedDatabaseError: the URL names no backend ctxledger provides.
    """
    text = os.fspath(url)
    if not text:
        raise UnsupportedDatabaseError(_unsupported(text, "the URL is empty"))
    if text in ("memory://", "memory:"):
        return MemoryRecorder()
    if "://" not in text:
        return SqliteRecorder(
            text, synchronous=synchronous, busy_timeout=busy_timeout, create=create
        )
    try:
        parsed = make_url(text)
    except ArgumentError as error:
        raise UnsupportedDatabaseError(_unsupported(text, str(error))) from error
    if parsed.drivername in ("postgresql", "postgresql+asyncpg", "postgres"):
        from eventstore.sql.postgres import PostgresRecorder  # asyncpg is an optional extra

        asyncpg_url = parsed.set(drivername="postgresql+asyncpg").render_as_string(
            hide_password=False
        )
        return PostgresRecorder(
            asyncpg_url,
            create=create,
            lock_timeout=lock_timeout,
            row_level_security=row_level_security,
        )
    if parsed.drivername in ("sqlite", "sqlite+aiosqlite"):
        if not parsed.database:
            raise UnsupportedDatabaseError(_unsupported(text, "it names no database file"))
        return SqliteRecorder(
            parsed.database, synchronous=synchronous, busy_timeout=busy_timeout, create=create
        )
    raise UnsupportedDatabaseError(
        _unsupported(text, f"this version of ctxledger has no {parsed.drivername!r} backend")
    )


def _unsupported(text: str, why: str) -> str:
    shown = text
    if "@" in shown:  # never echo a password
        shown = shown.split("://", 1)[0] + "://…@" + shown.rsplit("@", 1)[1]
    return f"cannot open database {shown!r}: {why}; use one of: {', '.join(SUPPORTED_URLS)}"
