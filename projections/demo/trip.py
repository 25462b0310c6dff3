"""The demo's trip: its budget, the careless summarizer, and :class:`Trip`, which plays one
turn at a time (user message, pins, the recorded model call, tool calls, replies) and compacts
when the context crosses the trigger."""

from __future__ import annotations

from typing import Any

from eventstore import EventStore
from projections.compactor import CompactionOutcome
from projections.context.budget import Budget
from projections.demo.conversation import Turn, tool_call_arguments
from projections.demo.narrator import Narrator, budget_bar
from projections.ledger import Ledger, Session
from projections.session.render import RenderedContext
from projections.summaries.offline_v2 import summarize_v2
from projections.summaries.schema_v2 import CompactionSummaryV2, FactV2
from projections.summaries.summarizer import AnySummary, SummaryRequest

__all__ = [
    "DEMO_BUDGET",
    "DEMO_SESSION",
    "DEMO_TENANT",
    "DEMO_USER",
    "KEEP_GROUPS",
    "SUMMARY_TOKENS",
    "SYSTEM",
    "TARGET",
    "Trip",
    "careless_summarizer",
]

DEMO_TENANT = "acme"
DEMO_USER = "ana"
DEMO_SESSION = "trip-hangzhou"
#: A small model window, so that the 44 exchanges cross the 80% trigger within seconds.
DEMO_BUDGET = Budget(
    context_limit=2_000, max_output_tokens=300, tool_reserve=100, safety_margin=100
)
KEEP_GROUPS = 6
TARGET = 0.75  # compaction aims under the 80% trigger, so it is not due again at once
SUMMARY_TOKENS = 400  # the summary's own budget
SYSTEM = (
    "You are a travel planner. Use the tools for trains, prices and weather. Never book "
    "anything without the user's explicit confirmation."
)


async def careless_summarizer(request: SummaryRequest) -> CompactionSummaryV2:
    """A summarizer that gets a number wrong: the gate must reject its summary."""
    summary = summarize_v2(request)
    wrong = FactV2(
        key="budget.one_way",
        value="one way at most 300 CNY",
        status="confirmed",
        src=[request.versions[0]],
    )
    return summary.model_copy(update={"facts": [*summary.facts, wrong]})


