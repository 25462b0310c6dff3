"""LangGraph's own conformance suite (``langgraph-checkpoint-conformance`` from PyPI) against
``LedgerSaver``: async verbs and, through a probe that routes every async verb to its sync
twin, the sync verbs; on SQLite files and on PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.report import ProgressCallbacks

from eventstore import EventStore
from projections.integrations.langgraph import LedgerSaver
from tests.postgres import fresh_database

DECLARED = {
    "put",
    "put_writes",
    "get_tuple",
    "list",
    "delete_thread",
    "copy_thread",
    "prune",
    "delete_for_runs",
}


class SyncProbe(LedgerSaver):
    """Every async verb runs the sync one in a worker thread, so the suite tests those."""

    async def aget_tuple(self, config: Any) -> Any:
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(self, config: Any, **kwargs: Any) -> AsyncIterator[Any]:
        for item in await asyncio.to_thread(lambda: list(self.list(config, **kwargs))):
            yield item

    async def aput(self, *args: Any) -> Any:
        return await asyncio.to_thread(self.put, *args)

    async def aput_writes(self, *args: Any, **kwargs: Any) -> None:
        await asyncio.to_thread(self.put_writes, *args, **kwargs)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def acopy_thread(self, source: str, target: str) -> None:
        await asyncio.to_thread(self.copy_thread, source, target)

    async def aprune(self, thread_ids: Any, *, strategy: str = "keep_latest") -> None:
        await asyncio.to_thread(self.prune, thread_ids, strategy=strategy)

    async def adelete_for_runs(self, run_ids: Any) -> None:
        await asyncio.to_thread(self.delete_for_runs, run_ids)


def _registered(kind: type[LedgerSaver], url: Any) -> Any:
    count = iter(range(1_000_000))

    @checkpointer_test(name=f"{kind.__name__}")
    async def factory() -> AsyncIterator[LedgerSaver]:
        saver = kind(EventStore.open(url(next(count))), tenant_id="acme")
        try:
            yield saver
        finally:
            await asyncio.to_thread(saver.close)

    return factory


async def _check(kind: type[LedgerSaver], url: Any) -> None:
    report = await validate(_registered(kind, url), progress=ProgressCallbacks.verbose())
    report.print_report()
    detected = {name for name, result in report.results.items() if result.detected}
    assert detected >= DECLARED, sorted(detected)
    failures = {n: r.failures for n, r in report.results.items() if r.detected and not r.passed}
    assert failures == {}
    assert report.passed_all()
    passed = sum(r.tests_passed for r in report.results.values())
    print(f"{kind.__name__}: {passed} conformance tests passed, {report.conformance_level()}")


@pytest.mark.parametrize("kind", [LedgerSaver, SyncProbe], ids=["async", "sync"])
async def test_conformance_on_sqlite(tmp_path: Path, kind: type[LedgerSaver]) -> None:
    await _check(kind, lambda n: tmp_path / f"ledger{n}.db")


@pytest.mark.parametrize("kind", [LedgerSaver, SyncProbe], ids=["async", "sync"])
async def test_conformance_on_postgres(kind: type[LedgerSaver]) -> None:
    async with fresh_database() as url:
        await _check(kind, lambda n: url)
