"""The secret rules of the redactor: provider tokens, key/value credentials, private keys,
payment data and national ids. Pure.

Each rule is a pattern and, where the format has one, a checksum (Luhn for cards, mod 97 for
IBANs, the PRC id's weighted sum) so that order numbers and amounts are left alone. Text is
normalised first (every Unicode space to an ASCII space, zero-width characters out), because a
card number written with non-breaking or thin spaces is still a card number. The rules follow
the provider formats that secret scanners (gitleaks, detect-secrets, GitHub secret scanning)
document; they are written here rather than imported because those tools scan files line by
line, and a summary's input is running text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["RULES", "Rule", "normalise_spaces"]

_SPACES = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_ZERO_WIDTH = re.compile(r"[\u200b-\u200d\u2060\ufeff]")


def normalise_spaces(text: str) -> str:
    """Unicode spaces as ASCII spaces, zero-width characters removed. (Not NFKC: it would
    rewrite full-width punctuation, and the gate checks summaries against this very text.)"""
    if text.isascii():
        return text
    return _ZERO_WIDTH.sub("", _SPACES.sub(" ", text))


@dataclass(frozen=True)
class Rule:
    """One kind of secret: a pattern, and a check a match must pass (checksums)."""

    kind: str
    pattern: re.Pattern[str]
    valid: Callable[[str], bool] | None = None
    keep_prefix: bool = False  # keep group 1 (a key name) and redact only the value


def _luhn(match: str) -> bool:
    digits = re.sub(r"\D", "", match)
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _iban(match: str) -> bool:
    compact = match.replace(" ", "").upper()
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(c, 36)) for c in rearranged)
    return 15 <= len(compact) <= 34 and int(number) % 97 == 1


_PRC_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def _prc_id(number: str) -> bool:
    total = sum(int(d) * w for d, w in zip(number[:17], _PRC_WEIGHTS, strict=True))
    return "10X98765432"[total % 11] == number[17].upper()


_KEY_NAMES = (
    r"api[_ -]?key|apikey|secret(?:[_ -]?key)?|client[_ -]?secret|access[_ -]?token|"
    r"auth[_ -]?token|refresh[_ -]?token|private[_ -]?key|aws[_ -]?secret[_ -]?access[_ -]?key"
)
_PASSWORD_NAMES = r"password|passwd|passphrase|passcode|pwd"

RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s]*)"
        ),
    ),
    Rule("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    Rule(
        "api_key",
        re.compile(r"\b(?:sk|pk|rk)[-_](?:proj[-_]|live[-_]|test[-_]|ant[-_])?[A-Za-z0-9_-]{16,}"),
    ),
    Rule("api_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    Rule("api_key", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{40,}")),
    Rule("api_key", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    Rule("api_key", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    Rule("api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    Rule("api_key", re.compile(r"\b(?:hf|npm)_[A-Za-z0-9]{30,}\b")),
    Rule("api_key", re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    Rule("api_key", re.compile(r"\bSK[0-9a-f]{32}\b")),
    Rule("bearer_token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}")),
    Rule(
        "api_key",
        re.compile(rf"(?i)(\b(?:{_KEY_NAMES})\b[\"']?\s*[:=]\s*)[\"']?[^\s\"',;]{{8,}}"),
        keep_prefix=True,
    ),
    Rule(
        "password",
        re.compile(rf"(?i)(\b(?:{_PASSWORD_NAMES})\b[\"']?\s*(?:[:=]|\bis\b)\s*)[\"']?[^\s\"',;]+"),
        keep_prefix=True,
    ),
    Rule("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b")),
    Rule("iban", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"), _iban),
    Rule(
        "cvv",
        re.compile(r"(?i)(\b(?:cvv2?|cvc2?|csc|security code)\b\s*[:=#]?\s*)\d{3,4}\b"),
        keep_prefix=True,
    ),
    Rule("prc_id", re.compile(r"(?<!\d)\d{17}[\dXx](?!\d)"), _prc_id),
    Rule("card_number", re.compile(r"(?<![\d.])(?:\d[ .-]?){12,18}\d(?![\d])"), _luhn),
    Rule(
        "ssn",
        re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])"),
    ),
)
