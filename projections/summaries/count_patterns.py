"""Counts as people say them, for the value ledger (``values``): a number with its unit ("two
tickets", "a couple of nights"), a party's size ("a table for two", "the four of us", "at
Nopa for 4."), amounts in words ("fifty bucks") and a thing's number known by its plural
("2 cokes"). Pure: no I/O."""

from __future__ import annotations

import re

from projections.summaries.choice_patterns import NOT_A_THING
from projections.summaries.spoken import (
    NUMBER,
    NUMBER_WORDS,
    SMALL_WORDS,
    UNITS,
    after_none_of,
    one_of,
)

__all__ = ["PLURAL_COUNTS", "SPOKEN_COUNTS"]

# Words that open a phrase of their own: never a count's modifier ("5 every day", "2 of the").
_PHRASE_OPENERS = r"every|each|per|a|an|the|of|in|on|at|for|to|and|or|more\s+than"
# One word may stand between a count and its unit ("3 business days", "2 king rooms", "two
# checked bags"), but not a word that opens a phrase of its own ("5 every day", "2 of the",
# "3 last night");
# after "one", only "more", "extra" or "checked" ("one more night"; "one summer day" tells a
# story).
_COUNT_MODIFIER = (
    rf"(?:(?<!\bone\s)(?!(?:{_PHRASE_OPENERS}|last|this|next)\b)"
    r"[a-z]+\s+|(?:more|extra|checked)\s+)?"
)
# Words that end in "s" without being a plural noun.
_ENDS_LIKE_PLURAL_WORDS = (
    "is was has does goes this his hers its ours yours theirs us as yes plus less thus always "  # noqa: SIM905
    "perhaps besides towards sometimes afterwards whereas unless across thanks downstairs "
    "upstairs indoors outdoors overseas nowadays anyways regardless".split()
)
_ENDS_LIKE_PLURAL = one_of(_ENDS_LIKE_PLURAL_WORDS)
# Not one of them before " for ".
_NOT_PLURAL_BEFORE_FOR = after_none_of(_ENDS_LIKE_PLURAL_WORDS, " for ")
# What a party's size may follow ("... for 4."): a name inside a sentence (a capitalised word
# after a word in small letters, one lookbehind per length: Python's are of one width each), a
# clock time's "pm" or a day ("tonight", "Friday", "today").
_BOOKED_BEFORE_FOR = (
    "(?:"
    + "|".join(rf"(?<=[a-z,] (?-i:[A-Z][a-z]{{{length}}}) for )" for length in range(1, 15))
    + r"|(?<=[ap]m for )|(?<=[ap]\.m\. for )|(?<=night for )|(?<=day for )|(?<=tomorrow for ))"
)
# Up to two words between a count and its plural ("2 large pepperoni pizzas"), neither a word
# that opens a clause or a phrase of its own ("11 that delivers", "3 of the best") nor a
# plural ("two reservations have flights" counts reservations).
_PLURAL_MODIFIERS = (
    rf"(?:(?!(?:{_PHRASE_OPENERS}|from|by|with|but|that|which|who|whom|whose|when|where|while|"
    r"if|so|than|is|are|was|were|be)\b)"
    r"(?![a-z-]+(?<![su]s)s\b)[a-z]+(?:-[a-z]+)?[ \t]+){0,2}"
)
# "and a half" after a count's number ("1 and a half hours") or its unit ("an hour and a half").
_HALVES = r"(?:\s+and\s+a\s+half)?"

# The cents or pence said after an amount's whole units ("243 dollars and 17 cents"): one
# amount, not two.
_CENTS = rf"\s+and\s+(?:\d{{1,2}}|{SMALL_WORDS})\s+(?:cents?|pence)\b"

