"""The quality script runs on a few real conversations (figures are in docs/quality.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_quality_script_on_a_few_runs(corpora: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.quality", "--limit", "4"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(" @ ")[0] for line in lines[1:]] == ["tau-bench airline"] * 2
    for line in lines[1:]:
        columns = line.split()
        assert columns[-3] == "0"  # protocol errors (tool groups split)
        assert columns[-4] == "100%"  # the gate refused no summary of the offline one
        assert int(columns[-2]) > 0  # old tool results were masked
