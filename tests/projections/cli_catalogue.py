"""Generate projections/cli/catalogue.py from the commands themselves.

    python -m tests.projections.cli_catalogue > projections/cli/catalogue.py

A test fails when the catalogue and the commands disagree.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import click

import projections.cli as package
from projections.cli.common import cli

HEADER = '''"""Where each command lives and its help's first paragraph, so that ``ctxledger
--help`` and ``--version`` start without importing every command module. Generated: a test
keeps it in step with the commands (see tests/projections/cli_catalogue.py)."""

from __future__ import annotations

__all__ = ["COMMANDS"]

#: command name -> (module in projections.cli, first paragraph of its help)
COMMANDS: dict[str, tuple[str, str]] = {'''


def every_command() -> dict[str, click.Command]:
    """Every command, with all command modules imported."""
    for module in pkgutil.iter_modules(package.__path__):
        if module.name.endswith("_commands"):
            importlib.import_module(f"projections.cli.{module.name}")
    return dict(cli.commands)


def catalogue() -> dict[str, tuple[str, str]]:
    """Command name -> (module, first paragraph of its help), from the commands."""
    found = {}
    for name, command in sorted(every_command().items()):
        assert command.callback is not None
        module = command.callback.__module__.rsplit(".", 1)[-1]
        found[name] = (module, inspect.cleandoc(command.help or "").split("\n\n")[0])
    return found


def render() -> str:
    lines = [HEADER]
    for name, (module, first) in catalogue().items():
        lines.append(f"    {name!r}: ({module!r}, {first!r}),")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
