"""Secrets in running text, found in layers and merged into non-overlapping spans. Pure.

1. **Key and value**: a value after a key that names a secret in the shared vocabulary
   (:mod:`.vocabulary`): ``password=...``, ``"apiKey": "..."``, ``Authorization: Bearer ...``,
   ``AccountKey=...;``, ``?access_token=...``, and prose ("my one-time code is 123456").
2. **Provider formats** from detect-secrets (Yelp's scanner): the patterns of its regex
   plugins, run here on running text (its own scan is line by line over files).
3. **Checksummed and PII rules** (:mod:`projections.secrets.rules`): cards (Luhn), IBANs
   (mod 97), PRC ids, SSNs, CVVs, private key blocks, passwords in URLs.
4. **Random-looking tokens**: a run of token characters of 16 or more whose letters and digits
   change class often (random keys do, identifiers, dates and words do not). This is the
   layer that generalises to formats nobody listed: measured in docs/quality.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from projections.secrets.prefilter import Alternation, Prefilter, requirement
from projections.secrets.rules import RULES, normalise_spaces
from projections.secrets.vocabulary import is_sensitive_key

__all__ = ["Finding", "find_secrets", "looks_random"]


@dataclass(frozen=True, order=True)
class Finding:
    """A secret's span in the text and the layer that found it."""

    start: int
    end: int
    kind: str


_SEPARATOR = re.compile(r"[:=]|\b(?:is|was)\b")
_PROSE_KEY_WORD = re.compile(
    r"(?i)\b(?:password|passwd|passcode|passphrase|pin|otp|one-time code|verification code)\b"
)
_ADJACENT = re.compile(r"[ \t]+(?!(?:is|was|for|to|of|and|or|the|a|an|in|on)\b)([^\s,;\"'<>]+)")
# In prose ("the cookie is warm") only a word that cannot mean anything else takes a value.
_PROSE_KEYS = (
    "password", "passwd", "pwd", "passphrase", "passcode", "pin", "otp", "onetime", "apikey",
    "verificationcode", "securitycode", "accesstoken", "authtoken", "cvv", "cvc", "ssn",
)  # fmt: skip
_SCHEMES = frozenset({"bearer", "basic", "digest", "token", "ssws", "negotiate", "apikey"})
_VALUE_END = re.compile(r"[\s,;&\"'<>)\]}]")
_URL_PASSWORD = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]+:([^@\s/]+)@")
_TOKEN = re.compile(r"[A-Za-z0-9+_~$-]{16,}")
_RULE_NEEDS = Prefilter([requirement(rule.pattern) for rule in RULES])
_WIDEN = re.compile(r"[A-Za-z0-9+/_~$.=%:-]")


def find_secrets(text: str) -> list[Finding]:
    """The secrets in ``text`` (normalise Unicode spaces first: see
    :func:`~projections.secrets.rules.normalise_spaces`), merged and in order."""
    folded = text.lower()
    found = [*_key_values(text), *_adjacent_values(text)]
    found += [*_library(text), *_rules(text, folded)]
    found += _random_tokens(text)
    return _merged([f for f in found if not _already_redacted(text, f)])


def _already_redacted(text: str, finding: Finding) -> bool:
    return text.startswith("[redacted", finding.start + (text[finding.start] in "\"'"))


# Where layers overlap, the span is named by the most specific one.
_GENERIC = {"random_token": 0, "credential": 1, "provider_key": 2}


def _merged(found: list[Finding]) -> list[Finding]:
    merged: list[Finding] = []
    for finding in sorted(found):
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            kind = max(last.kind, finding.kind, key=lambda k: _GENERIC.get(k, 3))
            merged[-1] = Finding(last.start, max(last.end, finding.end), kind)
        elif finding.end > finding.start:
            merged.append(finding)
    return merged


def _key_values(text: str) -> list[Finding]:
    found = []
    for separator in _SEPARATOR.finditer(text):
        words = _words_before(text, separator.start())
        prose = separator.group(0) in ("is", "was")
        if not words or not _names_secret(words, prose):
            continue
        value = _value_after(text, separator.end())
        if value is not None:
            found.append(Finding(*value, "credential"))
    return found


def _adjacent_values(text: str) -> list[Finding]:
    """A value right after a word that cannot mean anything else ("password Tr0ub4dor&3",
    "PIN 4821"), when it is not a plain word ("password reset" is not a password)."""
    found = []
    for key in _PROSE_KEY_WORD.finditer(text):
        value = _ADJACENT.match(text, key.end())
        if value is None:
            continue
        word = value.group(1)
        plain = word.isalpha() and (word.islower() or word.istitle() or word.isupper())
        if not plain:
            found.append(Finding(value.start(1), value.end(1), "credential"))
    return found


def _words_before(text: str, at: int) -> list[str]:
    """Up to three words right before ``at`` (a closing quote between them and ``at`` is
    allowed): the key of a ``key: value`` pair or the subject of "my password is". Scanned
    backwards by hand: a regular expression anchored at the end retries every start."""
    i, floor = at, max(0, at - 80)
    while i > floor and text[i - 1] in " \t":
        i -= 1
    if i > floor and text[i - 1] in "\"'":
        i -= 1
    words: list[str] = []
    while len(words) < 3:
        end = i
        while i > floor and (text[i - 1].isalnum() or text[i - 1] in "_.-"):
            i -= 1
        word = text[i:end].lstrip("_.-")
        if not word or not word[0].isalpha():
            break
        words.insert(0, word)
        if i == floor or text[i - 1] not in " \t":
            break  # punctuation before it: the key starts here
        while i > floor and text[i - 1] in " \t":
            i -= 1
    return words


