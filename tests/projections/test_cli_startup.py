"""Start-up through the real console script: ``ctxledger --version`` prints the installed
version and imports nothing it does not print (no click, no rich, no pydantic, no store)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from tests.projections.test_cli import SCRIPT, ctxledger


def test_version_prints_the_installed_version() -> None:
    result = ctxledger("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"ctxledger, version {version('ctxledger')}\n"


def python(code: str, *options: str) -> subprocess.CompletedProcess[str]:
    """``code`` run by a new interpreter (with ``options``), its output captured."""
    return subprocess.run(
        [sys.executable, *options, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def as_console_script(argv: list[str]) -> str:
    """Code that runs the console script's own entry point with ``argv``."""
    return f"import sys; sys.argv = {argv!r}; from projections.cli import main; main()"


def run_importing(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The console script's own entry point with ``argv``, run under -X importtime in a new
    interpreter: its result and every module it imported."""
    result = python(as_console_script(argv), "-X", "importtime")
    return result, {line.split("|")[-1].strip() for line in result.stderr.splitlines()}


def one_message_store(tmp_path: Path, content: str) -> Path:
    """A SQLite store holding one user message in session ``s`` of tenant ``t``."""
    db = tmp_path / "ledger.db"
    source = tmp_path / "m.jsonl"
    line = json.dumps({"id": "m1", "role": "user", "content": content})
    source.write_text(line + "\n", "utf-8")
    ingested = ctxledger("ingest", str(source), "--tenant", "t", "--session", "s", db=db)
    assert ingested.returncode == 0, ingested.stderr
    return db


def test_version_imports_nothing_it_does_not_print() -> None:
    result, imported = run_importing(["ctxledger", "--version"])
    assert result.returncode == 0, result.stderr
    for heavy in (
        "click",
        "rich",
        "pydantic",
        "sqlalchemy",
        "eventstore",
        "projections.cli.common",
    ):
        assert heavy not in imported, f"--version imported {heavy}"
    assert SCRIPT, "the console script is installed"


def test_version_after_another_option_still_works() -> None:
    result = ctxledger("--version", "--help")  # not the fast path: click answers
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"ctxledger, version {version('ctxledger')}\n"


def test_context_imports_no_sqlalchemy_and_nothing_it_does_not_run(tmp_path: Path) -> None:
    # A read of a SQLite store: no SQLAlchemy (its SQL is compiled ahead of time), and none of
    # compaction, erasure, ingest, search or its stemmer (imported by the verbs using them).
    db = one_message_store(tmp_path, "hello there")
    argv = ["ctxledger", "--db", str(db), "context", "--tenant", "t", "--session", "s"]
    result, imported = run_importing(argv)
    assert result.returncode == 0, result.stderr
    assert "hello there" in result.stdout
    for heavy in (
        "sqlalchemy",
        "snowballstemmer",
        "projections.recall.search",
        "projections.recall.rank",
        "projections.compactor",
        "projections.ingest",
        "projections.erasure",
    ):
        assert heavy not in imported, f"context imported {heavy}"


def test_console_script_freezes_its_imports_and_keeps_collecting(tmp_path: Path) -> None:
    # The console script imports with the collector paused, then freezes what the imports
    # made and collects again; at exit the collector runs and the imports are frozen.
    db = one_message_store(tmp_path, "hello")
    argv = ["ctxledger", "--db", str(db), "context", "--tenant", "t", "--session", "s"]
    code = (
        "import atexit, gc\n"
        "atexit.register(lambda: print('gc', gc.isenabled(), gc.get_freeze_count() > 10000))\n"
        + as_console_script(argv)
    )
    result = python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "gc True True"


def test_a_host_importing_the_cli_keeps_its_collector_untouched() -> None:
    # Imported as a library (tests, load_all), nothing is paused or frozen: freezing would
    # also keep the host's own uncollected garbage forever.
    code = (
        "import gc\n"
        "from projections.cli import load_all\n"
        "load_all()\n"
        "print('gc', gc.isenabled(), gc.get_freeze_count())\n"
    )
    result = python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "gc True 0"
