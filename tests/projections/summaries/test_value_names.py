"""Names, ranks and other languages' months in the value ledger: what a request to a tool
names, read whole (issue #27). Each phrasing here was misread before its pattern changed."""

from __future__ import annotations

import pytest

from tests.projections.summaries.reading import values_read


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        # a name that ran into a value read before it is read up to that value
        ("I'd like to see Lord of the Rings at the AMC", "name", "Lord of the Rings"),
        ("I went to the Museum of Modern Art on Saturday", "name", "Museum of Modern Art"),
        # a sentence's function word or verb before a name is not the name's
        ("Does Pizza Hut deliver here?", "name", "Pizza Hut"),
        ("Is Spider-Man playing tonight?", "name", "Spider-Man"),
        ("Hi Anna, can you help?", "name", "Anna"),
        ("Ok. Does Bank of America open?", "name", "Bank of America"),
        ("Reserve at Ruth's Chris Steak House for 6", "name", "Ruth's Chris Steak House"),
        ("Put on Dancing Queen", "name", "Dancing Queen"),
        # a request's verb, an interjection, after a speaker's label too
        ("Install Python 3.12 on the build server.", "name", "Python"),
        ("Enroll Maya in grade 3 at Lincoln Elementary.", "name", "Maya"),
        ("Email Dr. Patel the results.", "name", "Dr. Patel"),
        ("Caroline: Hey Mel! Good to see you!", "name", "Mel"),
        ("Wow Mel, that painting's amazing!", "name", "Mel"),
        ("Note: Please send it to Bank of America.", "name", "Bank of America"),
        ("can you play Bridge over Troubled Water", "name", "Bridge over Troubled Water"),
        # initials inside a name, or two that open it
        ("My doctor is Dr. Mary J. Blige", "name", "Dr. Mary J. Blige"),
        ("George R. R. Martin wrote it", "name", "George R. R. Martin"),
        ("I'm a big fan of J. R. R. Tolkien", "name", "J. R. R. Tolkien"),
        ("I read J.K. Rowling", "name", "J.K. Rowling"),
        ("I banked at U.S. Bank today", "name", "U.S. Bank"),
        ("je pars le 12 mai", "date", "12 mai"),  # "mai" in French as in German
        (
            "fly into John F. Kennedy International Airport",
            "name",
            "John F. Kennedy International Airport",
        ),
        # an ordinal before the noun it ranks
        ("Room on the 4th floor", "number", "4th floor"),
        ("I'd like the 2nd option", "number", "2nd option"),
        ("book 1st class", "number", "1st class"),
        # a letter that names a thing after its noun; versions and addresses in dotted groups
        ("I need the shirt in size M", "number", "size M"),
        ("do you have it in size XL?", "number", "size XL"),
        ("do you have it in size medium?", "number", "size medium"),
        ("I wear a size extra large", "number", "size extra large"),
        ("I'm a size 9.5 wide in men's", "number", "size 9.5 wide"),
        ("I need size 10 shoes", "number", "size 10"),  # a size, not ten shoes
        ("the file size 20 MB is too big", "quantity", "20 MB"),  # a quantity's number
        ("I'm in row G seat 12", "number", "row G"),
        ("pick me up at Terminal B, door 4", "name", "Terminal B"),
        ("we're on version 2.3.1", "id", "2.3.1"),
        ("my IP is 192.168.1.20", "id", "192.168.1.20"),
        # a link whole, without the sentence's punctuation after it
        (
            "Visit https://example.com/orders/123 for details.",
            "id",
            "https://example.com/orders/123",
        ),
        ("See www.example.org/a?b=1.", "id", "www.example.org/a?b=1"),
        ("Lakers vs. Celtics on the 12th", "name", "Celtics"),  # "vs." ends no sentence
    ],
)
def test_names_and_ranks_are_read_whole(text: str, kind: str, value: str) -> None:
    assert (kind, value) in values_read(text)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("Did Mark Jones call?", "name", "Did Mark Jones"),  # an auxiliary opens no name
        ("Thanks Mark!", "name", "Thanks Mark"),
        ("Install Python 3.12 on the build server.", "name", "Install Python"),
        ("Caroline: Hey Mel! Good to see you!", "name", "Hey Mel"),
        ("Congrats Anna!", "name", "Congrats Anna"),
        ("Which Marriott is closer?", "name", "Which Marriott"),
        ("We took Plan B. Then we left", "name", "Plan B. Then"),  # no initial: a sentence
        ("see you in the U.S. The trip was long", "name", "U.S. The"),
        ("Get me 3 Mars bars", "date", "3 Mars"),  # French writes "mars" in small letters
        ("Room on the 4th floor", "date", "the 4th"),  # a rank, not a day
        ("my 18th birthday was fun", "date", "18th"),
        ("Python and C++", "number", "and C"),  # a function word, a language's name
        ("some R&R after the drive", "number", "some R"),
        ("Have you read George R. R. Martin's books?", "name", "George R"),  # an initial
        ("I went from A to B", "number", "from A"),
        ("I am 30ish", "time", "30ish"),  # about an hour only up to twelve
        ("Hmm. Does Pizza Hut deliver?", "name", "Hmm. Does Pizza Hut"),  # a reply, no title
        ("Touring with Frank Ocean", "name", "Touring with Frank Ocean"),  # a verb, then a name
    ],
)
def test_forms_that_only_look_like_names_or_days_are_not_read_as_them(
    text: str, kind: str, value: str
) -> None:
    assert (kind, value) not in values_read(text)


def test_a_days_ordinal_before_a_function_word_or_a_verb_stays_a_date() -> None:
    for text, value in (
        ("the 5th works for me", "the 5th"),
        ("on the 15th after my trip", "on the 15th"),
        ("on the 5th we left", "on the 5th"),
    ):
        assert ("date", value) in values_read(text), text


def test_will_and_may_open_names_after_a_sentences_start() -> None:
    # auxiliaries open no name, but these two are first names as often
    assert ("name", "Will Smith") in values_read("Will Smith is here")
    assert ("name", "May Chen") in values_read("May Chen called me")


def test_only_a_name_is_read_again_up_to_a_value_taken_before_it() -> None:
    # the name stops before the code it ran into; a date or a number is never cut short
    assert values_read("see Lord of the Rings at the AMC") == [
        ("code", "AMC"),
        ("name", "Lord of the Rings"),
    ]
    assert ("time", "9") not in values_read("from 9 to 5 pm")
