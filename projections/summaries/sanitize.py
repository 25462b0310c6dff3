"""Sanitising messages before any summarizer sees them. Pure: no I/O (the token counter is
injected).

Three things, each counted in a :class:`SanitizeReport`:

- tool results longer than a token limit are cut to their head and tail, the cut marked;
- secrets are redacted in layers (:mod:`projections.secrets`): values under sensitive keys at
  any depth of JSON (tool-call arguments, tool results, content parts, JSON inside strings),
  then in every other string key/value credentials, detect-secrets' provider formats,
  checksummed numbers (cards, IBANs, ids), private keys, passwords in URLs and random-looking
  tokens; e-mail addresses and phone numbers too;
- text that could fake the summary block, a chat-template token or a role marker is neutralised.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import orjson

from projections.context.messages import Message
from projections.secrets import Finding, find_secrets, redact_json_text, redact_structure
from projections.secrets.rules import RULES, normalise_spaces
from projections.text_caches import remembered

__all__ = [
    "SanitizeReport",
    "redact",
    "redact_data",
    "redact_for_display",
    "redact_keyed",
    "sanitize_messages",
]

# Phone numbers in forms that are hard to mistake for amounts, dates or ids: with a country
# code, with an area code in parentheses, North American 3-3-4, or a PRC mobile number.
_PHONE = re.compile(
    r"(?<![\w+])\+\d{1,3}(?:[ -]?\d{1,4}){2,5}(?!\d)"
    r"|\(\d{2,4}\)\s?\d{3,4}[ -]\d{4}(?!\d)"
    r"|(?<!\d)\d{3}-\d{3}-\d{4}(?!\d)"
    r"|(?<!\d)1[3-9]\d{9}(?!\d)"
)
_EMAIL = next(rule.pattern for rule in RULES if rule.kind == "email")
_FAKE_BLOCK = re.compile(r"(?i)<\s*(/?)\s*compaction_summary")
_TEMPLATE_TOKEN = re.compile(r"<\|([^|<>\n]{1,40})\|>")
_ROLE_MARKER = re.compile(r"(?im)^(\s*)(system|developer|assistant|user|tool)(\s*:)")


@dataclass
class SanitizeReport:
    """What sanitising changed: truncated tool results, redactions by kind, neutralised spots."""

    truncated: int = 0
    redactions: Counter[str] = field(default_factory=Counter)
    neutralised: int = 0

    def add(self, other: SanitizeReport) -> None:
        """Count ``other``'s changes in this report too."""
        self.truncated += other.truncated
        self.redactions.update(other.redactions)
        self.neutralised += other.neutralised

    def as_dict(self) -> dict[str, object]:
        """The figures for the compaction event."""
        return {
            "truncated": self.truncated,
            "redactions": dict(sorted(self.redactions.items())),
            "neutralised": self.neutralised,
        }


def redact(text: str, report: SanitizeReport) -> str:
    """``text`` with secrets (:func:`~projections.secrets.find_secrets`), e-mail addresses
    and phone numbers replaced by ``[redacted:<kind>]``, counted in ``report``. The text is
    normalised first (Unicode spaces as ASCII spaces), so a separator cannot hide a number."""
    text = normalise_spaces(text)
    spans = find_secrets(text)
    for pattern, kind in ((_EMAIL, "email"), (_PHONE, "phone")):
        spans += [Finding(m.start(), m.end(), kind) for m in pattern.finditer(text)]
    kept, at = [], 0
    for span in sorted(spans):
        if span.start < at:
            continue  # inside a span already redacted
        report.redactions[span.kind] += 1
        kept.append(f"{text[at : span.start]}[redacted:{span.kind}]")
        at = span.end
    return "".join(kept) + text[at:]


def redact_data(value: object, report: SanitizeReport) -> object:
    """A JSON value redacted: values under sensitive keys at any depth, every other string
    redacted and neutralised (type tags and ids kept)."""
    return redact_structure(value, _text_cleaner(report), _counter(report))


