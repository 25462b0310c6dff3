"""How often, for how many, by when and at what rate, as people say them to an assistant
that books, reminds and buys: each read whole by the value ledger (``text_values``)."""

from __future__ import annotations

import pytest

from tests.projections.summaries.reading import values_read


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("I go twice a week.", "frequency", "twice a week"),
        ("Three times a day after meals.", "frequency", "Three times a day"),
        ("Once per month is enough.", "frequency", "Once per month"),
        ("Remind me every 2 weeks.", "frequency", "every 2 weeks"),
        ("Take one pill every 8 hours.", "frequency", "every 8 hours"),
        ("We meet every other week.", "frequency", "every other week"),
        ("Water them every Tuesday.", "frequency", "every Tuesday"),
        ("Back up every weekday.", "frequency", "every weekday"),
        ("Water the garden every other day.", "frequency", "every other day"),
        ("Payroll runs every fortnight.", "frequency", "every fortnight"),
        ("We file once a quarter.", "frequency", "once a quarter"),
        ("We talk every Sunday evening at 8.", "frequency", "every Sunday evening"),
        ("A table at The French Laundry for 4.", "count", "for 4"),
        ("Reserve Chez Panisse at 7 pm for 4.", "count", "for 4"),
        ("Book Nopa tonight for two please.", "count", "for two"),
        ("Can we book Nopa on Friday for 4.", "count", "for 4"),
        ("Is there room at 8 p.m. for 3?", "count", "for 3"),
        ("Book a court tomorrow for 2 please.", "count", "for 2"),
        ("I need it by end of day Thursday.", "relative", "end of day"),
        ("Please send it by close of business.", "relative", "close of business"),
        ("Move the dentist to next Thursday afternoon.", "date", "next Thursday afternoon"),
        ("I want to leave on the 2nd of next month.", "date", "on the 2nd of next month"),
        ("Rent is due the first of the month.", "date", "the first of the month"),
        ("Something under $2,000 a month.", "amount", "$2,000 a month"),
        ("It costs 20 euros per person.", "amount", "20 euros per person"),
    ],
)
def test_schedules_parties_and_rates_are_read_whole(text: str, kind: str, value: str) -> None:
    assert (kind, value) in values_read(text), values_read(text)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("I paid $300 a week ago.", "amount", "$300 a week"),  # when it was paid, no rate
        ("It was $40 a day later.", "amount", "$40 a day"),
        ("Thanks for 2.", "count", "for 2"),  # a sentence's first word is no place's name
        ("We did it every day.", "frequency", "every day"),  # says nothing a tool takes
        ("Every time I go there.", "frequency", "Every time"),
    ],
)
def test_forms_that_only_look_like_them_are_not_read_so(text: str, kind: str, value: str) -> None:
    assert (kind, value) not in values_read(text), values_read(text)


def test_the_end_of_the_day_that_closes_an_argument_is_no_time() -> None:
    assert not [value for kind, value in values_read("At the end of the day, it's fine.")]


def test_a_frequency_ranks_as_a_count_over_the_statement_that_holds_it() -> None:
    # "every 8 hours" is what a reminder or a dose is set to: ranked as a count of known units,
    # over the sentence it is in (a tally ranks under it: test_spoken_ranks)
    from projections.context.messages import Message
    from projections.summaries.offline_v2 import _STATEMENT_WITH_VALUE
    from projections.summaries.values import value_candidates

    said = Message(id="u1", role="user", content="Take one every 8 hours, two tickets too.")
    found = {c.value: c for c in value_candidates([said], [1])}
    assert found["every 8 hours"].kind == "frequency"
    assert found["every 8 hours"].score > _STATEMENT_WITH_VALUE
    assert found["every 8 hours"].score == found["two tickets"].score
