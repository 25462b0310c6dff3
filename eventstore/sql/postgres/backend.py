"""The PostgreSQL backend (``postgresql+asyncpg://user:password@host:port/database``); needs the
``asyncpg`` driver (``pip install 'ctxledger[postgres]'``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from eventstore.backends import read_options, unsupported
from eventstore.errors import UnsupportedDatabaseError
from eventstore.sql.postgres.recorder import PostgresRecorder

__all__ = ["PostgresRecorder", "open_recorder"]


def _seconds_or_none(value: Any) -> float | None:
    if value is None or (isinstance(value, str) and value.lower() in ("none", "")):
        return None
    seconds = float(value)
    if seconds <= 0:
        raise ValueError("a timeout is a positive number of seconds (or None)")
    return seconds


def _pool_size(value: Any) -> int:
    size = int(value)
    if size < 1:
        raise ValueError("pool_size is at least 1")
    return size


_OPTIONS: dict[str, Callable[[Any], Any]] = {
    "create": bool,
    "lock_timeout": _seconds_or_none,
    "row_level_security": bool,
    "pool_size": _pool_size,
    "lock_handoff": bool,
    "turn_timeout": _seconds_or_none,
}


def open_recorder(url: str, options: Mapping[str, Any]) -> PostgresRecorder:
    """A recorder for a PostgreSQL URL.

    Options (keywords of ``EventStore.open``, or in the URL's query string; the query's other
    parameters go to asyncpg's connect): ``create`` (default true), ``lock_timeout``
    (seconds an append waits for its tenant's lock, default 10; None waits as long as the
    server allows), ``row_level_security`` (default false), ``pool_size`` (default 5) and
    ``lock_handoff`` (default true; false behind a pooler in transaction mode) and
    ``turn_timeout`` (seconds a stalled client may hold its tenant's turn, default 30; None:
    no lease).
    """
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise UnsupportedDatabaseError(unsupported(url, str(error))) from error
    # ctxledger's own options may come in the query string too (keywords win); the rest of it
    # stays in the URL for asyncpg's connect (sslmode, ssl, application_name, ...).
    ours = {key: value for key, value in parsed.query.items() if key in _OPTIONS}
    values = read_options("PostgreSQL", "", {**ours, **options}, _OPTIONS)
    asyncpg_url = (
        parsed.difference_update_query(ours)
        .set(drivername="postgresql+asyncpg")
        .render_as_string(hide_password=False)
    )
    return PostgresRecorder(asyncpg_url, **values)
