"""The seed's Shanghai→Hangzhou trip, as a session whose user states one lasting preference."""

from __future__ import annotations

from typing import Any

from projections.ledger import Ledger, Session

BUDGET_KEY = "preference.weekend_trip.one_way_budget"
BUDGET_VALUE = "usually keeps the one-way budget for weekend trips within 200 CNY"

TRIP: list[dict[str, Any]] = [
    {"id": "m1", "role": "system", "content": "You plan trips. Never book automatically."},
    {
        "id": "m2",
        "role": "user",
        "content": "Plan Shanghai to Hangzhou: leave the morning of 2026-09-19, back before "
        "18:00 on 2026-09-20. For weekend trips I usually keep one way within 200 CNY.",
    },
    {
        "id": "m3",
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "name": "search_trains", "arguments": '{"to": "Hangzhou"}'}],
    },
    {
        "id": "m4",
        "role": "tool",
        "tool_call_id": "c1",
        "content": "G7311 08:05-09:02 73 CNY; G123 09:10-12:40 73 CNY",
    },
    {"id": "m5", "role": "assistant", "content": "I excluded G123: it arrives later than planned."},
    {"id": "m6", "role": "user", "content": "Good. Hold G7311, do not book."},
]


async def trip_session(ledger: Ledger, tenant: str = "acme", user: str = "ana") -> Session:
    """The trip appended to ``session/trip-<user>`` of ``tenant``, with the proposals an agent
    would make: the budget preference, and three session-specific facts."""
    session = ledger.session(tenant, f"trip-{user}", user_id=user)
    await session.append(TRIP)
    await session.propose_memory(
        key=BUDGET_KEY,
        value=BUDGET_VALUE,
        category="preference",
        source_ids=["m2"],
        confidence=0.9,
    )
    for key, value, source in (
        ("trip.depart_date", "2026-09-19 morning", "m2"),
        ("trip.excluded_train", "G123 arrives later than planned", "m5"),
        ("trip.train_choice", "G7311", "m6"),
    ):
        await session.propose_memory(
            key=key, value=value, category="task_event", source_ids=[source], confidence=0.95
        )
    return session
