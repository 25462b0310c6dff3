"""The redactor against the secret formats an adversarial pass found missing, and a property
test: a generated secret of any kind, in string content or any list-content part, never reaches
what the summarizer reads."""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from projections.context.messages import Message
from projections.summaries.sanitize import SanitizeReport, redact, sanitize_messages

ALNUM = string.ascii_letters + string.digits


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("stripe sk_live_51HqLyjWDarjtT1zdp7dc0123456789", "api_key"),
        ("restricted rk_test_4eC39HqLyjWDarjtT1zdp7dc", "api_key"),
        ("anthropic sk-ant-api03-abcdefghijklmnopqrstuvwx", "api_key"),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "api_key"),
        ("slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp", "api_key"),
        ("maps AIzaSyA1234567890abcdefghijklmnopqrstuv", "api_key"),
        ("gitlab glpat-abcdefghij1234567890", "api_key"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789", "api_key"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9",
            "jwt",
        ),
        ("password: hunter2!", "password"),
        ("the passcode is 9911-a", "password"),
        ('{"client_secret": "abcdefgh12345678"}', "api_key"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----",
            "private_key",
        ),
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "private_key"),
        ("card 4111.1111.1111.1111", "card_number"),
        ("card 4111\u00a01111\u00a01111\u00a01111", "card_number"),
        ("card 4111\u202f1111\u20091111\u20071111", "card_number"),
        ("ssn 123-45-6789", "ssn"),
        ("iban DE89 3704 0044 0532 0130 00", "iban"),
        ("iban GB82WEST12345698765432", "iban"),
        ("cvv 123", "cvv"),
        ("security code: 4321", "cvv"),
        ("sendgrid SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123", "api_key"),
        ("hf_abcdefghijklmnopqrstuvwxyz0123456789", "api_key"),
    ],
)
def test_each_format_is_redacted(text: str, kind: str) -> None:
    report = SanitizeReport()
    cleaned = redact(text, report)
    assert f"[redacted:{kind}]" in cleaned, cleaned
    assert report.redactions[kind] >= 1


@pytest.mark.parametrize(
    "text",
    [
        "ssn-like date 2026-09-19 and version 123-45",
        "iban-like code DE00 0000 not valid, DE89 3704 0044 0532 0130 01 fails mod 97",
        "order 4111 1111 1111 1112 fails Luhn; security 12",
    ],
)
def test_near_misses_survive(text: str) -> None:
    assert redact(text, SanitizeReport()) == text


def _luhn_complete(body: str) -> str:
    for last in string.digits:
        digits = body + last
        total = 0
        for index, char in enumerate(reversed(digits)):
            value = int(char) * (2 if index % 2 else 1)
            total += value - 9 if value > 9 else value
        if total % 10 == 0:
            return digits
    raise AssertionError


def _iban(bban: str) -> str:
    number = int("".join(str(int(c, 36)) for c in bban + "DE00"))
    return f"DE{98 - number % 97:02d}{bban}"


def _token(prefix: str, size: int) -> st.SearchStrategy[str]:
    return st.text(ALNUM, min_size=size, max_size=size + 8).map(lambda t: prefix + t)


def _card() -> st.SearchStrategy[str]:
    separators = st.sampled_from(["", " ", "-", ".", "\u00a0", "\u202f", "\u2009"])
    body = st.text(string.digits, min_size=15, max_size=15).map(lambda b: "4" + b[1:])
    return st.tuples(body, separators).map(
        lambda pair: pair[1].join(_luhn_complete(pair[0])[i : i + 4] for i in range(0, 16, 4))
    )


SECRETS = st.one_of(
    _token("sk-proj-", 24),
    _token("sk_live_", 24),
    _token("ghp_", 36),
    _token("xoxb-", 20),
    _token("AIza", 35).map(lambda t: t[:39]),
    st.text(string.ascii_uppercase + string.digits, min_size=16, max_size=16).map(
        lambda t: "AKIA" + t
    ),
    st.tuples(_token("eyJ", 12), _token("eyJ", 12), _token("", 16)).map(".".join),
    _token("", 12).map(lambda t: f"password: {t}"),
    _card(),
    st.text(string.digits, min_size=18, max_size=18).map(_iban),
    st.tuples(st.integers(100, 665), st.integers(10, 99), st.integers(1000, 9999)).map(
        lambda t: f"{t[0]}-{t[1]}-{t[2]}"
    ),
)
FILLER = st.text(string.ascii_letters + " ,.", max_size=30)


def _content(secret: str, shape: int, before: str, after: str) -> str | list[dict[str, object]]:
    text = f"{before} {secret} {after}"
    if shape == 0:
        return text
    if shape == 1:
        return [{"type": "text", "text": text}]
    if shape == 2:
        return [{"type": "output_text", "text": before}, {"type": "output_text", "text": text}]
    return [  # a nested tool_result, as Anthropic-style content carries it
        {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": text}]}
    ]


@settings(max_examples=300, deadline=None)
@given(secret=SECRETS, shape=st.integers(0, 3), role=st.sampled_from(["user", "tool"]),
       before=FILLER, after=FILLER)  # fmt: skip
def test_no_generated_secret_reaches_the_summarizer(
    secret: str, shape: int, role: str, before: str, after: str
) -> None:
    extra = {"tool_call_id": "c1"} if role == "tool" else {}
    message = Message(id="m1", role=role, content=_content(secret, shape, before, after), **extra)  # type: ignore[arg-type]
    (clean,), report = sanitize_messages([message], count_tokens=len)
    seen = json.dumps(clean.content, ensure_ascii=False)
    core = secret.split(": ")[-1]
    assume(core not in before + after)
    assert core not in seen, (secret, seen)
    assert sum(report.redactions.values()) >= 1
