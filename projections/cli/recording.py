"""Helpers of the commands that record events: times, recorded data, one-line output."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import click

from eventstore import RecordedEvent
from projections.cli.common import print_json, stdout

__all__ = ["TIME", "data_of", "print_event", "split_scopes", "utc"]

TIME = click.DateTime(["%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"])


def utc(value: datetime | None) -> datetime | None:
    """Times without an offset are UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def data_of(event: RecordedEvent) -> dict[str, Any]:
    """The data of an event this command has just recorded (never erased)."""
    assert event.data is not None
    return event.data


def print_event(event: RecordedEvent, as_json: bool, line: str) -> None:
    """What a recording command prints: the recorded event as JSON, or one line for people."""
    if as_json:
        print_json(event.model_dump(mode="json"))
    else:
        stdout.print(line)


def split_scopes(scopes: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """Split ``--scope`` values into categories and keys: ``category:X`` (or just ``X``) and
    ``key:PATTERN``."""
    categories, keys = [], []
    for scope in scopes:
        kind, _, name = scope.partition(":")
        if not name:
            kind, name = "category", kind
        if kind == "category" and name:
            categories.append(name)
        elif kind == "key" and name:
            keys.append(name)
        else:
            raise click.BadParameter(
                f"{scope!r}: a scope is 'category:NAME' (or just NAME) or 'key:PATTERN'",
                param_hint="--scope",
            )
    return categories, keys
