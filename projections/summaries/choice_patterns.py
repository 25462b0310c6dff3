"""Choices as people state them, for the value ledger (``values``): the thing a speaker picks,
asks for or prefers, in small letters ("I'd like a window seat", "I'll have the salmon",
"we prefer a king bed", "pay with my credit card", "I love pottery"). Pure: no I/O.

Names, numbers, dates and codes are read by their form; a choice has no form of its own (it
is a common noun, "aisle", "vegetarian", "paypal"), so it is read by the grammar of the
sentence that states it: a verb of choosing after "I" or "we" (or paying "with" or "by"),
then the noun phrase it governs, and only a short one, that ends where the clause does (a
stop, a comma, a preposition or a conjunction). What the verbs and the closed classes hold is
grammar, not a list of the choices seen.
"""

from __future__ import annotations

import re

from projections.summaries.name_patterns import SPACE
from projections.summaries.spoken import one_of

__all__ = ["CHOICES", "CHOICE_KEY", "CLOSED", "NOT_A_THING", "NOT_A_TOPIC", "choice_key"]

# A verb of choosing or preferring after "I" or "we", its modal or contraction included:
# "I'd like", "we would prefer", "I'll take", "I'd rather have", "I really love", and asked:
# "can I get", "could we have". "Have" and "get" choose only after a modal ("I'll have the
# soup"; "I have a dog" and "I get a lot of calls" state no choice).
# With the verb of getting it after "to" ("I want to book a table", "I'd like to rent a car",
# "we need to find a museum"), or looking for it ("I'm looking for a guesthouse").
_ADVERB = r"(?:\s+(?:really|rather|just|also|definitely|probably|much))?"
_TO_GET = r"(?:\s+to\s+(?:find|book|get|reserve|rent|buy|order|visit|see|try|have|take))?"
_VERB = rf"(?:(?:like|love|want|need|prefer){_TO_GET}|enjoy|choose|pick|order|take|go\s+with)"
_LOOKING = r"(?:['’](?:m|re)|\s+(?:am|are))\s+(?:looking|searching)\s+for"
_CHOOSER = (
    r"(?:\b(?:I|[Ww]e)(?:(?:['’](?:d|ll)|\s+(?:would|will|can|could))"
    rf"{_ADVERB}\s+(?:{_VERB}|have|get)|{_ADVERB}\s+{_VERB}|{_LOOKING})"
    r"|\b(?:[Cc]an|[Cc]ould|[Mm]ay)\s+(?:I|we)\s+(?:have|get|order))\s+"
)
# Paying by a means: "pay with my credit card", "paying by paypal", "I'll pay using cash";
# asked for, for the speaker: "get me an aisle seat", "book us a quiet table"; changed to:
# "upgrade me to business", "switch it to vegetarian", "change my seat to an aisle".
_PAYER = r"\b[Pp]ay(?:ing)?\s+(?:with|by|using|via)\s+"
_FOR_ME = r"\b(?:[Gg]et|[Gg]ive|[Bb]ook|[Ff]ind|[Rr]eserve|[Ss]end)\s+(?:me|us)\s+"
_CHANGED_TO = (
    r"\b(?:[Ss]witch|[Cc]hange|[Uu]pgrade|[Mm]ove|[Pp]ut)\s+(?:me|us|it|(?:my|our)\s+[a-z]+)"
    r"\s+(?:to|in|into)\s+"
)
# Words of closed classes that never head or end a chosen thing: pronouns, determiners,
# quantifiers, prepositions, particles, conjunctions, question words, adverbs of time and
# degree, and the "to" of an infinitive ("I want to change", "I'd like you to", "I need it by
# Friday", "I'll get back to you").
_CLOSED_WORDS = (  # noqa: SIM905
    "it them you me him her us one ones this that these those something anything everything "
    "nothing someone anyone everyone more less much many all both each any some another other "
    "a an the my our your his their its "
    "same such what which who whom whose whatever whichever how why "
    "to on in at for with within without between across per via from by of up down out off back "
    "away around through near beside besides behind above below beneath along alongside among "
    "amongst beyond toward towards underneath against upon during throughout despite except amid "
    "and or but nor so if as than because since unless until while when where whether about "
    "into onto over under after before instead too also very really just only still even "
    "again please now then there here today tonight tomorrow yesterday next last not no yes "
    "though anyway anyways somehow lot lots bit little few couple way kind sort thing things "
    "time either neither most"
).split()
# The light verbs, in every form: after "like" or "love" they open a verb phrase, not a thing
# ("I love going to the beach", "I'd like being home", "we need been"); and what anyone asks a
# service for, which chooses nothing ("I need help", "we'd like some information").
_LIGHT_WORDS = (  # noqa: SIM905
    "be am is are was were been being have has had having do does did doing done go goes "
    "going gone went get gets getting got gotten make makes making made take takes taking took "
    "taken see sees seeing saw seen feel feels feeling felt come comes coming came keep keeping "
    "kept let know knowing think thinking say saying "
    "help assistance advice information info details care part note look chance"
).split()
#: A word of those closed classes (what follows "of" when a quantity names no substance).
CLOSED = one_of(_CLOSED_WORDS)
#: A word of those closed classes or a light verb: never a word of a thing named.
NOT_A_THING = one_of(_CLOSED_WORDS + _LIGHT_WORDS)
_MODALS_AND_CHOOSING = (  # noqa: SIM905
    "would will shall should could can may might must like love prefer want need choose pick order"
).split()
#: Words that say nothing of what a question is about ("Would you like economy or business?"
#: is about "economy" and "business"): the closed classes, the light verbs, the modals and
#: the verbs of choosing.
NOT_A_TOPIC = frozenset(_CLOSED_WORDS + _LIGHT_WORDS + _MODALS_AND_CHOOSING)
# A word of the chosen thing: small letters (a hyphenated compound is one word: "non-smoking"),
# none of the closed classes ("take care", "take part" are idioms, not choices); after the
# first, no participle (it opens a clause of its own: "my credit card ending in 4421",
# "flights based on price"): a word in "-ed" after a consonant ("bed", "red" and "speed" are
# none), or in "-ing" before a preposition ("a king bed", "the morning flight" are things).
_WORD = rf"(?!{NOT_A_THING}\b)[a-z]+(?:-[a-z]+)*"
_PARTICIPLE = (
    r"(?:[a-z]+[b-df-hj-np-tv-z]ed\b"
    rf"|[a-z]+ing(?={SPACE}+(?:in|at|on|from|to|around|after|before|with|by)\b))"
)
_NEXT_WORD = rf"{SPACE}+(?!{_PARTICIPLE}){_WORD}"
# Where the chosen thing ends: the clause's end (within a line: a list's next line is not the
# phrase's end), or a closed-class word or a participle that opens the next phrase ("a king
# bed on a high floor", "the salmon, medium rare", "an aisle seat please").
_PHRASE_END = rf"(?={SPACE}*(?:[,.!?;:)\n]|$)|{SPACE}+(?:{CLOSED}\b|{_PARTICIPLE}))"

