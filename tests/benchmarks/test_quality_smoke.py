"""The quality script runs on a few real conversations (figures are in docs/quality.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_quality_script_on_two_conversations_per_corpus(corpora: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.quality", "--limit", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 7
    for line in lines[1:]:
        assert line.split()[-1] == "0"  # protocol errors
