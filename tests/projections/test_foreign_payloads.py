"""Arbitrary payloads under every session event type, written through the raw store (as an
older or foreign writer would), never crash a read: every read verb of the API and every read
command of the CLI either works or refuses with a message, and every unreadable event is
reported with its position."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from eventstore import EventStore, NewEvent
from projections.cli import cli
from projections.context.budget import Budget
from projections.ledger import Ledger
from projections.reports.report import report_data
from projections.reports.stats import tenant_stats
from projections.session.events import SESSION_EVENTS
from tests.projections.test_cli import ctxledger

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.text(max_size=12))
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
# Near misses of the real shapes, and anything at all.
FIELDS = st.sampled_from(
    [
        "message",
        "tokens",
        "encoding",
        "message_ids",
        "reason",
        "input_tokens",
        "output_tokens",
        "summary",
        "summary_version",
        "to_version",
        "failed_checks",
        "role",
        "content",
        "id",
    ]
)
PAYLOADS = st.one_of(
    st.dictionaries(FIELDS, JSON, max_size=6),
    st.dictionaries(st.text(max_size=8), JSON, max_size=4),
    st.fixed_dictionaries(
        {
            "message": st.fixed_dictionaries({"id": st.text(max_size=5), "role": JSON}),
            "tokens": JSON,
            "encoding": JSON,
        }
    ),
)
EVENTS = st.lists(st.tuples(st.sampled_from(sorted(SESSION_EVENTS)), PAYLOADS), max_size=6)
BUDGET = Budget(context_limit=2000, max_output_tokens=100, tool_reserve=0, safety_margin=0)
READ_COMMANDS = [
    ["context", "--tenant", "acme", "--session", "s"],
    ["context", "--tenant", "acme", "--session", "s", "--json", "--format", "anthropic"],
    ["summaries", "--tenant", "acme", "--session", "s"],
    ["stats", "--tenant", "acme"],
    ["log", "--tenant", "acme"],
    ["log", "--tenant", "acme", "--json"],
    ["verify", "--tenant", "acme"],
    ["streams", "--tenant", "acme"],
]


def invalid(kind: str, data: dict[str, Any]) -> bool:
    try:
        SESSION_EVENTS[kind].model_validate(data)
    except ValidationError:
        return True
    return False


async def write(path: Path, events: list[tuple[str, dict[str, Any]]]) -> list[int]:
    """A good message, then the raw events; returns the positions of the invalid ones."""
    async with EventStore.open(path) as store:
        await (
            Ledger(store)
            .session("acme", "s")
            .append([{"id": "m0", "role": "user", "content": "hello"}])
        )
    recorded = []
    if events:
        async with EventStore.open(path) as raw:  # a raw store: no ctxledger types registered
            new = [NewEvent(type=kind, data=data) for kind, data in events]
            recorded = await raw.append("acme", "session/s", new)
    return [e.position for e, (k, d) in zip(recorded, events, strict=True) if invalid(k, d)]


async def read_everything(path: Path) -> list[int]:
    """Every read verb of the API; returns the positions reported unreadable."""
    async with EventStore.open(path) as store:
        ledger = Ledger(store)
        session = ledger.session("acme", "s")
        state = await session.latest()
        assert state.message_ids()[0] == "m0"
        await session.messages()
        fresh = await session.state()
        for version in range(state.version + 1):
            for fmt in ("openai", "responses", "anthropic"):
                await session.render(BUDGET, fmt=fmt, at_version=version)  # type: ignore[arg-type]
        rendered = await session.render(BUDGET)
        fresh.summary_chain()
        await tenant_stats(ledger, "acme")
        await report_data(ledger, "acme", "s")
        reported = [u["position"] for u in rendered.manifest.unreadable]
        assert reported == [u.position for u in fresh.unreadable]
        return reported


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EVENTS)
def test_foreign_payloads_never_crash_a_read(events: list[tuple[str, dict[str, Any]]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ledger.db"
        expected = asyncio.run(write(path, events))
        assert asyncio.run(read_everything(path)) == expected
        runner = CliRunner()
        for command in READ_COMMANDS:
            result = runner.invoke(cli, ["--db", str(path), *command])
            assert result.exit_code in (0, 1), (command, result.output, result.exception)
            assert result.exception is None or isinstance(result.exception, SystemExit)
            assert "Traceback" not in result.output


def test_foreign_payloads_through_the_real_console_script(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    events = [
        ("MessageAppended", {"role": "user", "content": "bare"}),
        ("MessagesPinned", {"message_ids": "m0"}),
        ("SummaryCommitted", {"summary_version": "one"}),
    ]
    positions = asyncio.run(write(path, events))
    assert positions == [2, 3, 4]
    result = ctxledger("context", "--tenant", "acme", "--session", "s", db=path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    for position in positions:
        assert f"(position {position}) is unreadable" in " ".join(result.stderr.split())
    for command in READ_COMMANDS:
        result = ctxledger(*command, db=path)
        assert result.returncode == 0, (command, result.stderr)
        assert "Traceback" not in result.stderr + result.stdout
