"""A newcomer's surprises, fixed as classes, through the real console script: a budget that
leaves no room is one line naming each part; the reserves are options and shown; a message
names the option that exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.projections.test_cli import ctxledger


@pytest.fixture
def trip(tmp_path: Path) -> Path:
    """A database holding the session ``trip`` of tenant ``acme`` (four messages)."""
    db, lines = tmp_path / "ledger.db", tmp_path / "trip.jsonl"
    rows = [
        {"id": "m1", "role": "user", "content": "Book train G7311 to Hangzhou."},
        {"id": "m2", "role": "assistant", "content": "Booked G7311, leaving at 08:05."},
        {"id": "m3", "role": "user", "content": "And a hotel near the station?"},
        {"id": "m4", "role": "assistant", "content": "The Lakeview, 400 m away."},
    ]
    lines.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    done = ctxledger("ingest", str(lines), "--tenant", "acme", "--session", "trip", db=db)
    assert done.returncode == 0, done.stderr
    return db


@pytest.mark.parametrize("command", ["context", "compact"])
def test_a_budget_without_room_is_one_line_naming_each_part(trip: Path, command: str) -> None:
    result = ctxledger(
        command, "--tenant", "acme", "--session", "trip", "--context-limit", "1000", db=trip
    )
    assert result.returncode == 2
    assert "--context-limit 1,000 - --max-output 4,000 - --tool-reserve 1,000" in result.stderr
    assert "raise --context-limit" in result.stderr
    assert "pydantic" not in result.stderr
    assert "Traceback" not in result.stderr


def test_the_reserves_are_options_and_the_footer_shows_them(trip: Path) -> None:
    result = ctxledger(
        "context",
        "--tenant",
        "acme",
        "--session",
        "trip",
        "--context-limit",
        "8000",
        "--max-output",
        "1000",
        "--tool-reserve",
        "300",
        "--safety-margin",
        "200",
        db=trip,
    )
    assert result.returncode == 0, result.stderr
    assert "/6500 tokens usable (limit 8,000 - output 1,000 - tools 300 - margin 200)" in (
        result.stdout
    )
    for command in ("context", "compact", "consistency"):  # one set of budget options
        shown = ctxledger(command, "--help").stdout
        assert "--tool-reserve" in shown, command
        assert "Tokens kept free for counting differences" in shown, command


def test_rollback_names_the_option_that_exists(trip: Path) -> None:
    nothing = ctxledger(
        "rollback", "--tenant", "acme", "--session", "trip", "--reason", "undo", db=trip
    )
    assert nothing.returncode == 2
    assert "--to on the command line" in nothing.stderr
    # The name the message once gave is accepted too.
    missing = ctxledger(
        "rollback",
        "--tenant",
        "acme",
        "--session",
        "trip",
        "--to-version",
        "9",
        "--reason",
        "undo",
        db=trip,
    )
    assert missing.returncode == 2
    assert "there is no summary version 9" in missing.stderr


def test_every_option_of_every_command_has_help_text() -> None:
    import click

    from projections.cli import cli, load_all

    load_all()
    missing: list[str] = []

    def walk(group: click.Group, path: list[str]) -> None:
        for name, command in sorted(group.commands.items()):
            if isinstance(command, click.Group):
                walk(command, [*path, name])
            missing.extend(
                f"{' '.join([*path, name])} {param.opts[0]}"
                for param in command.params
                if isinstance(param, click.Option) and not param.help and not param.hidden
            )

    walk(cli, [])
    missing += [p.opts[0] for p in cli.params if isinstance(p, click.Option) and not p.help]
    assert missing == []


def test_anthropic_json_has_the_documented_shape(trip: Path) -> None:
    args = ("context", "--tenant", "acme", "--session", "trip", "--json")
    anthropic = json.loads(ctxledger(*args, "--format", "anthropic", db=trip).stdout)
    openai = json.loads(ctxledger(*args, db=trip).stdout)
    assert isinstance(anthropic["messages"], list)
    assert [m["role"] for m in anthropic["messages"]] == [m["role"] for m in openai["messages"]]
    assert "manifest" in anthropic


def test_limit_is_the_count_option_of_search_as_of_log(trip: Path) -> None:
    found = ctxledger(
        "search",
        "G7311",
        "--tenant",
        "acme",
        "--session",
        "trip",
        "--limit",
        "1",
        "--json",
        db=trip,
    )
    assert found.returncode == 0, found.stderr
    (line,) = found.stdout.splitlines()  # one result, one JSON line
    assert json.loads(line)["message_id"] in {"m1", "m2"}


def test_stats_names_rollbacks_per_commit(trip: Path) -> None:
    stats = ctxledger("stats", "--tenant", "acme", "--json", db=trip)
    assert stats.returncode == 0, stats.stderr
    text = stats.stdout
    assert "rollbacks_per_commit" in text
    assert "rollback_rate" not in text


def test_consent_for_a_category_the_policy_never_promotes_warns(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    args = ("consent", "grant", "--tenant", "acme", "--user", "u1", "--scope")
    health = ctxledger(*args, "health", db=db)
    assert health.returncode == 0, health.stderr  # recorded: it is the user's wish
    assert "never promotes category 'health'" in " ".join(health.stderr.split())
    unknown = ctxledger(*args, "hobbies", db=db)
    assert "is not one the policy names" in " ".join(unknown.stderr.split())
    known = ctxledger(*args, "preference", db=db)
    assert known.returncode == 0, known.stderr
    assert "warning" not in known.stderr


def test_one_name_for_the_global_format_and_out_for_files(trip: Path) -> None:
    """``--output`` is the global format only; the commands that write a file take
    ``-o/--out`` (the old ``--output FILE`` still works, unlisted)."""
    for command in ("keygen", "export", "report", "metrics"):
        shown = ctxledger(command, "--help").stdout
        assert "-o, --out FILE" in shown, command
        assert not re.search(r"^\s+(-o, )?--output\b", shown, re.MULTILINE), command
    folder = trip.parent
    made = ctxledger("keygen", "--name", "audit", "--out", str(folder / "k.pem"))
    assert made.returncode == 0, made.stderr
    old = ctxledger("keygen", "--name", "audit", "--output", str(folder / "old.pem"))
    assert old.returncode == 0, old.stderr
    assert (folder / "old.pem.pub").exists()
    missing = ctxledger("keygen", "--name", "audit")
    assert missing.returncode == 2
    assert "Missing option '-o' / '--out'" in missing.stderr
    both = ctxledger("--output", "json", "report", "--tenant", "acme", "--session", "trip",
                     "-o", str(folder / "r.html"), db=trip)  # fmt: skip
    assert both.returncode == 0, both.stderr
    assert json.loads(both.stdout)  # the global format, and the file written
    assert (folder / "r.html").exists()


@pytest.mark.parametrize(
    ("command", "sentence"),
    [
        (("summaries", "--session", "trip"), "no summary yet in acme/session/trip"),
        (("consent", "list", "--user", "ana"), "no consent recorded"),
        (("memory", "candidates", "--user", "ana"), "no proposals"),
        (("memory", "recall", "--user", "ana"), "no memories"),
        (("log", "--after", "4"), "no events after position 4"),
        (("search", "zebra"), "no message matches 'zebra' in acme (any session)"),
    ],
)
def test_an_empty_listing_is_a_sentence_not_an_empty_table(
    trip: Path, command: tuple[str, ...], sentence: str
) -> None:
    result = ctxledger(*command, "--tenant", "acme", db=trip)
    assert result.returncode == 0, result.stderr
    assert sentence in result.stdout
    assert "━" not in result.stdout  # no table frame
