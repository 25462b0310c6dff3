"""Values as people say them: dates, times and how often, in words, for the value ledger
(``values``), and the words they are made of (numbers, months, weekdays, units), which the
counts (``count_patterns``) share. Pure: no I/O.

A user says "the 8th", "next Friday", "half past 1 in the afternoon", "a table for two" or
"Ruth's Chris Steak House"; the tool that acts on it gets ``2019-03-08``, ``13:30``, ``2`` or a
venue id. The summary keeps the user's words next to the canonical value the call used, so the
next model call can tell what was asked from what was done.

These are a small grammar (number words, ordinals, weekdays, clock words, units, the words
that join a multi-word name), not a list of phrasings: they compose, so "quarter to seven in
the evening" and "the day after tomorrow" need no entry of their own. ``dateparser`` was
measured against them on the corpora and not taken (docs/quality.md: on 600 user turns it
found every relative date these find, plus pronouns and card digits as dates, "we", "now",
"may", "in 7334", at 25 times the cost).
"""

from __future__ import annotations

import re

__all__ = [
    "DAY_NOT_RANK",
    "FUNCTION_WORDS",
    "HOUR_ENDS",
    "MERIDIEM",
    "MONTH",
    "NUMBER",
    "NUMBER_WORDS",
    "SMALL_WORDS",
    "SPOKEN_PATTERNS",
    "UNITS",
    "WEEKDAYS",
    "WEEKDAY_SHORT",
    "after_none_of",
    "after_one_of",
    "one_of",
]

_Trie = dict[str, "_Trie"]


def one_of(words: list[str]) -> str:
    """``words`` as one alternation factored by their letters ("f(?:ive|our(?:teen)?)"):
    Python's ``re`` tries an alternation's branches one by one at every position, and these
    run at every word of every turn."""
    trie: _Trie = {}
    for word in words:
        node = trie
        for letter in word:
            node = node.setdefault(letter, {})
        node[""] = {}

    def emit(node: _Trie) -> str:
        ends = "" in node
        branches = [letter + emit(child) for letter, child in sorted(node.items()) if letter]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if ends else body

    return "(?:" + emit(trie) + ")"


def _by_length(words: list[str]) -> list[list[str]]:
    lengths: dict[int, list[str]] = {}
    for word in words:
        lengths.setdefault(len(word), []).append(word)
    return [lengths[length] for length in sorted(lengths)]


def after_one_of(words: str, then: str = " ") -> str:
    """A lookbehind for any of ``words`` (space-separated), then ``then``: Python's lookbehinds
    are of one width each, so one per length, in an alternation."""
    return (
        "(?:"
        + "|".join(rf"(?<=\b(?:{'|'.join(w)}){then})" for w in _by_length(words.split()))
        + ")"
    )


def after_none_of(words: list[str], then: str) -> str:
    """A lookbehind that none of ``words``, then ``then``, stands before: one per length."""
    return "".join(rf"(?<!\b(?:{'|'.join(w)}){then})" for w in _by_length(words))


