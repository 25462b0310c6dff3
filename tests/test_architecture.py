"""The import graph is the architecture (DESIGN §2), and modules stay small (STYLE §8)."""

from __future__ import annotations

import ast
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import ROOT

PACKAGES = ("eventstore", "projections")
IO_LIBRARIES = {
    "sqlalchemy",
    "aiosqlite",
    "asyncpg",
    "sqlite3",
    "httpx",
    "requests",
    "aiohttp",
    "urllib3",
    "openai",
    "tiktoken",
}
# Modules that do no I/O: they may not reach a database, HTTP or tokenizer library, even
# through the modules they import (or the packages those live in).
PURE_MODULES = [
    "eventstore.errors",
    "eventstore.names",
    "eventstore.ids",
    "eventstore.timestamps",
    "eventstore.encoding",
    "eventstore.hashing",
    "eventstore.records",
    "eventstore.events",
    "eventstore.registry",
    "eventstore.recorder",
    "eventstore.erasure",
    "eventstore.codec",
    "eventstore.merkle",
    "eventstore.verify",
    "eventstore.scan",
    "eventstore.bundle_verify",
    "eventstore.bundle_checks",
    "eventstore.anchors",
    "eventstore.envelope_checks",
    "eventstore.read_check",
    "eventstore.memory.recorder",
    "eventstore.memory.documents",
    "projections.errors",
    "projections.projection",
    "projections.context.messages",
    "projections.context.accounting",
    "projections.context.grouping",
    "projections.context.budget",
    "projections.context.window",
    "projections.context.formats.openai_chat",
    "projections.context.formats.openai_responses",
    "projections.context.formats.anthropic",
    "projections.summaries.schema",
    "projections.summaries.block",
    "projections.summaries.sanitize",
    "projections.secrets.rules",
    "projections.summaries.normalize",
    "projections.summaries.validation",
    "projections.summaries.chain",
    "projections.summaries.summarizer",
    "projections.summaries.offline",
    "projections.session.events",
    "projections.session.state",
    "projections.session.codec",
    "projections.session.fold",
    "projections.session.render",
    "projections.session.compaction",
    "projections.session.rollback",
    "projections.memory.events",
    "projections.memory.policy",
    "projections.memory.state",
    "projections.memory.rules",
    "projections.memory.view",
    "projections.integration_events",
    "projections.reports.figures",
]
MAX_MODULE_LINES = 400
MAX_FUNCTION_P90 = 30


