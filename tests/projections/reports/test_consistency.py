"""Answer consistency: the same questions asked after the full history and after the compacted
context, of a model behind a real HTTP server on loopback whose answers are recorded (it
answers from the sentences it is sent, as a model would); and the offline stand-in that
``ctxledger stats`` reports."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.ledger import Ledger
from projections.reports.consistency import (
    OpenAICompatibleAnswerer,
    answer_consistency,
    answers_agree,
    evidence_present,
)
from projections.reports.stats import session_stats
from tests.projections.chat_server import completion, read_json, send_json, serving
from tests.projections.test_cli import ctxledger

#: The recorded answers: question -> (the fact that answers it, the answer). The server gives
#: the answer when the fact is in what it was sent, and "I do not know" otherwise.
RECORDED = {
    "Which train did we exclude?": ("excluded G123", "G123"),
    "What is the one-way budget?": ("at most 200 CNY", "200 CNY"),
    "Where does the trip go?": ("to Hangzhou", "Hangzhou"),
}
BUDGET = Budget(context_limit=420, max_output_tokens=0, tool_reserve=0, safety_margin=0)


class RecordedModel(BaseHTTPRequestHandler):
    """POST /v1/chat/completions with the recorded answers."""

    def do_POST(self) -> None:
        body = read_json(self)
        question = body["messages"][-1]["content"]
        context = json.dumps(body["messages"][:-1], ensure_ascii=False)
        fact, answer = RECORDED.get(question, ("\0", ""))
        content = answer if fact in context else "I do not know."
        send_json(self, 200, completion(body["model"], content))

    def log_message(self, *_: Any) -> None:
        """Quiet."""


@pytest.fixture
def server() -> Iterator[str]:
    with serving(RecordedModel) as url:
        yield url


def conversation() -> list[dict[str, Any]]:
    facts = [
        {"id": "u1", "role": "user", "content": "We go to Hangzhou on Saturday."},
        {"id": "a1", "role": "assistant", "content": "Noted: a trip to Hangzhou."},
        {"id": "u2", "role": "user", "content": "One way costs at most 200 CNY."},
        {"id": "a2", "role": "assistant", "content": "Budget noted: at most 200 CNY one way."},
        {"id": "u3", "role": "user", "content": "Which trains are direct?"},
        {"id": "a3", "role": "assistant", "content": "I excluded G123: it is not direct."},
    ]
    chat = [
        {
            "id": f"f{i}",
            "role": "user" if i % 2 else "assistant",
            "content": f"Turn {i}: more small talk about museums and tea houses.",
        }
        for i in range(40)
    ]
    return [*facts, *chat]


def test_answers_agree_when_one_holds_the_other() -> None:
    assert answers_agree("G123", "We excluded G123.")
    assert answers_agree("200 CNY", "200 cny")
    assert not answers_agree("G123", "I do not know.")
    assert not answers_agree("", "")


async def test_consistency_against_a_recorded_model(server: str, tmp_path: Path) -> None:
    async with EventStore.open(tmp_path / "ledger.db") as store:
        session = Ledger(store).session("acme", "trip")
        await session.append(conversation())
        model = OpenAICompatibleAnswerer(base_url=server, model="recorded")
        questions = list(RECORDED)
        plain = (await session.render(BUDGET, keep_groups=2)).manifest.message_ids
        assert not {"a1", "a2", "a3"} & set(plain)  # the facts left the window
        report = await answer_consistency(session, BUDGET, questions, model, keep_groups=2)
        assert report.questions == 3
        assert [item.full for item in report.items] == ["G123", "200 CNY", "Hangzhou"]
        assert report.agreeing == 3  # recall brought every fact back
        assert report.share == 1.0
        found, asked = await evidence_present(session, BUDGET, keep_groups=2)
        assert (found, asked) == (1, 1)  # "Which trains are direct?" and its reply a3


async def test_the_command_and_what_stats_says(server: str, tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    source = tmp_path / "m.json"
    source.write_text(json.dumps(conversation()), encoding="utf-8")
    assert (
        ctxledger("ingest", str(source), "--tenant", "t", "--session", "s", db=db).returncode == 0
    )
    where = ("--tenant", "t", "--session", "s", "--context-limit", "1920", "--max-output", "0")
    asked = ("--question", "Which train did we exclude?", "--question", "Where does the trip go?")
    done = ctxledger(
        "consistency",
        *where,
        "--keep-groups",
        "2",
        "--base-url",
        server,
        "--answer-model",
        "recorded",
        *asked,
        "--json",
        db=db,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["questions"], report["agreeing"], report["model"]) == (2, 2, "recorded")
    own = ctxledger(
        "consistency", *where, "--base-url", server, "--answer-model", "recorded", db=db
    )
    assert own.returncode == 0, own.stderr
    assert "answer consistency (recorded): 1 of 1 agree" in own.stdout  # the session's question
    stats = ctxledger("stats", "--tenant", "t", db=db)
    assert "evidence_present stands in for it" in stats.stdout
    async with EventStore.open(db) as store:
        figures = await session_stats(Ledger(store), "t", "s", budget=BUDGET)
    assert figures.consistency_measure == "evidence_present"
    assert figures.evidence_present is not None


def test_no_question_at_all_is_a_usage_error(server: str, tmp_path: Path) -> None:
    db = tmp_path / "n.db"
    source = tmp_path / "m.json"
    source.write_text(
        json.dumps([{"role": "user", "content": "No question here."}]), encoding="utf-8"
    )
    assert (
        ctxledger("ingest", str(source), "--tenant", "t", "--session", "s", db=db).returncode == 0
    )
    refused = ctxledger(
        "consistency",
        "--tenant",
        "t",
        "--session",
        "s",
        "--base-url",
        server,
        "--answer-model",
        "m",
        db=db,
    )
    assert refused.returncode == 2
    assert re.search(r"no user question to ask again", refused.stderr)
