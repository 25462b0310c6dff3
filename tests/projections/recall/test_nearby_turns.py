"""A hit's nearby groups compete for the recalled block at part of its score: the reply to
the turn that matched and the same speaker's next turn come back though they share no word
with the query; a group three away does not, and ``neighbours=False`` scores hits alone."""

from __future__ import annotations

from typing import Any

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.ledger import Ledger, Session
from projections.recall.search import RecallOptions
from projections.session.recall_block import NEARBY_WEIGHTS
from tests.projections.recall.small_talk import chat

BUDGET = Budget(context_limit=900, max_output_tokens=0, tool_reserve=0, safety_margin=0)
QUERY = "How did Mel feel watching the meteor shower?"

TURNS = [
    ("m0", "assistant", "Yesterday I cleaned out the garage, finally."),
    ("m1", "user", "Good for you! Anything else going on?"),
    ("m2", "assistant", "Last summer we lay on the dunes and saw the meteor shower."),
    ("m3", "user", "That sounds wonderful, tell me more."),
    ("m4", "assistant", "I felt tiny and in awe of the universe, so small and so lucky."),
    ("m5", "user", "Same here, the night sky is magic."),
]


@pytest.fixture
async def session() -> Any:
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "mel")
        await session.append([{"id": i, "role": r, "content": c} for i, r, c in TURNS])
        await session.append(chat(0, 60))
        await session.append([{"id": "q", "role": "user", "content": QUERY}])
        yield session


async def _recalled(session: Session, *, neighbours: bool) -> dict[str, float]:
    options = RecallOptions(neighbours=neighbours)
    rendered = await session.render(BUDGET, keep_groups=2, recall=options)
    assert rendered.manifest.tokens["total"] <= BUDGET.usable
    return {entry["message_id"]: entry["score"] for entry in rendered.manifest.recalled}


async def test_the_reply_and_the_speakers_next_turn_come_back(session: Session) -> None:
    recalled = await _recalled(session, neighbours=True)
    assert {"m2", "m3", "m4", "m1", "m0"} <= set(recalled)  # m2 matched; m0-m4 are near it
    hit = recalled["m2"]  # the manifest rounds scores
    assert recalled["m3"] == pytest.approx(hit * NEARBY_WEIGHTS[0], abs=1e-3)
    assert recalled["m4"] == pytest.approx(hit * NEARBY_WEIGHTS[1], abs=1e-3)
    assert "m5" not in recalled  # three away: only the hit's own score carries


async def test_without_neighbours_only_hits_come_back(session: Session) -> None:
    recalled = await _recalled(session, neighbours=False)
    assert set(recalled) == {"m2"}