# The measures of weight and volume that a kitchen, a shop or a recipe says in words (their
# symbols after a number are the quantities' of ``value_patterns``: "2 tbsp of sugar").
_MEASURE = (
    r"(?:pound|kilo(?:gram)?|gram|ounce|(?:milli)?lit(?:re|er)|gallon|pint|quart|cup"
    r"|tablespoon|teaspoon)"
)
# What it measures: one word or two, neither of a closed class nor a light verb ("ground beef",
# "rice", not "rice please").
_SUBSTANCE = rf"(?!{NOT_A_THING}\b)[a-z]{{3,}}(?:-[a-z]+)?(?:\s+(?!{NOT_A_THING}\b)[a-z]{{3,}}\b)?"

# An age in years, in digits or words.
_AGE = rf"(?:\d{{1,3}}(?:\s?[-–]\s?\d{{1,3}})?|{SMALL_WORDS})"

#: ``(kind, pattern)``, after the spoken dates and times (``spoken.SPOKEN_PATTERNS``).
SPOKEN_COUNTS: list[tuple[str, re.Pattern[str]]] = [
    # A measure said with what it measures: "half a pound of ground beef", "a kilo of rice",
    # "two pounds of apples" (weight, not money: "of" says so), "a quarter pound of ham", "3
    # cups of flour" (before the amounts, which read "two pounds" as money)
    (
        "quantity",
        re.compile(
            rf"(?i)\b(?:(?:half\s+)?an?|half|one|(?:a\s+)?quarter(?:\s+of\s+an?)?"
            rf"|\d+(?:\.\d+)?|{NUMBER_WORDS})\s+{_MEASURE}s?\s+of\s+(?-i:{_SUBSTANCE})"
        ),
    ),
    # An age's bound after the persons it bounds: "a child under 2", "kids under 12 eat free",
    # "seniors over 65" (who a fare or a rule is for; before the ages alone: "children under
    # the age of five")
    (
        "count",
        re.compile(
            r"\b(?:[Cc]hild(?:ren)?|[Kk]ids?|[Ii]nfants?|[Bb]ab(?:y|ies)|[Tt]oddlers?|[Tt]eens?"
            r"|[Tt]eenagers?|[Aa]dults?|[Ss]eniors?|[Gg]uests?|[Pp]assengers?|[Pp]eople)"
            r"\s+(?:under|over|below|above)\s+(?:the\s+age\s+of\s+)?"
            rf"{_AGE}\b(?![.,]\d|\s*(?:%|percent|kg|lbs?|pounds|cm))"
        ),
    ),
    # Ages after the word that says they are ages: "two kids aged 7 and 10", "ages 5, 8 and
    # 11", "age 12", "ages 3-18" (each age one value with the others: who travels, at which
    # fare)
    (
        "count",
        re.compile(
            rf"(?i)\bage[ds]?\s+(?:of\s+)?{_AGE}(?:(?:\s*,\s*|\s+and\s+|\s*&\s*){_AGE})*\b"
            r"(?![.,]\d)"
        ),
    ),
    # "two tickets", "a couple of nights", "a table for two", "party of 4", "a 3-hour drive",
    # "the four of us", "a dozen people", "3 to 5 business days"
    (
        "count",
        re.compile(
            rf"(?i)(?<![\w.,])(?:(?:\d{{1,3}}(?:\s?[-–]\s?|\s+to\s+))?(?:\d{{1,2}}\.\d+|{NUMBER}|(?:half\s+)?a\s+dozen)"
            rf"{_HALVES}(?:\s+{_COUNT_MODIFIER}|-)"
            rf"|half\s+an?\s+|an?\s+(?={UNITS}\s+and\s+a\s+half\b)){UNITS}\b{_HALVES}"
            rf"|\b(?:table|party|reservation|booking|dinner|lunch|breakfast|brunch)\s+(?:for|of)\s+"
            rf"{NUMBER}\b"
            # "for the four of us", "all five of us", "the three of them": a party's size
            # (one space apart: the prefilter then looks for " of us" in a text)
            rf"|\b(?:the|all) {NUMBER} of (?:us|you|them)\b"
        ),
    ),
    # "tickets for 2 please", "seats for three.": a plural's number where a clause ends (the
    # plural behind it: a pattern that opens with a word is tried at every word; a pattern of
    # its own: " for " would admit every turn that holds it to the counts' above); a party's,
    # after the place or the time it is booked for ("at Chez Panisse for 4.", "at 7 pm for 2
    # please", "tonight for six"; a name inside a sentence: "Thanks for 2" is none)
    (
        "count",
        re.compile(
            rf"(?i)\bfor (?:(?<=[a-z][a-z][^\Wsu]s for ){_NOT_PLURAL_BEFORE_FOR}"
            rf"|{_BOOKED_BEFORE_FOR})"
            rf"(?:\d{{1,2}}|{SMALL_WORDS})\b(?=[ \t]*(?:[.,;!?)\n]|$)| please\b)"
        ),
    ),
    # A span or a shift of one unit of time, after the word that sets it: "for a fortnight",
    # "push it back an hour", "extend it by a week", "in an hour" ("a day", "a week" alone are
    # everywhere in conversation: "twice a week", "a day off"). A pattern of its own, its words
    # one space apart: the prefilter looks for " a " before trying it.
    (
        "count",
        re.compile(
            r"(?i)\b(?:for|by|in|within|back|forward) an? "
            r"(?:fortnight|month|year|week|night|day|hour|minute)\b"
        ),
    ),
    # An amount and its cents: "243 dollars and 17 cents", "5 pounds and 20 pence", "$12 and
    # 50 cents" (before the amounts alone, which would take "17 cents" and leave the rest)
    (
        "amount",
        re.compile(
            rf"(?i)(?:\b(?:\d(?:[\d,]*\d)?|{NUMBER_WORDS})\s?(?:dollars?|euros?|pounds?)"
            rf"|[$€£]\s?\d(?:[\d,]*\d)?){_CENTS}"
        ),
    ),
    # "300 yuan", "fifty bucks", "20 pounds", "fifteen hundred dollars"
    (
        "amount",
        re.compile(
            rf"(?i)\b(?:\d(?:[\d,]*\d)?(?:\.\d+)?|{NUMBER_WORDS})\s?"
            r"(?:yuan|bucks|pounds?|yen|won|rupees?|cents?|francs?)\b"
            rf"|\b{NUMBER_WORDS}\s+(?:dollars?|euros?)\b"
        ),
    ),
]

