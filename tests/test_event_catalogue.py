"""docs/events.md names every event type the code writes, and every field they carry."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from eventstore import EventStore
from eventstore.records import CHECKPOINT_EVENT_TYPE, ERASURE_EVENT_TYPE
from projections.demo import run_demo
from projections.events import LEDGER_EVENTS
from tests.conftest import ROOT

PAGE = ROOT / "docs" / "events.md"
TYPES = {*LEDGER_EVENTS, ERASURE_EVENT_TYPE, CHECKPOINT_EVENT_TYPE}


def catalogue() -> dict[str, set[str]]:
    """Event type -> the fields its section documents."""
    sections = re.split(r"^### ", PAGE.read_text(encoding="utf-8"), flags=re.M)[1:]
    return {
        section.split("\n", 1)[0].strip(): set(re.findall(r"^\| `(\w+)` \|", section, re.M))
        for section in sections
    }


def test_every_event_type_is_documented() -> None:
    documented = catalogue()
    assert sorted(TYPES - documented.keys()) == []
    assert sorted(documented.keys() - TYPES) == []


def test_every_field_the_demo_writes_is_documented(tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    asyncio.run(run_demo(path))

    async def fields() -> dict[str, set[str]]:
        seen: dict[str, set[str]] = {}
        async with EventStore.open(path) as store:
            last = None
            async for event in store.read_log("acme"):
                seen.setdefault(event.type, set()).update((event.data or {}).keys())
                last = event
            assert last is not None
            await store.erase("acme", [last.event_id], reason="r", requested_by="t")
            async for erasure in store.read_log("acme", after_position=last.position):
                seen.setdefault(erasure.type, set()).update((erasure.data or {}).keys())
        return seen

    documented = catalogue()
    for event_type, keys in asyncio.run(fields()).items():
        assert event_type in documented, event_type
        assert sorted(keys - documented[event_type]) == [], event_type


def test_every_documented_field_is_a_field_of_the_model() -> None:
    documented = catalogue()
    for name, (model, _) in LEDGER_EVENTS.items():
        assert sorted(documented[name] - set(model.model_fields)) == [], name
        assert sorted(set(model.model_fields) - documented[name]) == [], name
