"""``ctxledger erase --session`` and ``--user``: everything of one session or one user in one
recorded step, through the console script; verification green afterwards."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from eventstore import EventStore
from projections.ledger import Ledger
from projections.memory import LongTermMemory
from tests.projections.test_cli import ctxledger


async def _fill(db: Path) -> str:
    async with EventStore.open(db) as store:
        ledger = Ledger(store)
        trip = ledger.session("acme", "trip", user_id="ana")
        (event, *_) = await trip.append(
            [
                {"id": "m1", "role": "user", "content": "My budget is 200 CNY, card 4111."},
                {"id": "m2", "role": "assistant", "content": "Noted."},
            ]
        )
        other = ledger.session("acme", "work")
        await other.append([{"id": "w1", "role": "user", "content": "keep me"}])
        memory = LongTermMemory(store)
        await memory.propose(
            "acme", "ana", key="budget", value="200 CNY", category="preference",
            source_event_ids=[event.event_id], confidence=1,
        )  # fmt: skip
        await memory.grant_consent("acme", "ana", categories=["preference"], method="chat")
        return str(event.event_id)


def _texts(db: Path) -> str:
    return ctxledger("log", "--tenant", "acme", "--json", db=db).stdout


def test_erase_a_session_and_what_came_from_it(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    asyncio.run(_fill(db))
    result = ctxledger(
        "erase", "--tenant", "acme", "--session", "trip", "--reason", "art. 17",
        "--requested-by", "dpo", "--json", db=db,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    receipt = json.loads(result.stdout)
    assert len(receipt["erased"]) == 3  # two messages and the proposal derived from m1
    logged = _texts(db)
    assert "200 CNY" not in logged
    assert "keep me" in logged
    assert ctxledger("verify", "--tenant", "acme", db=db).returncode == 0
    again = ctxledger(
        "erase", "--tenant", "acme", "--session", "nope", "--reason", "x", "--requested-by", "y",
        db=db,
    )  # fmt: skip
    assert again.returncode == 2
    assert "has no session 'nope'" in again.stderr


def test_erase_a_user(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    asyncio.run(_fill(db))
    result = ctxledger(
        "erase", "--tenant", "acme", "--user", "ana", "--reason", "art. 17",
        "--requested-by", "dpo", "--json", db=db,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["erased"]) == 2  # the proposal and the consent
    assert '"200 CNY"' not in _texts(db)
    assert ctxledger("verify", "--tenant", "acme", db=db).returncode == 0
    both = ctxledger("erase", "--tenant", "acme", "x", "--user", "ana", "--reason", "r",
                     "--requested-by", "q", db=db)  # fmt: skip
    assert both.returncode == 2