#: Counts known by their noun's plural, tried after amounts and quantities ("2 dollars" is an
#: amount, "500ml" a quantity) and before names: a "tally", which ranks under a count of known
#: units ("2 tickets") and under the statement that holds it (``values._KIND_BONUS``).
PLURAL_COUNTS: list[tuple[str, re.Pattern[str]]] = [
    # A count of anything, known by its noun's plural rather than from a list of units: "2
    # cokes", "three large pizzas", "a dozen roses", "2 large pepperoni pizzas" (never "one":
    # "one ... s" is rarely a count; not a word that only ends like a plural: "is", "has",
    # "bus", "glass"; a decimal too: "1.5 liters"; not a word without a vowel, a unit's
    # symbol: "190 lbs").
    (
        "tally",
        re.compile(
            rf"(?i)(?<![\w.,:/$€£¥#-])(?:\d{{1,3}}\.\d{{1,2}}|[2-9]|[1-9]\d{{1,2}}|(?!one\b){SMALL_WORDS}"
            r"|(?:half\s+)?a\s+dozen)"
            rf"[ \t]+{_PLURAL_MODIFIERS}"
            rf"(?-i:(?!{_ENDS_LIKE_PLURAL}\b)(?![b-df-hj-np-tv-xz]+s\b)[a-z]{{2,}}(?<![su])s)(?![\w'’-])"
        ),
    ),
]
