"""Verifier keys and trusted checkpoints given on the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from eventstore.notes import NoteError, Verifier, open_note, parse_checkpoint

__all__ = ["PUBLIC_KEY_ENV", "public_key_option", "read_checkpoint", "verifiers"]

#: Verifier keys (or files holding them) separated by whitespace, when --public-key is absent.
PUBLIC_KEY_ENV = "CTXLEDGER_PUBLIC_KEY"


def public_key_option(function: Any) -> Any:
    """``--public-key``: repeatable, or whitespace-separated in ``CTXLEDGER_PUBLIC_KEY``."""
    return click.option(
        "--public-key",
        "keys",
        multiple=True,
        envvar=PUBLIC_KEY_ENV,
        help="A verifier key (name+id+key) or a file holding one; repeatable (key rotation). "
        f"Default: {PUBLIC_KEY_ENV}.",
    )(function)


def verifiers(keys: tuple[str, ...]) -> list[Verifier]:
    """Parse ``--public-key`` values (a key, or a file holding one)."""
    found = []
    for key in keys:
        path = Path(key)
        try:
            text = path.read_text(encoding="utf-8") if path.is_file() else key
            found.append(Verifier.parse(text.strip()))
        except (NoteError, OSError, UnicodeDecodeError) as error:
            raise click.BadParameter(
                f"{key!r} is neither a verifier key (name+id+key) nor a file holding one: {error}",
                param_hint="--public-key",
            ) from None
    return found


def read_checkpoint(path: Path, option: str) -> str:
    """A signed checkpoint note from ``path``: the note as printed by ``ctxledger checkpoint``
    or the JSON that ``checkpoint --json`` prints (its ``note`` field)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise click.BadParameter(f"cannot read {path}: {error}", param_hint=option) from None
    if text.lstrip().startswith("{"):
        try:
            text = json.loads(text)["note"]
        except (ValueError, KeyError, TypeError):
            raise click.BadParameter(
                f"{path} is JSON without a 'note' field; expected a signed checkpoint note",
                param_hint=option,
            ) from None
    try:
        parse_checkpoint(open_note(str(text), [])[0])
    except NoteError as error:
        raise click.BadParameter(
            f"{path} is not a signed checkpoint note: {error}", param_hint=option
        ) from None
    return str(text)
