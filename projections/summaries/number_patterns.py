"""The last of the value ledger's typed patterns (:mod:`projections.summaries.value_patterns`):
numbers that stand for a thing ("row 12"), ranges, decimals and bare numbers, tried after
every other kind has taken its spans. Pure: no I/O."""

from __future__ import annotations

import re

from projections.summaries.spoken import FUNCTION_WORDS, after_one_of

__all__ = [
    "CJK_RUNS_ON",
    "DIMENSIONS",
    "LETTER_ENDS",
    "LINKS",
    "NUMBER_PATTERNS",
    "PHONE_NUMBERS",
    "SIZES",
]

#: Numbers, amounts and identifiers are told from the words around them by ASCII word
#: characters: Chinese or Japanese text runs on without spaces ("预算500元", "订单号是W2378156"),
#: and a Unicode \w would take those characters into the value or refuse the number.
CJK_RUNS_ON = re.ASCII


# After a preposition or a determiner: the word after it is a noun.
_AFTER_FUNCTION_WORD = after_one_of(
    "a in at to on by of an the our for her his its from your near into onto their"
)
#: Where a letter that names a thing ends ("row G", "Terminal B"): not inside a word or a
#: name such as "R&D" or "C++", and no initial ("George R. R. Martin").
LETTER_ENDS = r"(?![\w'’&+-]|\.(?:\w|\s+[A-Z]))"

#: ``(kind, pattern)`` of a link, read whole before anything else (its path's numbers and
#: words are no values of their own): "https://example.com/orders/123", "www.example.org/a?b=1",
#: without a sentence's punctuation after it.
LINKS: list[tuple[str, re.Pattern[str]]] = [
    (
        "id",
        # (its first letter first, what stands before it looked behind after: a pattern that
        # opens with a lookbehind or a word boundary is tried at every position)
        re.compile(
            r"[hHwW](?<![\w.][hHwW])(?:(?i:ttps?://)|(?i:ww\.))[^\s<>\"'`()\[\]{}]+(?<![.,;:!?])",
            CJK_RUNS_ON,
        ),
    ),
]

# A phone number by its structure: the international form, "+" (or "00") and 8 to 15 digits
# (E.164's most), each group apart by a space, dot, hyphen or parentheses ("+44 20 7946 0958",
# "+1 (415) 555-0132", "0049 30 1234567"); a national one in North America's form with the area
# code in parentheses ("(415) 555-0132"), or after a trunk prefix "0", 10 or 11 digits in groups
# ("020 7946 0958", "07700 900123", "06 12 34 56 78"; not "order 0012 3456"). Not a sum
# ("+15.5%": three digits), a date and a time ("05-06-2024 12:00": a colon ends no number).
_DIALLED = r"\d(?:[ .()-]{0,2}\d){7,14}(?![ .()-]{0,2}\d)"
#: ``(kind, pattern)`` of phone numbers, read first: each of their groups is a number of its
#: own to a later form.
PHONE_NUMBERS: list[tuple[str, re.Pattern[str]]] = [
    (
        "id",
        re.compile(
            # (its first character first, what stands before it looked behind after: a
            # pattern that opens with a lookbehind is tried at every position, ten times
            # the cost over the corpora's turns)
            rf"[+0(](?:(?<=[+0])(?<![\w+.][+0])(?:(?<=\+)|0(?=[1-9]))\(?{_DIALLED}"
            r"|(?<=\()(?<![\w(]\()\d{3}\)[ .-]?\d{3}[ .-]\d{4}(?![\w-])"
            # (a trunk's "0", then 9 or 10 digits more in groups: "06 12 34 56 78" too)
            r"|(?<=0)(?<![\w.,/:-]0)(?=(?:[ -]?\d){9,10}(?![ -]?\d))\d{1,4}(?:[ -]\d{2,8}){1,4}"
            r"(?![\w.,/:-]|[ -]?\d))",
            CJK_RUNS_ON,
        ),
    ),
]

#: ``(kind, pattern)`` of a size said with the word "size", read before the counts of plurals
#: ("size 10 shoes" is a size, not ten shoes).
SIZES: list[tuple[str, re.Pattern[str]]] = [
    # A size in words or a shoe's in halves: "size medium", "a size small", "size extra large",
    # "size 9.5 wide" (the words of sizes are a closed class; "size M" is read below)
    (
        "number",
        re.compile(
            r"(?i)\bsize\s+(?:(?:extra[- ]|x-?)?(?:small|large)|medium|petite|regular|tall"
            # (a number, not a quantity's: no unit's symbol after it, a word without a vowel:
            # "file size 20 MB")
            r"|\d{1,2}(?:\.5)?(?!\s*(?![A-Za-z]*[AEIOUYaeiouy])[A-Za-z]{1,5}\b)"
            r"(?:\s+(?:wide|narrow))?)\b(?![.,]\d)"
        ),
    ),
]

