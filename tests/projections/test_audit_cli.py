"""``keygen``, ``checkpoint``, ``export`` and ``verify-bundle`` through the console script."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

from tests.projections.test_cli import SCRIPT, ctxledger


def test_checkpoint_export_and_verify_offline(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    for n in range(5):
        result = ctxledger(
            "append",
            "--tenant",
            "acme",
            "--stream",
            f"session/{n % 2}",
            "--type",
            "E",
            "--data",
            json.dumps({"n": n}),
            db=db,
        )
        assert result.returncode == 0, result.stderr
    key = tmp_path / "audit.pem"
    made = ctxledger("keygen", "--name", "acme-audit", "-o", str(key))
    assert made.returncode == 0, made.stderr
    verifier = (tmp_path / "audit.pem.pub").read_text(encoding="utf-8").strip()
    assert verifier.startswith("acme-audit+")
    assert verifier in made.stdout
    assert ctxledger("keygen", "--name", "x", "-o", str(key)).returncode == 2  # never overwrite

    signed = ctxledger(
        "checkpoint",
        "--tenant",
        "acme",
        "--key",
        str(key),
        "--key-name",
        "acme-audit",
        "--json",
        db=db,
    )
    assert signed.returncode == 0, signed.stderr
    checkpoint = json.loads(signed.stdout)
    assert checkpoint["size"] == 5
    assert checkpoint["note"].startswith("ctxledger/acme\n5\n")
    pem = key.read_text(encoding="utf-8")
    again = ctxledger(
        "checkpoint",
        "--tenant",
        "acme",
        "--key-name",
        "acme-audit",
        db=db,
        env={"CTXLEDGER_SIGNING_KEY": pem},
    )
    assert again.returncode == 0, again.stderr
    assert "size 6" in again.stdout  # the first checkpoint is itself a leaf

    bundle = tmp_path / "bundle.json"
    exported = ctxledger("export", "--tenant", "acme", "-o", str(bundle), db=db)
    assert exported.returncode == 0, exported.stderr
    ok = ctxledger(
        "verify-bundle", str(bundle), "--public-key", str(tmp_path / "audit.pem.pub"), "--json"
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    report = json.loads(ok.stdout)
    assert report["ok"] is True
    assert report["signatures_verified"] == 2
    stream = tmp_path / "stream.json"
    assert (
        ctxledger(
            "export", "--tenant", "acme", "--stream", "session/1", "-o", str(stream), db=db
        ).returncode
        == 0
    )
    assert ctxledger("verify-bundle", str(stream), "--public-key", verifier).returncode == 0
    unsigned = ctxledger("verify-bundle", str(stream))  # no key: not verified, and it says so
    assert unsigned.returncode == 1
    assert "not verified" in unsigned.stderr
    assert "--public-key" in unsigned.stderr
    assert ctxledger("verify-bundle", str(stream), "--skip-signatures").returncode == 0

    document = json.loads(bundle.read_text(encoding="utf-8"))
    document["events"][1]["payload"] = document["events"][0]["payload"]
    bundle.write_text(json.dumps(document), encoding="utf-8")
    bad = ctxledger("verify-bundle", str(bundle), "--public-key", verifier)
    assert bad.returncode == 1
    assert "FAILED" in bad.stdout
    assert "payload" in bad.stdout
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    assert ctxledger("verify-bundle", str(garbage)).returncode == 2
    wrong_key = ctxledger("verify-bundle", str(stream), "--public-key", "nonsense")
    assert wrong_key.returncode == 2
    none = ctxledger("export", "--tenant", "nobody", "-o", str(tmp_path / "n.json"), db=db)
    assert none.returncode == 2
    assert "no tenant 'nobody'" in none.stderr
    assert ctxledger("verify", "--tenant", "acme", db=db).returncode == 0


def test_verify_binds_checkpoints_and_catches_a_rehashed_rewrite(tmp_path: Path) -> None:
    from tests.eventstore.tamper import rehash_from_spec

    db = tmp_path / "ledger.db"
    for n in range(6):
        data = json.dumps({"role": "user", "content": f"message {n}"})
        appended = ctxledger(
            "append", "--tenant", "acme", "--stream", "session/1", "--type", "Note",
            "--data", data, db=db,
        )  # fmt: skip
        assert appended.returncode == 0, appended.stderr
    key = tmp_path / "audit.pem"
    assert ctxledger("keygen", "--name", "acme-audit", "-o", str(key)).returncode == 0
    public = str(tmp_path / "audit.pem.pub")
    signed = ctxledger(
        "checkpoint", "--tenant", "acme", "--key", str(key), "--key-name", "acme-audit",
        "--json", db=db,
    )  # fmt: skip
    published = tmp_path / "published.json"
    published.write_text(signed.stdout, encoding="utf-8")
    good = ctxledger(
        "verify", "--tenant", "acme", "--public-key", public, "--trusted-checkpoint",
        str(published), db=db,
    )  # fmt: skip
    assert good.returncode == 0, good.stderr
    assert "bound to 1 checkpoint(s), extends 1 trusted checkpoint(s); 2 signatures" in good.stdout

    later = ctxledger(
        "append", "--tenant", "acme", "--stream", "session/1", "--type", "Note", "--data",
        "{}", db=db,
    )  # fmt: skip
    assert later.returncode == 0
    bundle = tmp_path / "b.json"
    exported = ctxledger(
        "export", "--tenant", "acme", "-o", str(bundle), "--checkpoint", str(published), db=db
    )
    assert exported.returncode == 0, exported.stderr
    assert "1 event(s) of acme were recorded after the newest checkpoint" in exported.stderr
    offline = ctxledger(
        "verify-bundle", str(bundle), "--public-key", public, "--checkpoint", str(published)
    )
    assert offline.returncode == 0, offline.stdout

    rehash_from_spec(db, 3, b"message", b"MESSAGE")
    caught = ctxledger("verify", "--tenant", "acme", "--public-key", public, "--json", db=db)
    assert caught.returncode == 1
    (failure,) = json.loads(caught.stdout)["failures"]
    assert failure["stream"] == "ledger/checkpoints"
    assert "1..6 was rewritten" in failure["reason"]
    trusted = ctxledger(
        "verify", "--tenant", "acme", "--public-key", public, "--trusted-checkpoint",
        str(published), db=db,
    )  # fmt: skip
    assert trusted.returncode == 1
    assert "does not extend the 1 trusted checkpoint(s) given" in trusted.stdout
    assert "extends 1 trusted" not in trusted.stdout


def test_context_refuses_to_serve_an_edited_message(tmp_path: Path) -> None:
    """Verify on read through the console script: the edited text is never printed."""
    from tests.eventstore.tamper import raw

    db = tmp_path / "ledger.db"
    source = tmp_path / "m.jsonl"
    source.write_text(
        json.dumps({"id": "m1", "role": "user", "content": "transfer 10 EUR"}) + "\n",
        encoding="utf-8",
    )
    assert (
        ctxledger("ingest", str(source), "--tenant", "acme", "--session", "s", db=db).returncode
        == 0
    )
    connection = raw(db)
    connection.execute("UPDATE payloads SET payload = replace(payload, '10 EUR', '9000 EUR')")
    connection.close()
    shown = ctxledger("context", "--tenant", "acme", "--session", "s", db=db)
    assert shown.returncode == 2
    assert "does not verify" in shown.stderr
    assert "9000" not in shown.stdout
    assert "Traceback" not in shown.stderr


def test_a_public_key_and_a_partial_stream_bundle_fail_through_the_cli(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    lines = [{"id": f"m{i}", "role": "user", "content": f"turn {i}"} for i in range(6)]
    source = tmp_path / "s.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert (
        ctxledger("ingest", str(source), "--tenant", "acme", "--session", "s", db=db).returncode
        == 0
    )
    key, public = tmp_path / "audit.pem", tmp_path / "audit.pem.pub"
    made = ctxledger("keygen", "--name", "acme-audit", "--output", str(key))
    assert made.returncode == 0, made.stderr
    unanchored = ctxledger("verify", "--tenant", "acme", "--public-key", str(public), db=db)
    assert unanchored.returncode == 1
    assert "no checkpoint signed by the given keys" in " ".join(unanchored.stdout.split())
    signed = ("checkpoint", "--tenant", "acme", "--key", str(key), "--key-name", "acme-audit")
    assert ctxledger(*signed, db=db).returncode == 0
    bundle = tmp_path / "s.json"
    exported = ctxledger(
        "export", "--tenant", "acme", "--stream", "session/s", "-o", str(bundle), db=db
    )
    assert exported.returncode == 0, exported.stderr
    document = json.loads(bundle.read_text())
    document["events"] = document["events"][2:]  # the first two messages dropped
    bundle.write_text(json.dumps(document))
    checked = ("verify-bundle", str(bundle), "--public-key", str(public))
    partial = ctxledger(*checked)
    assert partial.returncode == 1
    assert "partial: versions 3–6 of 6" in partial.stdout
    assert ctxledger(*checked, "--allow-partial").returncode == 0


def test_the_advice_for_a_log_without_a_checkpoint_works_as_written(tmp_path: Path) -> None:
    """``export`` before any checkpoint names the two commands that sign one; run as written
    (in a fresh directory), they make ``export`` work."""
    db = tmp_path / "ledger.db"
    data = json.dumps({"n": 1})
    appended = ctxledger(
        "append", "--tenant", "acme", "--stream", "s", "--type", "E", "--data", data, db=db
    )
    assert appended.returncode == 0, appended.stderr
    refused = ctxledger("export", "--tenant", "acme", "-o", str(tmp_path / "b.json"), db=db)
    assert refused.returncode != 0
    advice = re.findall(r"'(ctxledger [^']+)'", " ".join(refused.stderr.split()))
    assert [command.split()[1] for command in advice] == ["keygen", "checkpoint"], advice
    for command in advice:
        program, *args = shlex.split(command)
        assert program == "ctxledger"
        done = subprocess.run(
            [SCRIPT, "--db", str(db), *args], cwd=tmp_path, capture_output=True, text=True
        )
        assert done.returncode == 0, (command, done.stderr)
    exported = ctxledger("export", "--tenant", "acme", "-o", str(tmp_path / "b.json"), db=db)
    assert exported.returncode == 0, exported.stderr