def _names_secret(words: list[str], prose: bool) -> bool:
    for index in range(len(words)):
        key = " ".join(words[index:])
        if is_sensitive_key(key):
            glued = key.replace(" ", "").replace("-", "").replace("_", "").lower()
            return not prose or any(strong in glued for strong in _PROSE_KEYS)
    return False


def _value_after(text: str, at: int) -> tuple[int, int] | None:
    """The span of the value that starts after ``at``: quoted, or up to a delimiter; an
    authorization scheme (``Bearer``) takes the token after it too."""
    start = at + len(text[at:]) - len(text[at:].lstrip(" \t"))
    if start < len(text) and text[start] in "\"'":
        close = text.find(text[start], start + 1, start + 2000)
        return (start + 1, close) if close > start + 1 else None
    end = _end_of_value(text, start)
    if text[start:end].lower() in _SCHEMES and end < len(text) and text[end] == " ":
        end = _end_of_value(text, end + 1)
    if end == start or text.startswith("[redacted", start):
        return None
    return start, end


def _end_of_value(text: str, start: int) -> int:
    stop = _VALUE_END.search(text, start)
    return stop.start() if stop else len(text)


def _library(text: str) -> list[Finding]:
    found = []
    for match in _library_alternation().finditer(text):
        start, end = _widened(text, match.start(), match.end())
        found.append(Finding(start, end, "provider_key"))
    return found


@lru_cache(maxsize=1)
def _library_alternation() -> Alternation:
    """The patterns of detect-secrets' regex plugins (its IP address plugin left out: an
    address is not a secret) as one alternation, each with its own flags scoped to it: one
    pass over the text instead of 45 (the report redacts every message), with the branches
    whose literals a text lacks left out (:mod:`.prefilter`). Loaded on first use: the import
    takes a moment."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    branches: list[str] = []
    plugins: dict[str, Any] = get_mapping_from_secret_type_to_class()
    for plugin in plugins.values():
        if issubclass(plugin, RegexBasedDetector) and plugin.__name__ != "IPPublicDetector":
            branches += [_scoped(pattern) for pattern in plugin.denylist]
    return Alternation(branches)


def _scoped(pattern: re.Pattern[str]) -> str:
    flags = "i" * bool(pattern.flags & re.IGNORECASE) + "x" * bool(pattern.flags & re.VERBOSE)
    return f"(?{flags}:{pattern.pattern})" if flags else f"(?:{pattern.pattern})"


def _widened(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole token around a match (a pattern may match only a secret's prefix)."""
    while start > 0 and _WIDEN.match(text[start - 1]):
        start -= 1
    while end < len(text) and _WIDEN.match(text[end]):
        end += 1
    return start, end


def _rules(text: str, folded: str) -> list[Finding]:
    found = [Finding(m.start(1), m.end(1), "url_password") for m in _URL_PASSWORD.finditer(text)]
    for index in _RULE_NEEDS.admitted(text, folded):
        rule = RULES[index]
        if rule.kind == "email":
            continue  # personal data, not a secret: the sanitiser redacts it on its own
        for match in rule.pattern.finditer(text):
            if rule.valid is None or rule.valid(match.group(0)):
                start = match.end(1) if rule.keep_prefix else match.start()
                found.append(Finding(start, match.end(), rule.kind))
    return found


def _random_tokens(text: str) -> list[Finding]:
    found = []
    for token in _TOKEN.finditer(text):
        if looks_random(token.group(0)):
            found.append(Finding(*_widened(text, token.start(), token.end()), "random_token"))
    return found


_SEGMENT = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
# A bare hex string or UUID is a digest or an id far more often than a key (keys in hex carry
# a prefix or a key name, which the other layers and the prefix itself catch).
_HEX_OR_UUID = re.compile(r"[0-9a-fA-F-]+")


def looks_random(token: str) -> bool:
    """Whether a token of 16 or more characters looks random: not bare hex or a UUID, eight
    distinct characters, at least two of lower case, upper case and digits, and short runs:
    split into words (``Context``, ``Over``, ``42``), the runs average under four characters.
    A random alphanumeric string averages about two; identifiers (``ContextOverBudgetError``,
    ``credit_card_4421486``, ``ORD-2024-00012345``) and words average far more."""
    chars = "".join(c for c in token if c.isascii() and c.isalnum())
    if len(chars) < 16 or len(set(chars)) < 8 or _HEX_OR_UUID.fullmatch(token):
        return False
    kinds = (any(c.islower() for c in chars), any(c.isupper() for c in chars))
    if sum((*kinds, any(c.isdigit() for c in chars))) < 2:
        return False
    runs = _SEGMENT.findall(chars)
    return len(chars) / len(runs) < 4.0


def normalised(text: str) -> str:
    """``text`` with Unicode spaces as ASCII spaces (the form the finders read)."""
    return normalise_spaces(text)