# Numbers in words compose: "twenty-four", "fifteen hundred", "two thousand five hundred".
_UNITS_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS_WORDS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"]
_TEENS_WORDS += ["seventeen", "eighteen", "nineteen"]
_TENS_WORDS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_UNIT_WORD = one_of(_UNITS_WORDS)
# An hour in words, "one" aside ("one by one", "at one point").
_CLOCK_WORD = one_of([*_UNITS_WORDS[1:], "ten", "eleven", "twelve"])
#: A number under a hundred in words ("seven", "twenty-four").
SMALL_WORDS = (
    rf"(?:{one_of(_TENS_WORDS)}(?:[-\s]{_UNIT_WORD})?|{one_of(_TEENS_WORDS + _UNITS_WORDS)})"
)
# An hour of the clock in words (one to twelve).
_HOUR_WORD = rf"(?:one|{_CLOCK_WORD})"
# The minutes of a clock time in words ("thirty", "forty-five"): the number words, joined
# plainly rather than factored, so that the prefilter runs the pattern only on a text that
# holds one of them ("ten" left out: "often", "written", "listen" hold it).
_MINUTE_WORDS = "(?:" + "|".join(_TEENS_WORDS[1:] + _TENS_WORDS[:4]) + rf")(?:[-\s]{_UNIT_WORD})?"
# What comes before an hour to say the minutes: "half past", "quarter to", "twenty past",
# "25 past" ("to" only after a half or a quarter: "five to seven" and "5 to 7" are ranges
# more often than clock times).
_MINUTES = rf"(?:\d{{1,2}}|{SMALL_WORDS})(?:\s+minutes)?"
# The prepositions of time that say "half six" is a clock time (half past six).
_BEFORE_HALF = "at around about until till from before after"
_BEFORE_HOUR = rf"(?:(?:half|(?:a\s+)?quarter)\s+(?:past|to|after)|{_MINUTES}\s+past)"
# Before noon or midnight, or an hour with its part of the day, "to" is a clock time
# whatever the minutes: "ten to midnight", "five to seven tonight".
_MINUTES_TO = rf"{_MINUTES}\s+to"
_SCALE = r"\s+(?:hundred|thousand)(?:\s+(?:and\s+)?" + SMALL_WORDS + r"(?:\s+hundred)?)?"
#: A number in words, with its hundreds and thousands ("fifteen hundred", "a couple hundred",
#: "a few thousand").
NUMBER_WORDS = rf"(?:a(?:\s+couple(?:\s+of)?|\s+few)?{_SCALE}|{SMALL_WORDS}(?:{_SCALE})?)"
#: A small number, in digits or words ("3", "three", "a couple of", "a few").
NUMBER = rf"(?:\d{{1,2}}|{SMALL_WORDS}|a\s+couple\s+of|a\s+few)"
_MONTH_NAMES = ["jan(?:uary)?", "feb(?:ruary)?", "mar(?:ch)?", "apr(?:il)?", "may", "june?"]
_MONTH_NAMES += ["july?", "aug(?:ust)?", "sep(?:t(?:ember)?)?", "oct(?:ober)?", "nov(?:ember)?"]
_MONTH_NAMES += ["dec(?:ember)?"]
#: A month's name or abbreviation, to be matched case-insensitively.
MONTH = "(?:" + "|".join(_MONTH_NAMES) + ")"
# A month that opens a date ("June the fourth") is capitalised: "you may first" is no date.
_CAPITAL_MONTH = "(?-i:" + "|".join(name.capitalize() for name in _MONTH_NAMES) + ")"
#: The days of the week, Monday first (``date.weekday()`` order).
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_A_WEEKDAY = one_of(WEEKDAYS)  # one day ("Monday"): "...day" then " of " is one literal
_WEEKDAY = _A_WEEKDAY + "s?"
#: A weekday's abbreviation ("Wed", "Tues", "Thurs"), to be matched case-insensitively.
_WEEKDAY_ABBREVIATIONS = [day[:3] for day in WEEKDAYS] + ["tues", "thur", "thurs"]
WEEKDAY_SHORT = one_of(_WEEKDAY_ABBREVIATIONS)
_ORDINAL_UNITS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"]
_ORDINAL_UNITS += ["ninth"]
_ORDINAL_TEENS = ["tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth"]
_ORDINAL_TEENS += ["sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth", "thirtieth"]
_ORDINAL_WORD = (
    rf"(?:t(?:wenty|hirty)[-\s]{one_of(_ORDINAL_UNITS)}"
    rf"|{one_of(_ORDINAL_TEENS + _ORDINAL_UNITS)})"
)
# An ordinal in words that is a day more often than a choice ("the fourteenth", "the twenty
# third"; "the first", "the second" and "the third" are options as often), joined plainly
# for the prefilter's literals.
_LATER_ORDINAL_WORD = (
    "(?:(?:twenty|thirty)[-\\s](?:"
    + "|".join(_ORDINAL_UNITS)
    + ")|"
    + "|".join(_ORDINAL_TEENS + _ORDINAL_UNITS[3:])
    + ")"
)
# A weekday's abbreviation, capitalised ("Fri", "Tues"; "sat" and "wed" are words).
_SHORT_DAY = "(?:" + "|".join(day.capitalize() for day in _WEEKDAY_ABBREVIATIONS) + ")"
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)"
#: Function words (prepositions, conjunctions, auxiliaries, pronouns, determiners) that two
#: patterns rule out as a noun, each with words of its own: a day's ordinal may stand before
#: them (``DAY_NOT_RANK``) and a thing's number never after them (``number_patterns``).
FUNCTION_WORDS = (
    "and or to from until till at in on for of by with after before around between is was "  # noqa: SIM905
    "will would should could can might may must then too also as next last via since you she "
    "they the our your his her their not only".split()
)
# What may follow a day said as an ordinal alone ("the 5th"): a function word ("the 5th at
# 3", "the 15th after my trip", "the 5th we left"), a part of the day, or a verb in "-s" ("the
# 12th works"). Any other word in small letters is the noun the ordinal ranks: "the 4th
# floor", "the 2nd option", "my 18th birthday", "1st class" are no dates.
_DAY_FOLLOWER = one_of(
    FUNCTION_WORDS
    + "nor through thru instead please again if but so that which when where while this ok "  # noqa: SIM905
    "okay right morning afternoon evening night onward onwards it i we he a an my yes no "
    "either both".split()
)
#: After a day's ordinal with no month: not the noun it ranks (see ``_DAY_FOLLOWER``).
DAY_NOT_RANK = rf"(?!\s+(?!{_DAY_FOLLOWER}\b)(?-i:[a-z]+)\b(?<![^su]s))"
# A day of the month, in digits or in words ("the 21st", "the twenty-first").
_DAY = rf"(?:{_ORDINAL}|{_ORDINAL_WORD})"
_PERIOD = r"(?:week(?:end)?|month|year)"
#: A part of a period said before it: "the end of", "early", "later", "mid" ("mid next week").
_PART_OF_PERIOD = r"(?:(?:the\s+)?(?:end|start|beginning|middle)\s+of\s+|(?:early|later?|mid-?)\s*)"
#: Periods longer than a month that a calendar or a contract counts in ("the end of the
#: quarter", "the start of the school year", "the end of this billing cycle").
_LONG_PERIOD = (
    r"(?:year|quarter|semester|term|season|sprint"
    r"|(?:school|academic|fiscal|financial|tax|calendar)\s+year"
    r"|(?:billing|pay|payment|statement)\s+(?:cycle|period))"
)
_DAY_PARTS = r"(?:morning|afternoon|evening|night)"
# A weekday's part of the day, when said with it ("Friday evening").
_DAY_PART = rf"(?:\s+{_DAY_PARTS}\b)?"
# A weekday or a period that "next", "this" or "last" places ("next Thursday afternoon").
_PLACED_PERIOD = (
    rf"(?:next|this(?:\s+coming)?|last|coming|following)\s+"
    rf"(?:{_WEEKDAY}\b{_DAY_PART}|{_PERIOD}\b)"
)
# What a frequency counts besides a period: "every 8 hours", "once a quarter".
_FREQUENCY_UNIT = rf"(?:day|hour|minute|fortnight|quarter|{_DAY_PARTS})"

