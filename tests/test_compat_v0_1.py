"""Databases written before the redesign (tests/fixtures/v0_1, commit 84fb2d8) still open,
verify, render the same context bytes and replay every recorded request hash."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from blake3 import blake3

from eventstore import EventStore
from eventstore.encoding import canonical_json
from projections import Budget, Ledger
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "v0_1"


def expected(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return result


@pytest.fixture
def copy_of(tmp_path: Path) -> Any:
    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copyfile(FIXTURES / name, target)
        return target

    return copy


async def test_demo_database_verifies_and_replays(copy_of: Any) -> None:
    figures = expected("demo.expected.json")
    async with EventStore.open(copy_of("demo.db"), create=False) as store:
        report = await store.verify("acme")
        assert (report.ok, report.checked, report.erased) == (
            figures["verify"]["ok"],
            figures["verify"]["checked"],
            figures["verify"]["erased"],
        )
        ledger = Ledger(store)
        for session_id, recorded in figures["sessions"].items():
            session = ledger.session("acme", session_id)
            for replay in recorded["replays"]:
                budget = Budget.model_validate(
                    {k: v for k, v in replay["budget"].items() if k in Budget.model_fields}
                )
                rendered = await session.render(
                    budget, keep_groups=6, at_version=replay["version"] - 1
                )
                assert rendered.manifest.request_hash == replay["request_hash"], replay["version"]
            assert len(recorded["replays"]) == 44


async def test_demo_database_renders_the_same_bytes(copy_of: Any) -> None:
    figures = expected("demo.expected.json")
    async with EventStore.open(copy_of("demo.db"), create=False) as store:
        ledger = Ledger(store)
        for session_id, recorded in figures["sessions"].items():
            session = ledger.session("acme", session_id)
            for render in recorded["renders"]:
                budget = Budget.model_validate(render["budget"])
                rendered = await session.render(
                    budget, keep_groups=6, fmt=render["format"], at_version=render["at_version"]
                )
                wire = blake3(canonical_json({"w": rendered.wire})).hexdigest()
                assert wire == render["wire_blake3"]
                assert rendered.manifest.request_hash == render["request_hash"]
                assert rendered.manifest.message_ids == render["message_ids"]
                assert rendered.manifest.summary_version == render["summary_version"]
                assert rendered.manifest.tokens == render["tokens"]
            state = await session.state()
            chain = [
                {k: v for k, v in c.items() if k in ("version", "status", "parent", "covered")}
                for c in state.summary_chain()
            ]
            assert chain == recorded["summary_chain"]


async def test_integrations_database_verifies(copy_of: Any) -> None:
    figures = expected("integrations.expected.json")
    async with EventStore.open(copy_of("integrations.db"), create=False) as store:
        report = await store.verify("acme")
        assert report.ok
        assert report.checked == figures["verify"]["checked"]
