"""The quality script runs on a few real conversations (figures are in docs/quality.md)."""

from __future__ import annotations

from pathlib import Path

from tests.benchmarks.test_bench_smoke import quick_run


def test_quality_script_on_a_few_runs(corpora: Path) -> None:
    lines = quick_run("tests.benchmarks.quality", "--limit", "2").splitlines()
    corpora = ["tau-bench airline"] * 2 + ["LoCoMo"] * 2 + ["BFCL memory"] * 2
    assert [line.split(" @ ")[0] for line in lines[1:]] == corpora
    for line in lines[1:]:
        columns = line.split()
        assert columns[-8] == "0"  # protocol errors (tool groups split)
        assert columns[-9] == "100%"  # the gate refused no summary of the offline one
        assert columns[-5] == "0/0"  # renders over usable: the window's, and after v2
        assert all(c.endswith("%") for c in columns[-3:])  # user-stated: share, window, v2
    assert int(lines[1].split()[-7]) > 0  # old tool results were masked (tau-bench)


def test_recall_script_on_a_few_conversations(corpora: Path) -> None:
    lines = quick_run("tests.benchmarks.recall", "--limit", "1").splitlines()
    by_category = [line for line in lines if ": all evidence recalled" in line]
    # the header ("corpus @ compression ...") is the first line of the table
    header = next(i for i, line in enumerate(lines) if line.startswith("corpus @"))
    table = [line for line in lines[header + 1 :] if " @ " in line and line not in by_category]
    plain = [line for line in table if "+ vectors" not in line]
    assert [line.split(" @ ")[0] for line in plain] == ["LoCoMo"] * 2 + ["BFCL memory"] * 2
    # with the embeddings extra, each row again with the embedding ranker
    assert len(table) in (4, 8)
    assert [line.split(":")[0] for line in by_category][:2] == ["LoCoMo @ 4x", "LoCoMo @ 8x"]
    for line in by_category:
        assert "single-hop" in line
        assert "multi-hop" in line
    locomo = plain[0].split()
    window, recall = float(locomo[4].rstrip("%")), float(locomo[6].rstrip("%"))
    assert recall > 2 * window  # recall brings evidence back that the window alone has not
