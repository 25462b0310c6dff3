"""Floors for the PostgreSQL benchmark: bare asyncpg loops with no ctxledger code at all.

They show what this machine allows for one durable single-row append per transaction from
several writer processes, with the same 1-2 KB payloads:

- ``lock to commit``: the shape of ctxledger's append without hashing, encoding or a payload
  table: ``BEGIN``, lock the tenant's head row ``FOR UPDATE``, insert and move the head in one
  statement, ``COMMIT``. Gap-free positions in commit order; the lock is held to the commit.
- ``lock hand-off``: the same guarantee in two autocommit statements. A per-tenant session
  advisory lock queues the writers; the writer holding it waits (shared, transaction-level lock)
  for its predecessor's commit, reads the head, then writes and commits in one statement that
  takes the transaction-level lock exclusively before it releases the queue lock.
- ``sequence, not gap-free``: one autocommit insert numbered by a sequence. No order promise
  at all (aborted transactions leave gaps, commits can land out of order); concurrent commits
  share WAL flushes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FLOORS", "SETUP", "append_once", "check_positions"]

#: name in the report -> mode passed to the worker
FLOORS = {
    "raw asyncpg, lock to commit": "lock",
    "raw asyncpg, lock hand-off": "handoff",
    "raw asyncpg, sequence (no order)": "sequence",
}

SETUP = """
CREATE TABLE floor_events (tenant text, position bigint, data bytea,
                           PRIMARY KEY (tenant, position));
CREATE TABLE floor_heads (tenant text PRIMARY KEY, position bigint NOT NULL);
INSERT INTO floor_heads VALUES ('t', 0);
CREATE SEQUENCE floor_numbers;
CREATE FUNCTION floor_enter(t text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_lock(hashtextextended(t, 1));
  PERFORM pg_advisory_xact_lock_shared(hashtextextended(t, 2));
  RETURN (SELECT position FROM floor_heads WHERE tenant = t);
END $$;
CREATE FUNCTION floor_write(t text, p bigint, d bytea) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(t, 2));
  PERFORM pg_advisory_unlock(hashtextextended(t, 1));
  INSERT INTO floor_events VALUES (t, p, d);
  UPDATE floor_heads SET position = p WHERE tenant = t;
END $$;
"""

_LOCKED_WRITE = (
    "WITH e AS (INSERT INTO floor_events VALUES ('t', $1, $2))"
    " UPDATE floor_heads SET position = $1 WHERE tenant = 't'"
)


async def append_once(db: Any, mode: str, data: bytes) -> None:
    """One durable append of ``data`` into tenant ``t`` the ``mode`` way (an asyncpg
    connection)."""
    if mode == "lock":
        async with db.transaction():
            head = await db.fetchval(
                "SELECT position FROM floor_heads WHERE tenant = 't' FOR UPDATE"
            )
            await db.execute(_LOCKED_WRITE, head + 1, data)
    elif mode == "handoff":
        head = await db.fetchval("SELECT floor_enter('t')")
        await db.execute("SELECT floor_write('t', $1, $2)", head + 1, data)
    elif mode == "sequence":
        await db.execute(
            "INSERT INTO floor_events VALUES ('t', nextval('floor_numbers'), $1)", data
        )
    else:
        raise ValueError(f"unknown floor mode {mode!r}")


async def check_positions(db: Any, mode: str, total: int) -> None:
    """The ordered modes must have written positions 1..total exactly."""
    rows = await db.fetch("SELECT position FROM floor_events ORDER BY position")
    if mode != "sequence" and [row[0] for row in rows] != list(range(1, total + 1)):
        raise AssertionError(f"{mode}: positions are not 1..{total}")
    if len(rows) != total:
        raise AssertionError(f"{mode}: {len(rows)} rows, expected {total}")
