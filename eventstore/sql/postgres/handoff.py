"""The lock hand-off: a PostgreSQL append in two autocommit statements instead of four round
trips (``BEGIN``, lock, write, ``COMMIT``), with the same gap-free, commit-ordered positions.

Two advisory locks per tenant, keyed by a hash of the tenant id:

- the *turn* (session level): one writer at a time holds it from its ``enter`` statement to
  its ``write`` statement, so writers queue on the server instead of retrying;
- the *commit* lock (transaction level): a ``write`` takes it exclusively, then hands the turn
  on, and holds it until it commits; ``enter`` takes it shared, so the next writer reads the
  heads only once its predecessor's commit is visible (PostgreSQL makes a commit visible
  before it releases the transaction's locks).

So the next writer's ``enter`` is already waiting while the predecessor commits, and the
holder of the turn is scheduled once per append instead of twice. As a second line, ``write``
moves the tenant's head row only from the position ``enter`` read (a guarded ``UPDATE``, which
waits for the row lock of a writer of the transaction protocol and then sees its commit) and
refuses with SQLSTATE 40001 if it moved: a writer of that protocol (an erasure,
``lock_handoff=False``, an older release) never interleaves unnoticed; the append enters
again.

The turn is a session lock across two statements, so the hand-off needs the same server
session for both: not PgBouncer in transaction mode (use ``lock_handoff=False`` there). The
``write`` statement checks that it runs in the session that took the turn.

Between the two statements the session is idle, not "idle in transaction", so
``idle_in_transaction_session_timeout`` would never free a turn whose client stalled (stopped,
swapped out, partitioned away): every writer of the tenant would wait. So ``enter`` also sets
the session's ``idle_session_timeout`` to the *turn lease* (``turn_timeout``, PostgreSQL 14+),
and ``write`` and ``leave`` put the previous value back: a client idle that long while holding
the turn is disconnected by the server, which releases its session locks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from eventstore.errors import StorageError
from eventstore.records import PendingEvent, StoredEvent, StreamHead, chain_events
from eventstore.sql.postgres.log import AppendOptions, event_columns, raise_if_duplicate
from eventstore.timestamps import parse_timestamp, timestamp_now

if TYPE_CHECKING:
    import asyncpg

__all__ = ["HeadMoved", "append", "enter", "give_back", "leave", "write"]


_MAX_ENTRIES = 1000  # re-entries after HeadMoved before giving up (each one saw progress)
_TWO_SESSIONS = "55000"  # object_not_in_prerequisite_state, raised by ctxledger_write


_ENTER = "SELECT * FROM ctxledger_enter($1, $2, $3, $4)"
# The lease: the session's idle timeout kept in ctxledger.idle_before (once: a re-entry after
# HeadMoved keeps the first value), then set to the lease; _END_LEASE puts it back. Columns of
# a select list are evaluated in order, after the function in FROM has taken the turn.
_ENTER_WITH_LEASE = (
    "SELECT e.*, set_config('ctxledger.idle_before', coalesce(nullif(current_setting("
    "'ctxledger.idle_before', true), ''), current_setting('idle_session_timeout')), false), "
    "set_config('idle_session_timeout', $5, false) FROM ctxledger_enter($1, $2, $3, $4) AS e"
)
_END_LEASE = (
    "set_config('idle_session_timeout', coalesce(nullif(current_setting("
    "'ctxledger.idle_before', true), ''), current_setting('idle_session_timeout')), false), "
    "set_config('ctxledger.idle_before', '', false)"
)


class HeadMoved(Exception):
    """A writer of the transaction protocol moved the tenant head between enter and write."""


async def append(
    db: asyncpg.Connection,
    options: AppendOptions,
    tenant_id: str,
    stream_id: str,
    expected_version: int | None,
    pending: Sequence[PendingEvent],
) -> list[StoredEvent] | StreamHead:
    """Enter, check the version, chain, write. Returns the records, or the stream head when
    it is not at ``expected_version``."""
    timeout, rls = options.lock_timeout, options.row_level_security
    for _ in range(_MAX_ENTRIES):
        try:
            backend, position, head = await enter(
                db, tenant_id, stream_id, timeout, rls, options.turn_timeout
            )
            if expected_version is not None and expected_version != head.version:
                await leave(db)
                return head
            stored = chain_events(head, position, pending, timestamp_now())
            if options.before_write is not None:
                await options.before_write()
            delay = options.commit_delay() if options.commit_delay is not None else 0.0
            await write(db, backend, stored, timeout, rls, delay)
            return stored
        except HeadMoved:
            continue  # a writer of the transaction protocol came between: enter again
        except BaseException as error:
            await give_back(db, error)
            raise
    raise StorageError(
        f"tenant {tenant_id}'s head moved {_MAX_ENTRIES} times between reading it and writing: "
        f"writers without the lock hand-off (lock_handoff=False, erasures) keep coming "
        f"between; retry the append, or give every writer the same protocol"
    )


async def enter(
    db: asyncpg.Connection,
    tenant_id: str,
    stream_id: str,
    lock_timeout: str | None,
    row_level_security: bool,
    turn_timeout: str | None = None,
) -> tuple[int, int, StreamHead]:
    """Take the tenant's turn once its predecessor has committed: the server session, the
    tenant position and the stream's head. With ``turn_timeout``, the session's idle timeout
    becomes the turn lease until ``write`` or ``leave``."""
    arguments = (tenant_id, stream_id, lock_timeout, row_level_security)
    if turn_timeout is None:
        row = await db.fetchrow(_ENTER, *arguments)
    else:
        row = await db.fetchrow(_ENTER_WITH_LEASE, *arguments, turn_timeout)
    assert row is not None  # the function always returns one row
    backend, position, version, digest = row[:4]
    if version is None:
        return backend, position, StreamHead.empty(tenant_id, stream_id)
    return backend, position, StreamHead(tenant_id, stream_id, version, digest)


async def leave(db: asyncpg.Connection) -> None:
    """Give the turn back without writing (the version check failed), and the lease."""
    await db.execute(f"SELECT pg_advisory_unlock_all(), {_END_LEASE}")


async def give_back(db: asyncpg.Connection, error: BaseException) -> None:
    """After ``error`` at any point of an append: make sure the session holds no turn, which
    would stop every writer of the tenant. Unlocking is harmless when it holds none (a
    duplicate id's ``write`` handed the turn on before it failed); when the connection cannot
    answer (lost, or the task was cancelled mid-protocol), it is closed, which ends the
    server session and its locks."""
    from eventstore.sql.postgres.connection import is_connection_loss

    if is_connection_loss(error) or db.is_closed():
        return
    if isinstance(error, Exception):
        try:
            await leave(db)
            return
        except Exception:
            pass
    db.terminate()


async def write(
    db: asyncpg.Connection,
    backend: int,
    stored: Sequence[StoredEvent],
    lock_timeout: str | None,
    row_level_security: bool,
    delay: float = 0.0,
) -> None:
    """Write the chained events, hand the turn on and commit, in one statement.

    Raises:
        DuplicateEventId: an id is recorded already (the turn is handed on all the same).
        HeadMoved: another protocol's writer moved the tenant head; enter again.
    """
    import asyncpg

    first = stored[0]
    try:
        await db.execute(
            "SELECT ctxledger_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,"
            f" $14, $15, $16, $17, $18), {_END_LEASE}",
            backend,
            first.tenant_id,
            first.stream_id,
            lock_timeout,
            row_level_security,
            parse_timestamp(stored[-1].recorded_at),
            *event_columns(stored),
            delay,
        )
    except asyncpg.exceptions.SerializationError as error:
        raise HeadMoved() from error
    except asyncpg.exceptions.ObjectNotInPrerequisiteStateError as error:
        if error.sqlstate != _TWO_SESSIONS:  # a subclass, such as a lock timeout
            raise
        raise StorageError(
            "the lock hand-off needs both of an append's statements in one server session, "
            "and they ran in two (a pooler in transaction mode, such as PgBouncer's): open "
            "the store with lock_handoff=False"
        ) from error
    except Exception as error:
        raise_if_duplicate(error, first.event_id)
        raise
