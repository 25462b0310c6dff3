"""``ctxledger consent``, ``memory`` and ``promote`` through the installed console script."""

from __future__ import annotations

import asyncio
import json
import select
import signal
import subprocess
from pathlib import Path

from eventstore import EventStore
from projections.ledger import Ledger
from tests.projections.memory.trip import BUDGET_KEY, BUDGET_VALUE, trip_session
from tests.projections.test_cli import SCRIPT, ctxledger


async def seed(path: Path) -> str:
    async with EventStore.open(path) as store:
        await trip_session(Ledger(store))
        return str((await store.read_stream("acme", "session/trip-ana"))[1].event_id)


def ok(*args: str, db: Path) -> str:
    result = ctxledger(*args, db=db)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_consent_promote_recall_revoke_forget(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    source = asyncio.run(seed(db))
    who = ("--tenant", "acme", "--user", "ana")

    candidates = json.loads(ok("memory", "candidates", *who, "--json", db=db))
    assert {c["key"]: c["status"] for c in candidates}[BUDGET_KEY] == "blocked"
    assert "no consent" in ok("memory", "candidates", *who, db=db)

    granted = json.loads(
        ok(
            "consent",
            "grant",
            *who,
            "--scope",
            "category:preference",
            "--days",
            "30",
            "--evidence",
            "m2",
            "--json",
            db=db,
        )
    )
    assert granted["type"] == "ConsentGranted"
    assert granted["data"]["categories"] == ["preference"]
    assert "category:preference" in ok("consent", "list", *who, db=db)

    report = json.loads(ok("promote", "--tenant", "acme", "--json", db=db))
    assert report["promoted"] == 1
    recalled = json.loads(ok("memory", "recall", *who, "--json", db=db))
    assert [(m["key"], m["value"]) for m in recalled] == [(BUDGET_KEY, BUDGET_VALUE)]
    assert recalled[0]["source_event_ids"] == [source]
    assert BUDGET_KEY in ok("memory", "recall", *who, "--category", "preference", db=db)
    assert "no memories" in ok("memory", "recall", *who, "--key", "trip.depart_date", db=db)

    ok("consent", "revoke", *who, "--scope", "preference", "--reason", "changed my mind", db=db)
    assert json.loads(ok("memory", "recall", *who, "--json", db=db)) == []
    position = recalled[0]["position"]
    then = json.loads(ok("memory", "recall", *who, "--at", str(position), "--json", db=db))
    assert [m["key"] for m in then] == [BUDGET_KEY]
    assert "retracted 1" in ok("promote", db=db)

    receipt = json.loads(
        ok("memory", "forget", *who, BUDGET_KEY, "--requested-by", "ana", "--json", db=db)
    )
    assert receipt["erased"] == [recalled[0]["proposal_id"]]
    verified = ctxledger("verify", "--tenant", "acme", db=db)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_policy_and_bad_input(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    asyncio.run(seed(db))
    policy = tmp_path / "policy.toml"
    policy.write_text('allowed_without_consent = ["preference"]\n', encoding="utf-8")
    shown = json.loads(
        ok("memory", "policy", "--tenant", "acme", "--set", str(policy), "--json", db=db)
    )
    assert shown["allowed_without_consent"] == ["preference"]
    assert json.loads(ok("promote", "--json", db=db))["promoted"] == 1

    bad_scope = ctxledger(
        "consent", "grant", "--tenant", "acme", "--user", "ana", "--scope", "colour:red", db=db
    )
    assert bad_scope.returncode == 2
    assert "a scope is 'category:NAME'" in bad_scope.stderr
    unknown = ctxledger(
        "memory",
        "forget",
        "--tenant",
        "acme",
        "--user",
        "ana",
        "nope",
        "--requested-by",
        "x",
        db=db,
    )
    assert unknown.returncode == 2
    assert "no memory or proposal with key or id 'nope'" in unknown.stderr
    policy.write_text("default_ttl_days = -1\n", encoding="utf-8")
    invalid = ctxledger("memory", "policy", "--tenant", "acme", "--set", str(policy), db=db)
    assert invalid.returncode == 2
    assert "greater than 0" in invalid.stderr
    missing = ctxledger(
        "memory", "recall", "--tenant", "acme", "--user", "ana", db=tmp_path / "typo.db"
    )
    assert missing.returncode == 2
    assert not (tmp_path / "typo.db").exists()


def read_line(child: subprocess.Popen[str], timeout: float = 60) -> str:
    """The child's next line of output, failing (not hanging) if none comes in time."""
    assert child.stdout is not None
    ready, _, _ = select.select([child.stdout], [], [], timeout)
    assert ready, f"no output from the promoter within {timeout} s"
    return child.stdout.readline()


def test_promote_follow_reacts_to_new_consent(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    asyncio.run(seed(db))
    assert SCRIPT
    command = [SCRIPT, "--db", str(db), "promote", "--tenant", "acme", "--follow"]
    child = subprocess.Popen(
        [*command, "--interval", "0.1", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert json.loads(read_line(child))["promoted"] == 0
        ok("consent", "grant", "--tenant", "acme", "--user", "ana", "--scope", "preference", db=db)
        assert json.loads(read_line(child))["promoted"] == 1
    finally:
        child.send_signal(signal.SIGTERM)
        _, errors = child.communicate(timeout=30)
    assert child.returncode == 0, errors


def test_revoking_one_scope_keeps_the_others(tmp_path: Path) -> None:
    """A consent for two categories, one revoked: exactly that one goes; the other stays
    granted (a consent for what is left, same expiry and evidence, recorded in the same
    append)."""
    db = tmp_path / "ledger.db"
    asyncio.run(seed(db))
    who = ("--tenant", "acme", "--user", "ana")
    ok("consent", "grant", *who, "--scope", "category:preference", "--scope", "category:trip",
       "--days", "30", db=db)  # fmt: skip
    revoked = json.loads(ok("consent", "revoke", *who, "--scope", "preference", "--json", db=db))
    assert revoked["type"] == "ConsentRevoked"
    consents = json.loads(ok("consent", "list", *who, "--json", db=db))
    live = [c for c in consents if not c.get("revoked_at")]
    assert [(c["categories"], c["keys"]) for c in live] == [(["trip"], [])]
    assert len(consents) == 2  # the original (revoked) and what is left of it
    assert ctxledger("verify", "--tenant", "acme", db=db).returncode == 0
