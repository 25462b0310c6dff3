"""Relative dates anchored to the time of the turn that says them ("yesterday" said on
8 May 2023 is 2023-05-07), so a summary can keep a date that no message spells out, and the
gate can derive it again from the same source. Pure: no I/O.

A turn's time comes from its metadata (``timestamp``, ``time`` or ``created_at``, ISO 8601) or
from a bracketed prefix of its text such as ``[1:56 pm on 8 May, 2023]`` (how ingested
transcripts often carry it).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from projections.context.messages import Message, text_of
from projections.summaries.spoken import WEEKDAYS

__all__ = ["anchor_relative_dates", "message_date"]

_MONTHS = {
    m: i
    for i, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
         ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
         ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")],
        start=1,
    )
    for m in names
}  # fmt: skip
_PREFIX = re.compile(
    r"^\s*\[[^\]]*?(\d{1,2})\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})[^\]]*\]"
    r"|^\s*\[[^\]]*?([A-Za-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})[^\]]*\]"
    r"|^\s*\[[^\]]*?(\d{4})-(\d{2})-(\d{2})[^\]]*\]"
)
_DAYS = {
    "today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
    "yesterday": -1, "last night": -1, "tomorrow": 1, "the day before yesterday": -2,
    "the day after tomorrow": 2, "今天": 0, "今晚": 0, "昨天": -1, "昨晚": -1, "明天": 1,
    "前天": -2, "后天": 2,
    # a text message's shorthand
    "tmrw": 1, "tmr": 1, "2moro": 1, "2morrow": 1, "tonite": 0, "2nite": 0,
}  # fmt: skip
_NUMBER_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_RELATIVE = re.compile(
    r"(?i)\b(?:the day before yesterday|the day after tomorrow|last night|this morning|"
    r"this afternoon|this evening|today|tonight|yesterday|tomorrow|tmrw|tmr|2moro|2morrow|"
    r"tonite|2nite)\b|今天|今晚|昨天|昨晚|"
    r"明天|前天|后天|\b(?P<n>\d+|a|one|two|three|four|five|six) (?P<unit>days?|weeks?) ago\b|"
    r"\b(?P<which>last|next|this) (?P<what>week|month|year|weekend|" + "|".join(WEEKDAYS) + r")\b"
)


def message_date(message: Message) -> date | None:
    """The date a turn was said on, if it carries one (see the module docstring)."""
    for key in ("timestamp", "time", "created_at"):
        raw = message.metadata.get(key)
        if isinstance(raw, str):
            try:
                return datetime.fromisoformat(raw.replace("Z", "+00:00")).date()
            except ValueError:
                continue
    match = _PREFIX.match(text_of(message))
    if match is None:
        return None
    groups = match.groups()
    try:
        if groups[0]:
            return date(int(groups[2]), _MONTHS[groups[1].lower()], int(groups[0]))
        if groups[3]:
            return date(int(groups[5]), _MONTHS[groups[3].lower()], int(groups[4]))
        return date(int(groups[6]), int(groups[7]), int(groups[8]))
    except (KeyError, ValueError):
        return None


def _resolve(match: re.Match[str], when: date) -> str | None:
    phrase = match.group(0).lower()
    if phrase in _DAYS:
        return (when + timedelta(days=_DAYS[phrase])).isoformat()
    if match.group("n"):
        count = int(match.group("n")) if match.group("n").isdigit() else 0
        count = count or _NUMBER_WORDS.get(match.group("n").lower(), 0)
        days = count * (7 if match.group("unit").startswith("week") else 1)
        return (when - timedelta(days=days)).isoformat()
    which, what = match.group("which").lower(), match.group("what").lower()
    step = {"last": -1, "next": 1, "this": 0}[which]
    if what in WEEKDAYS:
        target = WEEKDAYS.index(what)
        delta = (target - when.weekday()) % 7
        if step < 0:
            delta = delta - 7 if delta else -7
        elif step > 0:
            delta = delta or 7
        return (when + timedelta(days=delta)).isoformat()
    if what in ("week", "weekend"):
        start = when - timedelta(days=when.weekday()) + timedelta(weeks=step)
        return f"the week of {start.isoformat()}"
    if what == "month":
        month = (when.month - 1 + step) % 12 + 1
        year = when.year + (when.month - 1 + step) // 12
        return f"{year:04d}-{month:02d}"
    return str(when.year + step)


def anchor_relative_dates(text: str, when: date) -> list[tuple[str, str]]:
    """``(phrase, anchored date)`` for each relative date phrase in ``text`` said on ``when``."""
    found = []
    for match in _RELATIVE.finditer(text):
        resolved = _resolve(match, when)
        if resolved is not None:
            found.append((match.group(0), resolved))
    return found
