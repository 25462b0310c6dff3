"""``ctxledger tour``: a guided tour of the log on a short trip-planning conversation.

It appends a conversation (with a tool call), shows an idempotent retry and an optimistic
concurrency conflict, verifies the log, erases a message that holds personal data (and verifies
again), and finally edits a copy of the database behind the store's back to show ``verify``
naming the tampered event.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import uuid
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from eventstore import ConcurrencyError, EventStore, NewEvent, RecordedEvent
from projections.context.messages import parse_message
from projections.context.tokens import TiktokenCounter, TokenCounter
from projections.demo.narrator import Narrator
from projections.events import register_ledger_events
from projections.render import failure_table
from projections.session.events import MessageAppended

__all__ = ["TOUR_TENANT", "message_event", "run_tour"]

TOUR_TENANT = "acme"
STREAM = "session/trip-42"

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You plan train trips. Never book without asking."},
    {
        "role": "user",
        "content": "Weekend trip Shanghai → Hangzhou: leave the morning of "
        "2026-09-19, one way at most 200 CNY, back before 18:00 on 2026-09-20. 不自动购票。 "
        "My phone is +86 138 0000 0000.",
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "name": "search_trains",
                "arguments": '{"from": "Shanghai", "to": "Hangzhou", "date": "2026-09-19"}',
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": '[{"train": "G7311", "departs": '
        '"08:05", "price_cny": 73}, {"train": "G123", "departs": "09:10", "arrives": "12:40"}]',
    },
    {
        "role": "assistant",
        "content": "G7311 leaves 08:05 for 73 CNY. I excluded G123: it "
        "arrives later than planned. Shall I hold a seat?",
    },
]


async def run_tour(database: Path | None, *, console: Console | None) -> dict[str, Any]:
    """Play the tour; return a transcript (steps with their facts)."""
    if database is None:
        path = Path(tempfile.mkdtemp(prefix="ctxledger-demo-")) / "ledger.db"
    else:
        path = database
    narrator = Narrator(console)
    async with EventStore.open(path) as store:
        register_ledger_events(store.registry)  # what it appends is what projections read
        recorded = await _append_conversation(store, narrator)
        await _retry_and_conflict(store, narrator, recorded)
        report = await store.verify(TOUR_TENANT)
        narrator.step(
            "verify",
            f"Every hash recomputed from the stored bytes: ok={report.ok}, "
            f"{report.checked} events checked.",
            ok=report.ok,
            checked=report.checked,
        )
        await _erase_personal_data(store, narrator, recorded[1])
    await _tamper_with_a_copy(path, narrator)
    narrator.step(
        "done",
        f"The log is at {path}. Try: ctxledger --db {path} log --tenant {TOUR_TENANT}",
        database=str(path),
    )
    return {"database": str(path), "steps": narrator.steps}


def message_event(message: dict[str, Any], counter: TokenCounter) -> NewEvent:
    """A ``MessageAppended`` event exactly as the projections read it (with its own id, so
    that sending it again is an idempotent retry)."""
    parsed = parse_message(message)
    payload = MessageAppended(
        message=parsed,
        tokens=counter.count_message(parsed),
        encoding=counter.encoding_name,
        flags=parsed.flags,
    )
    return payload.new(actor="agent").model_copy(update={"event_id": uuid.uuid4()})


async def _append_conversation(store: EventStore, narrator: Narrator) -> list[RecordedEvent]:
    counter = TiktokenCounter()
    events = [message_event(message, counter) for message in CONVERSATION]
    recorded = await store.append(TOUR_TENANT, STREAM, events, expected_version=0)
    narrator.step(
        "append",
        f"{len(recorded)} messages of one conversation appended in one transaction: one event "
        f"each, chained by hash, at positions 1..{len(recorded)} of tenant {TOUR_TENANT}.",
        positions=[event.position for event in recorded],
        hashes=[event.hash for event in recorded],
    )
    table = Table("pos", "ver", "role", "hash", "prev_hash")
    for event in recorded:
        assert event.data is not None
        table.add_row(
            str(event.position),
            str(event.version),
            event.data["message"]["role"],
            event.hash[:16],
            event.prev_hash[:16],
        )
    narrator.show(table)
    return recorded


async def _retry_and_conflict(
    store: EventStore, narrator: Narrator, recorded: list[RecordedEvent]
) -> None:
    last = recorded[-1]
    assert last.data is not None
    retry = NewEvent(type=last.type, data=last.data, event_id=last.event_id, actor=last.actor)
    (again,) = await store.append(TOUR_TENANT, STREAM, [retry])
    narrator.step(
        "idempotent retry",
        f"Re-sending the last event with the same id returns the original record (position "
        f"{again.position}) and writes nothing: the log still ends at position "
        f"{await store.tenant_position(TOUR_TENANT)}.",
        same_record=again == last,
    )
    stale = message_event({"role": "user", "content": "Book it!"}, TiktokenCounter())
    try:
        await store.append(TOUR_TENANT, STREAM, [stale], expected_version=2)
        conflict = "none"
    except ConcurrencyError as error:
        conflict = str(error)
    narrator.step(
        "optimistic concurrency",
        f"A writer that read the stream at version 2 is refused: {conflict}",
        conflict=conflict,
    )


async def _erase_personal_data(
    store: EventStore, narrator: Narrator, message: RecordedEvent
) -> None:
    receipt = await store.erase(
        TOUR_TENANT,
        [message.event_id],
        reason="user asked to delete their phone number",
        requested_by="dpo@acme.example",
    )
    report = await store.verify(TOUR_TENANT)
    (erased,) = await store.read_events(TOUR_TENANT, [message.event_id])
    position = receipt.erasure.position if receipt.erasure else None
    narrator.step(
        "erasure",
        f"The message with the phone number is erased: its payload and salt are deleted, a "
        f"PayloadErased event (position {position}) records why and who asked. Reading it "
        f"gives data={erased.data} erased_by={erased.erased_by}; verify: ok={report.ok}, "
        f"{report.erased} erased, nothing reported as tampering.",
        erased_position=message.position,
        ok=report.ok,
        erased=report.erased,
    )


async def _tamper_with_a_copy(path: Path, narrator: Narrator) -> None:
    copy = path.with_name(path.stem + "-tampered.db")
    shutil.copy(path, copy)
    connection = sqlite3.connect(copy, isolation_level=None)
    for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger'"
    ).fetchall():
        connection.execute(f"DROP TRIGGER {name}")
    connection.execute(
        "UPDATE payloads SET payload = CAST(replace(CAST(payload AS TEXT), '73 CNY', "
        "'93 CNY') AS BLOB) WHERE CAST(payload AS TEXT) LIKE '%73 CNY%'"
    )
    connection.close()
    async with EventStore.open(copy) as store:
        report = await store.verify(TOUR_TENANT)
    failure = report.failures[0] if report.failures else None
    narrator.step(
        "tampering",
        "A copy of the database is edited behind the store's back (triggers dropped, the price "
        "in one payload changed). verify: "
        + (f"FAILED at position {failure.position}: {failure.reason}" if failure else "ok"),
        ok=report.ok,
        failure=failure.model_dump() if failure else None,
    )
    if failure is not None:
        narrator.show(failure_table(report.failures))
