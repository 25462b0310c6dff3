"""Play the trip: constraints pinned, tool calls, the 80% budget crossed, the window, a summary
rejected by the gate and one committed, a rollback, the evidence for "why did you exclude
G123?", a consented preference promoted while the trip's facts are not, ``verify``, and the
context as it was before compaction."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from rich.table import Table

from eventstore import EventStore
from projections.context.messages import Message, text_of
from projections.demo.conversation import trip_turns
from projections.demo.narrator import Narrator
from projections.demo.trip import (
    DEMO_BUDGET,
    DEMO_SESSION,
    DEMO_TENANT,
    DEMO_USER,
    KEEP_GROUPS,
    SUMMARY_TOKENS,
    SYSTEM,
    TARGET,
    Trip,
)
from projections.memory import Promoter
from projections.session.state import SessionState
from projections.summaries.schema import Decision
from projections.summaries.schema_v2 import CompactionSummaryV2, DecisionV2

__all__ = ["DEMO_BUDGET", "DEMO_SESSION", "DEMO_TENANT", "DEMO_USER", "run_demo"]


async def run_demo(database: Path | None, *, console: Any = None) -> dict[str, Any]:
    """Play the trip; return the transcript (steps with their facts)."""
    path = database or Path(tempfile.mkdtemp(prefix="ctxledger-demo-")) / "ledger.db"
    narrator = Narrator(console)
    async with EventStore.open(path) as store:
        trip = Trip(store, narrator, await _fresh_tenant(store))
        await trip.session.append([{"id": "sys", "role": "system", "content": SYSTEM}])
        turns = trip_turns()
        for index, turn in enumerate(turns[:10], start=1):
            await trip.play(index, turn)
        everything = await trip.session.all_messages()
        state = everything.state
        narrator.step(
            "constraints pinned",
            "The user fixed five constraints; each message is pinned, so it stays in the "
            "context verbatim whatever the budget: "
            + "; ".join(text_of(m) for m in everything.messages() if m.id in state.pinned)
            + f". G123 was excluded (message {trip.replies['exclude_g123']}).",
            pinned=sorted(state.pinned),
        )
        for index, turn in enumerate(turns[10:], start=11):
            await trip.play(index, turn)
        await _rollback(trip)
        await _why_g123(trip, len(turns) + 1)
        await _memory(trip, len(turns) + 2)
        await _verify(trip)
        await _time_travel(trip)
        await _compaction_figures(trip)
    narrator.step(
        "done",
        f"The log is at {path}. Try: ctxledger --db {path} context --tenant {trip.tenant} "
        f"--session {DEMO_SESSION}  (or: summaries, memory recall --user {DEMO_USER}, stats, "
        f"report)",
        database=str(path),
        tenant=trip.tenant,
        session=DEMO_SESSION,
        user=DEMO_USER,
    )
    return {"database": str(path), "steps": narrator.steps}


async def _fresh_tenant(store: EventStore) -> str:
    """The demo's tenant, or on a file that holds an earlier run the first free one after
    it (``acme-2``, ``acme-3``…): a re-run plays the same trip from scratch, nothing mixed."""
    tenant, run = DEMO_TENANT, 1
    while await store.tenant_position(tenant):
        run += 1
        tenant = f"{DEMO_TENANT}-{run}"
    return tenant


async def _rollback(trip: Trip) -> None:
    state = await trip.session.latest()
    active = state.cut().summary()
    assert active is not None, "the demo has compacted by now"
    assert active.parent is not None, "the demo compacts twice"
    event = await trip.session.rollback(reason="operator review: show a rollback")
    after = (await trip.session.latest()).cut().summary()
    trip.narrator.step(
        "rollback",
        f"An operator rolls the summary head back from v{active.version} to "
        f"v{event.data['to_version'] if event.data else None}: SummaryRolledBack is recorded, "
        f"v{active.version} stays in the chain, and the context is rendered from "
        f"v{after.version if after else None} plus the window.",
        from_version=active.version,
        to_version=after.version if after else None,
    )
    outcome = await trip.session.compact(
        DEMO_BUDGET, keep_groups=KEEP_GROUPS, target=TARGET, summary_budget=SUMMARY_TOKENS
    )
    if outcome.summarised:
        await trip._report_compaction(outcome, len(trip_turns()))
    else:
        state = await trip.session.latest()
        trip.narrator.step(
            "compacting again",
            f"Compacting again from v{after.version if after else None}: {outcome.result}"
            + (f" ({', '.join(outcome.failed_checks)})" if outcome.failed_checks else "")
            + f". Over the whole trip the gate committed {len(state.chain.committed)} summaries "
            f"and rejected {len(state.chain.rejections)}; each time it rejected, the last good "
            f"summary and the window were served, and nothing was lost.",
            result=outcome.result,
            committed=len(state.chain.committed),
            rejected=len(state.chain.rejections),
        )


async def _why_g123(trip: Trip, index: int) -> None:
    question = "Why did you exclude G123?"
    await trip.session.append([{"id": f"u{index}", "role": "user", "content": question}])
    # Recall searches the log for the question (the latest user message) and pages the best
    # old groups back in, whole, with their ids.
    rendered = await trip.session.render(DEMO_BUDGET, keep_groups=KEEP_GROUPS, recall=True)
    everything = await trip.session.all_messages()
    state = everything.state
    evidence: list[dict[str, Any]] = []
    recalled = {entry["message_id"]: entry for entry in rendered.manifest.recalled}
    for message_id, entry in sorted(recalled.items(), key=lambda item: -item[1]["score"]):
        message = everything.message(state.index_of[message_id])
        if message.role == "assistant" and "G123" in text_of(message):
            evidence.append(
                {
                    "where": f"recalled (score {entry['score']:.1f})",
                    "text": text_of(message),
                    "source_ids": [message_id],
                }
            )
    summary = state.cut().summary()
    if summary is not None:
        for decision in summary.summary.decisions:
            if "G123" in decision.text:
                evidence.append(
                    {
                        "where": f"summary v{summary.version} decision",
                        "text": decision.text,
                        "source_ids": decision_sources(decision, state),
                    }
                )
    for message in rendered.messages:
        if message.id in recalled or message.metadata.get("recalled"):
            continue
        if message.role == "assistant" and "G123" in text_of(message):
            evidence.append(
                {"where": "window", "text": text_of(message), "source_ids": [message.id]}
            )
    assert evidence, "the compacted context must still explain G123"
    sources = {m.id: m for m in everything.messages()}
    table = Table("found in", "evidence", "sources", "source text (from the log)")
    for item in evidence:
        table.add_row(
            item["where"],
            item["text"],
            ", ".join(item["source_ids"]),
            " | ".join(_short(sources[i]) for i in item["source_ids"] if i in sources),
        )
    answer = (
        f"I excluded G123 because it arrives at 12:40, later than planned, and it is not "
        f"direct (sources: {', '.join(evidence[0]['source_ids'])})."
    )
    await trip.session.append([{"id": f"a{index}", "role": "assistant", "content": answer}])
    trip.narrator.step(
        "why did you exclude G123?",
        f"The user asks '{question}'. The message that explained it left the window long ago. "
        f"Recall searched the log for the question and paged it back in, whole, with its id "
        f"({', '.join(e['source_ids'][0] for e in evidence if e['where'].startswith('recalled'))}"
        f"); the summary "
        f"also carries the decision with its source ids. Answer: {answer}",
        evidence=evidence,
    )
    trip.narrator.show(table)


def _short(message: Message, width: int = 80) -> str:
    text = text_of(message).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


async def _memory(trip: Trip, index: int) -> None:
    session, memory = trip.session, trip.ledger.memory
    budget_source = trip.ids["budget"]
    await session.propose_memory(
        key="preference.weekend_trip.one_way_budget",
        value="usually keeps the one-way budget for weekend trips within 200 CNY",
        category="preference",
        source_ids=[budget_source],
        confidence=0.9,
    )
    for key, value, tag in (
        ("trip.depart", "leave Shanghai the morning of 2026-09-19", "depart"),
        ("trip.excluded_train", "G123 excluded: arrives later than planned", "exclude_g123"),
        ("trip.trains", "G7311 out, G7362 back", "search_out"),
    ):
        await session.propose_memory(
            key=key,
            value=value,
            category="task_event",
            source_ids=[trip.ids[tag]],
            confidence=0.95,
        )
    promoter = Promoter(trip.store)
    before = await promoter.run_once(trip.tenant)
    consent_text = "Yes, remember my weekend-trip budget preference for future trips."
    await session.append([{"id": f"u{index}", "role": "user", "content": consent_text}])
    await memory.grant_consent(
        trip.tenant,
        DEMO_USER,
        categories=["preference"],
        method="chat",
        evidence_ids=[f"u{index}"],
        session_id=DEMO_SESSION,
    )
    after = await promoter.run_once(trip.tenant)
    recalled = await memory.recall(trip.tenant, DEMO_USER)
    table = Table("key", "value", "category", "status", "reason")
    found = await memory.candidates(trip.tenant, DEMO_USER)
    for c in found:
        table.add_row(c.key or "", c.value or "", c.category or "", c.status, c.reason or "")
    trip.narrator.step(
        "long-term memory, with consent",
        f"Four candidates are proposed. Before consent the promoter promotes {before.promoted}."
        f" The user says '{consent_text}' (message u{index}), recorded as ConsentGranted for "
        f"the category 'preference'. The promoter then promotes {after.promoted}: "
        + "; ".join(f"{m.key} = {m.value!r} (sources {', '.join(m.source_ids)})" for m in recalled)
        + ". The trip's date, the G123 exclusion and the train choice are session-specific: "
        "never promoted.",
        promoted=[m.key for m in recalled],
        candidates={c.key: c.status for c in found},
    )
    trip.narrator.show(table)


async def _verify(trip: Trip) -> None:
    report = await trip.store.verify(trip.tenant)
    trip.narrator.step(
        "verify",
        f"Every hash recomputed from the stored bytes: ok={report.ok}, {report.checked} events "
        f"checked across every stream of the tenant.",
        ok=report.ok,
        checked=report.checked,
    )


async def _time_travel(trip: Trip) -> None:
    version = trip.before_compaction
    assert version is not None
    then = await trip.session.render(DEMO_BUDGET, keep_groups=KEEP_GROUPS, at_version=version)
    now = await trip.render()
    events = await trip.store.read_stream(trip.tenant, trip.session.stream_id)
    recorded = [
        e for e in events if e.type == "ModelCallRecorded" and e.version <= version and e.data
    ][-1]
    assert recorded.data is not None
    seen = recorded.data["manifest"]
    replay = await trip.session.render(
        DEMO_BUDGET, keep_groups=KEEP_GROUPS, at_version=recorded.version - 1
    )
    same = replay.manifest.request_hash == seen["request_hash"]
    table = Table("", "before compaction", "now")
    table.add_row("session version", str(version), str(now.manifest.as_of_version))
    table.add_row("messages sent", str(len(then.messages)), str(len(now.messages)))
    table.add_row(
        "input tokens", f"{then.manifest.tokens['total']:,}", f"{now.manifest.tokens['total']:,}"
    )
    table.add_row(
        "summary version", str(then.manifest.summary_version), str(now.manifest.summary_version)
    )
    trip.narrator.step(
        "time travel",
        f"The context as it was at session version {version}, before any compaction, is cut "
        f"out of the same state: {len(then.messages)} messages, "
        f"{then.manifest.tokens['total']:,} tokens. Replaying the model call recorded at "
        f"version {recorded.version} gives the request hash it recorded: {same}.",
        version=version,
        tokens_then=then.manifest.tokens["total"],
        tokens_now=now.manifest.tokens["total"],
        summary_then=then.manifest.summary_version,
        summary_now=now.manifest.summary_version,
        replay_matches=same,
    )
    trip.narrator.show(table)


def decision_sources(decision: Decision | DecisionV2, state: SessionState) -> list[str]:
    """The message ids a decision of either schema cites."""
    if isinstance(decision, Decision):
        return list(decision.source_ids)
    ids = dict(zip(state.message_versions, state.ids, strict=True))
    return [ids[v] for v in decision.src if v in ids]


async def _compaction_figures(trip: Trip) -> None:
    """The trip's compaction, turn by turn: what committed, and where the context stayed."""
    state = await trip.session.latest()
    chain = state.chain
    committed, rejected = len(chain.committed), len(chain.rejections)
    trigger = DEMO_BUDGET.trigger
    over = [tokens for tokens in trip.after_turns if tokens > trigger]
    kept = _facts_carried(state)
    dropped = sum(
        len(c.summary.dropped_facts)
        for c in chain.committed.values()
        if isinstance(c.summary, CompactionSummaryV2)
    )
    rate = committed / max(committed + rejected, 1)
    trip.narrator.step(
        "compaction, turn by turn",
        f"{committed} of {committed + rejected} compaction attempts committed ({rate:.0%}); the "
        f"one rejected is the careless summary above. After each of the "
        f"{len(trip.after_turns)} turns the context was at or under the trigger of "
        f"{trigger:,} tokens (at most {max(trip.after_turns):,})"
        + (f", except {len(over)} turn(s)" if over else "")
        + f". Each of the {kept} rolling summaries kept every confirmed fact of the version "
        f"it extends (unless a newer message superseded it"
        + (f", or it was one of {dropped} dropped explicitly for room" if dropped else "")
        + "): the gate checks exactly that. "
        f"Old tool results were masked first {trip.maskings} time(s).",
        attempts=committed + rejected,
        committed=committed,
        commit_rate=rate,
        max_context=max(trip.after_turns),
        trigger=trigger,
        turns_over_trigger=len(over),
        rolling_summaries_checked=kept,
        maskings=trip.maskings,
        facts_dropped_for_room=dropped,
    )


def _facts_carried(state: SessionState) -> int:
    """How many committed summaries extend a parent whose confirmed facts they all keep."""
    checked = 0
    for committed in state.chain.committed.values():
        parent = state.chain.committed.get(committed.parent) if committed.parent else None
        if parent is None:
            continue
        before = {f.key for f in parent.summary.facts if f.status == "confirmed"}
        after = {f.key for f in committed.summary.facts}
        if isinstance(committed.summary, CompactionSummaryV2):  # explicit drops for room
            after |= {d.key for d in committed.summary.dropped_facts}
        assert before <= after, "the gate lets no confirmed fact go silently"
        checked += 1
    return checked