class Trip:
    """The demo's state: the session, the narrator, and the ids the later steps cite."""

    def __init__(self, store: EventStore, narrator: Narrator, tenant: str = DEMO_TENANT) -> None:
        self.store = store
        self.tenant = tenant
        self.ledger = Ledger(store)
        self.session: Session = self.ledger.session(tenant, DEMO_SESSION, user_id=DEMO_USER)
        self.narrator = narrator
        self.ids: dict[str, str] = {}  # turn tag -> the user's message id
        self.replies: dict[str, str] = {}  # turn tag -> the assistant's reply id
        self.crossed = False
        self.before_compaction: int | None = None
        self.compactions: list[dict[str, Any]] = []
        self.attempts: list[CompactionOutcome] = []  # every compaction call that attempted
        self.maskings = 0  # compactions whose first step masked old tool results
        self.after_turns: list[int] = []  # the context's tokens after each turn

    async def render(self) -> RenderedContext:
        return await self.session.render(DEMO_BUDGET, keep_groups=KEEP_GROUPS)

    async def play(self, index: int, turn: Turn) -> None:
        user_id = f"u{index}"
        await self.session.append([{"id": user_id, "role": "user", "content": turn.user}])
        if turn.tag:
            self.ids[turn.tag] = user_id
        if turn.pin:
            await self.session.pin([user_id], reason=turn.pin)
        rendered = await self.render()
        counter = self.ledger.counter
        await self.session.record_model_call(
            manifest=rendered.manifest.model_dump(mode="json"),
            input_tokens=rendered.manifest.tokens["total"],
            output_tokens=counter.count_text(turn.reply),
            model="demo-model",
        )
        messages: list[dict[str, Any]] = []
        if turn.tools:
            calls = [
                {"id": f"call_{index}_{k}", "name": name, "arguments": tool_call_arguments(args)}
                for k, (name, args, _) in enumerate(turn.tools)
            ]
            messages.append(
                {"id": f"a{index}c", "role": "assistant", "content": None, "tool_calls": calls}
            )
            messages += [
                {
                    "id": f"t{index}_{k}",
                    "role": "tool",
                    "tool_call_id": f"call_{index}_{k}",
                    "content": tool_call_arguments({"result": result}),
                }
                for k, (_, _, result) in enumerate(turn.tools)
            ]
        messages.append({"id": f"a{index}", "role": "assistant", "content": turn.reply})
        await self.session.append(messages)
        if turn.tag:
            self.replies[turn.tag] = f"a{index}"
        await self._maybe_compact(index)

    async def _maybe_compact(self, index: int) -> None:
        rendered = await self.render()
        tokens = rendered.manifest.tokens["total"]
        state = await self.session.latest()
        history = sum(state.tokens.values())
        # The first time, the whole history crossing the trigger starts the story; after that,
        # the agent loop's rule: compact when the context it would send crosses the trigger.
        if DEMO_BUDGET.need_compaction(tokens if self.crossed else history):
            if not self.crossed:
                self.crossed = True
                self.before_compaction = state.version
                await self._first_crossing(index, history, rendered)
            else:
                outcome = await self.compact()
                await self._report_compaction(outcome, index)
        self.after_turns.append((await self.render()).manifest.tokens["total"])

    async def compact(self, **options: Any) -> CompactionOutcome:
        """Compact as the agent loop does, and keep the outcome for the closing figures."""
        outcome = await self.session.compact(
            DEMO_BUDGET,
            keep_groups=KEEP_GROUPS,
            target=TARGET,
            summary_budget=SUMMARY_TOKENS,
            **options,
        )
        if outcome.summarised or outcome.result == "rejected":
            self.attempts += [outcome] * max(len(outcome.events), 1)
        return outcome

    async def _first_crossing(self, index: int, history: int, rendered: RenderedContext) -> None:
        usable, trigger = DEMO_BUDGET.usable, DEMO_BUDGET.trigger
        self.narrator.show(
            budget_bar(history, usable, trigger, f"whole history after turn {index}")
        )
        window = await self.session.render(DEMO_BUDGET.shrunk(TARGET), keep_groups=KEEP_GROUPS)
        manifest = window.manifest
        kept_pins = [
            i for i, s in zip(manifest.message_ids, manifest.sections, strict=True) if s == "pinned"
        ]
        self.narrator.step(
            "budget crossed: the window first",
            f"After turn {index} the whole history is {history:,} tokens, over 80% of the "
            f"{usable:,} usable. Compaction aims at {TARGET:.0%}: the window keeps the system "
            f"prompt, the {len(kept_pins)} pinned constraints and the last {KEEP_GROUPS} "
            f"groups (a tool call never leaves without its results): "
            f"{manifest.tokens['total']:,} tokens, {manifest.dropped_groups} older groups left "
            f"out, to be summarised. Nothing is deleted: they stay in the log.",
            turn=index,
            history_tokens=history,
            window_tokens=manifest.tokens["total"],
            dropped_groups=manifest.dropped_groups,
            pinned=kept_pins,
        )
        self.narrator.show(budget_bar(manifest.tokens["total"], usable, trigger, "window"))
        bad = await self.compact(summarizer=careless_summarizer, mask_results=False)
        reason = bad.event.data["reason"] if bad.event and bad.event.data else ""
        self.narrator.step(
            "a bad summary is rejected",
            f"A summarizer claims 'one way at most 300 CNY'. The gate checks every number "
            f"against the sources and rejects it (fail-closed): {', '.join(bad.failed_checks)}."
            f" Reason: {reason[:160]}. SummaryRejected is recorded and the window keeps being "
            f"served.",
            result=bad.result,
            failed_checks=bad.failed_checks,
        )
        # An operator retrying at once with another summarizer: no backoff for that.
        good = await self.compact(backoff_groups=0)
        await self._report_compaction(good, index)

    async def _report_compaction(self, outcome: CompactionOutcome, index: int) -> None:
        if outcome.masked:
            await self._report_masking(outcome, index)
        if not outcome.summarised or outcome.event is None:
            return
        version = outcome.summary_version
        state = await self.session.latest()
        summary = state.chain.committed[version or 0]
        rendered = await self.render()
        self.compactions.append({"version": version, "turn": index})
        event_data = outcome.event.data
        assert event_data is not None
        self.narrator.step(
            f"summary v{version} committed",
            f"After turn {index}: summary v{version} covers "
            f"{covered_count(summary.summary)} messages with "
            f"{len(summary.summary.facts)} facts, {len(summary.summary.decisions)} decisions "
            f"and {tool_count(summary.summary)} tool digests; it passed every "
            f"check. Context: {event_data['tokens_before']:,} → "
            f"{rendered.manifest.tokens['total']:,} tokens. It is rendered as an untrusted "
            f"data block, never as instructions.",
            version=version,
            tokens_before=event_data["tokens_before"],
            tokens_after=rendered.manifest.tokens["total"],
        )
        self.narrator.show(
            budget_bar(
                rendered.manifest.tokens["total"],
                DEMO_BUDGET.usable,
                DEMO_BUDGET.trigger,
                f"with summary v{version}",
            )
        )

    async def _report_masking(self, outcome: CompactionOutcome, index: int) -> None:
        self.maskings += 1
        enough = outcome.result == "masked"
        self.narrator.step(
            "old tool results masked",
            f"After turn {index}: the ladder's first step served {outcome.masked} old tool "
            f"result(s) as a short digest naming the event that keeps each in full "
            f"({outcome.tokens_saved:,} tokens saved; ResultsMasked is recorded, the call and "
            f"its result stay one group). "
            + (
                "That was enough: no summary needed."
                if enough
                else "Still over the aim: the older groups are summarised next."
            ),
            masked=outcome.masked,
            tokens_saved=outcome.tokens_saved,
            summary_needed=not enough,
        )


def covered_count(summary: AnySummary) -> int:
    """How many messages a summary of either schema covers."""
    if isinstance(summary, CompactionSummaryV2):
        return summary.coverage.count
    return len(summary.source_message_ids)


def tool_count(summary: AnySummary) -> int:
    """How many tool results a summary of either schema digests."""
    if isinstance(summary, CompactionSummaryV2):
        return len(summary.tools)
    return len(summary.tool_result_digests)
