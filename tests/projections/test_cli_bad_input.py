"""Bad input never ends in a traceback: each repro from the adversarial pass exits 2 with a
message through the console script, and a hypothesis fuzz of ``ingest`` and ``append`` finds
no exception that is not a clean exit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections.cli import cli
from tests.projections.test_cli import ctxledger


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    made = ctxledger(
        "append", "--tenant", "a", "--stream", "s", "--type", "Note", "--data", "{}", db=path
    )
    assert made.returncode == 0, made.stderr
    return path


def _files(tmp_path: Path) -> dict[str, Path]:
    contents = {
        "latin1.json": b"\xff\xfe[{}]",
        "utf16.json": '[{"role": "user", "content": "x"}]'.encode("utf-16"),
        "deep.json": b"[" * 5000 + b"]" * 5000,
        "digits.json": b'[{"role": "user", "content": "x", "n": ' + b"9" * 5000 + b"}]",
    }
    paths = {}
    for name, data in contents.items():
        paths[name] = tmp_path / name
        paths[name].write_bytes(data)
    return paths


@pytest.mark.parametrize(
    "arguments",
    [
        ("ingest", "@latin1.json", "--tenant", "a", "--session", "s"),
        ("ingest", "@utf16.json", "--tenant", "a", "--session", "s"),
        ("ingest", "@deep.json", "--tenant", "a", "--session", "s"),
        ("ingest", "@digits.json", "--tenant", "a", "--session", "s"),
        ("context", "--tenant", "a", "--session", "s", "--keep-groups", "-1"),
        ("context", "--tenant", "a", "--session", "s", "--context-limit", "0"),
        ("log", "--tenant", "a", "--after", "9" * 30),
        ("consent", "grant", "--tenant", "a", "--user", "u", "--scope", "x", "--days", "nan"),
        ("memory", "promote", "--tenant", "a", "--interval", "inf"),
        ("keygen", "--name", "k", "-o", "@missing/k.pem"),
        ("append", "--tenant", "a", "--stream", "s", "--type", "Note", "--data", "[" * 5000),
    ],
)
def test_bad_input_exits_2_with_a_message(
    db: Path, tmp_path: Path, arguments: tuple[str, ...]
) -> None:
    files = {f"@{k}": str(v) for k, v in _files(tmp_path).items()}
    files["@missing"] = str(tmp_path / "no")
    result = ctxledger(*(_fill(a, files) for a in arguments), db=db)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stderr.strip(), "a message says what was wrong"


def _fill(argument: str, files: dict[str, str]) -> str:
    for name, path in files.items():
        argument = argument.replace(name, path)
    return argument


def test_a_directory_as_db_is_refused(tmp_path: Path) -> None:
    result = ctxledger("verify", db=tmp_path)
    assert result.returncode == 2
    assert "is a directory" in result.stderr


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system", "x", ""])},
    optional={
        "id": JSON,
        "content": JSON,
        "tool_calls": JSON,
        "tool_call_id": JSON,
        "type": st.sampled_from(["message", "function_call", "function_call_output", "x"]),
        "call_id": JSON,
        "output": JSON,
        "arguments": JSON,
        "messages": JSON,
    },
)


def _invoke(tmp_path: Path, *arguments: str, stdin: bytes | None = None) -> None:
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "f.db"), *arguments], input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 2), result.output


FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
BODIES = st.one_of(
    st.lists(MESSAGE, max_size=4).map(json.dumps),
    st.binary(max_size=60).map(lambda raw: raw.decode("latin-1")),
    JSON.map(json.dumps),
)
KINDS = st.sampled_from(["Note", "MessageAppended", "SummaryCommitted", "X y"])


@FUZZ
@given(body=BODIES, fmt=st.sampled_from(["openai", "responses", "anthropic"]))
def test_fuzzed_ingest_never_raises(tmp_path: Path, body: str, fmt: str) -> None:
    arguments = ("-", "--tenant", "a", "--session", "s", "--format", fmt)
    _invoke(tmp_path, "ingest", *arguments, stdin=body.encode())


@FUZZ
@given(data=JSON.map(json.dumps), kind=KINDS)
def test_fuzzed_append_never_raises(tmp_path: Path, data: str, kind: str) -> None:
    arguments = ("--tenant", "a", "--stream", "session/s", "--type", kind, "--data", data)
    _invoke(tmp_path, "append", *arguments)


def test_an_unknown_session_is_an_error_everywhere(db: Path) -> None:
    for command in (
        ("context", "--tenant", "a", "--session", "typo"),
        ("summaries", "--tenant", "a", "--session", "typo"),
        ("compact", "--tenant", "a", "--session", "typo"),
        ("stats", "--tenant", "a", "--session", "typo"),
    ):
        result = ctxledger(*command, db=db)
        assert result.returncode == 2, command
        assert "has no session 'typo'" in result.stderr, command


def test_revoking_consent_needs_no_reason(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    grant = ctxledger(
        "consent", "grant", "--tenant", "a", "--user", "u", "--scope", "preference", db=db
    )
    assert grant.returncode == 0, grant.stderr
    revoke = ctxledger("consent", "revoke", "--tenant", "a", "--user", "u", "--all", db=db)
    assert revoke.returncode == 0, revoke.stderr
    listed = ctxledger("consent", "list", "--tenant", "a", "--user", "u", "--json", db=db)
    assert json.loads(listed.stdout)[0]["revoked_at"]


def test_read_only_commands_never_write(db: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    for command in (("verify",), ("log", "--tenant", "a"), ("tenants",)):
        result = ctxledger(*command, db=empty)
        assert result.returncode == 2, command
        assert "not a ctxledger database" in result.stderr
    assert empty.stat().st_size == 0  # not turned into a WAL database
    checkpoint = ctxledger("checkpoint", "--tenant", "a", "--key-name", "k", db=db,
                           env={"CTXLEDGER_SIGNING_KEY": _pem()})  # fmt: skip
    assert checkpoint.returncode == 0, checkpoint.stderr
    before = db.read_bytes()
    for command in (
        ("verify",),
        ("log", "--tenant", "a"),
        ("streams", "--tenant", "a"),
        ("export", "--tenant", "a", "-o", str(tmp_path / "b.json")),
    ):
        result = ctxledger(*command, db=db)
        assert result.returncode == 0, (command, result.stderr)
    assert db.read_bytes() == before


def _pem() -> str:
    from eventstore.notes import Signer

    return Signer.generate("k").to_pem().decode()


async def test_a_read_only_store_refuses_writes(db: Path) -> None:
    from eventstore import EventStore, NewEvent, StorageError

    async with EventStore.open(db, read_only=True) as store:
        assert (await store.verify("a")).ok
        with pytest.raises(StorageError, match="read-only"):
            await store.append("a", "s", [NewEvent(type="Note", data={})])


def test_ids_are_bounded(tmp_path: Path) -> None:
    source = tmp_path / "long.jsonl"
    line = json.dumps({"id": "x" * 900_000, "role": "user", "content": "hi"})
    source.write_text(line + "\n", encoding="utf-8")
    result = ctxledger(
        "ingest", str(source), "--tenant", "a", "--session", "s", db=tmp_path / "l.db"
    )
    assert result.returncode == 2
    assert "id is 900,000 characters long, over the limit of 256" in result.stderr


ANTHROPIC_TURNS = [
    {"role": "user", "content": "Price of G7311?"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "73"}]},
]


def test_a_file_in_another_format_is_named_not_misread(tmp_path: Path) -> None:
    """Anthropic turns read as OpenAI chat (the default format) would keep the call as an
    opaque part and lose it as a call: ingest names the format instead; as JSON Lines or a
    bare array with ``--format anthropic`` they are read, the call a call."""
    db, lines = tmp_path / "ledger.db", tmp_path / "turns.jsonl"
    lines.write_text("\n".join(json.dumps(turn) for turn in ANTHROPIC_TURNS), encoding="utf-8")
    where = ("--tenant", "a", "--session", "s")
    misread = ctxledger("ingest", str(lines), *where, db=db)
    assert misread.returncode == 2
    assert "--format anthropic" in " ".join(misread.stderr.split())
    read = ctxledger("ingest", str(lines), *where, "--format", "anthropic", db=db)
    assert read.returncode == 0, read.stderr
    shown = ctxledger("context", *where, "--json", db=db)
    sent = json.loads(shown.stdout)["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
    assert sent[1]["tool_calls"][0]["id"] == "t1"
