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


async def test_an_old_session_goes_on_with_v2_and_rolls_back_to_v1(copy_of: Any) -> None:
    """The v0.1 demo session (a v1 summary served) goes on: new turns, a v2 summary extending
    the v1 one (upcast), a rollback to v1 that serves the v1 block byte for byte, a roll
    forward to v2, and time travel that still replays every request hash recorded before."""
    figures = expected("demo.expected.json")["sessions"]["trip-hangzhou"]
    budget = Budget.model_validate(figures["renders"][0]["budget"])
    async with EventStore.open(copy_of("demo.db"), create=False) as store:
        session = Ledger(store).session("acme", "trip-hangzhou")
        before = await session.render(budget, keep_groups=6)
        assert before.manifest.summary_version == 1
        v1_block = before.messages[before.manifest.sections.index("summary")].content
        assert str(v1_block).startswith("<compaction_summary trust='untrusted' schema='v1'>")
        old_head = (await session.latest()).version
        await session.append(
            [
                {"role": "user", "content": f"Turn {n}: is the 08:05 train still on time?"}
                if n % 2 == 0
                else {"role": "assistant", "content": f"Turn {n}: yes, G7311 leaves 08:05."}
                for n in range(60)
            ]
        )
        outcome = await session.compact(budget, keep_groups=6, backoff_groups=0)
        assert outcome.result == "committed", outcome
        assert outcome.event is not None
        assert outcome.event.data is not None
        v2 = outcome.summary_version
        assert outcome.event.data["parent_version"] == 1
        assert outcome.event.data["summary"]["schema_version"] == "compaction_summary.v2"
        assert outcome.event.data["validation"]["ok"]
        now = await session.render(budget, keep_groups=6)
        assert now.manifest.summary_version == v2
        assert "schema='v2'" in str(now.messages[now.manifest.sections.index("summary")].content)

        await session.rollback(to_version=1, reason="compare with the v1 summary")
        back = await session.render(budget, keep_groups=6)
        assert back.manifest.summary_version == 1
        assert back.messages[back.manifest.sections.index("summary")].content == v1_block
        await session.rollback(to_version=v2, reason="the v2 summary is better")
        assert (await session.render(budget, keep_groups=6)).manifest.summary_version == v2

        for replay in figures["replays"]:  # the old turns still replay their hashes
            replayed = await session.render(budget, keep_groups=6, at_version=replay["version"] - 1)
            assert replayed.manifest.request_hash == replay["request_hash"]
        then = await session.render(budget, keep_groups=6, at_version=old_head)
        assert then.manifest.request_hash == before.manifest.request_hash
        state = await session.state()
        assert state.chain.head == v2
        committed = [c for c in state.summary_chain() if c["status"] != "rejected"]
        assert [c["version"] for c in committed] == [1, 2, v2]
        assert committed[-1]["status"] == "active"
        assert (await store.verify("acme")).ok
