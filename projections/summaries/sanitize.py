"""Sanitising messages before any summarizer sees them. Pure: no I/O (the token counter is
injected).

Three things, each counted in a :class:`SanitizeReport`:

- tool results longer than a token limit are cut to their head and tail, the cut marked;
- secrets are redacted: API keys and bearer tokens, passwords in URLs, e-mail addresses, phone
  numbers, PRC resident ID numbers (checksum verified) and card numbers (Luhn verified);
- text that could fake the summary block, a chat-template token or a role marker is neutralised.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from projections.context.messages import Message

__all__ = ["SanitizeReport", "redact", "sanitize_messages"]

_SECRETS: list[tuple[str, re.Pattern[str]]] = [
    ("api_key", re.compile(r"\b(?:sk|pk|rk)-(?:proj-|live-|test-)?[A-Za-z0-9_-]{16,}")),
    ("api_key", re.compile(r"\bAKIA[0-9A-Z]{16}\b")),
    ("api_key", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b")),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}")),
    ("api_key", re.compile(r"(?i)\b(?:api[_-]?key|secret|access[_-]?token)\b\s*[:=]\s*\S{8,}")),
    ("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b")),
]
_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+):([^@\s/]+)@")
_PRC_ID = re.compile(r"(?<!\d)(\d{17}[\dXx])(?!\d)")
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
# Phone numbers in forms that are hard to mistake for amounts, dates or ids: with a country
# code, with an area code in parentheses, North American 3-3-4, or a PRC mobile number.
_PHONE = re.compile(
    r"(?<![\w+])\+\d{1,3}(?:[ -]?\d{1,4}){2,5}(?!\d)"
    r"|\(\d{2,4}\)\s?\d{3,4}[ -]\d{4}(?!\d)"
    r"|(?<!\d)\d{3}-\d{3}-\d{4}(?!\d)"
    r"|(?<!\d)1[3-9]\d{9}(?!\d)"
)
_FAKE_BLOCK = re.compile(r"(?i)<\s*(/?)\s*compaction_summary")
_TEMPLATE_TOKEN = re.compile(r"<\|([^|<>\n]{1,40})\|>")
_ROLE_MARKER = re.compile(r"(?im)^(\s*)(system|developer|assistant|user|tool)(\s*:)")
_PRC_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


@dataclass
class SanitizeReport:
    """What sanitising changed: truncated tool results, redactions by kind, neutralised spots."""

    truncated: int = 0
    redactions: Counter[str] = field(default_factory=Counter)
    neutralised: int = 0

    def as_dict(self) -> dict[str, object]:
        """The figures for the compaction event."""
        return {
            "truncated": self.truncated,
            "redactions": dict(sorted(self.redactions.items())),
            "neutralised": self.neutralised,
        }


def _prc_id_valid(number: str) -> bool:
    total = sum(int(d) * w for d, w in zip(number[:17], _PRC_WEIGHTS, strict=True))
    return "10X98765432"[total % 11] == number[17].upper()


def _luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def redact(text: str, report: SanitizeReport) -> str:
    """``text`` with secrets replaced by ``[redacted:<kind>]``, counted in ``report``."""

    def replace(kind: str) -> Callable[[re.Match[str]], str]:
        def sub(match: re.Match[str]) -> str:
            report.redactions[kind] += 1
            return f"[redacted:{kind}]"

        return sub

    def url_password(match: re.Match[str]) -> str:
        report.redactions["url_password"] += 1
        return f"{match.group(1)}:[redacted:url_password]@"

    def prc_id(match: re.Match[str]) -> str:
        if not _prc_id_valid(match.group(1)):
            return match.group(0)
        report.redactions["prc_id"] += 1
        return "[redacted:prc_id]"

    def card(match: re.Match[str]) -> str:
        digits = re.sub(r"[ -]", "", match.group(0))
        if not 13 <= len(digits) <= 19 or not _luhn_valid(digits):
            return match.group(0)
        report.redactions["card_number"] += 1
        return "[redacted:card_number]"

    text = _URL_PASSWORD.sub(url_password, text)
    for kind, pattern in _SECRETS:
        text = pattern.sub(replace(kind), text)
    text = _PRC_ID.sub(prc_id, text)
    text = _CARD.sub(card, text)
    return _PHONE.sub(replace("phone"), text)


def neutralise(text: str, report: SanitizeReport) -> str:
    """Make fake summary blocks, chat-template tokens and role markers inert."""

    def count(replacement: Callable[[re.Match[str]], str]) -> Callable[[re.Match[str]], str]:
        def sub(match: re.Match[str]) -> str:
            report.neutralised += 1
            return replacement(match)

        return sub

    text = _FAKE_BLOCK.sub(count(lambda m: f"‹{m.group(1)}compaction_summary"), text)
    text = _TEMPLATE_TOKEN.sub(count(lambda m: f"‹|{m.group(1)}|›"), text)
    return _ROLE_MARKER.sub(count(lambda m: f"{m.group(1)}[{m.group(2)}]{m.group(3)}"), text)


def _truncate(text: str, limit: int, count: Callable[[str], int]) -> str | None:
    if count(text) <= limit:
        return None
    # Keep about the first 2/3 and the last 1/3 of the allowed tokens, measured in characters.
    ratio = limit / max(count(text), 1)
    keep = max(int(len(text) * ratio), 2)
    head, tail = text[: keep * 2 // 3], text[len(text) - keep // 3 :]
    dropped = len(text) - len(head) - len(tail)
    return f"{head}\n[… {dropped} characters cut …]\n{tail}"


def sanitize_messages(
    messages: Sequence[Message],
    *,
    count_tokens: Callable[[str], int],
    tool_result_tokens: int = 400,
) -> tuple[list[Message], SanitizeReport]:
    """Sanitised copies of ``messages`` (ids, roles and tool links unchanged) and a report."""
    report = SanitizeReport()
    cleaned = []
    for message in messages:
        content = message.content
        if isinstance(content, str):
            if message.role == "tool":
                cut = _truncate(content, tool_result_tokens, count_tokens)
                if cut is not None:
                    report.truncated += 1
                    content = cut
            content = _add(report, _cleaned(content))
        elif isinstance(content, list):  # typed parts: each text part is cleaned
            content = [
                {**part, "text": _add(report, _cleaned(part["text"]))}
                if isinstance(part.get("text"), str)
                else part
                for part in content
            ]
        calls = [
            call.model_copy(update={"arguments": _add(report, _cleaned(call.arguments, False))})
            for call in message.tool_calls
        ]
        cleaned.append(message.model_copy(update={"content": content, "tool_calls": calls}))
    return cleaned, report


_Cleaned = tuple[str, tuple[tuple[str, int], ...], int]


@lru_cache(maxsize=16_384)
def _cleaned(text: str, neutralising: bool = True) -> _Cleaned:
    """``text`` redacted (and neutralised), with the counts. Cached: rolling compaction gives
    the summarizer the same cited messages again and again, and the patterns cost ~0.1 ms."""
    report = SanitizeReport()
    text = redact(text, report)
    if neutralising:
        text = neutralise(text, report)
    return text, tuple(sorted(report.redactions.items())), report.neutralised


def _add(report: SanitizeReport, cleaned: _Cleaned) -> str:
    text, redactions, neutralised = cleaned
    report.redactions.update(dict(redactions))
    report.neutralised += neutralised
    return text
