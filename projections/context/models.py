"""Context windows and tokenizers of common models: a documented, overridable table.

No maintained machine-readable source of model windows exists for every provider, so this is
a table (docs/context.md lists it), matched by the longest prefix of the model name (a
``provider/`` prefix is ignored). Token counts are exact only for OpenAI models, whose
tokenizers tiktoken ships; Anthropic, Google and open models are counted with ``o200k_base``
as an *estimate* (their tokenizers differ), and the CLI says so. Override or extend the table
with a JSON file named by ``CTXLEDGER_MODELS``: ``{"my-model": {"window": 32000}}`` (and
optionally ``"encoding"``, ``"exact"``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from projections.errors import ConfigurationError

__all__ = ["DEFAULT_WINDOW", "ModelInfo", "model_info"]

#: The window assumed for a model the table does not know.
DEFAULT_WINDOW = 128_000
_ENV = "CTXLEDGER_MODELS"


@dataclass(frozen=True)
class ModelInfo:
    """A model's context window, the encoding ctxledger counts with, and whether the count
    is the model's own (``exact``) or an estimate; ``known`` is False for the default."""

    window: int
    encoding: str = "o200k_base"
    exact: bool = False
    known: bool = True


_OPENAI = {
    "gpt-4.1": ModelInfo(1_047_576, exact=True),
    "gpt-5": ModelInfo(400_000, exact=True),
    "o1": ModelInfo(200_000, exact=True),
    "o3": ModelInfo(200_000, exact=True),
    "o4": ModelInfo(200_000, exact=True),
    "gpt-4o": ModelInfo(128_000, exact=True),
    "chatgpt-4o": ModelInfo(128_000, exact=True),
    "gpt-4-turbo": ModelInfo(128_000, "cl100k_base", exact=True),
    "gpt-4": ModelInfo(8_192, "cl100k_base", exact=True),
    "gpt-3.5-turbo": ModelInfo(16_385, "cl100k_base", exact=True),
}
_OTHERS = {
    # Anthropic (tokenizer not public: estimates)
    "claude-sonnet-4": ModelInfo(200_000),
    "claude-opus-4": ModelInfo(200_000),
    "claude-3": ModelInfo(200_000),
    "claude": ModelInfo(200_000),
    # Google (SentencePiece tokenizers: estimates)
    "gemini-1.5-pro": ModelInfo(2_097_152),
    "gemini-1.5-flash": ModelInfo(1_048_576),
    "gemini-2": ModelInfo(1_048_576),
    "gemini": ModelInfo(1_048_576),
    # Open models
    "llama-3": ModelInfo(128_000),
    "llama3": ModelInfo(128_000),
    "mistral-large": ModelInfo(128_000),
    "mistral": ModelInfo(32_768),
    "mixtral": ModelInfo(32_768),
    "qwen2.5": ModelInfo(131_072),
    "qwen3": ModelInfo(131_072),
    "deepseek": ModelInfo(128_000),
}


def model_info(model: str) -> ModelInfo:
    """The table's entry for ``model`` by longest prefix, or the default (a 128k window,
    an o200k estimate, ``known=False``).

    Raises:
        ConfigurationError: ``CTXLEDGER_MODELS`` names a file that is not a valid table.
    """
    name = model.lower().split("/")[-1]
    table = {**_OPENAI, **_OTHERS, **_overrides(os.environ.get(_ENV))}
    matches = [prefix for prefix in table if name.startswith(prefix)]
    if not matches:
        return ModelInfo(DEFAULT_WINDOW, known=False)
    return table[max(matches, key=len)]


@cache
def _overrides(path: str | None) -> dict[str, ModelInfo]:
    if not path:
        return {}
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        return {
            str(name).lower(): ModelInfo(
                int(entry["window"]),
                str(entry.get("encoding", "o200k_base")),
                bool(entry.get("exact", False)),
            )
            for name, entry in raw.items()
        }
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
        raise ConfigurationError(
            f"{_ENV}={path} is not a model table ({error}); expected JSON like "
            f'{{"my-model": {{"window": 32000, "encoding": "o200k_base", "exact": false}}}}'
        ) from None
