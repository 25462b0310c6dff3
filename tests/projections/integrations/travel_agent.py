"""A long, tool-heavy Agents SDK session for compaction runs: a deterministic model behind the
SDK's own ``Model`` interface, two tools with sizeable JSON results, and a scripted user who
states constraints, searches flights, looks up reservations and chats.

Used by ``test_openai_agents_long.py`` and ``tests/benchmarks/agents_session.py``.
"""

from __future__ import annotations

import json
import re
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

from agents import Agent, Runner, Session, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage

from projections.errors import ContextOverBudgetWarning
from projections.integrations.openai_agents import LedgerSession
from tests.projections.integrations.fake_model import StreamsItsResponses, called, said

set_tracing_disabled(True)  # no network: nothing to export traces to

CITIES = ["Shanghai", "Hangzhou", "Beijing", "Chengdu", "Xiamen", "Kunming", "Wuhan"]


@function_tool
def search_flights(origin: str, destination: str, date: str) -> str:
    """Flights between two cities on a date."""
    seed = sum(map(ord, origin + destination + date))
    flights = [
        {
            "flight_number": f"HAT{(seed + 37 * k) % 900 + 100}",
            "origin": origin,
            "destination": destination,
            "date": date,
            "departure": f"{6 + 2 * k:02d}:{(seed + k) % 6}0",
            "price": {"amount": 300 + (seed * (k + 3)) % 700, "currency": "USD"},
            "seats_left": (seed + k) % 9 + 1,
            "cabin": ["basic_economy", "economy", "business"][k % 3],
            "fare_rules": "changes allowed up to 24 hours before departure for a fee; "
            "refunds only for business fares; one personal item included",
        }
        for k in range(5)
    ]
    return json.dumps({"flights": flights})


@function_tool
def get_reservation(reservation_id: str) -> str:
    """A reservation by its id."""
    seed = sum(map(ord, reservation_id))
    return json.dumps({
        "reservation_id": reservation_id,
        "user_id": f"mia_li_{seed % 9000 + 1000}",
        "passengers": [
            {"first_name": "Mia", "last_name": "Li", "dob": "1990-04-12"},
            {"first_name": "Noah", "last_name": "Li", "dob": f"2015-0{seed % 9 + 1}-21"},
        ],
        "flights": [{"flight_number": f"HAT{seed % 900 + 100}", "date": "2024-05-20"}],
        "payment_history": [{"payment_id": f"credit_card_{seed * 7 % 9_000_000}", "amount": 412}],
        "total_baggages": seed % 3,
        "insurance": "no",
    })  # fmt: skip


def user_turn(n: int) -> str:
    """The scripted user's ``n``-th message (constraints, searches, lookups, chat)."""
    origin, destination = CITIES[n % 7], CITIES[(n * 3 + 1) % 7]
    day = 10 + n % 18
    if n % 25 == 24:
        return "Write out the whole itinerary so far, every detail."
    kind = n % 5
    if kind == 0:
        return f"Search flights from {origin} to {destination} on 2024-06-{day:02d}."
    if kind == 1:
        return f"My budget is at most ${400 + 10 * (n % 30)} per ticket, and no basic economy."
    if kind == 2:
        return f"Please check reservation R{n:03d}X{n % 10}K and tell me the baggage count."
    if kind == 3:
        return f"I must be back in {origin} before 18:00 on 2024-06-{day + 2:02d}."
    return "Thanks, that helps. What would you suggest next?"


class TravelModel(StreamsItsResponses, Model):
    """No network: calls a tool when the user asks to search or check, answers from results."""

    def __init__(self) -> None:
        self.calls = 0

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        items = input if isinstance(input, list) else [{"role": "user", "content": input}]
        self.calls += 1
        last = items[-1]
        if last.get("type") == "function_call_output":
            return _reply(self.calls, _answer(json.loads(last["output"])))
        text = str(last.get("content", ""))
        if match := re.search(r"from (\w+) to (\w+) on ([\d-]+)", text):
            origin, destination, date = match.groups()
            arguments = {"origin": origin, "destination": destination, "date": date}
            return _call(self.calls, "search_flights", arguments)
        if match := re.search(r"reservation (\w+)", text):
            return _call(self.calls, "get_reservation", {"reservation_id": match.group(1)})
        if "whole itinerary" in text:
            return _reply(self.calls, _itinerary(self.calls))
        return _reply(self.calls, f"Noted: {' '.join(text.split()[:10])}")


def _itinerary(turn: int) -> str:
    """A long reply (about 700 tokens): the kind of answer that alone can fill a tiny budget."""
    days = [
        f"Day {d + 1}: leave {CITIES[(turn + d) % 7]} at {7 + d % 5}:15 on flight "
        f"HAT{(turn * 7 + d * 13) % 900 + 100}, arrive {CITIES[(turn + d + 1) % 7]} before noon, "
        f"check in at the hotel near the station (booking H{turn}{d:02d}), dinner at 19:30, "
        f"budget for the day about ${120 + 15 * d}."
        for d in range(14)
    ]
    return "Here is the whole itinerary. " + " ".join(days)


def _answer(result: dict[str, Any]) -> str:
    if "flights" in result and "reservation_id" not in result:
        best = min(result["flights"], key=lambda f: f["price"]["amount"])
        return f"The cheapest is {best['flight_number']} at ${best['price']['amount']}."
    return f"Reservation {result['reservation_id']} has {result['total_baggages']} bags."


def _reply(turn: int, text: str) -> ModelResponse:
    return ModelResponse(output=[said(turn, text)], usage=Usage(), response_id=None)


def _call(turn: int, name: str, arguments: dict[str, str]) -> ModelResponse:
    return ModelResponse(output=[called(turn, name, arguments)], usage=Usage(), response_id=None)


def travel_agent() -> Agent[Any]:
    """The agent of the long runs (its instructions are the prefix the SDK sends)."""
    return Agent(
        name="travel",
        instructions="You plan flights. Use the tools; respect every constraint the user gave.",
        model=TravelModel(),
        tools=[search_flights, get_reservation],
    )


class TimedSession(LedgerSession):
    """A ledger session that records, per ``get_items``, its time and what it served."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.turns: list[TurnRecord] = []

    async def get_items(self, limit: int | None = None) -> list[Any]:
        began = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ContextOverBudgetWarning)
            items = await super().get_items(limit)
        elapsed = (time.perf_counter() - began) * 1000
        manifest = self.last_manifest
        outcome = self.last_compaction
        self.turns.append(
            TurnRecord(
                ms=elapsed,
                tokens=manifest.tokens["total"] if manifest else 0,
                compaction=outcome.result if outcome else None,
                masked=outcome.masked if outcome else 0,
                warned=[str(w.message) for w in caught if w.category is ContextOverBudgetWarning],
            )
        )
        return items


@dataclass
class TurnRecord:
    """One ``get_items`` call: its milliseconds, the tokens served, what compaction did."""

    ms: float
    tokens: int
    compaction: str | None
    masked: int
    warned: list[str] = field(default_factory=list)


async def play(session: Session, turns: int) -> Agent[Any]:
    """Run ``turns`` user turns through the SDK's real Runner on ``session``."""
    agent = travel_agent()
    for n in range(turns):
        await Runner.run(agent, user_turn(n), session=session)
    return agent