def redact_keyed(key: str, value: object, report: SanitizeReport) -> object:
    """``value`` redacted as if it stood under ``key`` in a JSON object: wholly when ``key``
    names a secret (a memory keyed ``wifi password``), else by structure and text."""
    cleaned = redact_structure({key: value}, lambda text: redact(text, report), _counter(report))
    assert isinstance(cleaned, dict)
    return cleaned[key]


def redact_for_display(text: str) -> str:
    """``text`` (JSON inside it too) with its secrets redacted, for a report or a listing."""
    report = SanitizeReport()
    return redact_json_text(text, lambda inner: redact(inner, report), _counter(report))


def _text_cleaner(report: SanitizeReport, neutralising: bool = True) -> Callable[[str], str]:
    return lambda text: _add(report, _cleaned(text, neutralising))


def _counter(report: SanitizeReport) -> Callable[[str], None]:
    def count(kind: str) -> None:
        report.redactions[kind] += 1

    return count


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
        content: object = message.content
        calls = tuple(call.arguments for call in message.tool_calls)
        # Rolling compaction hands the summarizer the same cited messages again and again: a
        # message's cleaning is remembered (a pure function of its content and the limits).
        if isinstance(content, list):  # typed parts, nested ones too: every text is cleaned
            content, arguments, delta = _sanitized_parts(content, calls)
        else:
            content, arguments, delta = _sanitized_text(
                message.role == "tool", content, calls, tool_result_tokens, count_tokens
            )
        report.add(delta)
        tool_calls = [
            call.model_copy(update={"arguments": text})
            for call, text in zip(message.tool_calls, arguments, strict=True)
        ]
        cleaned.append(message.model_copy(update={"content": content, "tool_calls": tool_calls}))
    return cleaned, report


@remembered
@lru_cache(maxsize=4096)
def _sanitized_text(
    is_tool: bool,
    content: str | None,
    calls: tuple[str, ...],
    tool_result_tokens: int,
    count_tokens: Callable[[str], int],
) -> tuple[str | None, tuple[str, ...], SanitizeReport]:
    report = SanitizeReport()
    if content is not None:
        content = redact_json_text(content, lambda text: text, _counter(report))  # keys first
        if is_tool:
            cut = _truncate(content, tool_result_tokens, count_tokens)
            if cut is not None:
                report.truncated += 1
                content = cut
        content = _add(report, _cleaned(content))
    arguments = tuple(
        redact_json_text(text, _text_cleaner(report, False), _counter(report)) for text in calls
    )
    return content, arguments, report


_REMEMBERED_BYTES = 16_384  # 1,024 entries of at most this, twice: under 32 MiB


def _sanitized_parts(
    parts: list[object], calls: tuple[str, ...]
) -> tuple[list[object], tuple[str, ...], SanitizeReport]:
    try:
        key = orjson.dumps(parts)
    except TypeError:  # not JSON (a caller's own part objects): cleaned, not remembered
        return _cleaned_parts(parts, calls)
    if len(key) > _REMEMBERED_BYTES:  # an inline image or file: cleaned, not kept in memory
        return _cleaned_parts(parts, calls)
    cleaned, arguments, report = _remembered_parts(key, calls)
    # A fresh copy each time: the parts are mutable and a caller may change its copy.
    return orjson.loads(cleaned), arguments, report


@remembered
@lru_cache(maxsize=1024)
def _remembered_parts(
    key: bytes, calls: tuple[str, ...]
) -> tuple[bytes, tuple[str, ...], SanitizeReport]:
    parts, arguments, report = _cleaned_parts(orjson.loads(key), calls)
    return orjson.dumps(parts), arguments, report


def _cleaned_parts(
    parts: list[object], calls: tuple[str, ...]
) -> tuple[list[object], tuple[str, ...], SanitizeReport]:
    report = SanitizeReport()
    cleaned = [redact_data(part, report) for part in parts]
    arguments = tuple(
        redact_json_text(text, _text_cleaner(report, False), _counter(report)) for text in calls
    )
    return cleaned, arguments, report


_Cleaned = tuple[str, tuple[tuple[str, int], ...], int]


@remembered
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
