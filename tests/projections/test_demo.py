"""``ctxledger demo``, the README's main job, through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

from tests.projections.test_cli import ctxledger


def test_demo_plays_the_whole_trip(tmp_path: Path) -> None:
    result = ctxledger("demo", "--json", "--db", str(tmp_path / "demo.db"))
    assert result.returncode == 0, result.stderr
    steps = json.loads(result.stdout)["steps"]
    by_name = {step["step"]: step for step in steps}
    assert len(by_name["constraints pinned"]["pinned"]) == 5
    crossed = by_name["budget crossed: the window first"]
    assert crossed["history_tokens"] > crossed["window_tokens"]
    assert crossed["dropped_groups"] > 0
    rejected = by_name["a bad summary is rejected"]
    assert rejected["result"] == "rejected"
    assert "quantities" in rejected["failed_checks"]
    committed = [s for s in steps if s["step"].endswith("committed")]
    assert len(committed) >= 2
    figures = by_name["compaction, turn by turn"]
    # every attempt committed but the careless summary the demo has the gate refuse
    assert figures["committed"] == figures["attempts"] - 1 >= 4
    assert figures["turns_over_trigger"] == 0
    assert figures["max_context"] <= figures["trigger"]
    assert figures["rolling_summaries_checked"] >= 1
    assert figures["maskings"] >= 1
    assert figures["facts_dropped_for_room"] == 0
    assert any(s["step"] == "old tool results masked" for s in steps)
    rollback = by_name["rollback"]
    assert rollback["to_version"] == rollback["from_version"] - 1
    evidence = by_name["why did you exclude G123?"]["evidence"]
    assert evidence
    assert all("G123" in item["text"] and item["source_ids"] for item in evidence)
    assert evidence[0]["where"].startswith("recalled")
    assert "I excluded G123" in evidence[0]["text"]  # the message that gave the reason
    memory = by_name["long-term memory, with consent"]
    assert memory["promoted"] == ["preference.weekend_trip.one_way_budget"]
    assert memory["candidates"]["trip.depart"] == "blocked"
    assert memory["candidates"]["trip.excluded_train"] == "blocked"
    assert memory["candidates"]["trip.trains"] == "blocked"
    assert by_name["verify"]["ok"] is True
    travel = by_name["time travel"]
    assert travel["replay_matches"] is True
    assert travel["summary_then"] is None
    assert travel["summary_now"] is not None
    done = by_name["done"]
    log = ctxledger(
        "--db",
        done["database"],
        "log",
        "--tenant",
        "acme",
        "--stream",
        "session/trip-hangzhou",
        "--json",
    )
    assert log.returncode == 0, log.stderr
    users = [
        e
        for e in map(json.loads, log.stdout.splitlines())
        if e["type"] == "MessageAppended" and e["data"]["message"]["role"] == "user"
    ]
    assert len(users) >= 40


def test_demo_narrates_for_people(tmp_path: Path) -> None:
    result = ctxledger("demo")
    assert result.returncode == 0, result.stderr
    for phrase in ("constraints pinned", "rejected", "rollback", "G123", "time travel"):
        assert phrase in result.stdout


def test_the_global_db_is_honoured_and_a_rerun_plays_in_a_new_tenant(tmp_path: Path) -> None:
    database = tmp_path / "mine.db"
    first = ctxledger("--db", str(database), "demo", "--json")
    assert first.returncode == 0, first.stderr
    again = ctxledger("demo", "--json", env={"CTXLEDGER_DB": str(database)})
    assert again.returncode == 0, again.stderr
    runs = [json.loads(result.stdout) for result in (first, again)]
    assert [run["database"] for run in runs] == [str(database)] * 2
    done = [{s["step"]: s for s in run["steps"]}["done"] for run in runs]
    assert [d["tenant"] for d in done] == ["acme", "acme-2"]

    def without_tenant(run: dict) -> list[dict]:  # type: ignore[type-arg]
        text = json.dumps(run["steps"]).replace("acme-2", "acme")
        return list(json.loads(text))

    assert without_tenant(runs[0]) == without_tenant(runs[1])  # the same trip, from scratch
    tenants = ctxledger("--db", str(database), "tenants", "--json")
    assert json.loads(tenants.stdout) == ["acme", "acme-2"]
