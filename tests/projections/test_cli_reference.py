"""docs/cli.md is the CLI's own --help, and every command is documented."""

from __future__ import annotations

from tests.conftest import ROOT
from tests.projections.cli_reference import render


def test_cli_reference_is_current() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == render(), (
        "docs/cli.md is stale: python -m tests.projections.cli_reference > docs/cli.md"
    )


def test_the_lazy_catalogue_matches_the_commands() -> None:
    """``--help`` lists commands from projections/cli/catalogue.py without importing them."""
    from projections.cli.catalogue import COMMANDS
    from tests.projections.cli_catalogue import catalogue

    assert catalogue() == COMMANDS, (
        "regenerate: python -m tests.projections.cli_catalogue > projections/cli/catalogue.py"
    )
