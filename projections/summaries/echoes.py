"""Names a user said where the typed patterns cannot see them: the conversation itself is the
gazetteer. Pure: no I/O.

A user types "los angeles" or opens a sentence with "Dealogic"; the patterns of the value
ledger read names by their capitals inside a sentence, so neither is a value of the user's.
When another turn of the same conversation names it in a form the patterns do read (the
assistant's "Los Angeles", a call's ``"city": "Los Angeles"``, "we use Dealogic"), the user's
own words are found again by that name: a multi-word name in any letter case, a one-word name
only as it is written (a lowercase "mark" or "delta" is as likely a common word).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

__all__ = ["NameMatcher", "name_like"]

_NAME_LIKE = re.compile(r"[A-Z][\w'’&.-]*(?:\s+[\w'’&.-]+)*")


def name_like(value: str) -> bool:
    """Whether ``value`` reads as a name to look for: capitalised words (not a bare code in
    capitals), four letters or more."""
    return (
        len(value) >= 4
        and not value.isupper()
        and _NAME_LIKE.fullmatch(value) is not None
        and not any(ch.isdigit() for ch in value)
    )


class NameMatcher:
    """Finds the whole-word mentions of some names in texts: a multi-word name in any letter
    case, a one-word name as written; the longest name wins where two overlap."""

    def __init__(self, names: Iterable[str]) -> None:
        unique = sorted(set(names), key=lambda n: (-len(n), n))
        several = [n for n in unique if " " in n]
        single = [n for n in unique if " " not in n]
        self._patterns = [
            re.compile(_alternation(several), re.IGNORECASE) if several else None,
            re.compile(_alternation(single)) if single else None,
        ]

    def mentions(self, text: str) -> Iterator[tuple[str, int]]:
        """``(span, start)`` of each mention in ``text``, each span taken once."""
        taken = bytearray(len(text))
        for pattern in self._patterns:
            if pattern is None:
                continue
            for match in pattern.finditer(text):
                start, end = match.span()
                if taken.find(1, start, end) == -1:
                    taken[start:end] = b"\x01" * (end - start)
                    yield match.group(0), start


def _alternation(names: list[str]) -> str:
    spelled = (r"\s+".join(re.escape(word) for word in name.split()) for name in names)
    return rf"(?<![\w'’-])(?:{'|'.join(spelled)})(?![\w'’-])"
