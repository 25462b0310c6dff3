"""Sanitising messages before any summarizer sees them. Pure: no I/O (the token counter is
injected).

Three things, each counted in a :class:`SanitizeReport`:

- tool results longer than a token limit are cut to their head and tail, the cut marked;
- secrets are redacted (:mod:`projections.summaries.secrets`): provider tokens, key/value
  credentials and passwords, private keys, JWTs, passwords in URLs, e-mail addresses, phone
  numbers, payment cards (Luhn), CVVs, IBANs (mod 97), SSNs and PRC resident ids (checksum), in
  string content, every text of list content (nested parts too) and tool-call arguments;
- text that could fake the summary block, a chat-template token or a role marker is neutralised.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from projections.context.messages import Message
from projections.summaries.secrets import RULES, Rule, normalise_spaces

__all__ = ["SanitizeReport", "redact", "redact_data", "sanitize_messages"]

_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+):([^@\s/]+)@")
# Phone numbers in forms that are hard to mistake for amounts, dates or ids: with a country
# code, with an area code in parentheses, North American 3-3-4, or a PRC mobile number.
_PHONE = re.compile(
    r"(?<![\w+])\+\d{1,3}(?:[ -]?\d{1,4}){2,5}(?!\d)"
    r"|\(\d{2,4}\)\s?\d{3,4}[ -]\d{4}(?!\d)"
    r"|(?<!\d)\d{3}-\d{3}-\d{4}(?!\d)"
    r"|(?<!\d)1[3-9]\d{9}(?!\d)"
)
_PHONE_RULE = Rule("phone", _PHONE)
# Keys of content parts that name structure, never carry free text.
_STRUCTURAL_KEYS = frozenset(
    {"type", "id", "call_id", "tool_call_id", "tool_use_id", "name", "mime_type", "media_type"}
)
_FAKE_BLOCK = re.compile(r"(?i)<\s*(/?)\s*compaction_summary")
_TEMPLATE_TOKEN = re.compile(r"<\|([^|<>\n]{1,40})\|>")
_ROLE_MARKER = re.compile(r"(?im)^(\s*)(system|developer|assistant|user|tool)(\s*:)")


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


def redact(text: str, report: SanitizeReport) -> str:
    """``text`` with secrets replaced by ``[redacted:<kind>]``, counted in ``report``.

    The rules are in :mod:`projections.summaries.secrets`; the text is normalised first
    (Unicode spaces as ASCII spaces), so a separator cannot hide a number."""
    text = normalise_spaces(text)

    def url_password(match: re.Match[str]) -> str:
        report.redactions["url_password"] += 1
        return f"{match.group(1)}:[redacted:url_password]@"

    text = _URL_PASSWORD.sub(url_password, text)
    for rule in RULES:
        text = rule.pattern.sub(_replacer(rule, report), text)
    return _PHONE.sub(_replacer(_PHONE_RULE, report), text)


def _replacer(rule: Rule, report: SanitizeReport) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        found = match.group(0)
        if rule.valid is not None and not rule.valid(found):
            return found
        report.redactions[rule.kind] += 1
        prefix = match.group(1) if rule.keep_prefix else ""
        return f"{prefix}[redacted:{rule.kind}]"

    return replace


def redact_data(value: object, report: SanitizeReport) -> object:
    """Every string in a JSON value redacted (and neutralised), except type tags and ids."""
    if isinstance(value, str):
        return _add(report, _cleaned(value))
    if isinstance(value, list):
        return [redact_data(item, report) for item in value]
    if isinstance(value, dict):
        return {
            key: item if key in _STRUCTURAL_KEYS else redact_data(item, report)
            for key, item in value.items()
        }
    return value


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
        elif isinstance(content, list):  # typed parts, nested ones too: every text is cleaned
            content = [redact_data(part, report) for part in content]  # type: ignore[misc]
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
