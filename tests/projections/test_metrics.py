"""``ctxledger metrics``: Prometheus counters, a latency histogram in seconds, bounded labels,
the textfile form and a scrape endpoint on loopback; ``promtool check metrics`` (Debian's
prometheus package) accepts every form."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.needs import missing
from tests.projections.test_cli import SCRIPT, ctxledger


def promtool(text: str) -> None:
    """``promtool check metrics`` on ``text``; required under CI=true, skipped otherwise."""
    tool = shutil.which("promtool")
    if tool is None:
        missing(
            "promtool is not installed (Debian's prometheus package: apt-get install prometheus)"
        )
    checked = subprocess.run(
        [tool, "check", "metrics"], input=text, capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip() == "", checked.stdout  # no lint warning either


def test_counters_histogram_and_bounded_labels(demo_db: Path) -> None:
    result = ctxledger("--db", str(demo_db), "metrics")
    assert result.returncode == 0, result.stderr
    families = {f.name: f for f in text_string_to_metric_families(result.stdout)}
    assert families["ctxledger_messages"].type == "counter"
    assert families["ctxledger_summaries"].type == "counter"
    latency = families["ctxledger_compaction_duration_seconds"]
    assert latency.type == "histogram"
    buckets = [s for s in latency.samples if s.name.endswith("_bucket")]
    assert buckets[-1].labels["le"] == "+Inf"
    assert buckets[-1].value >= 3  # the demo's compactions
    assert all("session" not in s.labels for f in families.values() for s in f.samples)
    assert all(f.samples for f in families.values())  # no family without a sample
    promtool(result.stdout)
    per_session = ctxledger("--db", str(demo_db), "metrics", "--per-session")
    samples = list(text_string_to_metric_families(per_session.stdout))
    assert {s.labels.get("session") for f in samples for s in f.samples} >= {"trip-hangzhou"}
    promtool(per_session.stdout)
    old_form = ctxledger(
        "--db", str(demo_db), "stats", "--tenant", "acme", "--format", "prometheus"
    )
    promtool(old_form.stdout)


def test_textfile_and_scrape_endpoint(demo_db: Path, tmp_path: Path) -> None:
    textfile = tmp_path / "ctxledger.prom"
    written = ctxledger("--db", str(demo_db), "metrics", "-o", str(textfile))
    assert written.returncode == 0, written.stderr
    assert "ctxledger_messages_total" in textfile.read_text(encoding="utf-8")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [SCRIPT, "--db", str(demo_db), "metrics", "--serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        body = _scrape(f"http://127.0.0.1:{port}/metrics", server)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert 'ctxledger_model_calls_total{tenant="acme"} 44.0' in body
    promtool(body)


def _scrape(url: str, server: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(server.stderr.read().decode() if server.stderr else "server exited")
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return str(response.read().decode())
        except OSError:
            time.sleep(0.2)
    pytest.fail("the metrics endpoint did not answer within 60 s")
