"""The secret finders, layer by layer, and the benchmark's acceptance figures: at least 99% of
the format corpus and every structured shape redacted through the sanitiser, at least 99% of
200 ordinary values of a real corpus kept (tests/benchmarks/secrets.py; docs/quality.md)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from projections.context.messages import Message
from projections.secrets import find_secrets, is_sensitive_key, looks_random, redact_structure
from projections.summaries.sanitize import SanitizeReport, redact, sanitize_messages
from tests.benchmarks import secrets as benchmark
from tests.conftest import corpora_dir


@pytest.mark.parametrize(
    "key",
    ["password", "otp_secret", "pinCode", "X-API-Key", "Client-Secret", "private_key",
     "ConnectionString", "CVV", "passcode", "credentials", "access_token", "refreshToken",
     "set-cookie", "Authorization", "AccountKey", "SharedAccessKey", "wifi password"],
)  # fmt: skip
def test_keys_that_name_a_secret(key: str) -> None:
    assert is_sensitive_key(key)


@pytest.mark.parametrize(
    "key",
    ["token_type", "expires_in", "max_tokens", "input_tokens", "user_id", "card_last4",
     "shipping", "reservation_id", "flight_number", "passengers", "password_hint",
     "private_key_id", "booking code", "session"],
)  # fmt: skip
def test_keys_about_a_secret_or_not_one(key: str) -> None:
    assert not is_sensitive_key(key)


def test_values_under_sensitive_keys_go_at_any_depth_json_strings_too() -> None:
    found: list[str] = []
    value = {
        "user": "ana",
        "steps": [{"auth": {"PIN": 4821, "enabled": True}}],
        "output": json.dumps({"session": {"api_key": "k-1"}}),
    }
    cleaned = redact_structure(value, lambda text: text, found.append)
    dumped = json.dumps(cleaned)
    assert "4821" not in dumped
    assert "k-1" not in dumped
    assert '"enabled": true' in dumped  # a flag about the secret is not the secret
    assert "ana" in dumped
    assert len(found) == 2


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("my password is hunter2!", "hunter2!"),
        ("Authorization: Bearer abc.def-ghi_jkl", "abc.def-ghi_jkl"),
        ("DefaultEndpointsProtocol=https;AccountKey=Zm9vYmFy+/==;Endpoint", "Zm9vYmFy"),
        ("the code is here: ?access_token=Qx81-Lm2z&x=1", "Qx81-Lm2z"),
        ("my one-time code is 482913", "482913"),
        ("use zq8VKm2LpX4nB7rT1wYc9Hd3", "zq8VKm2LpX4nB7rT1wYc9Hd3"),
    ],
)
def test_running_text(text: str, secret: str) -> None:
    assert secret not in redact(text, SanitizeReport())


@pytest.mark.parametrize(
    "text",
    [
        "booking code ZFA04Y, flight HAT083 on 2024-05-20 for $412.50 to Seattle",
        "user mia_li_3668 paid with credit_card_4421486, order ORD-2024-00012345",
        "ContextOverBudgetWarning was raised by MessageValidationError",
        "event 0190f2c4-6a7e-7c3b-9d2e-5f1a2b3c4d5e hash 3f6ccc44012502cf63034f1a11d7604d",
        "The signature dish is sweet and the cookie is warm",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert find_secrets(text) == []


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=0, max_size=200))
def test_lower_case_prose_never_looks_random(text: str) -> None:
    assert not any(looks_random(word) for word in text.split())


def test_tool_arguments_and_results_are_redacted_by_structure() -> None:
    messages = [
        Message(
            id="a",
            role="assistant",
            tool_calls=[
                {"id": "c", "name": "login", "arguments": '{"user": "ana", "password": "s"}'}
            ],
        ),
        Message(id="t", role="tool", tool_call_id="c", content='{"token": "t0", "ok": true}'),
    ]
    cleaned, report = sanitize_messages(messages, count_tokens=len)
    assert '"password": "[redacted:credential]"' in cleaned[0].tool_calls[0].arguments
    assert '"t0"' not in str(cleaned[1].content)
    assert report.redactions["credential"] == 2


def test_the_format_corpus_and_the_shapes_are_redacted() -> None:
    figures = benchmark.formats()
    assert figures["format_redacted"] >= 0.99 * figures["format_cases"], figures["format_missed"]
    assert figures["shape_redacted"] == figures["shape_cases"], figures["shape_missed"]
    assert figures["formats"] >= 100


def test_ordinary_values_of_a_real_corpus_are_kept() -> None:
    if not corpora_dir().exists():
        pytest.skip("the corpora are not here (../shared/corpora or CTXLEDGER_CORPORA)")
    figures = benchmark.ordinary()
    assert figures["values"] == 200
    assert figures["kept"] >= 198, figures["lost"]
