"""The integrations at their version floors: ``.ci/run`` installs the package with the oldest
framework releases it supports (``.ci/floors.txt``, the pyproject floors) in a second
environment and names its interpreter in ``CTXLEDGER_FLOORS_PYTHON``; this test checks that
environment holds exactly those releases and runs every integration test there. The main
environment tests the newest releases. Locally, without the variable, it skips and says how
to make one; under ``CI=true`` it fails instead."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from tests.conftest import ROOT
from tests.needs import missing, under_ci

FLOORS = ROOT / ".ci" / "floors.txt"
INTEGRATION_TESTS = ["tests/projections/integrations", "tests/projections/reports"]


def floors() -> dict[str, str]:
    pins = {}
    for line in FLOORS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.strip()] = version.strip()
    return pins


def floors_python() -> str:
    python = os.environ.get("CTXLEDGER_FLOORS_PYTHON")
    if not python:
        missing(
            "the version-floor run needs CTXLEDGER_FLOORS_PYTHON: python3 -m venv .venv-floors "
            "&& .venv-floors/bin/pip install -e '.[dev]' -c .ci/floors.txt"
        )
    return python


def test_the_pyproject_floors_are_the_tested_ones() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for name, version in floors().items():
        floor = ".".join(version.split(".")[:2])
        assert re.search(rf'"{re.escape(name)}>={re.escape(floor)}(\.0)?"', pyproject), name


def test_the_integrations_pass_at_their_floors() -> None:
    python = floors_python()
    script = (
        "import importlib.metadata as m, json, sys; "
        "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))"
    )
    found = subprocess.run(
        [python, "-c", script, *floors()], capture_output=True, text=True, check=True
    )
    assert json.loads(found.stdout) == floors()
    ran = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *INTEGRATION_TESTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
        env={**os.environ, "CTXLEDGER_ARTIFACTS": str(Path(ROOT, "test-artifacts", "floors"))},
    )
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    summary = ran.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", summary)
    if under_ci():
        assert "skipped" not in summary, summary  # CI has PostgreSQL and Chromium
