"""The benchmark scripts keep working (their figures are recorded in docs/benchmarks.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def quick_run(module: str, *arguments: str) -> str:
    """Run ``python -m module --quick`` (or with other arguments) and return what it printed."""
    result = subprocess.run(
        [sys.executable, "-m", module, *(arguments or ("--quick",))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_eventstore_benchmark_prints_every_figure() -> None:
    output = quick_run("tests.benchmarks.bench_eventstore")
    for fragment in (
        "single durable append",
        "bare SQLAlchemy async",
        "batches of 100",
        "verify of 2000 events",
        "stored bytes per event",
        "targets:",
    ):
        assert fragment in output


def test_context_benchmark_prints_every_figure() -> None:
    output = quick_run("tests.benchmarks.bench_context")
    for fragment in ("warm render p50", "time travel p50", "bulk ingest vs raw sqlite3"):
        assert fragment in output


def test_payloads_are_one_to_two_kilobytes() -> None:
    from eventstore.encoding import canonical_json
    from tests.benchmarks.payloads import make_messages

    messages = make_messages(500)
    sizes = [len(canonical_json(message)) for message in messages]
    assert min(sizes) >= 1024
    assert max(sizes) <= 2048
    assert sum("tool_calls" in message for message in messages) == 100


def test_merkle_benchmark_prints_every_figure() -> None:
    output = quick_run("tests.benchmarks.bench_merkle")
    for figure in ("inclusion_make_us", "consistency_verify_us", "ratio", "of the append p50"):
        assert figure in output


def test_postgres_benchmark_prints_every_figure() -> None:
    from tests.postgres import server_url

    server_url()  # skips (or fails under CI=true) without a server
    output = quick_run("tests.benchmarks.bench_postgres", "--writers", "1,2", "--per-writer", "20")
    for fragment in ("ctxledger, one tenant", "a tenant per writer", "all cpu us", "ceiling"):
        assert fragment in output
    for floor in ("lock to commit", "lock hand-off", "sequence (no order)", "no hand-off"):
        assert output.count(floor) == 2  # one row per writer count
    assert output.count("ratio events/s to the lock-to-commit floor") == 2
    rows = [line.split() for line in output.splitlines() if "ctxledger," in line]
    assert len(rows) == 6
    assert all(float(row[-1]) > 0 and float(row[-2]) > 0 for row in rows)  # CPU per append


def test_agents_session_benchmark_prints_every_figure() -> None:
    output = quick_run("tests.benchmarks.bench_agents_session")
    for fragment in (
        "8k: 60 turns",
        "tiny: 60 turns",
        "turns that compacted",
        "caller told",
        "full collections of the process's heap",
        "baseline",
    ):
        assert fragment in output


def test_recall_benchmark_prints_every_figure() -> None:
    output = quick_run("tests.benchmarks.bench_recall", "--quick", "--phases")
    for fragment in (
        "synthetic:",
        "where a render with recall spends its time",
        "catch_up",
        "bodies",
        "recall p50",
        "search p50",
        "1000 + others",
        "(target <= 3)",
        "(target <= 1.3)",
        "in a tenant holding",
    ):
        assert fragment in output


def test_recall_benchmark_with_the_embedding_ranker_prints_its_figures() -> None:
    output = quick_run("tests.benchmarks.bench_recall", "--quick", "--vectors")
    for fragment in ("with the embedding ranker:", "recall p50", "1000 + others", "(target <= 3)"):
        assert fragment in output


def test_read_check_benchmark_prints_every_figure() -> None:
    output = quick_run("tests.benchmarks.bench_read_check")
    for measure in ("cold_open", "warm_render_p50", "time_travel_p50", "all hashes, raw"):
        assert measure in output


def test_langgraph_benchmark_prints_every_figure() -> None:
    output = quick_run("tests.benchmarks.bench_langgraph")
    for figure in (
        "SqliteSaver",
        "LedgerSaver",
        "mirror off",
        "time, ledger / SqliteSaver",
        "bytes,",
    ):
        assert figure in output


def test_adk_benchmark_prints_every_figure() -> None:
    output = quick_run("tests.benchmarks.bench_adk")
    for figure in ("DatabaseSessionService", "LedgerSessionService", "appends, ledger / ADK"):
        assert figure in output


def test_report_benchmark_prints_every_figure() -> None:
    output = quick_run("tests.benchmarks.bench_report", "--quick")
    for fragment in ("| messages |", "| 500 |", "| 2,000 |", "old report s"):
        assert fragment in output


def test_memory_benchmark_prints_every_figure() -> None:
    output = quick_run("tests.benchmarks.bench_memory")
    for fragment in ("built 10 sessions of 1,000 messages", "| 256 | 10 |", "| 16 |"):
        assert fragment in output
    assert "after malloc_trim MB" in output


def test_cold_open_benchmark_prints_every_ratio() -> None:
    output = quick_run("tests.benchmarks.bench_cold_open")
    for fragment in (
        "cold open, 5000 / 1000",
        "cold open / warm render",
        "cold open, imports done first, 5000 / 1000",
        "cold open, imports done first / warm render",
        "cold open / LangGraph get_tuple",
        "time travel (to the latter half), 5000 / 1000",
        "time travel (within 500 versions), 5000 / 1000",
        "time travel, bodies from the log, 5000 / 1000",
        "ctxledger context CPU / python -c pass",
        "resident above imports holding 5000 messages",
    ):
        assert fragment in output


def test_growth_benchmark_prints_every_ratio() -> None:
    output = quick_run("tests.benchmarks.bench_growth")
    for fragment in (
        "append p50:",
        "warm render p50, the filling process:",
        "warm render p50, a fresh process:",
        "time travel p50, the filling process:",
        "time travel p50, a fresh process:",
        "verify ÷ raw",
        "file bytes per event",
    ):
        assert fragment in output
    assert output.count("(target ≤") == 8


def test_values_benchmark_prints_every_figure(corpora: Path) -> None:
    output = quick_run("tests.benchmarks.bench_values")
    for fragment in ("turns: 300", "scan (values._typed_values)", "no prefilter", "admitted"):
        assert fragment in output
    assert "worst-case shapes" in output
    assert "'Abc of'" in output
