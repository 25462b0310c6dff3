"""The package is ready for an index: it builds (sdist and wheel), ``twine check`` passes, and
the wheel holds the two packages with their ``py.typed`` markers and nothing else of the repo."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import ROOT


def test_build_and_twine_check(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    artifacts = sorted(tmp_path.iterdir())
    assert {p.suffix for p in artifacts} == {".gz", ".whl"}
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, artifacts)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    (wheel,) = [p for p in artifacts if p.suffix == ".whl"]
    names = zipfile.ZipFile(wheel).namelist()
    assert "eventstore/py.typed" in names
    assert "projections/py.typed" in names
    assert {n.split("/")[0] for n in names} == {
        "eventstore",
        "projections",
        "ctxledger-0.1.0.dist-info",
    }
