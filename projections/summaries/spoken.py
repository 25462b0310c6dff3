"""Values as people say them: dates, times, quantities and names in words, for the value
ledger (``values``). Pure: no I/O.

A user says "the 8th", "next Friday", "half past 1 in the afternoon", "a table for two" or
"Ruth's Chris Steak House"; the tool that acts on it gets ``2019-03-08``, ``13:30``, ``2`` or a
venue id. The summary keeps the user's words next to the canonical value the call used, so the
next model call can tell what was asked from what was done.

These are a small grammar (number words, ordinals, weekdays, clock words, units, the words
that join a multi-word name), not a list of phrasings: they compose, so "quarter to seven in
the evening" and "the day after tomorrow" need no entry of their own. ``dateparser`` was
measured against them on the corpora and not taken (docs/quality.md: on 600 user turns it
found every relative date these find, plus pronouns and card digits as dates, "we", "now",
"may", "in 7334", at 25 times the cost).
"""

from __future__ import annotations

import re

__all__ = ["NAME_GAP", "SPACE", "SPOKEN_NAMES", "SPOKEN_PATTERNS"]

_NUMBER = (
    r"(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"a\s+couple\s+of|a\s+few)"
)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)"
_PART_OF_DAY = r"(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight)"
_MERIDIEM = r"(?:[ap]\.?\s?m\b\.?)"
_UNITS = (
    r"(?:people|persons?|guests?|travell?ers?|passengers?|adults?|children|kids?|"
    r"tickets?|seats?|rooms?|beds?|bedrooms?|bathrooms?|baths?|nights?|days?|weeks?|"
    r"hours?|minutes?|bags?|suitcases?|stops?|stars?|items?|tables?)"
)
_JOINER = r"(?:of|the|de|del|della|la|le|du|des|and|&|on|at|in|da|di|von|van|y)"
# A capitalised word, inner capitals too ("OncoPharm", "BioCrest").
_CAPITALISED = r"[A-Z][a-z]+(?:[A-Z][a-z]+)*(?:['’]s)?|[A-Z]{2,}"
#: A space within a line: whitespace but a line break.
SPACE = r"[^\S\r\n]"
#: Between the words of a name, in every name pattern: spaces within a line, never a line
#: break ("Yes\n\nPlease" is two paragraphs; a list's or a table's cells are not one name).
NAME_GAP = SPACE + "+"
_GAP = NAME_GAP

#: ``(kind, pattern)``, longest forms first: the ledger takes each span once, first pattern wins.
SPOKEN_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # "half past 1 in the afternoon", "quarter to seven", "8 o'clock at night", "5:30 in the
    # evening", "noon"
    (
        "time",
        re.compile(
            rf"(?i)\b(?:(?:half|(?:a\s+)?quarter)\s+(?:past|to|after)\s+)?{_NUMBER}"
            rf"(?::\d{{2}})?(?:\s*o'?clock)?\s*(?:{_MERIDIEM}\s*)?{_PART_OF_DAY}"
            rf"|\b(?:half|(?:a\s+)?quarter)\s+(?:past|to|after)\s+{_NUMBER}"
            rf"(?:\s*o'?clock)?(?:\s*{_MERIDIEM})?"
            rf"|\b{_NUMBER}\s*o'?clock(?:\s*{_MERIDIEM})?"
            r"|\b(?:noon|midday|midnight)\b"
        ),
    ),
    # "the 8th of March", "8th of March 2024", "the 21st", "next Friday", "this weekend",
    # "the day after tomorrow", "Friday the 13th"
    (
        "date",
        re.compile(
            rf"(?i)\b(?:on\s+)?(?:the\s+)?{_ORDINAL}\s+of\s+{_MONTH}\b\.?(?:,?\s+\d{{4}})?"
            rf"|\b(?:on\s+)?{_WEEKDAY}\s+(?:the\s+)?{_ORDINAL}\b"
            rf"|\b(?:on\s+)?the\s+{_ORDINAL}\b"
            rf"|\b(?:next|this|last|coming|following)\s+(?:{_WEEKDAY}|week(?:end)?|month|year)\b"
            rf"|\b(?:the\s+)?day\s+(?:after|before)\s+(?:tomorrow|yesterday)\b"
            rf"|\b(?:on\s+)?{_WEEKDAY}\b"
        ),
    ),
    # "yesterday", "tomorrow", "3 days ago", "in two weeks": relative to the turn's own date
    (
        "relative",
        re.compile(
            rf"(?i)\b(?:today|tonight|tomorrow|yesterday)\b"
            rf"|\b{_NUMBER}\s+(?:days?|weeks?|months?|years?)\s+(?:ago|from\s+now|later)\b"
            rf"|\bin\s+{_NUMBER}\s+(?:days?|weeks?|months?)\b"
        ),
    ),
    # "two tickets", "a couple of nights", "a table for two", "party of 4"
    (
        "count",
        re.compile(
            rf"(?i)(?<![\w.,]){_NUMBER}\s+(?:more\s+|extra\s+|checked\s+)?{_UNITS}\b"
            rf"|\b(?:table|party|reservation|booking)\s+(?:for|of)\s+{_NUMBER}\b"
        ),
    ),
    # "300 yuan", "fifty bucks", "20 pounds"
    (
        "amount",
        re.compile(
            r"(?i)\b(?:\d(?:[\d,]*\d)?(?:\.\d+)?|twenty|thirty|forty|fifty|hundred)\s?"
            r"(?:yuan|bucks|pounds?|yen|won|rupees?|cents?|francs?)\b"
        ),
    ),
]

#: Names in words, tried after the typed dates, ids and codes ("EWR on May 21" is a code and
#: a date, not a name) and before the plain run of capitalised words.
SPOKEN_NAMES: list[tuple[str, re.Pattern[str]]] = [
    # A title in quotes: "The Lion King", 'Hotel California'
    ("name", re.compile(r"(?<![\w])[\"“']([A-Z][^\"”'\n]{1,60})[\"”'](?![\w])")),
    # A multi-word name joined by small words or with a possessive: "Hotel del Coronado",
    # "Bank of America", "Ruth's Chris Steak House" (never from "I'm", "I'd", ...)
    (
        "name",
        re.compile(
            rf"(?<![\w.])(?!I['’])(?:{_CAPITALISED})"
            rf"(?:{_GAP}(?:{_JOINER}{_GAP})+(?:{_CAPITALISED})|{_GAP}(?:{_CAPITALISED}))*"
            rf"(?:{_GAP}(?:{_JOINER}{_GAP})+(?:{_CAPITALISED})|(?<=['’]s){_GAP}(?:{_CAPITALISED}))"
            rf"(?:{_GAP}(?:{_JOINER}{_GAP})*(?:{_CAPITALISED}))*(?![\w])"
        ),
    ),
]
