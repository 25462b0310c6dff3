"""The typed patterns of the value ledger (:mod:`projections.summaries.values`): what a date,
a time, an amount, a count, a quantity, an identifier, a code, a name and a number look like
in running text, longest forms first. Pure: no I/O."""

from __future__ import annotations

import re

from projections.summaries.choice_patterns import CHOICES, CLOSED
from projections.summaries.count_patterns import PLURAL_COUNTS, SPOKEN_COUNTS
from projections.summaries.name_patterns import (
    INITIALS,
    INNER_CAPITALS,
    LEADING_INITIALS,
    LOWER,
    NAME_GAP,
    NAME_OPENS,
    NAME_WORD,
    PRODUCT_NAMES,
    SPACE,
    SPOKEN_NAMES,
    UPPER,
)
from projections.summaries.number_patterns import (
    CJK_RUNS_ON,
    DIMENSIONS,
    LETTER_ENDS,
    LINKS,
    NUMBER_PATTERNS,
    PHONE_NUMBERS,
    SIZES,
)
from projections.summaries.spoken import (
    DAY_NOT_RANK,
    HOUR_ENDS,
    MERIDIEM,
    MONTH,
    SPOKEN_PATTERNS,
    WEEKDAY_SHORT,
    after_one_of,
)

__all__ = ["VALUE_PATTERNS"]

_HOUR = rf"\d{{1,2}}(?::\d{{2}})?(?:\s*{MERIDIEM})?"
# An hour of the clock in digits with no "am" or "pm" ("9", "10:30", "17").
_BARE_HOUR = r"(?:2[0-3]|1\d|0?[1-9])(?::[0-5]\d)?"
_CLOCK = rf"(?:\d{{1,2}}(?::\d{{2}})?\s*{MERIDIEM}|\d{{1,2}}:\d{{2}})"
# A unit after a number, by its form, not from a list: a symbol without vowels ("mg", "km",
# "lbs", "GB", "kWh", "mmHg") or a ratio of symbols ("U/L", "mg/dL", "km/h").
_UNIT_FORM = r"(?!(?:st|nd|rd|th|x)\b)(?![A-Za-z]*[AEIOUYaeiouy])"  # no ordinal, no vowel
_UNIT = rf"(?:[A-Za-z]{{1,4}}/[A-Za-z]{{1,4}}|{_UNIT_FORM}[A-Za-z]{{1,5}})"
# A number glued to a unit in small letters ("70kg", "500ml", "5km", "250g", "2l"): a quantity,
# not an id (of one letter, only grams and litres: "14c" is a seat).
_GLUED_QUANTITY = rf"\d+(?:\.\d+)?(?:{_UNIT_FORM}[a-z]{{2,4}}|[gl])(?![\w-])"
_ACRONYM = r"[A-Z]{2,5}(?![a-z])"
_CAPITALISED = r"[A-Z][a-z]+"
_CAPS = rf"(?:{_ACRONYM}|{_CAPITALISED})"
_GAP = NAME_GAP
# The next word of a name, after a small number or initials, if any ("Type 2 Diabetes", "Mary
# J. Blige").
_NEXT_NAME_WORD = rf"{NAME_GAP}(?:\d{{1,3}}{NAME_GAP}|{INITIALS})?{NAME_WORD}"
# One or more capitalised words after the first of a name.
_GAP_WORDS = rf"(?:{_GAP}{NAME_WORD})+"
# The character before the space that precedes a word inside a sentence ("a 2019 Toyota").
_INSIDE_SENTENCE = "[" + LOWER[1:-1] + ",;0-9]"
# The small number a name may end with ("Witcher 3", "Suite 436", "Room 1204"): not a year,
# a clock time, a decimal, a range or a percentage (a full stop after it ends the sentence).
_SMALL_NUMBER = (
    rf"(?:{SPACE}(?!(?:19|20)\d\d\b)\d{{1,4}}(?![\w:/%'’–-]|[.,]\d)"
    rf"(?!\s*(?:{MERIDIEM}|[-–]|to\s+\d)))?"
)
# Two capitals that are a word or an abbreviation, not a carrier's or a region's code.
_CAPITALS_WORD = "AM|PM|OK|NO|ID|TV"
# A region's code of two capitals after a place (not a word in capitals: "OK", "NO", "AM").
_REGION = rf"(?!(?:{_CAPITALS_WORD}|IT|IS|IN|ON|OR|TO|US|WE|SO|GO|HI)\b)[A-Z]{{2}}(?![\w'’-])"
# The rest of a place's words after its first capital (five words at most: a bound keeps a
# long run of capitalised words from being read again from each of them), a comma and its
# region's code.
_PLACE_AND_REGION = (
    rf"(?:['’]{UPPER})?{LOWER}+(?:-{UPPER}{LOWER}+)*(?:{_GAP}{NAME_WORD}){{0,4}},{SPACE}{_REGION}"
)
# A number joined to a word in small letters ("12-inch", "5-star") or to a magnitude ("3k",
# "2-3k", "5M"): a measure, not an identifier.
_MEASURE_WORD = r"(?:\d+-[a-z]{2,12}|\d+(?:[-–]\d+)?[kKmM])(?![\w-])"
# A point of the compass before a street's name ("W", "N.", "NE").
_COMPASS = rf"(?:(?:[NS][EW]|[NSEW])\.?{NAME_GAP})?"
# The months in Spanish, French, German, Italian and Portuguese (accents optional; names that
# are English ones too, "April", "August", are read by the English patterns). German writes
# its months with a capital; the others in small letters, so "3 Mars bars" is no date ("mai",
# French and German, is in the first group).
_FOREIGN_MONTH = (
    "(?:januar|februar|m[äa]rz|mai|juni|juli|oktober|dezember|(?-i:enero|febrero|marzo|abril|"
    "mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre|janvier|"
    "f[ée]vrier|mars|avril|juin|juillet|ao[ûu]t|septembre|octobre|novembre|d[ée]cembre|"
    "gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|janeiro|fevereiro|"
    "mar[çc]o|maio|junho|julho|setembro|outubro|novembro|dezembro))"
)
# A day of the month in digits, its ordinal's letters or not ("5", "5th").
_DAY_OF = r"\d{1,2}(?:st|nd|rd|th)?"
# "$1.2 million", "3 billion euros"
_MAGNITUDE = r"\s(?:thousand|million|billion|trillion)\b"


