"""The SQLite recorder's SQL, compiled ahead of time, is what the Core tables compile to now;
and opening, reading and writing a SQLite store imports no SQLAlchemy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import eventstore.sql.sqlite.compiled as compiled
from eventstore.sql.sqlite.ddl import ddl_statements
from eventstore.sql.sqlite.statement_source import compiled_module, compiled_sql

REGENERATE = (
    "python -m eventstore.sql.sqlite.statement_source > eventstore/sql/sqlite/compiled.py "
    "&& ruff format eventstore/sql/sqlite/compiled.py"
)


def test_the_compiled_statements_match_a_fresh_compilation() -> None:
    kept = {k: v for k, v in vars(compiled.Statements).items() if not k.startswith("_")}
    assert kept == compiled_sql(), f"the Core statements changed: run {REGENERATE}"
    assert list(compiled.DDL) == ddl_statements(), f"the schema changed: run {REGENERATE}"


def test_the_generated_module_defines_what_it_is_compared_with() -> None:
    namespace: dict[str, object] = {}
    exec(compile(compiled_module(), "compiled.py", "exec"), namespace)
    statements = namespace["Statements"]
    assert {k: v for k, v in vars(statements).items() if not k.startswith("_")} == compiled_sql()
    assert namespace["DDL"] == tuple(ddl_statements())


def test_a_sqlite_store_imports_no_sqlalchemy(tmp_path: Path) -> None:
    script = f"""
import asyncio, sys
from eventstore import EventStore, NewEvent

async def main():
    async with EventStore.open({str(tmp_path / "ledger.db")!r}) as store:
        await store.append("acme", "s", [NewEvent(type="Noted", data={{"n": 1}})])
        assert len(await store.read_stream("acme", "s")) == 1
        await store.verify("acme")
    async with EventStore.open({str(tmp_path / "ledger.db")!r}, read_only=True) as store:
        assert len(await store.read_stream("acme", "s")) == 1

asyncio.run(main())
print(sorted(name for name in sys.modules if name.split(".")[0] == "sqlalchemy"))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_store_left_open_does_not_hold_the_process_at_exit(tmp_path: Path) -> None:
    # The connections' worker threads are daemons (as SQLAlchemy's adapter made them).
    script = f"""
import asyncio
from eventstore import EventStore, NewEvent

async def main():
    store = EventStore.open({str(tmp_path / "ledger.db")!r})
    await store.initialize()
    await store.append("acme", "s", [NewEvent(type="Noted", data={{"n": 1}})])
    print(len(await store.read_stream("acme", "s")))

asyncio.run(main())
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
