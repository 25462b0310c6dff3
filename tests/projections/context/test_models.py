"""The model table: windows and tokenizers of OpenAI, Anthropic, Google and open models,
estimates said so in the manifest and the CLI, and overridable from a JSON file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.models import DEFAULT_WINDOW, model_info
from projections.context.tokens import TiktokenCounter
from projections.errors import ConfigurationError
from projections.ledger import Ledger
from tests.projections.test_cli import ctxledger


@pytest.mark.parametrize(
    ("model", "window", "exact"),
    [
        ("gpt-4o-2024-08-06", 128_000, True),
        ("gpt-4.1-mini", 1_047_576, True),
        ("claude-3-5-sonnet-20241022", 200_000, False),
        ("anthropic/claude-sonnet-4-5", 200_000, False),
        ("gemini-1.5-pro-002", 2_097_152, False),
        ("gemini-2.5-flash", 1_048_576, False),
        ("meta-llama/llama-3.1-70b-instruct", 128_000, False),
    ],
)
def test_windows_and_exactness(model: str, window: int, exact: bool) -> None:
    info = model_info(model)
    assert (info.window, info.exact, info.known) == (window, exact, True)
    assert TiktokenCounter(model).exact is exact


def test_unknown_models_and_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert model_info("acme-lm-7b") == model_info("acme-lm-7b")
    assert (model_info("acme-lm-7b").window, model_info("acme-lm-7b").known) == (
        DEFAULT_WINDOW,
        False,
    )
    table = tmp_path / "models.json"
    table.write_text(json.dumps({"acme-lm": {"window": 32_000}}), encoding="utf-8")
    monkeypatch.setenv("CTXLEDGER_MODELS", str(table))
    assert model_info("acme-lm-7b").window == 32_000
    broken = tmp_path / "broken.json"
    broken.write_text("[1, 2]", encoding="utf-8")
    monkeypatch.setenv("CTXLEDGER_MODELS", str(broken))
    with pytest.raises(ConfigurationError, match="is not a model table"):
        model_info("x")


async def test_estimates_are_marked_in_the_manifest() -> None:
    async with EventStore.open("memory://") as store:
        session = Ledger(store, counter=TiktokenCounter("claude-3-5-sonnet")).session("t", "s")
        await session.append([{"id": "m1", "role": "user", "content": "hi"}])
        rendered = await session.render(Budget(context_limit=8000, max_output_tokens=0))
        assert rendered.manifest.token_counts == "estimate"
        exact = Ledger(store).session("t", "s2")
        await exact.append([{"id": "m1", "role": "user", "content": "hi"}])
        plain = await exact.render(Budget(context_limit=8000, max_output_tokens=0))
        assert plain.manifest.token_counts == "exact"


def test_the_cli_says_when_counts_are_estimates(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    source = tmp_path / "m.jsonl"
    source.write_text(json.dumps({"id": "m1", "role": "user", "content": "hi"}) + "\n")
    session = ("--tenant", "t", "--session", "s")
    assert ctxledger("ingest", str(source), *session, db=db).returncode == 0
    shown = ctxledger("context", *session, "--model", "claude-3-opus", db=db)
    assert shown.returncode == 0, shown.stderr
    assert "estimates" in shown.stderr
    guessed = ctxledger("context", *session, "--model", "acme-lm", db=db)
    assert "not in the model table" in guessed.stderr
