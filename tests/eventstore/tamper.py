"""Helpers to build a SQLite log and edit it behind the store's back (triggers dropped)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from eventstore import EventStore, NewEvent, VerificationReport

TENANT = "acme"


async def build_log(path: Path, events: int = 12, streams: int = 3) -> None:
    """``events`` single-event appends spread over ``streams`` streams, plus another tenant."""
    async with EventStore.open(path) as store:
        for i in range(events):
            await store.append(
                TENANT,
                f"session/{i % streams}",
                [
                    NewEvent(
                        type="MessageAppended",
                        data={"role": "user", "content": f"message {i} 内容", "n": i},
                        actor="agent" if i % 2 else None,
                    )
                ],
            )
        await store.append("globex", "session/0", [NewEvent(type="T", data={"x": 1})])


def raw(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection with every ctxledger trigger dropped."""
    connection = sqlite3.connect(path, isolation_level=None)
    names = [
        row[0]
        for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    ]
    for name in names:
        connection.execute(f"DROP TRIGGER {name}")
    return connection


def verify(path: Path, tenant: str = TENANT, stream: str | None = None) -> VerificationReport:
    async def run() -> VerificationReport:
        async with EventStore.open(path) as store:
            return await store.verify(tenant, stream=stream)

    return asyncio.run(run())
