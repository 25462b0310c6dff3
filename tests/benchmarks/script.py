"""The command line shared by the quality scripts: ``--limit``, ``--json``, a printed report."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any


def main(
    doc: str | None,
    run: Callable[[int | None], Coroutine[Any, Any, dict[str, Any]]],
    report: Callable[[dict[str, Any]], str],
    limit_help: str,
) -> None:
    """Parse the arguments, run, print the report, and write the figures as JSON if asked."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    parser.add_argument("--limit", type=int, help=limit_help)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = asyncio.run(run(args.limit))
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
