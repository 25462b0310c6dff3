"""The import graph is the architecture (DESIGN §2)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

# Modules that do no I/O and so must not import database, HTTP or tokenizer libraries.
PURE_MODULES = [
    "eventstore/errors.py",
    "eventstore/names.py",
    "eventstore/encoding.py",
    "eventstore/hashing.py",
    "eventstore/records.py",
    "eventstore/events.py",
    "eventstore/registry.py",
    "eventstore/verify.py",
    "eventstore/memory/recorder.py",
    "eventstore/memory/documents.py",
    "eventstore/erasure.py",
    "eventstore/codec.py",
    "eventstore/scan.py",
    "eventstore/ids.py",
    "eventstore/timestamps.py",
    "projections/context/messages.py",
    "projections/context/grouping.py",
    "projections/context/budget.py",
    "projections/context/window.py",
    "projections/context/view.py",
    "projections/context/formats/openai_chat.py",
    "projections/context/formats/openai_responses.py",
    "projections/context/formats/anthropic.py",
    "projections/summaries/schema.py",
    "projections/summaries/block.py",
    "projections/summaries/sanitize.py",
    "projections/summaries/normalize.py",
    "projections/summaries/validation.py",
]
IO_LIBRARIES = {"sqlalchemy", "aiosqlite", "asyncpg", "sqlite3", "httpx", "openai", "tiktoken"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_eventstore_never_imports_projections() -> None:
    for path in sorted((ROOT / "eventstore").rglob("*.py")):
        offenders = {n for n in imported_modules(path) if n.split(".")[0] == "projections"}
        assert not offenders, f"{path.relative_to(ROOT)} imports {offenders}"


def test_pure_modules_do_no_io() -> None:
    for relative in PURE_MODULES:
        names = imported_modules(ROOT / relative)
        offenders = {n for n in names if n.split(".")[0] in IO_LIBRARIES}
        assert not offenders, f"{relative} imports {offenders}"


def test_public_api_is_curated() -> None:
    import eventstore

    # The order of __all__ is kept sorted by ruff (RUF022); here: explicit and unique.
    assert len(set(eventstore.__all__)) == len(eventstore.__all__)
    for name in eventstore.__all__:
        value = getattr(eventstore, name)
        if isinstance(value, type) or (callable(value) and hasattr(value, "__code__")):
            assert value.__doc__, f"eventstore.{name} has no docstring"


def test_every_error_derives_from_ledger_error() -> None:
    import eventstore
    from eventstore import LedgerError

    errors = [getattr(eventstore, n) for n in eventstore.__all__ if n.endswith("Error")]
    errors.append(eventstore.IdempotencyConflict)
    assert all(issubclass(error, LedgerError) for error in errors)
