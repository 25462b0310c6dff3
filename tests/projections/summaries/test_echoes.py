"""A name the user typed in lower case, or at the start of a sentence, is the user's value when
another turn spells it so the ledger reads it: the conversation is the gazetteer."""

from __future__ import annotations

from eventstore import EventStore
from projections.context.budget import Budget
from projections.context.messages import Message
from projections.ledger import Ledger
from projections.summaries import values
from projections.summaries.echoes import NameMatcher, name_like
from projections.summaries.values import value_candidates

TURNS = [
    Message(id="u1", role="user", content="i want to fly to los angeles on the 8th"),
    Message(id="a1", role="assistant", content="Flights to Los Angeles on the 8th: two left."),
    Message(id="u2", role="user", content="Dealogic is what my team uses. mark it as done."),
    Message(id="a2", role="assistant", content="Noted: your team uses Dealogic, as Mark said."),
]


def test_the_users_own_words_for_a_name_another_turn_spells() -> None:
    found = {c.value: c for c in value_candidates(TURNS, [1, 2, 3, 4])}
    assert found["los angeles"].src == 1
    assert found["Los Angeles"].src == 2
    assert found["Dealogic"].src == 3  # the user's, at the start of a sentence
    assert found["los angeles"].score > found["Los Angeles"].score  # the user said it


def test_a_one_word_name_is_matched_only_as_written() -> None:
    found = {c.value for c in value_candidates(TURNS, [1, 2, 3, 4])}
    assert "mark" not in found  # "mark it as done" is no name
    mentions = list(NameMatcher(["Delta", "New York"]).mentions("a delta of 3, new  york, Delta"))
    assert mentions == [("new  york", 14), ("Delta", 25)]


def test_a_chunk_without_a_user_turn_builds_no_matcher() -> None:
    # masking reads one tool result at a time: nothing the user said to look for
    values._matcher.cache_clear()
    result = Message(id="t1", role="tool", tool_call_id="c1", content='{"city": "Los Angeles"}')
    assert "Los Angeles" in {c.value for c in value_candidates([result], [1])}
    assert values._matcher.cache_info().currsize == 0


def test_what_reads_as_a_name() -> None:
    assert name_like("Los Angeles")
    assert name_like("Hilton Garden Inn")
    assert not name_like("LAX")  # a code in capitals
    assert not name_like("May")  # too short to tell
    assert not name_like("Witcher 3")
    assert not name_like("economy")


async def test_the_gate_passes_a_summary_that_keeps_them() -> None:
    filler = [
        Message(id=f"f{i}", role="user" if i % 2 == 0 else "assistant", content=f"Turn {i}.")
        for i in range(12)
    ]
    async with EventStore.open("memory://") as store:
        session = Ledger(store).session("acme", "trip")
        await session.append([*TURNS, *filler])
        budget = Budget(context_limit=150, max_output_tokens=0, tool_reserve=0, safety_margin=0)
        outcome = await session.compact(budget, keep_groups=2, target=1.0)
        assert outcome.result == "committed", outcome
        rendered = await session.render(budget, keep_groups=2)
        block = next(
            str(m.content) for m in rendered.messages if "compaction_summary" in str(m.content)
        )
        assert "los angeles" in block, block