# A past participle alone is no thing chosen ("I want to get refunded").
_LONE_PARTICIPLE = rf"[a-z]+[b-df-hj-np-tv-z]ed{_PHRASE_END}"

#: The patterns: a determiner or a possessive may open the chosen thing and is not part of it
#: (the value is the thing: "window seat", not "a window seat"); one to three words, and the
#: phrase must end there ("I need a quiet room facing the garden" states more than a choice,
#: and is left to the statement that holds it).
CHOICES: list[tuple[str, re.Pattern[str]]] = [
    (
        "choice",
        re.compile(
            rf"(?:{_CHOOSER}|{_PAYER}|{_FOR_ME}|{_CHANGED_TO})(?:(?:a|an|the|some|my|our|your){SPACE}+)?"
            rf"(?P<value>(?!{_LONE_PARTICIPLE}){_WORD}(?:{_NEXT_WORD}){{0,2}}){_PHRASE_END}"
        ),
    ),
    # Accepted rather than asked for, at a sentence's start: "Economy is fine", "Window sounds
    # good", "The aisle would be great" (the acceptance is a closed class; "That is fine" and
    # "It works" name nothing).
    (
        "choice",
        re.compile(
            rf"(?:(?<![^\n])|(?<=[.!?]\s))(?:(?:[Tt]he|[Aa]n?|[Mm]y|[Oo]ur){SPACE}+)?"
            # (a closed-class word opens no thing: "That is fine", "It works", "Either is fine")
            rf"(?!(?i:{CLOSED})\b)"
            rf"(?P<value>[A-Za-z][a-z]+(?:[- ](?!{NOT_A_THING}\b)[a-z]+){{0,2}})"
            rf"{SPACE}+(?:is|are|would{SPACE}+be|sounds|works|will{SPACE}+do){SPACE}+"
            r"(?:fine|good|great|perfect|ok|okay|best)\b"
        ),
    ),
    # A part of town by its compass point, wherever it is asked for: "in the north", "on the
    # east side", "in the city centre" (the points are a closed class; "in the morning" has
    # the same form, so a word is no area).
    (
        "choice",
        re.compile(
            r"\b(?:in|on|around)\s+the\s+(?P<value>(?:north|south)(?:[- ]?(?:east|west))?"
            r"|east|west|(?:city\s+|town\s+)?cent(?:re|er))\b(?!-)"
        ),
    ),
    # What a place serves: "serving italian food", "that serves indian" (the word after it).
    (
        "choice",
        re.compile(rf"\bserv(?:ing|es)\s+(?P<value>{_WORD}(?:{SPACE}+food)?){_PHRASE_END}"),
    ),
]

#: The key of a choice's value opens with this ("choice.prefer: window seat"): a choice says
#: what the statement that holds it says, so a statement holding only choices does not rank as
#: one with a value (``offline_v2``).
CHOICE_KEY = "choice"


def choice_key(label: str) -> str:
    """The key of a choice labelled ``label`` (the words before it, ``values._label``)."""
    return CHOICE_KEY if label == CHOICE_KEY else f"{CHOICE_KEY}.{label}"
