"""Progress bars: on a terminal (stderr a pty), the long commands draw one on stderr; piped,
or with --json, they draw nothing. Through the real console script."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import threading
from pathlib import Path

import pytest

from tests.projections.test_cli import SCRIPT, ctxledger


def on_a_terminal(*args: str, db: Path) -> tuple[int, str]:
    """Run the console script with stderr on a pseudo-terminal; return its exit code and what
    it drew there."""
    assert SCRIPT
    leader, follower = pty.openpty()
    drawn = bytearray()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed its end
                return
            if not chunk:
                return
            drawn.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    process = subprocess.run(
        [SCRIPT, "--db", str(db), *args],
        stdout=subprocess.PIPE,
        stderr=follower,
        env=env,
        timeout=120,
        check=False,
    )
    os.close(follower)
    reader.join(timeout=10)
    os.close(leader)
    return process.returncode, drawn.decode(errors="replace")


@pytest.fixture(scope="module")
def ledger_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("progress")
    source = folder / "chat.jsonl"
    lines = [{"id": f"m{i}", "role": "user", "content": f"turn {i}"} for i in range(1200)]
    source.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    db = folder / "ledger.db"
    code, drawn = on_a_terminal("ingest", "--tenant", "acme", "--session", "s", str(source), db=db)
    assert code == 0, drawn
    assert "ingesting" in drawn
    return db


@pytest.mark.parametrize(
    ("command", "label"),
    [
        (("verify", "--tenant", "acme"), "verifying"),
        (("report", "--tenant", "acme", "--session", "s", "-o", "{folder}/r.html"), "reporting"),
        (
            ("export", "--tenant", "acme", "--stream", "session/s", "-o", "{folder}/b.json"),
            "export",
        ),
        (("promote", "--tenant", "acme"), "promoting acme"),
    ],
)
def test_long_commands_draw_a_bar_on_a_terminal(
    ledger_db: Path, tmp_path: Path, command: tuple[str, ...], label: str
) -> None:
    if command[0] == "export":
        key = ctxledger("keygen", "--name", "k", "-o", str(tmp_path / "k.pem"))
        assert key.returncode == 0, key.stderr
        signed = ctxledger(
            "checkpoint", "--tenant", "acme", "--key-name", "k", db=ledger_db,
            env={"CTXLEDGER_SIGNING_KEY": (tmp_path / "k.pem").read_text()},
        )  # fmt: skip
        assert signed.returncode == 0, signed.stderr
    args = tuple(part.replace("{folder}", str(tmp_path)) for part in command)
    code, drawn = on_a_terminal(*args, db=ledger_db)
    assert code == 0, drawn
    assert label in drawn
    piped = ctxledger(*args, db=ledger_db)
    assert piped.returncode == 0, piped.stderr
    assert label not in piped.stderr  # piped: no bar
