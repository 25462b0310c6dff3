"""The memory policy: defaults, TOML loading, and errors that say what to fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from projections.errors import MemoryRequestError
from projections.memory import MemoryPolicy


def test_defaults_promote_nothing_without_consent() -> None:
    policy = MemoryPolicy()
    assert policy.allowed_without_consent == []
    assert policy.never_promote == ["secrets", "health", "government_id"]
    assert policy.default_ttl_days == 180
    assert policy.long_term_category("preference.seat") == "preference"
    assert policy.long_term_category("trip.date") is None


def test_from_toml(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(
        'default_ttl_days = 30\n[long_term_keys]\n"travel.*" = "preference"\n', encoding="utf-8"
    )
    policy = MemoryPolicy.from_toml(path)
    assert policy.default_ttl_days == 30
    assert policy.long_term_category("travel.seat") == "preference"
    assert policy.long_term_category("preference.seat") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("default_ttl_days = 0", "default_ttl_days: Input should be greater than 0"),
        ("colour = 1", "colour: Extra inputs are not permitted"),
        ("this is not toml", "cannot read memory policy"),
        (
            'allowed_without_consent = ["health"]',
            "both allowed without consent and never promoted",
        ),
    ],
)
def test_bad_policy_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MemoryRequestError, match=message):
        MemoryPolicy.from_toml(path)


def test_missing_policy_file(tmp_path: Path) -> None:
    with pytest.raises(MemoryRequestError, match="does not exist"):
        MemoryPolicy.from_toml(tmp_path / "nope.toml")