# Dimensions: numbers joined by "x", "×" or "by", three of them, or two and a length after the
# last ("12 by 10 by 8 inch", "20 x 30 cm", "4 by 5 metres"; not "won 3 by 4", "3 by 4 pm").
_BY = r"\s?(?:x|×|by)\s?"
_SIDE = r"\d+(?:\.\d+)?"
# (a length: "3 x 250g" is three packs, "2 x 500 ml" two bottles)
_LENGTH = r"(?:(?:centi|milli|kilo)?(?:metre|meter)s?|inch(?:es)?|f(?:oo|ee)t|yards?|[mck]?m|ft)"
_UNIT_AFTER = rf"\s?{_LENGTH}(?![\w/])"
#: ``(kind, pattern)`` of dimensions, read before anything else: each of their parts is a
#: value of its own to a later form.
DIMENSIONS: list[tuple[str, re.Pattern[str]]] = [
    (
        "quantity",
        re.compile(
            rf"\d(?<![\w.,:/-]\d)\d*(?:\.\d+)?"
            rf"(?:{_BY}{_SIDE}{_BY}{_SIDE}(?:{_UNIT_AFTER})?|{_BY}{_SIDE}{_UNIT_AFTER})"
        ),
    ),
]
# Words after which a number is no thing's number ("at least 2", "the top 3", "for about 20").
_NOT_A_NOUN_WORDS = (
    "are were am be been than about under over just all any some each every another these "  # noqa: SIM905
    "those least most top first nearly almost approximately roughly maybe like into onto per "
    "have has had did does shall its him them out off plus minus times within without near "
    "very number age aged".split()
)
_NOT_A_NOUN = "(?:" + "|".join(FUNCTION_WORDS + _NOT_A_NOUN_WORDS) + ")"


#: ``(kind, pattern)``, in the ledger's order: after every other pattern.
NUMBER_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # Digit groups joined by dots, three or four: a version or an address ("version 2.3.1",
    # "192.168.1.20"), one identifier (a date in this shape was read before).
    (
        "id",
        re.compile(r"\d(?<![\w.]\d)\d*(?:\.\d+){2,3}(?![\w.]*\d)(?![\w-])", CJK_RUNS_ON),
    ),
    # A small number or a letter that numbers the thing named before it: "in row 12", "at
    # gate 23.", "to seat 14?", "on floor 3", where a clause ends; "in size M", "in row G",
    # "my vitamin D", "in size XL" (after a preposition or a determiner, so the word is a
    # noun; not "at least 2", "in the top 3", "is 35"; not "I", nor "A" before a word, an
    # article; not a letter of "R&D", "C++" or an initial: "R. R. Martin").
    (
        "number",
        re.compile(
            rf"\b{_AFTER_FUNCTION_WORD}(?!{_NOT_A_NOUN}\b)[a-z]{{3,12}} (?:[1-9]\d?"
            r"(?![\w.,:/%'’-]*\d)(?![\w%'’-])"
            r"(?=[ \t]*(?:[.,;!?)\n]|$)| +(?:please|and|or|then|instead|too|thanks|if|but|so|"
            r"in|at|for|with|tomorrow|today|tonight)\b)"
            rf"|(?:X{{1,3}}[SL]|(?!I\b|A [a-z])[A-Z]){LETTER_ENDS})"
        ),
    ),
    # A setting where a clause ends: "set the thermostat to 68", "turn it up to 30." (two
    # digits or three; a digit first, then what stands before it: a lookbehind first is tried
    # at every position)
    (
        "number",
        re.compile(
            r"[1-9](?<=\bto [1-9])\d{1,2}(?![\w.,:/%'’-]*\d)(?![\w%'’-])(?=[ \t]*(?:[.,;!?)\n]|$))",
            CJK_RUNS_ON,
        ),
    ),
    # A range of numbers ("numbers 1-20", "pages 10–12"; "2-3k" is a quantity's, above).
    (
        "number",
        re.compile(r"(?<![\w.,:/-])\d{1,4}\s?[-–]\s?\d{1,4}(?![\w.,:/-]*\d)", CJK_RUNS_ON),
    ),
    # A number with decimals ("1.8", "0.25"), a reading or ratio of two numbers ("138/85").
    ("number", re.compile(r"(?<![\w.,:/])\d+(?:\.\d+|/\d+)(?![\w.,:/]*\d)", CJK_RUNS_ON)),
    # A bare number of three digits or more ("2,500" too; "0042", a card's last four), not a
    # piece of a time or code ("15:00", "05").
    (
        "number",
        re.compile(
            r"(?<![\w.,:])(?:[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d{2,}|0\d{3,})(?:\.\d+)?(?![\w.,:]*\d)",
            CJK_RUNS_ON,
        ),
    ),
]