# A month named or told: "July", "the month", "next month".
_WHICH_MONTH = rf"(?:{_CAPITAL_MONTH}|(?:the|this|next)\s+month)\b"
_PART_OF_DAY = (
    r"(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight"
    rf"|(?:today|tomorrow|this)\s+{_DAY_PARTS}\b)"
)
#: "pm", "p.m." (its closing period too), never a sentence's full stop after "pm".
MERIDIEM = r"(?:[ap]\.\s?m\b\.?|[ap]\s?m\b)"
#: What a count counts ("2 tickets", "three nights").
UNITS = (
    r"(?:people|persons?|guests?|travell?ers?|passengers?|adults?|children|kids?|"
    r"tickets?|seats?|rooms?|beds?|bedrooms?|bathrooms?|baths?|nights?|days?|weeks?|"
    r"hours?|hrs?|minutes?|mins?|seconds?|secs?|bags?|suitcases?|stops?|stars?|items?|"
    r"tables?|degrees?)"
)


# An hour of the clock in digits, one to twelve.
_DIGIT_HOUR = "(?:1[0-2]|[1-9])"
#: Where an hour said without "am" or "pm" ends ("at 5.", "from 10 to 11 on Friday"): at a
#: punctuation mark that is no decimal point, or before a word that places it in time;
#: never before a word that could be its unit or its noun ("at 5 Main Street").
HOUR_ENDS = (
    r"(?=\s*(?:[.,;!?)](?!\d)|$)"
    r"|\s+(?:on|at|tomorrow|today|tonight|this|next|every|then|sharp|or)\b"
    # "starts at 7 and ends at 10" (not "at 7 and 8 people", "at 5 and a half": a number
    # or its part after "and")
    rf"|\s+and\s+(?!\d|a\s+(?:half|quarter)\b|{SMALL_WORDS}\b))"
)
#: ``(kind, pattern)``, longest forms first: the ledger takes each span once, first pattern wins.
SPOKEN_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # "at eight thirty", "seven fifteen pm", "one-thirty": an hour and its minutes in words,
    # with "am" or "pm" or a part of the day after them, a word that places them in time
    # before them, or a hyphen between them ("eight-thirty works"); not "two twenty dollar
    # bills". (First: the form below would read "fifteen in the morning" out of "eight fifteen
    # in the morning".)
    (
        "time",
        re.compile(
            rf"(?i)\b(?:(?:at|by|around|until|till|from)\s+)?{_HOUR_WORD}"
            rf"(?:-{_MINUTE_WORDS}\b|\s+{_MINUTE_WORDS}\b(?=\s*{MERIDIEM}|\s+{_PART_OF_DAY}))"
            rf"(?:\s*{MERIDIEM})?(?:\s+{_PART_OF_DAY})?"
            rf"|\b(?:at|by|around|until|till|from)\s+{_HOUR_WORD}\s+{_MINUTE_WORDS}\b{HOUR_ENDS}"
        ),
    ),
    # "half past 1 in the afternoon", "quarter to seven", "8 o'clock at night", "5:30 in the
    # evening", "9 tomorrow morning", "noon"
    (
        "time",
        re.compile(
            # ("between 10 and 11 in the morning", "from 9 to 11 at night": a range of them)
            rf"(?i)\b(?:between\s+\d{{1,2}}\s+and\s+|from\s+\d{{1,2}}\s+to\s+)?"
            # ("five to seven tonight": with its part of the day, "to" is a clock time)
            rf"(?:(?:{_BEFORE_HOUR}|{_MINUTES_TO})\s+)?{NUMBER}"
            rf"(?::\d{{2}})?(?:\s*o'?clock)?\s*(?:{MERIDIEM}\s*)?{_PART_OF_DAY}"
            rf"|\b{_BEFORE_HOUR}\s+{NUMBER}(?:\s*o'?clock)?(?:\s*{MERIDIEM})?"
            rf"|\b{NUMBER}\s*o'?clock(?:\s*{MERIDIEM})?"
            # "at half six", "around half ten": half past the hour, as said in Britain, after a
            # preposition of time (the lookbehind after the literal: a pattern whose branches
            # all open with a word boundary or a letter is searched for that letter, one that
            # opens with a lookbehind is tried at every position)
            rf"|\bhalf{after_one_of(_BEFORE_HALF, ' half')}\s+(?:\d{{1,2}}|{SMALL_WORDS})\b"
            rf"(?!\s+(?:an?|{UNITS})\b)"
            # "between noon and 2", "from midday to 3pm": a range that opens at noon, read as
            # "3 and 5" is (the word before it looked behind for: "between" and "from" as
            # literals would admit the pattern to every turn that holds them)
            rf"|\b(?:noon{after_one_of('between from', ' noon')}"
            rf"|midday{after_one_of('between from', ' midday')})\s+(?:and|to|until|till)\s+"
            rf"(?:{_DIGIT_HOUR}|{_CLOCK_WORD})(?:\s*{MERIDIEM}|\b)"
            rf"|\b(?:{_BEFORE_HOUR}\s+|{_MINUTES_TO}\s+)?(?:noon|midday|midnight)\b"
        ),
    ),
    # "at 5.", "around eight, ...", "by 6 tomorrow", "at 2 30": an hour alone, or with its
    # minutes in two digits after a space, after a word that places it in time, where nothing
    # follows that could be its unit or its noun ("at 5 Main Street", "around 8 people", "at
    # 10 15 minutes"; "one by one" is no time); "7 45 tomorrow": an hour and its minutes with
    # the day they are on
    # (a pattern of its own: the prefilter admits the one above only where a clock word is)
    (
        "time",
        re.compile(
            rf"(?i)\b(?:at|around|by|until|till)\s+(?:{_DIGIT_HOUR}(?:\s[0-5]\d)?|{_CLOCK_WORD})"
            rf"(?!\s+{_PART_OF_DAY}){HOUR_ENDS}"
            # (the day taken with them: its words are then what the prefilter looks for)
            rf"|\b(?<![.,:/$€£¥#-]){_DIGIT_HOUR}\s[0-5]\d\s+(?:tomorrow|today|tonight)\b"
        ),
    ),
    # A date told from another: "the Monday after next", "a week from Friday", "every other
    # Thursday", "the first week of July", "the weekend of the 20th". A pattern of its own,
    # its words apart by one space: the prefilter then looks for "after next" or "every
    # other" (inside the pattern below, with "\s+", it cost every turn's scan 5%); "the" is
    # left out of the value, where the pattern would have to try it at every word.
    (
        "date",
        re.compile(
            rf"(?i)\b(?:{_WEEKDAY}|week(?:end)?) after next\b"
            rf"|\b(?:a|{NUMBER})(?: week from | weeks from )(?:{_WEEKDAY}|today|tomorrow)\b"
            rf"|\bevery other {_WEEKDAY}\b"
            rf"|\b(?:{_ORDINAL_WORD}|last) (?:{_A_WEEKDAY}(?: of | in )|week(?:end)?(?: of | in ))"
            rf"{_WHICH_MONTH}"
            rf"|\bweekend of the {_DAY}\b"
        ),
    ),
    # How often: "twice a week", "three times a day", "once per month", "every 2 weeks",
    # "every other day", "every Tuesday", "every weekday" (after "every other Thursday", a
    # date above; before the counts below, which would read "2 weeks" out of "every 2
    # weeks"). "every day", "every time" alone are left: they say nothing a tool takes.
    (
        "frequency",
        re.compile(
            rf"(?i)\b(?:once|twice|thrice|{NUMBER} times) (?:a|an|per|every) "
            rf"(?:{_PERIOD}|{_A_WEEKDAY}|{_FREQUENCY_UNIT})\b"
            rf"|\bevery (?:(?:other|{NUMBER}) (?:{_FREQUENCY_UNIT}|{_PERIOD})s?"
            rf"|{_WEEKDAY}\b{_DAY_PART}|weekdays?|weekends?|fortnight)\b"
        ),
    ),
    # A weekday abbreviated: "last Fri", "next Tues.", "on Sat", "Sat the 9th", "thurs" (a
    # pattern of its own: its capitalised words are what the prefilter looks for, so it runs
    # only where one is written; before the dates below, which would read "the 9th" out of
    # "Sat the 9th"). "Sat", "Wed" and "Sun" are words too: they need a word before them
    # that places them in time, or a day after them.
    (
        "date",
        re.compile(
            # ("on Wed, Oct 9" is read whole below, with its month)
            rf"\b(?i:next|this(?:\s+coming)?|last|coming|following|on)\s+{_SHORT_DAY}\b\.?"
            rf"(?!,?\s+(?i:{MONTH})\b)"
            rf"|\b{_SHORT_DAY}\.?\s+(?i:(?:the\s+)?{_DAY})\b|\b(?i:tues|thurs?|weds)\b\.?"
            # "this sat", "next fri": in small letters after a word that can only place a day
            # ("last" aside: "I last sat there"), not before a word it would be the verb of
            rf"|\b(?i:next|this(?:\s+coming)?|coming)\s+(?i:{WEEKDAY_SHORT})\b\.?{DAY_NOT_RANK}"
            # ("on mon", "on thurs": in small letters after "on", those that are no other word)
            rf"|\b(?i:on)\s+(?:mon|tues?|weds?|thu(?:rs?)?|fri)\b\.?(?!,?\s+(?i:{MONTH})\b)"
        ),
    ),
    # A part of a period said before it: "the end of next week", "early next month", "later
    # this week" (a pattern of its own, before the dates below, which would read "next week"
    # out of them: its words are what the prefilter looks for, so it runs only where one is
    # written)
    ("date", re.compile(rf"(?i)\b{_PART_OF_PERIOD}{_PLACED_PERIOD}")),
    # "the 8th of March", "8th of March 2024", "the twenty-first of June", "June the fourth",
    # "the 21st", "next Friday", "this weekend", "the day after tomorrow", "Friday the 13th",
    # "Friday evening"
    (
        "date",
        re.compile(
            # ("the 2nd of next month", "the first of the month": a month told)
            rf"(?i)\b(?:on\s+)?(?:the\s+)?{_DAY}\s+of\s+(?:{MONTH}\b(?:\.?,?\s+\d{{4}})?"
            rf"|(?:the|this|next)\s+month\b)"
            rf"|\b(?:on\s+)?{_CAPITAL_MONTH}\s+(?:the\s+{_DAY}|{_ORDINAL_WORD})\b(?:,?\s+\d{{4}})?"
            rf"|\b(?:on\s+)?{_WEEKDAY}\s+(?:the\s+)?{_DAY}\b(?:\s+of\s+{MONTH}\b(?:\.?,?\s+\d{{4}})?)?"
            # ("the 5th Avenue" is a street: a capitalised word after the ordinal, not a day's
            # or a month's, makes it a name's)
            rf"|\b(?:on\s+)?the\s+{_ORDINAL}\b(?!\s+(?!(?:{_WEEKDAY}|{MONTH})\b)(?-i:[A-Z])){DAY_NOT_RANK}"
            # ("next Thursday afternoon": with its part of the day)
            rf"|\b{_PLACED_PERIOD}"
            rf"|\b(?:the\s+)?day\s+(?:after|before)\s+(?:tomorrow|yesterday)\b"
            rf"|\b(?:on\s+)?{_WEEKDAY}\b{_DAY_PART}"
            rf"|\b(?:mid-?\s?|early\s+|late\s+){_CAPITAL_MONTH}\b"  # "mid-March", "early June"
        ),
    ),
    # A day in words alone: "on the fourteenth", "the twenty third" (not "the second of two",
    # "the fourth time"; after the dates above, whose "June the fourth" it is), its words
    # written out for the prefilter.
    (
        "date",
        re.compile(
            rf"(?i)\b(?:on\s+the\s+(?:first|second|third)|the\s+{_LATER_ORDINAL_WORD})\b"
            rf"(?!\s+of\b){DAY_NOT_RANK}"
        ),
    ),
    # "yesterday", "tomorrow", "3 days ago", "in two weeks": relative to the turn's own date
    (
        "relative",
        re.compile(
            # (with their shorthand in a text message: "tmrw", "2nite")
            rf"(?i)\b(?:today|tonight|tomorrow|yesterday|tmrw|tmr|2moro|2morrow|tonite|2nite)\b"
            rf"|\b{NUMBER}\s+(?:days?|weeks?|months?|years?)\s+(?:ago|from\s+now|later)\b"
            rf"|\bin\s+{NUMBER}\s+(?:days?|weeks?|months?)\b"
        ),
    ),
    # A part of a period, not a day: "by the end of the month", "the start of next week"
    (
        "relative",
        re.compile(
            rf"(?i)\b(?:end of |start of |beginning of |middle of )(?:{_WHICH_MONTH}|(?:the |this |"
            rf"next |last )?(?:week|{_LONG_PERIOD})\b)"
        ),
    ),
    # A working day's end: "by end of day Thursday" (the day is read as a date after it),
    # "close of business"; not "at the end of the day", which closes an argument. (A pattern
    # of its own, each branch a whole literal: with the one above, "end of " alone would admit
    # every turn holding "weekend of" or "friend of".)
    (
        "relative",
        re.compile(
            r"(?i)\b(?:end of day|end of business day|end of the business day|end of business"
            r"|close of business)\b"
        ),
    ),
]
