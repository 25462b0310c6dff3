"""Benchmark of the SQLite event log against raw baselines, measured in the same run.

    python -m tests.benchmarks.bench_eventstore            # the full run (about a minute)
    python -m tests.benchmarks.bench_eventstore --quick    # a smoke run

Every comparison uses the same payloads: deterministic 1-2 KB chat messages mixing English and
Chinese, about one in five an assistant message with tool calls. Figures (p50/p95 in
microseconds, throughput in events per second) and ratios against the baselines are printed;
``--json FILE`` also writes them for docs/benchmarks.md. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Column, Integer, MetaData, Table, Text, insert
from sqlalchemy.ext.asyncio import create_async_engine

from eventstore import EventStore, NewEvent
from eventstore.encoding import canonical_json
from tests.benchmarks.eventstore_baselines import (
    file_bytes,
    peer_appends,
    raw_connection,
    same_schema_batches,
    session_appends,
    session_batches,
)
from tests.benchmarks.payloads import make_messages, summary, timed

TARGETS = {
    "append_vs_sqlalchemy": 1.5,
    "batch_throughput_vs_raw": 0.5,
    "verify_vs_raw_read": 2.0,
    "bytes_vs_raw_row": 1.15,
}

# -- single durable appends --------------------------------------------------------------------


async def bench_single(
    folder: Path, payloads: list[bytes], messages: list[dict[str, Any]]
) -> dict[str, Any]:
    count = len(payloads)
    raw = raw_connection(folder / "raw-single.db")

    def raw_insert(data: bytes) -> None:
        raw.execute("BEGIN IMMEDIATE")
        raw.execute("INSERT INTO raw_events (data) VALUES (?)", (data.decode("utf-8"),))
        raw.execute("COMMIT")

    raw_samples = []
    for data in payloads:
        start = time.perf_counter()
        raw_insert(data)
        raw_samples.append(time.perf_counter() - start)
    raw.close()

    engine = create_async_engine(f"sqlite+aiosqlite:///{folder / 'sqlalchemy.db'}")
    table = Table(
        "raw_events",
        MetaData(),
        Column("id", Integer, primary_key=True),
        Column("data", Text, nullable=False),
    )
    async with engine.begin() as connection:
        await connection.exec_driver_sql("PRAGMA journal_mode=WAL")
        await connection.run_sync(table.metadata.create_all)

    from sqlalchemy import event as sa_event

    @sa_event.listens_for(engine.sync_engine, "connect")
    def _full(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.close()

    await engine.dispose()  # reconnect so every pooled connection has synchronous=FULL

    async def sqlalchemy_insert(data: bytes) -> None:
        async with engine.begin() as connection:
            await connection.execute(insert(table), {"data": data.decode("utf-8")})

    sqlalchemy_samples = await timed([lambda d=data: sqlalchemy_insert(d) for data in payloads])
    await engine.dispose()

    async with EventStore.open(folder / "ledger-single.db") as store:
        events = [NewEvent(type="MessageAppended", data=m, actor="agent") for m in messages]
        store_samples = await timed(
            [
                lambda e=event, i=index: store.append("acme", f"session/{i % 20}", [e])
                for index, event in enumerate(events)
            ]
        )
    session_samples = await session_appends(folder / "ledger-session.db", messages)
    result = {
        "events": count,
        "raw_sqlite3": summary(raw_samples),
        "sqlalchemy_async": summary(sqlalchemy_samples),
        "ctxledger": summary(store_samples),
        "ctxledger_session": summary(session_samples),
    }
    peer_samples = peer_appends(folder / "peer.db", payloads)
    p50 = result["ctxledger"]["p50_us"]
    result["ratio_vs_raw"] = p50 / result["raw_sqlite3"]["p50_us"]
    result["ratio_vs_sqlalchemy"] = p50 / result["sqlalchemy_async"]["p50_us"]
    if peer_samples:
        result["eventsourcing"] = summary(peer_samples)
        peer_p50 = result["eventsourcing"]["p50_us"]
        result["ratio_vs_peer"] = p50 / peer_p50
        result["session_ratio_vs_peer"] = result["ctxledger_session"]["p50_us"] / peer_p50
    return result


# -- batches of 100 ----------------------------------------------------------------------------


async def bench_batches(
    folder: Path, payloads: list[bytes], messages: list[dict[str, Any]], size: int = 100
) -> dict[str, Any]:
    raw = raw_connection(folder / "raw-batch.db")
    raw_samples = []
    for start in range(0, len(payloads) - size + 1, size):
        rows = [(data.decode("utf-8"),) for data in payloads[start : start + size]]
        began = time.perf_counter()
        raw.execute("BEGIN IMMEDIATE")
        raw.executemany("INSERT INTO raw_events (data) VALUES (?)", rows)
        raw.execute("COMMIT")
        raw_samples.append(time.perf_counter() - began)
    raw.close()

    async with EventStore.open(folder / "ledger-batch.db") as store:
        batches = [
            [NewEvent(type="MessageAppended", data=m) for m in messages[start : start + size]]
            for start in range(0, len(messages) - size + 1, size)
        ]
        store_samples = await timed(
            [
                lambda b=batch, i=index: store.append("acme", f"session/{i}", b)
                for index, batch in enumerate(batches)
            ]
        )
    schema_samples = same_schema_batches(folder / "raw-schema.db", payloads, size)
    session_samples, counted_samples = await session_batches(folder, messages, size)
    raw_rate = size / statistics.median(raw_samples)
    schema_rate = size / statistics.median(schema_samples)
    store_rate = size / statistics.median(store_samples)
    return {
        "batch_size": size,
        "batches": len(store_samples),
        "raw_sqlite3": {**summary(raw_samples), "events_per_s": raw_rate},
        "raw_same_schema": {**summary(schema_samples), "events_per_s": schema_rate},
        "ctxledger": {**summary(store_samples), "events_per_s": store_rate},
        "throughput_ratio": store_rate / raw_rate,
        "throughput_ratio_same_schema": store_rate / schema_rate,
        "raw_same_schema_counted": summary(counted_samples),
        "ctxledger_session": summary(session_samples),
        "session_ratio_same_schema_counted": statistics.median(counted_samples)
        / statistics.median(session_samples),
    }


# -- verify and bytes ----------------------------------------------------------------------------


async def bench_verify(
    folder: Path, messages: list[dict[str, Any]], total: int, rounds: int = 3
) -> dict[str, Any]:
    ledger_path = folder / "ledger-verify.db"
    raw_path = folder / "raw-verify.db"
    raw = raw_connection(raw_path)
    async with EventStore.open(ledger_path, synchronous="NORMAL") as store:
        for start in range(0, total, 1000):
            chunk = [messages[(start + k) % len(messages)] for k in range(min(1000, total - start))]
            await store.append(
                "acme",
                f"session/{start // 1000}",
                [NewEvent(type="MessageAppended", data=m, actor="agent") for m in chunk],
            )
            raw.execute("BEGIN")
            raw.executemany(
                "INSERT INTO raw_events (data) VALUES (?)",
                [(canonical_json(m).decode("utf-8"),) for m in chunk],
            )
            raw.execute("COMMIT")
    raw.close()

    def raw_read_all(decode: Callable[[Any], Any]) -> int:
        connection = sqlite3.connect(raw_path)
        decoded = [decode(row[0]) for row in connection.execute("SELECT data FROM raw_events")]
        connection.close()
        return len(decoded)

    raw_times, orjson_times, verify_times = [], [], []
    for _ in range(rounds):
        began = time.perf_counter()
        assert raw_read_all(json.loads) == total
        raw_times.append(time.perf_counter() - began)
        began = time.perf_counter()
        assert raw_read_all(orjson.loads) == total
        orjson_times.append(time.perf_counter() - began)
        async with EventStore.open(ledger_path, create=False) as store:
            began = time.perf_counter()
            report = await store.verify("acme")
            verify_times.append(time.perf_counter() - began)
        assert report.ok, report
        assert report.checked == total
    raw_s, verify_s = statistics.median(raw_times), statistics.median(verify_times)
    return {
        "events": total,
        "raw_read_all_json_s": raw_s,
        "raw_read_all_orjson_s": statistics.median(orjson_times),
        "ctxledger_verify_s": verify_s,
        "verify_us_per_event": verify_s / total * 1e6,
        "ratio": verify_s / raw_s,
        "ratio_vs_orjson": verify_s / statistics.median(orjson_times),
        "bytes": bytes_per_event(ledger_path, raw_path, total),
    }


def bytes_per_event(ledger_path: Path, raw_path: Path, total: int) -> dict[str, float]:
    ledger, raw = file_bytes(ledger_path) / total, file_bytes(raw_path) / total
    return {"raw_row": raw, "ctxledger": ledger, "ratio": ledger / raw}


# -- report ------------------------------------------------------------------------------------


async def run(appends: int, batches: int, verify_events: int) -> dict[str, Any]:
    messages = make_messages(max(appends, batches * 100, 1000))
    payloads = [canonical_json(m) for m in messages]
    sizes = [len(p) for p in payloads]
    with tempfile.TemporaryDirectory(prefix="ctxledger-bench-") as name:
        folder = Path(name)
        result = {
            "payload_bytes": {
                "min": min(sizes),
                "median": statistics.median(sizes),
                "max": max(sizes),
            },
            "single": await bench_single(folder, payloads[:appends], messages[:appends]),
            "batch": await bench_batches(
                folder, payloads[: batches * 100], messages[: batches * 100]
            ),
            "verify": await bench_verify(folder, messages, verify_events),
            "machine": {"cpus": os.cpu_count(), "sqlite": sqlite3.sqlite_version},
        }
    result["checks"] = {
        "append_vs_sqlalchemy": result["single"]["ratio_vs_sqlalchemy"],
        "batch_throughput_vs_raw": result["batch"]["throughput_ratio"],
        "verify_vs_raw_read": result["verify"]["ratio"],
        "bytes_vs_raw_row": result["verify"]["bytes"]["ratio"],
    }
    return result


def report(result: dict[str, Any]) -> str:
    single, batch, verify = result["single"], result["batch"], result["verify"]
    lines = [
        f"payloads: {result['payload_bytes']['min']}-{result['payload_bytes']['max']} bytes "
        f"(median {result['payload_bytes']['median']:.0f}); {result['machine']}",
        "",
        f"single durable append ({single['events']} events, WAL, synchronous=FULL)",
    ]
    for name in (
        "raw_sqlite3",
        "sqlalchemy_async",
        "eventsourcing",
        "ctxledger",
        "ctxledger_session",
    ):
        if name not in single:
            lines.append(f"  {name:18} not installed (pip install eventsourcing==9.5.6)")
            continue
        figures = single[name]
        lines.append(
            f"  {name:18} p50 {figures['p50_us']:8.1f} us   p95 {figures['p95_us']:8.1f} us"
        )
    lines += [
        f"  ratio p50: {single['ratio_vs_raw']:.2f}x raw sqlite3, "
        f"{single['ratio_vs_sqlalchemy']:.2f}x bare SQLAlchemy async",
        *(
            [
                f"  ratio p50 to pyeventsourcing's SQLite recorder: store "
                f"{single['ratio_vs_peer']:.2f}x, session (tokens counted) "
                f"{single['session_ratio_vs_peer']:.2f}x"
            ]
            if "ratio_vs_peer" in single
            else []
        ),
        "",
        f"batches of {batch['batch_size']} ({batch['batches']} batches)",
    ]
    for name in ("raw_sqlite3", "raw_same_schema", "ctxledger"):
        figures = batch[name]
        lines.append(
            f"  {name:18} p50 {figures['p50_us']:8.1f} us   p95 {figures['p95_us']:8.1f} "
            f"us   {figures['events_per_s']:9.0f} events/s"
        )
    lines += [
        f"  throughput ratio: {batch['throughput_ratio']:.2f}x raw, "
        f"{batch['throughput_ratio_same_schema']:.2f}x the same schema written raw",
        f"  messages through a session (tokens counted)          p50 "
        f"{batch['ctxledger_session']['p50_us']:8.1f} us",
        f"  the same schema written raw, tokens counted the same  p50 "
        f"{batch['raw_same_schema_counted']['p50_us']:8.1f} us",
        f"  throughput ratio, tokens counted on both sides: "
        f"{batch['session_ratio_same_schema_counted']:.2f}x",
        "",
        f"verify of {verify['events']} events",
        f"  raw read-all + json.loads  {verify['raw_read_all_json_s']:.3f} s",
        f"  raw read-all + orjson      {verify['raw_read_all_orjson_s']:.3f} s",
        f"  ctxledger verify           {verify['ctxledger_verify_s']:.3f} s "
        f"({verify['verify_us_per_event']:.1f} us/event)",
        f"  ratio: {verify['ratio']:.2f}x raw with json.loads, "
        f"{verify['ratio_vs_orjson']:.2f}x raw with orjson",
        "",
        f"stored bytes per event: raw JSON row {verify['bytes']['raw_row']:.0f}, ctxledger "
        f"{verify['bytes']['ctxledger']:.0f}, ratio {verify['bytes']['ratio']:.3f}",
        "",
        "targets:",
    ]
    for name, value in result["checks"].items():
        target = TARGETS[name]
        met = value >= target if name == "batch_throughput_vs_raw" else value <= target
        relation = ">=" if name == "batch_throughput_vs_raw" else "<="
        lines.append(
            f"  {name:26} {value:6.2f}  (target {relation} {target})  {'met' if met else 'MISSED'}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=50)
    parser.add_argument("--verify-events", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for a smoke test")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    if args.quick:
        args.appends, args.batches, args.verify_events = 50, 3, 2000
    result = asyncio.run(run(args.appends, args.batches, args.verify_events))
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
