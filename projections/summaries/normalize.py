"""What a summary must not get wrong, extracted from text: dates, times, numbers, negations.
Pure: no I/O.

Dates become ``date:MM-DD`` (and ``date:YYYY-MM-DD`` when a year is given) from ISO forms,
``2026 年 9 月 19 日``, ``Sept 19`` / ``19 September 2026``; times become ``time:HH:MM`` from
``18:00``, ``6pm``, ``6:30 pm``, ``18 点`` / ``18 点半``; every other number becomes
``num:<value>`` (so ``200 CNY``, ``200 元`` and ``¥200`` all give ``num:200``), an ordinal
``ord:<value>`` (``the 6th``); a code mixing
letters and digits also gives ``id:<code>`` (``HAT056``, ``omar_davis_3817``); an impossible
date gives ``invalid-date:…``, which no source supports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

__all__ = ["clauses", "has_negation", "is_answered", "quantities", "sentences", "terms"]

_MONTHS = {
    name: index
    for index, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_CN_DATE = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_EN_MONTH_DAY = re.compile(
    rf"(?i)\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?"
)
_EN_DAY_MONTH = re.compile(
    rf"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\b\.?(?:,?\s+(\d{{4}}))?"
)
_CLOCK = re.compile(r"(?<!\d)(\d{1,2}):(\d{2})(?:\s*([ap])\.?m\.?)?(?!\d)", re.I)
_AMPM = re.compile(r"(?<![\d:])(\d{1,2})\s*([ap])\.?m\b\.?", re.I)
_CN_HOUR = re.compile(r"(?<!\d)(\d{1,2})\s*点\s*(半|(\d{1,2})\s*分)?")
_ORDINAL = re.compile(r"(?i)(?<![\w.])(\d{1,4})(?:st|nd|rd|th)\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])|(?<=[^\W\d_])\d+(?:\.\d+)?")
_IDENTIFIER = re.compile(
    # letters and digits mixed, but not a number with a unit ("6pm", "3rd", "20kg")
    r"(?<![\w-])(?!\d{1,4}(?:am|pm|st|nd|rd|th|h|hrs?|min|s|k|kg|km|cm|mm|g|ml|l|x)(?![\w-]))"
    r"(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*(?![\w-])",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"(?i)\b(?:not|no|never|don't|doesn't|didn't|won't|cannot|can't|without|exclude[sd]?|"
    r"excluding|avoid|refuse[sd]?)\b|n't\b|[不没无别勿非]|禁止|排除"
)


def _date(year: str | None, month: int, day: int) -> set[str]:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        # An impossible date ("May 50th") is kept as itself, so no source can support it.
        return {f"invalid-date:{year or ''}-{month}-{day}"}
    found = {f"date:{month:02d}-{day:02d}"}
    if year:
        found.add(f"date:{int(year):04d}-{month:02d}-{day:02d}")
    return found


def _hour(hour: int, minute: int, meridiem: str | None) -> str:
    if meridiem:
        hour = hour % 12 + (12 if meridiem.lower() == "p" else 0)
    return f"time:{hour:02d}:{minute:02d}"


def quantities(text: str) -> set[str]:
    """The dates, times and numbers in ``text``, normalised (see the module docstring)."""
    found: set[str] = set()
    spans: list[tuple[int, int]] = []

    def take(match: re.Match[str], items: set[str]) -> None:
        found.update(items)
        spans.append(match.span())

    for m in _ISO_DATE.finditer(text):
        take(m, _date(m.group(1), int(m.group(2)), int(m.group(3))))
    for m in _CN_DATE.finditer(text):
        take(m, _date(m.group(1), int(m.group(2)), int(m.group(3))))
    for m in _EN_MONTH_DAY.finditer(text):
        take(m, _date(m.group(3), _MONTHS[m.group(1).lower()], int(m.group(2))))
    for m in _EN_DAY_MONTH.finditer(text):
        take(m, _date(m.group(3), _MONTHS[m.group(2).lower()], int(m.group(1))))
    for m in _CLOCK.finditer(text):
        take(m, {_hour(int(m.group(1)), int(m.group(2)), m.group(3))})
    for m in _AMPM.finditer(text):
        take(m, {_hour(int(m.group(1)), 0, m.group(2))})
    for m in _CN_HOUR.finditer(text):
        minute = 30 if m.group(2) == "半" else int(m.group(3) or 0)
        take(m, {_hour(int(m.group(1)), minute, None)})
    for m in _ORDINAL.finditer(text):
        # A day or a rank said as an ordinal ("the 6th", "3rd row"): "the 0th" for "the 6th"
        # is a changed digit too.
        if not _inside(m.span(), spans):
            take(m, {f"ord:{int(m.group(1))}"})
    for m in _IDENTIFIER.finditer(text):
        # Codes mixing letters and digits ("omar_davis_3817", "HAT056", "G7311"): the whole
        # code counts, so one changed digit is a value the sources do not have.
        found.add(f"id:{m.group(0).lower()}")
    for m in _NUMBER.finditer(text):
        if _inside(m.span(), spans):
            continue  # part of a date or time
        value = m.group(0).replace(",", "")
        if "." in value:
            value = value.rstrip("0").rstrip(".")
        found.add(f"num:{value.lstrip('0') or '0'}")
    return found


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    start, end = span
    return any(a <= start < b or a < end <= b for a, b in spans)


# Clause boundaries: sentence ends, semicolons, line breaks, and commas that are not inside a
# number ("1,234.5"). The summarizer and the gate split text the same way.
_CLAUSE = re.compile(r"([。；;!?！？\n]|(?<!\d)[.,，:：](?!\d))")


def clauses(text: str) -> list[str]:
    """``text`` cut into clauses (each keeping its closing mark), stripped, empties left out."""
    parts = _CLAUSE.split(text)
    joined = (
        parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)
    )
    return [clause.strip() for clause in joined if clause.strip(" \n.,，:：;；")]


# Sentence ends only: 。；;!?！？, line breaks, and a full stop followed by a space or the end
# (not inside "3.5", "e.g." stays joined only when followed by a letter without a space).
_SENTENCE = re.compile(r"([。；;!?！？\n]|(?<!\d)\.(?=\s|$))")


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (each keeping its closing mark), white space collapsed."""
    parts = _SENTENCE.split(text)
    joined = (
        parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)
    )
    found = (" ".join(sentence.split()) for sentence in joined)
    return [sentence for sentence in found if sentence.strip(" .;；。")]


