"""One message, either id: ``erase``, ``memory propose --source`` and ``consent grant
--evidence`` take the message id that ``context`` and ``search`` show as well as the event id,
say which they found, and refuse an id the tenant does not hold, naming where ids are shown."""

from __future__ import annotations

import json
from pathlib import Path

from tests.projections.test_cli import ctxledger
from tests.projections.test_cli_papercuts import trip

__all__ = ["trip"]


def event_id_of(db: Path, message_id: str) -> str:
    log = ctxledger("log", "--tenant", "acme", "--stream", "session/trip", "--json", db=db)
    for line in log.stdout.splitlines():
        event = json.loads(line)
        if (event["data"].get("message") or {}).get("id") == message_id:
            return str(event["event_id"])
    raise AssertionError(f"no event for {message_id}")


def test_erase_takes_a_message_id_and_says_which_event_it_is(trip: Path) -> None:
    who = ["--tenant", "acme", "--reason", "request #1", "--requested-by", "dpo"]
    by_message = ctxledger("erase", *who, "m2", "--dry-run", "--json", db=trip)
    assert by_message.returncode == 0, by_message.stderr
    event = event_id_of(trip, "m2")
    assert f"message m2 of session trip is event {event}" in by_message.stderr
    by_event = ctxledger("erase", *who, event, "--dry-run", "--json", db=trip)
    assert json.loads(by_message.stdout) == json.loads(by_event.stdout)
    unknown = ctxledger("erase", *who, "m9", "--dry-run", db=trip)
    assert unknown.returncode == 2
    assert "no event and no message with id 'm9' in tenant 'acme'" in unknown.stderr
    assert "'ctxledger log'" in unknown.stderr


def test_memory_sources_and_consent_evidence_take_either_id(trip: Path) -> None:
    user = ["--tenant", "acme", "--user", "ana"]
    proposed = ctxledger(
        "memory", "propose", *user, "--key", "train", "--value", "G7311",
        "--category", "preferences", "--source", "m1", "--confidence", "0.9", "--json", db=trip,
    )  # fmt: skip
    assert proposed.returncode == 0, proposed.stderr
    data = json.loads(proposed.stdout)["data"]
    assert data["source_event_ids"] == [event_id_of(trip, "m1")]
    assert data["source_ids"] == ["m1"]
    granted = ctxledger(
        "consent", "grant", *user, "--scope", "preferences", "--evidence", "m3", "--json",
        db=trip,
    )  # fmt: skip
    assert granted.returncode == 0, granted.stderr
    assert json.loads(granted.stdout)["data"]["evidence_ids"] == [event_id_of(trip, "m3")]
    bogus = ctxledger(
        "consent", "grant", *user, "--scope", "preferences", "--evidence", "I said yes", db=trip
    )
    assert bogus.returncode == 2
    assert "no event and no message with id 'I said yes'" in bogus.stderr