# What an amount is paid for, after "a" or "per" ("a night", "per person").
_PAID_FOR = (
    r"(?:night|day|week|month|year|hour|person|head|adult|child|guest|ticket|seat|room|"
    r"piece|item|unit|kg|pound|mile|km)"
)
# Not when it was paid: "$300 a week ago".
_NOT_WHEN = r"(?![ \t]+(?:ago|later|earlier|before|after)\b)"
# After a word that places a month and day in time ("on 3/15", "by 12/1").
_AFTER_TIME_WORD = after_one_of("on by to for from till until after before")
#: ``(kind, pattern)``: the ledger takes each span once, the first pattern that reads it wins.
VALUE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    *LINKS,  # first: a link's path holds numbers and words of no value of their own
    *PHONE_NUMBERS,  # each of their groups is a number of its own to a later form
    *DIMENSIONS,  # and each of their parts
    *SIZES,
    *SPOKEN_PATTERNS,  # the longer spoken forms first ("5:30 in the evening" over "5:30")
    *SPOKEN_COUNTS,
    # (with its time of day in ISO 8601's form: "2024-06-01T17:00", "...T17:00:00Z")
    (
        "date",
        re.compile(
            r"(?<!\d)\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?!\d)"
            r"(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\w:]))?"
        ),
    ),
    # A date in digits with the year last ("04/15/2024", "15.04.24"), one separator throughout.
    ("date", re.compile(r"(?<![\w/.-])\d{1,2}([/.-])\d{1,2}\1(?:\d{4}|\d{2})(?![\w/.-]*\d)")),
    ("date", re.compile(r"(?:\d{4}\s*年\s*)?\d{1,2}\s*月\s*\d{1,2}\s*[日号]")),
    # A month and day in digits without the year, after a word that places it in time ("on
    # 3/15", "by 12/1"): "3/5" alone may be a rating or a reading.
    (
        "date",
        re.compile(
            rf"{_AFTER_TIME_WORD}(?:1[0-2]|0?[1-9])/(?:3[01]|[12]\d|0?[1-9])(?![\w/.-]*\d)(?! of\b)"
        ),
    ),
    # The day first in Spanish, French, German, Italian or Portuguese ("5 de mayo", "3 mars
    # 2024", "12. Juni", "1er août"): a day's number, then a month's name (a closed class).
    (
        "date",
        re.compile(
            rf"(?i)\d(?<![\w.,:/]\d)\d?(?:\.|er|º)?\s+(?:de\s+)?{_FOREIGN_MONTH}\b"
            r"(?:\s+(?:de\s+)?\d{4}\b)?"
        ),
    ),
    # The day first ("8 May, 2023"), read before a month with its year ("May, 2023").
    ("date", re.compile(rf"(?i)\b\d{{1,2}}(?:st|nd|rd|th)?\s+{MONTH}\b\.?(?:,?\s+\d{{4}})?")),
    # A month with its day ("Mar 15", "May 21st, 2024", "Wed, Oct 9": an abbreviated weekday
    # before it; "Jan 5-9", "jan 5th-9th": its days) or its year ("May 2027", "Sept. 2025").
    (
        "date",
        re.compile(
            rf"(?i)\b(?:{WEEKDAY_SHORT}\.?,?\s+(?={MONTH}\.?\s+\d))?"
            rf"{MONTH}\.?(?:\s+{_DAY_OF}(?:\s?[-–]\s?{_DAY_OF}(?![\d:.]))?"
            rf"(?:,?\s+\d{{4}})?\b"
            r"|,?\s+(?:1[89]|2\d)\d\d(?![\w.,:]*\d))"
        ),
    ),
    # An ordinal alone ("the 22nd or 23rd"): a day, not an id (after the dates that hold it;
    # before a capitalised word, a numbered street's: "5th Avenue"; before a noun, a rank's:
    # "the 4th floor").
    (
        "date",
        re.compile(
            r"\b(?:[1-9]|[12]\d|3[01])(?<![.#-][1-9])(?<![.#-]\d\d)(?:st|nd|rd|th)\b(?!-|\s+[A-Z])"
            + DAY_NOT_RANK
        ),
    ),
    # An ordinal before the noun it ranks: "the 4th floor", "the 2nd option", "1st class" (a
    # day's ordinal was read above), one number with its noun, not a date or an identifier.
    (
        "number",
        re.compile(
            # (a digit first, then what stands before it: a lookbehind first is tried everywhere)
            r"[1-9](?<![\w.#-][1-9])\d{0,2}(?:st|nd|rd|th)[ \t]+[a-z]{2,14}\b(?![\w'’-])"
        ),
    ),
    # A range of clock times is one value ("10 AM - 12 PM", "9:00 to 17:30", "10-11 am",
    # "between 3 and 5 pm").
    (
        "time",
        re.compile(
            rf"(?i)(?<![\w:]){_HOUR}\s*(?:[-–—]|to|until)\s*{_CLOCK}(?![\w:])"
            rf"|(?<=\bbetween ){_HOUR}\s+and\s+{_CLOCK}(?![\w:])"
            # "from 10 to 11", "between 2 and 4" with no "am" or "pm": a range of hours where an
            # hour ends ("from 10 to 11 people" is no time)
            rf"|\b(?:(?<=\bfrom ){_BARE_HOUR}\s+(?:to|until|till)"
            rf"|(?<=\bbetween ){_BARE_HOUR}\s+and)\s+{_BARE_HOUR}{HOUR_ENDS}"
        ),
    ),
    (
        "time",
        re.compile(
            # ("19h30" as written in France)
            # "2 30 pm"; "7:30ish", "5ish": about then (an hour of the clock: no "30ish")
            rf"(?i)(?<![\d.])\d{{1,2}}(?::\d{{2}}(?:\s*{MERIDIEM})?(?!\d)(?:-?ish\b)?|h[0-5]\d\b"
            rf"|{SPACE}[0-5]\d\s*{MERIDIEM}|(?<![2-9]\d|1[3-9])-?ish\b)"
            rf"|(?<![\d.])\d{{1,2}}\.\d{{2}}\s*{MERIDIEM}|(?<![\d.])\b\d{{1,2}}\s*{MERIDIEM}"
        ),
    ),
    # A clock time written with a dot, after a word that places it in time, with the word
    # ("after 9.15", "by 10.30"; minutes under 60): not a price or a reading ("at 9.99",
    # "at 4.25%").
    (
        "time",
        re.compile(
            rf"\b(?:at|by|till|until|after|before|from)\s\d{{1,2}}\.[0-5]\d(?![\d%]|[.,]\d)"
            rf"(?:\s*{MERIDIEM})?(?![\w.]*\d)"
        ),
    ),
    # An hour in Chinese or Japanese ("3点半", "2時"), in German ("9 Uhr", "14.30 Uhr"): each a
    # pattern of its own, so the prefilter looks for its word.
    # (two branches, each with its character: one class of the two would give the prefilter
    # no literal to look for)
    (
        "time",
        re.compile(
            r"(?<!\d)\d{1,2}\s*点(?:半|\s*\d{1,2}\s*分)?|(?<!\d)\d{1,2}\s*時(?:半|\s*\d{1,2}\s*分)?"
        ),
    ),
    ("time", re.compile(r"\d(?<![\w.,:]\d)\d?(?:[:.][0-5]\d)?\s?Uhr\b")),
    # An amount, with what it is paid for when said ("$45/night", "$2,000 a month", "20 euros
    # per person"; not "$300 a week ago")
    (
        "amount",
        re.compile(
            rf"(?i)(?:[$€£¥]\s?\d(?:[\d,.]*\d)?(?:[kmb]n?(?![a-z])|{_MAGNITUDE})?(?:/[a-z]{{1,6}}\b)?"
            rf"|\b\d(?:[\d,.]*\d)?(?:{_MAGNITUDE})?\s?(?:usd|eur|gbp|cny|rmb|"
            r"dollars?|euros?|元|块|%|percent|[€£¥$](?!\s?\d))(?![a-z])"
            r"|\b(?:USD|EUR|GBP|CNY|RMB)\s?\d(?:[\d,.]*\d)?(?![\w.,]*\d))"
            rf"(?:[ \t](?:a|an|per)[ \t]{_PAID_FOR}\b{_NOT_WHEN})?",
            CJK_RUNS_ON,
        ),
    ),
    # A price said without its currency, known by what it pays for: "150 a night", "200 per
    # person", "1,200 a month" (two digits at least: "2 a day" is how often; not "40 a week
    # ago").
    (
        "amount",
        re.compile(
            r"(?i)(?<![\w.,:/$€£¥#-])[1-9](?:\d|,\d{3})+(?:\.\d\d)?[ \t](?:a|an|per)[ \t]"
            rf"{_PAID_FOR}\b{_NOT_WHEN}"
        ),
    ),
    (
        "count",
        re.compile(
            r"(?i)(?<![\w.,])\d+(?:,\d{3})*\s+(?:bags?|baggages?|suitcases?|passengers?|people|adults?|"
            r"children|kids|tickets?|nights?|days?|weeks?|months?|years?|hours?|minutes?|seats?|"
            r"rooms?|items?)\b",
            CJK_RUNS_ON,
        ),
    ),
    *PLURAL_COUNTS,
    *PRODUCT_NAMES,
    # A street address: a house number, not a year, before capitalised words in a row
    # ("1600 Amphitheatre Parkway", "221B Baker Street", "172 Boulevard Saint-Germain"; a
    # point of the compass may come first: "4400 W Sunset Blvd"); a numbered street ("5th
    # Avenue", "42nd Street West").
    (
        "name",
        re.compile(
            rf"(?<![\w.,:/$€£¥-])(?:(?!(?:19|20)\d\d\b)\d{{1,5}}[A-Z]?{_GAP}{_COMPASS}{NAME_WORD}"
            rf"|\d{{1,3}}(?:st|nd|rd|th)){_GAP_WORDS}(?![\w'’-])"
        ),
    ),
    # An abbreviation without a vowel and the number it gives: an address's unit ("Apt. 4B",
    # "Apt 3B", "Bldg 7", "Rm 12"), one value rather than a name and an identifier (not a
    # word of two letters that opens with a vowel: "At 31", "If 2"; not a number a unit
    # follows: "Add 500 g of flour" is a verb and a quantity).
    (
        "name",
        re.compile(
            r"[A-Z](?<![\w.][A-Z])(?!(?<=[AEIOU])[a-z]\b)(?![a-z]*[aeiouy])[a-z]{1,3}\.?[ \t]"
            rf"\d{{1,5}}[A-Z]?(?![\w'’-])(?![ \t]?{_UNIT}(?![\w/]))"
        ),
    ),
    # An identifier: two codes in a row that are one, a postcode ("CB2 1TN", "K1A 0B1"; each
    # part mixes capitals and digits) or a carrier and its flight number ("UA 90", "AA 1234");
    # or one word mixing letters and digits, with the "#" written before it ("#W2378156": an
    # order id a tool takes as it is written), not a number glued to its unit ("70kg"), to a
    # word in small letters ("12-inch") or to a thousand ("3k", "2-3k").
    (
        "id",
        re.compile(
            # (the two codes' shape is looked for first: most words fail it at once)
            r"(?<![\w@.#-])(?:(?=[A-Z\d]{2,4}\s[A-Z\d])(?:(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z\d]{2,4}\s"
            r"(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z\d]{2,4}(?![\w-])"
            rf"|(?!(?:{_CAPITALS_WORD})\b)[A-Z]{{2}}\s\d{{1,4}}(?![\w.,:/%-]*\d)(?!\s*%))"
            rf"|#?(?=[\w-]*[A-Za-z])(?=[\w-]*\d)(?!{_GLUED_QUANTITY}|{_MEASURE_WORD})\w+(?:-\w+)*(?![\w-]))",
            CJK_RUNS_ON,
        ),
    ),
    # An identifier of digit groups joined by hyphens, three or more, or two with one of five
    # digits or more ("112-7734519-0041", an order number; "4471-0932-1187"): one value, not
    # a range and a number (a date in this shape was read before).
    (
        "id",
        re.compile(
            # (a digit first, then what stands before it: a lookbehind first is tried everywhere)
            r"\d(?<![\w.,:/-]\d)(?:\d*(?:-\d+){2,}|\d{4,}-\d+|\d*-\d{5,})(?![\w-])",
            CJK_RUNS_ON,
        ),
    ),
    # A small number said to be one: "bus number 38", "table #12", "No. 5" (a larger one is
    # read as a number below; "#A77321", with a letter, is an identifier above).
    (
        "number",
        re.compile(
            r"(?:#(?<![\w#]#)|N(?<!\wN)(?:umber|o\.)[ \t]?|n(?<!\wn)umber[ \t]?)"
            r"[1-9]\d?(?![\w.,:/%'’-]*\d)(?![\w%'’-])"
        ),
    ),
    # A place and its state's or province's code, inside a sentence or where a clause ends:
    # "in Vancouver, BC on 3/4", "Austin, TX." (not "Yes, OK" or "Sure, NY works").
    (
        "name",
        re.compile(
            # (the first capital first, then what stands before it: a pattern that opens with
            # a lookbehind is tried at every position, one that opens with a class is searched)
            rf"{UPPER}(?:(?<={_INSIDE_SENTENCE} {UPPER}){_PLACE_AND_REGION}"
            rf"|(?<![\w.'’-]{UPPER}){_PLACE_AND_REGION}(?=[.,;!?)]|$))"
        ),
    ),
    # A name that holds an acronym ("AMC Mercado 20", "JFK Airport", "UCLA Medical Center"),
    # read before the acronym alone is taken as a code: one that opens with the acronym, or
    # one whose first word stands inside a sentence ("at Bay Area BART"), so that a sentence's
    # first word is not taken with it ("The API", "From EWR"). (Bounded repeats: a run of
    # capitals that never ends in the name's last word is not scanned again from each word.)
    (
        "name",
        re.compile(
            rf"(?:(?<![\w.]){_ACRONYM}(?:{_GAP}{_ACRONYM}){{0,4}}{_GAP}{_CAPITALISED}"
            rf"|(?<=[a-z,;] ){_CAPITALISED}(?:{_GAP}{_CAPITALISED}){{0,5}}{_GAP}"
            rf"[A-Z]{{3,5}}(?![a-z]))"
            rf"(?:{_GAP}{_CAPS})*{_SMALL_NUMBER}(?![A-Za-z])"
        ),
    ),
    ("code", re.compile(r"(?<![\w-])[A-Z]{3,6}(?![\w-])")),
    # A temperature ("72°F", "-5 °C"; the prefilter needs its "°").
    ("quantity", re.compile(r"(?<![\w.,:/-])-?\d+(?:\.\d+)?\s?°\s?[CFcf]?(?![A-Za-z])")),
    # A height in feet and inches ("6'2\"", "5’11"), a measure joined by a hyphen ("a 12-inch
    # pizza", "a 5-star hotel"). (A digit first, then what stands before it: a pattern that
    # opens with a lookbehind is tried at every position.)
    (
        "quantity",
        re.compile(
            r"\d(?:(?<![\w'’]\d)['’]\s?(?:1[01]|\d)(?:\"|”|''|’’)?(?![\w'’])"
            r"|(?<![\w.,:/-]\d)\d{0,3}-[a-z]{2,12}(?![\w'’-]))"
        ),
    ),
    # A quantity with its unit ("1000 mg", "42 U/L", "1.25 kg", "10-20 mg", "2-3k"), not an
    # ordinal ("21st"); an area or a volume ("850 sq ft", "sq. m", "1,200 square feet"); with
    # what it measures after "of", a word in small letters ("20mg of lisinopril", "500 g of
    # flour"; not "5 kg of the"; "24 hours of booking" is a count, not read here).
    (
        "quantity",
        re.compile(
            rf"(?<![\w.,:/])(?:\d+(?:[.,]\d+)*\s?[-–]\s?)?\d+(?:[.,]\d+)*\s?"
            rf"(?:{_UNIT}(?:\.?\s(?![a-z]*[aeiouy])[a-z]{{2,3}}\b)?|(?i:square|cubic)\s+[a-z]{{4,11}})(?![\w/])"
            rf"(?:\s+of\s+(?!{CLOSED}\b)[a-z]{{3,}}(?:-[a-z]+)?\b)?",
            CJK_RUNS_ON,
        ),
    ),
    *SPOKEN_NAMES,
    # Capitalised words in a row, a small number or initials among them or a small number
    # after them: "Type 2 Diabetes", "Toy Story 3", "Nike Pegasus 40", "Mary J. Blige"; two
    # initials or more may open one ("J. K. Rowling", "J.R.R. Tolkien").
    (
        "name",
        re.compile(
            rf"(?<![\w.'’-])(?={UPPER}){NAME_OPENS}(?:{NAME_WORD}(?:{_NEXT_NAME_WORD})+"
            rf"|{LEADING_INITIALS}{NAME_WORD}(?:{_NEXT_NAME_WORD})*)"
            rf"(?!{UPPER}|{LOWER}|['’-]){_SMALL_NUMBER}"
        ),
    ),
    # A word with inner capitals, wherever it stands: a name ("OncoPharm", "iPhone").
    ("name", re.compile(rf"(?<![\w.]){INNER_CAPITALS}(?![\w'])")),
    # A single capitalised word inside a sentence (not after its end; "vs." ends none): a name,
    # usually; with the small number or the letter that follows it, if one does ("Witcher 3",
    # "Suite 436", "Terminal B"; not a clock time, a decimal or a range).
    (
        "name",
        re.compile(
            # (a capital looked for first: the lookbehinds at every position cost 2.5 times more)
            rf"(?={UPPER})(?:(?<={_INSIDE_SENTENCE} )|(?<=\bvs\. ))(?=\S{{3}}){NAME_WORD}"
            # (the letter first: the small number's group matches nothing too)
            rf"(?:{SPACE}(?!I\b|A{SPACE}[a-z])[A-Z]{LETTER_ENDS}|{_SMALL_NUMBER})(?![\w'-])"
        ),
    ),
    *NUMBER_PATTERNS,
    *CHOICES,  # last: a choice is what no form above reads
]
