"""A failed call to a chat-completions server says where and what to do, not only the client's
exception name, and never the key."""

from __future__ import annotations

import socket

import httpx
import openai
import pytest

from projections.errors import SummarizerUnavailableError
from projections.summaries.server_errors import server_failure

URL = "http://127.0.0.1:9/v1"
REQUEST = httpx.Request("POST", f"{URL}/chat/completions")


def _status(code: int) -> openai.APIStatusError:
    response = httpx.Response(code, request=REQUEST, json={"error": {"message": "nope"}})
    return openai.APIStatusError("nope", response=response, body=None)


@pytest.mark.parametrize(
    ("error", "fragment"),
    [
        (openai.APITimeoutError(request=REQUEST), "did not answer in time"),
        (openai.APIConnectionError(request=REQUEST), "could not reach the summarizer server"),
        (_status(401), "HTTP 401 (APIStatusError): the key was refused: set OPENAI_API_KEY"),
        (
            _status(404),
            "HTTP 404 (APIStatusError): no such endpoint or model: the base URL usually ends",
        ),
        (_status(500), "HTTP 500 (APIStatusError): see the server's message"),
    ],
)
def test_a_failure_names_the_server_and_the_fix(error: Exception, fragment: str) -> None:
    text = server_failure(error, URL, "the summarizer server")
    assert fragment in text
    assert URL in text


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_an_unreachable_summarizer_says_so() -> None:
    from datetime import UTC, datetime

    from projections.context.messages import Message
    from projections.context.tokens import TiktokenCounter
    from projections.summaries.openai_compat import OpenAICompatibleSummarizer
    from projections.summaries.schema_v2 import Coverage
    from projections.summaries.summarizer import SummaryRequest

    url = f"http://127.0.0.1:{_closed_port()}/v1"
    summarizer = OpenAICompatibleSummarizer(
        base_url=url, model="m", api_key="sk-secret-key", timeout=2, max_retries=0
    )
    request = SummaryRequest(
        previous=None,
        chunk=[Message(id="u1", role="user", content="hello")],
        budget_tokens=100,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        count_tokens=TiktokenCounter().count_text,
        versions=[1],
        coverage=Coverage(ranges=[(1, 1)], count=1, digest="0" * 64),
    )
    with pytest.raises(SummarizerUnavailableError) as raised:
        await summarizer.summarize(request)
    assert f"could not reach the summarizer server at {url}" in str(raised.value)
    assert "sk-secret-key" not in str(raised.value)
