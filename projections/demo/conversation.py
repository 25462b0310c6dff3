"""The seed's Shanghai→Hangzhou weekend trip as a scripted conversation with tool calls.

Deterministic: the same turns, ids and tool results every time, so the demo's figures are
reproducible. Pure data: no I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CONSTRAINTS", "Turn", "trip_turns"]


@dataclass
class Turn:
    """One exchange: the user's message, tool calls with their results, the assistant's reply."""

    user: str
    reply: str
    tools: list[tuple[str, dict[str, Any], Any]] = field(default_factory=list)
    pin: str | None = None  # a reason to pin the user's message (a constraint)
    tag: str | None = None  # a name the demo uses to find this turn


#: The constraints the user fixes; their messages are pinned.
CONSTRAINTS = {
    "depart": "Leave Shanghai on the morning of 2026-09-19.",
    "budget": "One way costs at most 200 CNY.",
    "return": "I must be back in Shanghai before 18:00 on 2026-09-20.",
    "direct": "Direct trains preferred, no changes.",
    "no_booking": "Never book anything automatically; always ask me first.",
}

_TRAINS_OUT = [
    {"train": "G7311", "departs": "08:05", "arrives": "09:02", "price_cny": 73, "direct": True},
    {"train": "G7501", "departs": "08:40", "arrives": "09:39", "price_cny": 73, "direct": True},
    {"train": "G123", "departs": "09:10", "arrives": "12:40", "price_cny": 73, "direct": False},
    {"train": "D3125", "departs": "10:02", "arrives": "11:20", "price_cny": 49, "direct": True},
]
_TRAINS_BACK = [
    {"train": "G7358", "departs": "15:10", "arrives": "16:08", "price_cny": 73, "direct": True},
    {"train": "G7362", "departs": "16:25", "arrives": "17:24", "price_cny": 73, "direct": True},
    {"train": "G1234", "departs": "17:05", "arrives": "18:31", "price_cny": 88, "direct": True},
]

_SMALL_TALK = [
    (
        "Is West Lake walkable in one afternoon?",
        "Yes: the Su Causeway loop is about 10 km; allow three to four hours with stops.",
    ),
    (
        "What should I eat near Hefang Street?",
        "Try Dongpo pork, Longjing shrimp and beggar's "
        "chicken; Hefang Street has many snack stalls.",
    ),
    (
        "Is Lingyin Temple open early?",
        "It opens at 07:00; arriving before 09:00 avoids most tour groups.",
    ),
    (
        "How do I get from Hangzhou East to West Lake?",
        "Metro line 1 towards Xianghu, get off at Longxiangqiao: about 25 minutes.",
    ),
    (
        "Do I need cash?",
        "Almost everywhere takes Alipay or WeChat Pay; keep a little cash for small temples.",
    ),
    (
        "Can I rent a bike by the lake?",
        "Yes, shared bikes are everywhere around the lake; scan to unlock.",
    ),
    (
        "What about tea plantations?",
        "Longjing village is 20 minutes by taxi from the lake; "
        "tea tasting is free with a purchase.",
    ),
    (
        "Is there a night show?",
        "The Impression West Lake show was paused; evening boat rides run until 21:00.",
    ),
    ("Any museum worth it?", "The China National Tea Museum is free and quiet, closed on Mondays."),
    (
        "Where should I stay?",
        "Near Longxiangqiao metro: walkable to the lake and one line from Hangzhou East.",
    ),
    (
        "How crowded is it on weekends in September?",
        "Busy around the lake from 10:00; mornings are calm.",
    ),
    (
        "What is the weather like in the evening?",
        "Around 22 °C after sunset; bring a light jacket for the boat.",
    ),
]


def trip_turns() -> list[Turn]:
    """The whole trip, in order (44 exchanges)."""
    turns = [
        Turn(
            "Hi! I want a weekend trip from Shanghai to Hangzhou next month.",
            "Happy to help. Tell me your dates, budget and any constraints.",
        ),
        Turn(
            CONSTRAINTS["depart"],
            "Noted: departure on the morning of 2026-09-19.",
            pin="constraint: departure",
            tag="depart",
        ),
        Turn(
            CONSTRAINTS["budget"] + " For weekend trips I usually keep the one-way budget "
            "within 200 CNY.",
            "Noted: at most 200 CNY one way.",
            pin="constraint: budget",
            tag="budget",
        ),
        Turn(
            CONSTRAINTS["return"],
            "Noted: back in Shanghai before 18:00 on 2026-09-20.",
            pin="constraint: return",
            tag="return",
        ),
        Turn(
            CONSTRAINTS["direct"],
            "Noted: direct trains only where possible.",
            pin="constraint: direct trains",
            tag="direct",
        ),
        Turn(
            CONSTRAINTS["no_booking"],
            "Understood: I will never book without asking you.",
            pin="constraint: never book automatically",
            tag="no_booking",
        ),
        Turn(
            "Which trains leave Shanghai that morning?",
            "Four trains fit the morning: G7311 08:05→09:02, G7501 08:40→09:39, "
            "G123 09:10→12:40 and D3125 10:02→11:20.",
            tools=[
                (
                    "search_trains",
                    {"from": "Shanghai", "to": "Hangzhou", "date": "2026-09-19"},
                    _TRAINS_OUT,
                )
            ],
            tag="search_out",
        ),
        Turn(
            "What about G123?",
            "I excluded G123: it arrives at 12:40, later than planned, and it is not direct.",
            tag="exclude_g123",
        ),
        Turn(
            "Check the price of G7311 please.",
            "G7311 second class costs 73 CNY, within your 200 CNY budget.",
            tools=[
                (
                    "check_price",
                    {"train": "G7311", "class": "second"},
                    {"train": "G7311", "class": "second", "price_cny": 73, "seats_left": 112},
                )
            ],
        ),
        Turn(
            "And the weather on Saturday?",
            "Saturday 2026-09-19 in Hangzhou: sunny, 24-29 °C, light wind.",
            tools=[
                (
                    "get_weather",
                    {"city": "Hangzhou", "date": "2026-09-19"},
                    {
                        "city": "Hangzhou",
                        "date": "2026-09-19",
                        "sky": "sunny",
                        "low_c": 24,
                        "high_c": 29,
                    },
                )
            ],
        ),
    ]
    turns += [Turn(q, a) for q, a in _SMALL_TALK[:6]]
    turns += [
        Turn(
            "Now the way back on Sunday.",
            "Three direct trains on 2026-09-20: G7358 15:10→16:08, G7362 16:25→17:24 and "
            "G1234 17:05→18:31.",
            tools=[
                (
                    "search_trains",
                    {"from": "Hangzhou", "to": "Shanghai", "date": "2026-09-20"},
                    _TRAINS_BACK,
                )
            ],
        ),
        Turn(
            "G1234 looks convenient.",
            "G1234 arrives at 18:31, after your 18:00 limit, so I left it out. G7362 arrives "
            "at 17:24.",
        ),
        Turn(
            "Price of G7362?",
            "G7362 second class costs 73 CNY.",
            tools=[
                (
                    "check_price",
                    {"train": "G7362", "class": "second"},
                    {"train": "G7362", "class": "second", "price_cny": 73, "seats_left": 40},
                )
            ],
        ),
        Turn(
            "Weather on Sunday?",
            "Sunday 2026-09-20: cloudy, 23-27 °C, rain after 20:00.",
            tools=[
                (
                    "get_weather",
                    {"city": "Hangzhou", "date": "2026-09-20"},
                    {
                        "city": "Hangzhou",
                        "date": "2026-09-20",
                        "sky": "cloudy",
                        "low_c": 23,
                        "high_c": 27,
                        "rain_after": "20:00",
                    },
                )
            ],
        ),
    ]
    turns += [Turn(q, a) for q, a in _SMALL_TALK[6:]]
    for day, train in (("2026-09-19", "G7311"), ("2026-09-20", "G7362")):
        turns.append(
            Turn(
                f"Is {train} still available on {day}?",
                f"Yes, {train} still has second-class seats on {day}.",
                tools=[
                    (
                        "check_availability",
                        {"train": train, "date": day},
                        {"train": train, "date": day, "available": True},
                    )
                ],
            )
        )
    turns += [
        Turn(
            "Could you hold G7311 and G7362 for me?",
            "I can hold them, but per your rule I will not book anything until you say so.",
        ),
        Turn("Good. Total cost?", "G7311 73 CNY + G7362 73 CNY = 146 CNY for both ways."),
        Turn(
            "Any cheaper option outbound?",
            "D3125 at 49 CNY is cheaper but leaves at 10:02, later than a morning start.",
        ),
        Turn("Keep G7311 then.", "Keeping G7311 08:05→09:02 for 73 CNY."),
        Turn(
            "Remind me of my constraints.",
            "Leave the morning of 2026-09-19, at most 200 CNY one way, back before 18:00 on "
            "2026-09-20, direct trains, never book automatically.",
        ),
        Turn("Thanks, that's the plan.", "Great. The plan: G7311 out, G7362 back, 146 CNY."),
    ]
    while len(turns) < 44:
        turns.append(
            Turn(
                "One more question: is the metro busy on Saturday morning?",
                "Line 1 is busy from 09:00; before that it is comfortable.",
            )
        )
    return turns


def tool_call_arguments(arguments: dict[str, Any]) -> str:
    """Tool arguments as the JSON string OpenAI's format carries."""
    return json.dumps(arguments, ensure_ascii=False, sort_keys=True)
