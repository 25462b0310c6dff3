"""Generate docs/cli.md from the CLI's own ``--help`` texts.

Regenerate with ``python -m tests.projections.cli_reference > docs/cli.md``; a test fails when
the page and the CLI disagree.
"""

from __future__ import annotations

import click
from click.testing import CliRunner

from projections.cli import cli, load_all

HEADER = """# CLI reference

Generated from `ctxledger --help` by `python -m tests.projections.cli_reference > docs/cli.md`;
`tests/projections/test_cli_reference.py` fails when this page is out of date.

The database comes from `--db` or the environment variable `CTXLEDGER_DB` (default
`./ctxledger.db`). Only `append`, `consent grant`, `memory policy --set` (and `demo`, in its
own file) create a database; the other commands refuse a path where none exists. Exit codes:
0 success, 1 verification found tampering, 2 bad usage or any other error (the message is on
standard error).
"""


def help_text(*args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--help"], prog_name="ctxledger", terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output.rstrip()


def render() -> str:
    load_all()
    parts = [HEADER, "## ctxledger\n", "```text", help_text(), "```\n"]
    assert isinstance(cli, click.Group)
    for name in sorted(cli.commands):
        parts += [f"## ctxledger {name}\n", "```text", help_text(name), "```\n"]
        command = cli.commands[name]
        if isinstance(command, click.Group):
            for sub in sorted(command.commands):
                parts += [f"### ctxledger {name} {sub}\n", "```text", help_text(name, sub)]
                parts += ["```\n"]
    return "\n".join(parts)


if __name__ == "__main__":
    print(render(), end="")
