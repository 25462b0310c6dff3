"""The sync facade is complete and thin: every public verb of Session has a blocking twin with
the same signature, and the twins work (compaction, rollback and memory included)."""

from __future__ import annotations

import inspect
from pathlib import Path

from projections.context.budget import Budget
from projections.ledger import Session
from projections.sync import SyncLedger, SyncSession

BUDGET = Budget(context_limit=300, max_output_tokens=0, tool_reserve=0, safety_margin=0)


def public_verbs(cls: type) -> dict[str, inspect.Signature]:
    """Every public method of the class, inherited ones included (``Session`` takes its
    reads from ``SessionReads``)."""
    return {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(cls)
        if not name.startswith("_") and inspect.isfunction(member)
    }


def test_every_session_verb_has_a_sync_twin_with_its_signature() -> None:
    verbs = {
        name: signature
        for name, signature in public_verbs(Session).items()
        if inspect.iscoroutinefunction(getattr(Session, name))
    }
    twins = public_verbs(SyncSession)
    assert sorted(verbs) == sorted(set(twins) & set(verbs))
    assert sorted(verbs) == sorted(name for name in twins if name in verbs)
    for name, signature in verbs.items():
        twin = twins[name]
        assert list(twin.parameters)[1:] == list(signature.parameters)[1:], name
        assert [p.kind for p in twin.parameters.values()][1:] == [
            p.kind for p in signature.parameters.values()
        ][1:], name
        assert getattr(SyncSession, name).__doc__ == getattr(Session, name).__doc__


def test_sync_compaction_rollback_and_memory(tmp_path: Path) -> None:
    with SyncLedger(tmp_path / "ledger.db") as ledger:
        session = ledger.session("acme", "trip", user_id="ana")
        session.append([{"id": "sys", "role": "system", "content": "Plan trips."}])
        for i in range(12):
            session.append(
                [
                    {"id": f"u{i}", "role": "user", "content": f"Day {i}: budget {100 + i} CNY."},
                    {"id": f"a{i}", "role": "assistant", "content": f"Noted {100 + i} CNY."},
                ]
            )
        outcome = session.compact(BUDGET, keep_groups=2, target=0.5, summary_budget=300)
        assert outcome.result == "committed"
        assert session.render(BUDGET, keep_groups=2).manifest.summary_version == 1
        rolled = session.rollback(reason="operator review")
        assert rolled.data is not None
        assert rolled.data["to_version"] is None
        assert session.state().chain.head is None
        proposal = session.propose_memory(
            key="preference.budget",
            value="about 100 CNY a day",
            category="preference",
            source_ids=["u0"],
            confidence=0.8,
        )
        assert proposal.stream_id == "memory/ana"
        assert (
            ledger.run(ledger.memory.candidates("acme", "ana"))[0].status == "blocked"
        )  # no consent
        assert len(session.messages()) == 25
        assert session.latest().version == session.state().version