@dataclass
class Module:
    name: str
    path: Path
    top_level: set[str] = field(default_factory=set)  # imported when the module is imported
    anywhere: set[str] = field(default_factory=set)  # also inside functions (lazy imports)
    type_only: set[str] = field(default_factory=set)  # inside ``if TYPE_CHECKING``


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _type_only_imports(tree: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    """Every module named by an import inside ``if TYPE_CHECKING``."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.If) and _is_type_checking(node)):
            continue
        for child in ast.walk(node):
            if isinstance(child, ast.Import):
                yield from (alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(child, module, is_package)
                yield base
                yield from (f"{base}.{alias.name}" for alias in child.names)


def _imports(tree: ast.AST, module: str, is_package: bool) -> Iterator[tuple[str, bool]]:
    """(imported module, at top level) for every import outside ``if TYPE_CHECKING``."""

    def walk(node: ast.AST, top: bool) -> Iterator[tuple[str, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue
            inner = top and not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                yield from ((alias.name, top) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(child, module, is_package)
                yield base, top
                yield from ((f"{base}.{alias.name}", top) for alias in child.names)
            else:
                yield from walk(child, inner)

    yield from walk(tree, True)


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def load_modules() -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).with_suffix("")
            is_package = relative.name == "__init__"
            name = ".".join(relative.parent.parts if is_package else relative.parts)
            module = Module(name, path)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for imported, top in _imports(tree, name, is_package):
                module.anywhere.add(imported)
                if top:
                    module.top_level.add(imported)
            module.type_only.update(_type_only_imports(tree, name, is_package))
            modules[name] = module
    return modules


MODULES = load_modules()


def internal(names: set[str]) -> set[str]:
    """The project's modules among imported names (``pkg.mod.Name`` -> ``pkg.mod``)."""
    return {name for name in names if name in MODULES}


def parents(name: str) -> list[str]:
    """The packages Python initialises before ``name``."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def unit(name: str) -> str:
    """A module's node in the package graph: the package it is in, or the module itself when
    it sits at the root of ``eventstore`` or ``projections``."""
    if MODULES[name].path.name == "__init__.py":
        return name
    parent = name.rsplit(".", 1)[0]
    return name if parent in PACKAGES else parent


def test_eventstore_never_imports_projections() -> None:
    for module in MODULES.values():
        if module.name.startswith("eventstore"):
            offenders = {n for n in module.anywhere if n.split(".")[0] == "projections"}
            assert not offenders, f"{module.name} imports {offenders}"


def test_no_import_cycle_between_files() -> None:
    graph = {m.name: internal(m.top_level) - {m.name} for m in MODULES.values()}
    assert cycles(graph) == []


def test_no_import_cycle_even_through_type_only_imports() -> None:
    # A circle that only type checkers see still ties two modules into one unit: each is
    # written against the other. Protocols of the parts used break them (LedgerParts, ...).
    graph = {
        m.name: internal(m.top_level | m.type_only) - {m.name}
        for m in MODULES.values()
        if m.name not in ("projections", "eventstore")  # the roots' lazy public names
    }
    assert cycles(graph) == []


def test_no_import_cycle_between_packages() -> None:
    graph: dict[str, set[str]] = {}
    for module in MODULES.values():
        source = unit(module.name)
        targets = {unit(t) for t in internal(module.top_level)} - {source}
        graph.setdefault(source, set()).update(targets)
    assert cycles(graph) == []


def test_context_holds_primitives_only() -> None:
    higher = ("projections.summaries", "projections.session", "projections.ledger")
    for module in MODULES.values():
        if module.name.startswith("projections.context"):
            offenders = {n for n in module.anywhere if n.startswith(higher)}
            assert not offenders, f"{module.name} imports {offenders}"


def test_pure_modules_reach_no_io_even_transitively() -> None:
    for pure in PURE_MODULES:
        assert pure in MODULES, f"{pure} does not exist"
        seen: set[str] = set()
        todo = [pure]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            imported = MODULES[name].anywhere
            offenders = {n for n in imported if n.split(".")[0] in IO_LIBRARIES}
            assert not offenders, f"{pure} reaches {offenders} through {name}"
            todo += [*internal(imported), *parents(name)]


def _function_lengths() -> list[tuple[int, str]]:
    lengths = []
    for module in MODULES.values():
        tree = ast.parse(module.path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                body = node.body
                first = body[0]
                docstring = isinstance(first, ast.Expr) and isinstance(
                    getattr(first, "value", None), ast.Constant
                )
                start = body[1].lineno if docstring and len(body) > 1 else first.lineno
                end = node.end_lineno or start
                lengths.append((end - start + 1, f"{module.name}.{node.name}"))
    return lengths


def test_modules_and_functions_stay_small() -> None:
    too_big = {
        module.name: lines
        for module in MODULES.values()
        if (lines := len(module.path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert too_big == {}
    lengths = sorted(length for length, _ in _function_lengths())
    assert statistics.quantiles(lengths, n=10)[-1] <= MAX_FUNCTION_P90


def test_public_api_is_curated() -> None:
    import eventstore
    import projections

    for package in (eventstore, projections):
        # The order of __all__ is kept sorted by ruff (RUF022); here: explicit and unique.
        assert len(set(package.__all__)) == len(package.__all__)
        for name in package.__all__:
            value = getattr(package, name)
            if isinstance(value, type) or (callable(value) and hasattr(value, "__code__")):
                assert value.__doc__, f"{package.__name__}.{name} has no docstring"


def test_every_error_derives_from_ledger_error() -> None:
    import eventstore
    import projections.errors
    from eventstore import LedgerError

    errors = [getattr(eventstore, n) for n in eventstore.__all__ if n.endswith("Error")]
    errors += [getattr(projections.errors, n) for n in projections.errors.__all__ if "Error" in n]
    errors.append(eventstore.IdempotencyConflict)
    assert all(issubclass(error, LedgerError) for error in errors)


def test_a_backend_is_one_folder_one_table_line_one_suite() -> None:
    from eventstore.backends import BACKENDS
    from eventstore.testing import EventStoreContract
    from tests.eventstore import test_contract

    folders = {target.split(":")[0].rsplit(".", 1)[0] for target in BACKENDS.values()}
    assert folders == {"eventstore.memory", "eventstore.sql.sqlite", "eventstore.sql.postgres"}
    for folder in folders:
        assert (ROOT / folder.replace(".", "/") / "backend.py").is_file()
    suites = [
        value
        for value in vars(test_contract).values()
        if isinstance(value, type) and issubclass(value, EventStoreContract)
    ]
    assert len(suites) - 1 == len(folders)  # one subclass each, besides the imported base
