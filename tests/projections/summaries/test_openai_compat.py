"""The OpenAI-compatible summarizer, through the official client over real HTTP to a server on
loopback that speaks the chat completions API. Every failure ends as a rejected summary."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.formats import to_messages
from projections.ledger import Ledger
from projections.summaries.offline_v2 import summarize_v2
from projections.summaries.openai_compat import OpenAICompatibleSummarizer
from projections.summaries.schema_v2 import Coverage
from projections.summaries.summarizer import SummaryRequest
from tests.projections.chat_server import completion, read_json, send_json, serving
from tests.projections.summaries.test_validation import TRIP
from tests.projections.test_compaction import filler

BUDGET = Budget(context_limit=700, max_output_tokens=0, tool_reserve=0, safety_margin=0)


class ChatServer(BaseHTTPRequestHandler):
    """POST /v1/chat/completions answering as the test's ``mode`` says."""

    mode: ClassVar[str] = "good"
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = read_json(self)
        ChatServer.requests.append(body)
        if self.mode == "5xx":
            send_json(self, 503, {"error": {"message": "overloaded", "type": "server_error"}})
            return
        if self.mode == "slow":
            time.sleep(2)
        content = {"malformed": "{not json at all", "schema": json.dumps({"facts": "x"})}.get(
            self.mode, ""
        ) or summarise_request(body)
        send_json(self, 200, completion(body["model"], content))

    def log_message(self, *_: Any) -> None:
        """Quiet."""


def summarise_request(body: dict[str, Any]) -> str:
    """Play the model: summarise the messages the client sent with the offline summarizer."""
    payload = json.loads(body["messages"][1]["content"])
    wire = [{k: v for k, v in m.items() if k != "v"} for m in payload["messages"]]
    versions = [item["v"] for item in payload["messages"]]
    messages = to_messages("openai", wire)
    # The model never sees the coverage (the client supplies it); the offline summarizer
    # needs one to run, any will do.
    coverage = Coverage(ranges=[(versions[0], versions[-1])], count=len(versions), digest="0" * 64)
    summary = summarize_v2(
        SummaryRequest(
            previous=None,
            chunk=messages,
            budget_tokens=payload["summary_token_budget"] // 3,  # words, not tokens
            created_at=datetime(2026, 9, 18, tzinfo=UTC),
            count_tokens=lambda text: len(text.split()),
            versions=versions,
            coverage=coverage,
        )
    )
    answer = summary.model_dump(mode="json", exclude={"created_at", "coverage"})
    return json.dumps(answer, ensure_ascii=False)


@pytest.fixture
def server() -> Iterator[str]:
    ChatServer.requests = []
    with serving(ChatServer) as url:
        yield url


async def trip_session(store: EventStore) -> Any:
    session = Ledger(store).session("acme", "trip")
    await session.append(TRIP)
    await session.append(filler(0, 12))
    return session


async def test_a_good_answer_is_committed(server: str) -> None:
    async with EventStore.open("memory://") as store:
        session = await trip_session(store)
        ChatServer.mode = "good"
        summarizer = OpenAICompatibleSummarizer(base_url=server, model="local-model")
        outcome = await session.compact(
            BUDGET, keep_groups=2, summarizer=summarizer, summary_budget=3000
        )
        assert outcome.result == "committed", outcome.event.data.get("reason")
        assert outcome.event.data["model"] == "local-model"
        assert outcome.event.data["usage"]["total_tokens"] == 20
        request = ChatServer.requests[-1]
        assert request["model"] == "local-model"
        assert request["response_format"]["type"] == "json_schema"
        sent = json.loads(request["messages"][1]["content"])
        assert all(isinstance(m["v"], int) for m in sent["messages"])
        assert "coverage" not in request["response_format"]["json_schema"]["schema"]["properties"]


@pytest.mark.parametrize(
    ("mode", "reason", "result"),
    [
        ("malformed", "not JSON", "rejected"),
        ("schema", "violates compaction_summary.v2", "rejected"),
        ("5xx", "InternalServerError", "unavailable"),
        ("slow", "APITimeoutError", "unavailable"),
    ],
)
async def test_failures_end_as_rejected_or_unavailable(
    server: str, mode: str, reason: str, result: str
) -> None:
    """A bad answer is the gate's rejection (recorded); a failed service is not a verdict on
    any summary: nothing is recorded, ``unavailable`` says why."""
    ChatServer.mode = mode
    async with EventStore.open("memory://") as store:
        session = await trip_session(store)
        version = (await session.state()).version
        summarizer = OpenAICompatibleSummarizer(
            base_url=server, model="m", timeout=0.5, max_retries=1
        )
        outcome = await session.compact(BUDGET, keep_groups=2, summarizer=summarizer)
        assert outcome.result == result
        if result == "rejected":
            assert outcome.failed_checks == ["summarizer"]
            assert reason in outcome.event.data["reason"]
        else:
            assert reason in (outcome.reason or "")
            assert (await session.state()).version == version
        rendered = await session.render(BUDGET, keep_groups=2)
        assert rendered.manifest.summary_version is None  # the window is served
        assert all(not m.id.startswith("summary:") for m in rendered.messages)
    if mode == "5xx":
        assert len(ChatServer.requests) == 2  # the client's retry was used
