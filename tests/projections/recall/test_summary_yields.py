"""The summary yields its room to recall when the best hit does not fit beside it: at a small
budget a render with recall is planned again without the summary, served so when that serves
the hit, and the manifest names the summary that yielded. Off on request; never over usable."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.ledger import Ledger, Session
from projections.recall.search import RecallOptions
from tests.projections.test_cli import ctxledger

TOPICS = [
    "Daycare: drop-off at 8 AM, pick-up at 5 PM, the monthly payment is due on Friday.",
    "Car: wash and vacuum on Sunday, check the tire pressure, refill the wiper fluid.",
    "Diet: cut back on sugar, meal prep on Sunday with grilled chicken and quinoa.",
    "Tech: back up the laptop files, update the phone software, cancel old subscriptions.",
    "Garden: water the tomatoes at dawn, trim the hedge, order mulch from the nursery.",
    "Finance: submit the tax documents, review the credit card statement for errors.",
]


def budget(tokens: int) -> Budget:
    return Budget(context_limit=tokens, max_output_tokens=0, tool_reserve=0, safety_margin=0)


@pytest.fixture
async def notes() -> AsyncIterator[Session]:
    """A notetaker's session: one note a message, then compacted to a quarter of it."""
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "notes")
        await write_notes(session)
        yield session


async def write_notes(session: Session) -> None:
    await write_notes_only(session)
    history = sum((await session.state()).tokens.values())
    committed = await session.compact(budget(history // 4), keep_groups=1, target=1.0)
    assert committed.result in ("committed", "partial")


async def small(session: Session) -> Budget:
    """A budget where the summary and the newest note leave no room for a recalled note."""
    plain = await session.render(budget(10_000), keep_groups=1)
    return budget(plain.manifest.tokens["total"] + 24)


async def test_the_summary_yields_to_the_best_hit(notes: Session) -> None:
    room = await small(notes)
    query = RecallOptions(query="When is the daycare drop-off?")
    kept = await notes.render(
        room, keep_groups=1, recall=RecallOptions(query=query.query, summary_yields=False)
    )
    assert kept.manifest.summary_version is not None
    assert kept.manifest.summary_yielded is None
    assert not kept.manifest.recalled  # no room beside the summary
    rendered = await notes.render(room, keep_groups=1, recall=query)
    manifest = rendered.manifest
    assert manifest.summary_yielded == kept.manifest.summary_version
    assert manifest.summary_version is None
    assert "summary" not in manifest.sections
    recalled = {entry["message_id"] for entry in manifest.recalled}
    assert recalled & {f"n{k}" for k in range(0, 24, len(TOPICS))}  # a daycare note
    assert manifest.tokens["total"] <= room.usable
    assert sum(manifest.message_tokens) + 3 == manifest.tokens["total"]


async def test_the_summary_stays_when_the_hit_fits_beside_it(notes: Session) -> None:
    rendered = await notes.render(
        budget(10_000), keep_groups=1, recall=RecallOptions(query="daycare drop-off")
    )
    assert rendered.manifest.summary_version is not None
    assert rendered.manifest.summary_yielded is None
    assert rendered.manifest.recalled


async def test_a_yielded_render_replays_the_same_request(notes: Session) -> None:
    room = await small(notes)
    options = RecallOptions(query="When is the daycare drop-off?")
    first = await notes.render(room, keep_groups=1, recall=options)
    version = first.manifest.as_of_version
    await notes.append([{"id": "later", "role": "user", "content": "Daycare is closed Monday."}])
    again = await notes.render(room, keep_groups=1, recall=options, at_version=version)
    assert again.manifest.request_hash == first.manifest.request_hash
    assert again.manifest.summary_yielded == first.manifest.summary_yielded


async def test_a_plain_render_always_serves_the_summary(notes: Session) -> None:
    room = await small(notes)
    plain = await notes.render(room, keep_groups=1)
    assert plain.manifest.summary_version is not None
    assert plain.manifest.summary_yielded is None


async def test_the_console_script_says_when_the_summary_yielded(tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    async with EventStore.open(db) as store:
        session = Ledger(store).session("acme", "notes")
        await write_notes(session)
        room = await small(session)
    where = ("--tenant", "acme", "--session", "notes", "--query", "When is the daycare drop-off?")
    limits = (
        *("--context-limit", str(room.context_limit), "--max-output", "0"),
        *("--tool-reserve", "0", "--safety-margin", "0", "--keep-groups", "1"),
    )
    shown = ctxledger("context", *where, *limits, db=db)
    assert shown.returncode == 0, shown.stderr
    assert "summary version 1 yielded its room to recall" in shown.stdout
    assert "recalled (" in shown.stdout
    kept = ctxledger("context", *where, *limits, "--keep-summary", "--json", db=db)
    assert kept.returncode == 0, kept.stderr
    manifest = json.loads(kept.stdout)["manifest"]
    assert manifest["summary_version"] == 1
    assert manifest["summary_yielded"] is None


async def test_only_a_summary_that_may_yield_makes_a_render_read_more(notes: Session) -> None:
    # What a yielding summary's render would read is fetched only when a summary is served and
    # may yield: no summary, or summary_yields=False, reads nothing more
    from projections.session.needs import summary_yield_needs
    from projections.session.recall_block import Recall, RecallHit

    room = await small(notes)
    hits = [RecallHit("n0", 2.0), RecallHit("n6", 1.0)]
    cut = (await notes.latest()).cut()
    assert cut.summary() is not None
    groups, indexes = summary_yield_needs(cut, room, 1, Recall("daycare", hits))
    assert groups
    assert indexes
    held = Recall("daycare", hits, summary_yields=False)
    assert summary_yield_needs(cut, room, 1, held) == (set(), set())
    async with EventStore.open("memory://") as store:
        plain = Ledger(store).session("acme", "plain")
        await write_notes_only(plain)
        bare = (await plain.latest()).cut()
        assert bare.summary() is None
        assert summary_yield_needs(bare, room, 1, Recall("daycare", hits)) == (set(), set())


async def write_notes_only(session: Session) -> None:
    notes = [TOPICS[k % len(TOPICS)] + f" Note {k}." for k in range(24)]
    await session.append(
        [{"id": f"n{k}", "role": "user", "content": n} for k, n in enumerate(notes)]
    )
