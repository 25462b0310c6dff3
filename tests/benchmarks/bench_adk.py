"""Google ADK: 2,000 ``append_event`` calls on one session, and ``list_sessions`` over 51
sessions, on ``LedgerSessionService`` against ADK's own ``DatabaseSessionService``, both on
SQLite files, in the same run.

    python -m tests.benchmarks.bench_adk             # 2,000 appends
    python -m tests.benchmarks.bench_adk --quick     # a smoke run (also run by the tests)

The per-append cost is printed for the first and the last 200 appends, so a cost that grows
with the session's length shows. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from google.adk.sessions import DatabaseSessionService
from google.adk.sessions.base_session_service import BaseSessionService

from eventstore import EventStore
from projections.integrations.adk import LedgerSessionService
from tests.projections.integrations.test_adk import event


async def appends(service: BaseSessionService, count: int) -> list[float]:
    session = await service.create_session(app_name="bench", user_id="u", session_id="long")
    samples = []
    for n in range(count):
        began = time.perf_counter()
        await service.append_event(session, event("user", f"message {n} " * 8, {"n": n}, n))
        samples.append(time.perf_counter() - began)
    return samples


async def listing(service: BaseSessionService, sessions: int) -> float:
    for s in range(sessions):
        made = await service.create_session(
            app_name="list", user_id=f"u{s % 5}", session_id=f"s{s}"
        )
        for n in range(5):
            await service.append_event(made, event("user", f"hi {n}", {"k": n}, n))
    began = time.perf_counter()
    listed = await service.list_sessions(app_name="list")
    assert len(listed.sessions) == sessions
    return time.perf_counter() - began


async def measure(
    service: BaseSessionService, fresh: Any, count: int, sessions: int
) -> dict[str, Any]:
    began = time.perf_counter()
    samples = await appends(service, count)
    total = time.perf_counter() - began
    window = max(1, min(200, count // 5))
    listed = await listing(service, sessions)
    cold = fresh()  # a new service on the same database: nothing cached, as in a new process
    began = time.perf_counter()
    assert len((await cold.list_sessions(app_name="list")).sessions) == sessions
    return {
        "total_s": total,
        "first_ms": statistics.median(samples[:window]) * 1e3,
        "last_ms": statistics.median(samples[-window:]) * 1e3,
        "list_ms": listed * 1e3,
        "cold_list_ms": (time.perf_counter() - began) * 1e3,
    }


async def run(count: int, sessions: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ctxledger-bench-") as name:
        folder = Path(name)
        url = f"sqlite+aiosqlite:///{folder / 'adk.db'}"
        adk = await measure(
            DatabaseSessionService(db_url=url),
            lambda: DatabaseSessionService(db_url=url),
            count,
            sessions,
        )
        async with EventStore.open(folder / "ledger.db") as store:
            ours = await measure(
                LedgerSessionService(store, tenant_id="bench"),
                lambda: LedgerSessionService(store, tenant_id="bench"),
                count,
                sessions,
            )
    return {"appends": count, "sessions": sessions, "adk": adk, "ledger": ours}


def report(r: dict[str, Any]) -> str:
    lines = [
        f"{'service':<24} {'total (s)':>9} {'first ms':>9} {'last ms':>9} "
        f"{'list (ms)':>10} {'cold list':>10}  ({r['appends']} appends, {r['sessions']} sessions)"
    ]
    for label, key in (("DatabaseSessionService", "adk"), ("LedgerSessionService", "ledger")):
        f = r[key]
        lines.append(
            f"{label:<24} {f['total_s']:9.2f} {f['first_ms']:9.2f} {f['last_ms']:9.2f} "
            f"{f['list_ms']:10.1f} {f['cold_list_ms']:10.1f}"
        )
    ours, adk = r["ledger"], r["adk"]
    lines += [
        f"appends, ledger / ADK: {ours['total_s'] / adk['total_s']:.2f}x (target <= 1.2)",
        f"per-append growth, last / first: ledger {ours['last_ms'] / ours['first_ms']:.2f}, "
        f"ADK {adk['last_ms'] / adk['first_ms']:.2f}",
        f"list_sessions, ledger / ADK: {ours['list_ms'] / adk['list_ms']:.2f}x warm, "
        f"{ours['cold_list_ms'] / adk['cold_list_ms']:.2f}x cold",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--sessions", type=int, default=51)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    count, sessions = (100, 6) if args.quick else (args.appends, args.sessions)
    print(report(asyncio.run(run(count, sessions))))


if __name__ == "__main__":
    main()
