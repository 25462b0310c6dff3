"""The README's and the docs' code blocks run, and the README's two commands match .ci/run."""

from __future__ import annotations

import os
import re
import runpy
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.M | re.S)


def blocks(page: Path, language: str) -> list[str]:
    return [
        body for lang, body in FENCE.findall(page.read_text(encoding="utf-8")) if lang == language
    ]


PYTHON_BLOCKS = [
    pytest.param(page, index, id=f"{page.name}-{index}")
    for page in PAGES
    for index, _ in enumerate(blocks(page, "python"))
]


@pytest.mark.parametrize(("page", "index"), PYTHON_BLOCKS)
def test_python_blocks_run(
    page: Path, index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "block.py"
    script.write_text(blocks(page, "python")[index], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(script), run_name="__main__")


def test_readme_cli_examples_run(tmp_path: Path) -> None:
    """Every ``ctxledger`` line in the README's shell blocks runs and exits 0, in order."""
    script_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{script_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    ran = 0
    for body in blocks(ROOT / "README.md", "bash"):
        for line in body.splitlines():
            if not line.startswith("ctxledger ") or line.strip() == "ctxledger demo":
                continue
            command = shlex.split(line, comments=True)
            result = subprocess.run(
                command,
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert result.returncode == 0, f"{line}\n{result.stderr}"
            ran += 1
    assert ran >= 3


def test_readme_commands_match_ci() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "```bash\npip install -e . && ctxledger demo\n```" in readme
    assert "```bash\npip install -e '.[dev]' && pytest -q\n```" in readme
    assert re.search(r"^pip install -e \.$\n^ctxledger demo", ci, re.M), "the demo needs only ."
    assert re.search(r"^pip install -e '\.\[dev\]'$", ci, re.M)
    assert re.search(r"^pytest -q$", ci, re.M), ".ci/run must call exactly `pytest -q`"