def has_negation(text: str) -> bool:
    """Whether ``text`` negates or excludes something ("do not", "不", "排除", …)."""
    return _NEGATION.search(text) is not None


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}|[A-Za-z]+\d+|\d+[A-Za-z]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_NEGATORS = set("不没无别勿非") | {"禁", "止", "排", "除"}
_STOP = {
    "the",
    "and",
    "for",
    "with",
    "that",
    "this",
    "are",
    "was",
    "not",
    "but",
    "you",
    "want",
    "will",
    "have",
    "from",
    "please",
    "can",
    "into",
}


def terms(text: str) -> set[str]:
    """Content terms of ``text``: words of 3+ letters (stop words left out), letter-digit
    codes like ``g7311``, and pairs of adjacent Chinese characters (negators left out). The
    summarizer and the gate match questions, answers and clauses with the same terms."""
    words = {w.lower() for w in _WORD.findall(text)} - _STOP
    chars = [c for c in _CJK.findall(text) if c not in _NEGATORS]
    return words | {a + b for a, b in pairwise(chars)}


_REPLY_START = re.compile(
    r"(?i)^\W*(?:yes|yeah|yep|no|nope|sure|ok(?:ay)?|correct|right|exactly|of course|"
    r"please do|go ahead|不|好|是|对|可以|行)\b"
)


def is_answered(question: str, asked_by: str, later: Sequence[tuple[str, str]]) -> bool:
    """Whether a question was answered by what came after it: a later turn of the other party
    that shares a content term with it, or that starts with a reply word (yes, no, sure, …).

    ``later`` is ``(role, text)`` of the turns after the question, in order. The offline
    summarizer drops answered questions by this rule and the gate accepts a dropped question
    by the same rule, so the two never disagree.
    """
    wanted = terms(question)
    for role, text in later:
        if role not in ("user", "assistant") or role == asked_by:
            continue
        if wanted & terms(text) or _REPLY_START.match(text):
            return True
    return False
