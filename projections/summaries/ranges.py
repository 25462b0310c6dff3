"""A range's lower bound, said before the value that carries its unit: "between 1,500 and
2,000 dollars", "from 300 to 400 euros", "10-15%", "1 or 2 bags". The patterns read the upper
bound with its unit ("2,000 dollars"); the bound before it is a bare number, which alone would
be read as another value ("1,500"). One range is one value, in the user's words. Pure.
"""

from __future__ import annotations

import re

__all__ = ["range_start"]

#: The kinds a number and its unit make, whose lower bound may come before them.
RANGED_KINDS = frozenset({"amount", "count", "tally", "quantity"})
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# Before the upper bound, up to the end of the text read: "between A and ", "from A to ",
# "A to ", "A or ", "A-" (a bound is a number on its own: not a code's or a date's last part).
_LOWER_BOUND = re.compile(
    rf"(?i)(?:(?<![\w.,$€£¥-])between\s+(?:{_NUMBER})\s+and\s+"
    rf"|(?<![\w.,$€£¥/:-])(?:{_NUMBER})(?:\s*[-–]\s*|\s+(?:to|or)\s+))\Z"
)
_REACH = 40  # characters looked back: "between 1,000,000.50 and " fits


def range_start(text: str, kind: str, start: int, taken: bytearray) -> int:
    """Where the value of ``kind`` at ``start`` begins when a range's lower bound, not taken
    by another value, is said right before it; else ``start``."""
    if kind not in RANGED_KINDS or not text[start : start + 1].isdigit():
        return start
    found = _LOWER_BOUND.search(text, max(0, start - _REACH), start)
    if found is None or taken.find(1, found.start(), start) != -1:
        return start
    return found.start()
