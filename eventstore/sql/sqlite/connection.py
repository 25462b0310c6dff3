"""The one seam between the SQLite recorder and its driver.

Each operation is one plain function that runs whole in the aiosqlite worker thread that owns
the ``sqlite3`` connection, submitted through ``aiosqlite.Connection._execute`` (the worker
queue aiosqlite's own methods feed): with aiosqlite every statement is a hop to that thread
and back, and the hops, not SQL or hashing, dominate an append (DESIGN §8).

Connections are aiosqlite's own, opened here, not through a SQLAlchemy engine: every statement
already ran as raw ``sqlite3`` in the worker, and the engine's import cost more CPU than a
CLI read's whole work (DESIGN §8; the SQL is compiled from Core ahead of time,
:mod:`eventstore.sql.sqlite.statement_source`).

Driver errors become ctxledger errors here and nowhere else, by SQLite's result code (never by
the text of a message): :data:`RESULT_CODES`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import aiosqlite

from eventstore.errors import LedgerError, StorageError

__all__ = ["RESULT_CODES", "check_path", "connect", "run_in_worker", "storage_error"]

T = TypeVar("T")
P = ParamSpec("P")

# SQLite's primary result codes (https://sqlite.org/rescode.html) and what to tell the user.
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN = 5, 6, 8, 10, 11, 13, 14
_CONSTRAINT, _NOTADB = 19, 26
_CONSTRAINT_TRIGGER = 1811  # extended code: a trigger's RAISE(ABORT, ...)

RESULT_CODES: dict[int, str] = {
    _BUSY: "stayed locked by another writer longer than the busy timeout; retry the "
    "operation, or open the store with a larger busy_timeout",
    _LOCKED: "is locked by another connection of this process; retry the operation",
    _READONLY: "is read-only (file permissions, a read-only mount, or opened with "
    "read_only=True); this operation writes: copy the file somewhere writable",
    _IOERR: "could not be read or written (an I/O error of the file system)",
    _CORRUPT: "is damaged (the file is corrupt); restore it from a backup",
    _FULL: "cannot grow: the disk is full",
    _CANTOPEN: "cannot be opened: check that the path is a file in an existing directory "
    "that this process may write",
    _NOTADB: "is not a SQLite database; choose another file",
}


def storage_error(path: str, error: sqlite3.Error) -> StorageError:
    """The ctxledger error for a driver error, chosen by result code."""
    extended = getattr(error, "sqlite_errorcode", None)
    if extended == _CONSTRAINT_TRIGGER:
        return StorageError(f"the database refused a change to {path}: {error}")
    advice = RESULT_CODES.get(extended & 0xFF) if isinstance(extended, int) else None
    if advice is not None:
        return StorageError(f"SQLite database {path} {advice} ({error})")
    name = getattr(error, "sqlite_errorname", type(error).__name__)
    return StorageError(f"SQLite error on {path}: {name}: {error}")


def check_path(path: str, *, create: bool) -> None:
    """Refuse a missing file (unless creating) or a missing directory, before SQLite would
    create or fail obscurely."""
    if path == ":memory:":
        return
    target = Path(path).expanduser()
    if target.is_dir():
        raise StorageError(f"{path} is a directory, not a database file: choose a file path")
    if not create and not target.is_file():
        raise StorageError(
            f"there is no database at {path}: check the path (--db or CTXLEDGER_DB); nothing "
            f"was created"
        )
    parent = target.resolve().parent
    if not parent.is_dir():
        raise StorageError(
            f"cannot open SQLite database {path}: directory {parent} does not exist; create it "
            f"first or choose another path"
        )


async def connect(
    database: str, path: str, *, busy_timeout: float, synchronous: str, uri: bool = False
) -> aiosqlite.Connection:
    """A connection to ``database`` (``path``, or a ``file:`` URI when ``uri``) in autocommit
    mode at the driver (every transaction an explicit ``BEGIN ... COMMIT``), configured, with
    driver errors translated. Opened and configured in one hop to its worker thread (a hop
    costs about as much as the pragmas: most of a cold open's first connection)."""

    def opened() -> sqlite3.Connection:
        db = sqlite3.connect(database, timeout=busy_timeout, isolation_level=None, uri=uri)
        try:
            _configure(db, synchronous)
        except BaseException:
            db.close()
            raise
        return db

    pending = aiosqlite.Connection(opened, iter_chunk_size=64)
    _daemon(pending)
    try:
        return await pending  # a failed open stops the worker thread (aiosqlite's _connect)
    except sqlite3.Error as error:
        raise storage_error(path, error) from error


def _daemon(connection: aiosqlite.Connection) -> None:
    """Make the connection's worker thread a daemon (as SQLAlchemy's adapter did): a store a
    program forgot to close must not keep the process from exiting."""
    thread: Any = getattr(connection, "_thread", connection)  # aiosqlite < 0.21: a Thread
    thread.daemon = True


def _configure(db: sqlite3.Connection, synchronous: str) -> None:
    db.execute(f"PRAGMA synchronous={synchronous}")
    # Deleted content (an erased payload, its index rows) is overwritten with zeros, not left
    # in free pages; builds differ in their default, so never rely on it.
    db.execute("PRAGMA secure_delete=ON")


async def run_in_worker(
    connection: aiosqlite.Connection,
    path: str,
    fn: Callable[Concatenate[sqlite3.Connection, P], T],
    *args: P.args,
    **kwargs: P.kwargs,
) -> T:
    """Run ``fn(sqlite3_connection, *args, **kwargs)`` in the connection's worker thread."""
    driver = connection
    if not hasattr(driver, "_execute"):
        raise StorageError(
            "this aiosqlite version has no worker queue (Connection._execute); "
            "install aiosqlite>=0.20,<0.23 as ctxledger's requirements say"
        )
    database: sqlite3.Connection = driver._conn

    def in_thread() -> T:
        return fn(database, *args, **kwargs)

    try:
        result: T = await driver._execute(in_thread)  # type: ignore[no-untyped-call]
    except LedgerError:
        raise
    except sqlite3.Error as error:
        raise storage_error(path, error) from error
    return result
