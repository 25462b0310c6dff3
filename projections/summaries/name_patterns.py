"""Names as people write them, for the value ledger (``values``): the letters and words of a
name, where one may open, and the spoken name patterns (a title in quotes or after an
abbreviated title, a multi-word name joined by small words). Pure: no I/O.

A name is capitalised words in a row, but not every capitalised word opens one: a sentence's
first word is capitalised by convention, and a closed class of words (auxiliaries, question
words, greetings, contracted pronouns) never opens a name there. The classes here are
grammar, not a list of names.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "CAPITALISED",
    "INITIALS",
    "INNER_CAPITALS",
    "JOINER",
    "LEADING_INITIALS",
    "LOWER",
    "NAME_GAP",
    "NAME_OPENS",
    "NAME_WORD",
    "PRODUCT_NAMES",
    "SPACE",
    "SPOKEN_NAMES",
    "UPPER",
]

#: The small words inside a multi-word name ("Bank of America", "Hotel del Coronado", "Bridge
#: over Troubled Water"; not "with": "Touring with Frank Ocean" is a verb and a name).
JOINER = r"(?:of|the|de|del|della|la|le|du|des|and|&|on|at|in|da|di|von|van|y|over)"


def _letter_class(case: str) -> str:
    """A character class of the Latin, Greek and Cyrillic letters of one case ("Lu" or "Ll"),
    by their Unicode category, as ranges: names are "José Núñez", "Müller", "Nguyễn"."""
    points = [
        point
        for first, last in ((0x41, 0x7A), (0xC0, 0x24F), (0x370, 0x52F), (0x1E00, 0x1EFF))
        for point in range(first, last + 1)
        if unicodedata.category(chr(point)) == case
    ]
    runs: list[list[int]] = []
    for point in points:
        if runs and point == runs[-1][1] + 1:
            runs[-1][1] = point
        else:
            runs.append([point, point])
    return "[" + "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in runs) + "]"


#: An upper-case and a lower-case letter, beyond ASCII too.
UPPER = _letter_class("Lu")
LOWER = _letter_class("Ll")
#: A capitalised word of a name: hyphenated parts and an Irish or Italian prefix belong to it
#: ("Mary-Kate", "O'Neil", "D'Angelo"), and its letters need not be ASCII ("Núñez").
NAME_WORD = rf"(?:{UPPER}['’])?{UPPER}{LOWER}+(?:-{UPPER}{LOWER}+)*"
#: A capitalised word, inner capitals too ("OncoPharm", "BioCrest").
CAPITALISED = (
    rf"(?:{UPPER}['’])?{UPPER}{LOWER}+(?:[A-Z][a-z]+)*(?:-{UPPER}{LOWER}+)*(?:['’]s)?|[A-Z]{{2,}}"
)
#: A space within a line: whitespace but a line break.
SPACE = r"[^\S\r\n]"
#: Between the words of a name, in every name pattern: spaces within a line, never a line
#: break ("Yes\n\nPlease" is two paragraphs; a list's or a table's cells are not one name).
NAME_GAP = SPACE + "+"
_GAP = NAME_GAP
# A pronoun or a question word, contracted ("I'm", "It's", "That's", "Let's", "What's"):
# never a name's first word, as a possessive may be ("Ruth's Chris Steak House").
_CONTRACTED = r"(?:I|It|That|This|What|Here|There|Let|He|She|Who|Where|How|When|Why)"
# Where a sentence starts: the text's or a line's start, after a sentence's end, or after a
# label's colon ("Caroline: Hey Mel!", "Note: Please ...": a transcript's speaker, a field).
_SENTENCE_START = r"(?:(?<![^\n])|(?<=[.!?:]\s))"
# The verbs a request to an agent opens with, in the imperative (words that open few names).
_REQUEST_VERB = (
    r"(?:Book|Rebook|Cancel|Add|Send|Call|Email|Text|Install|Uninstall|Enroll|Register|Invite"
    r"|Remind|Schedule|Reschedule|Transfer|Pay|Ship|Deliver|Renew|Upgrade|Downgrade|Update"
    r"|Change|Move|Tell|Ask|Give|Show|Reserve|Refund|Remove|Delete|Notify|Contact|Compare|Buy"
    r"|Switch|Forward|Reply|Print|Sign|Assign|Invoice|Charge|Subscribe|Unsubscribe)"
)
# A word of a closed class that opens a sentence and never a name there: an auxiliary or a
# question word ("Does Pizza Hut deliver?", "Is Gone with the Wind on?", "Which Marriott"), a
# greeting or a reply ("Hi Anna", "Thanks Mark", "Yes Friday"), a conjunction. ("Will" and "May"
# are names too: "Will Smith", "May Chen".)
_FUNCTION_OPENER = (
    r"(?:Is|Are|Was|Were|Am|Do|Does|Did|Can|Could|Would|Should|Shall|Has|Have|Had|Must|Might"
    r"|What|Which|Where|When|Who|Whom|Whose|Why|How|Hi|Hello|Hey|Dear|Thanks|Thank|Yes|Yeah|No"
    r"|Ok|Okay|Sure|Please|Sorry|Oh|Well|So|And|But|Or|Also|Then|Now|If"
    # interjections ("Wow Mel, ...", "Congrats Anna")
    r"|Wow|Yep|Yup|Nope|Bye|Congrats|Congratulations|Ah|Aw|Aww|Haha|Lol|Omg|Cheers"
    # a request's verb, the imperative that opens it ("Install Python 3.12", "Enroll Maya in
    # grade 3", "Email Dr. Patel"): never a name's first word where a sentence opens
    rf"|{_REQUEST_VERB})"
)
#: Where a name may open: not on a sentence's first word when that word is a function word.
NAME_OPENS = rf"(?!{_SENTENCE_START}{_FUNCTION_OPENER}{NAME_GAP})"
# A word that opens a sentence: after "Plan B." or "Vitamin D." it is the next sentence's, not
# a name's after its middle initial.
_SENTENCE_OPENER = (
    rf"(?:{_FUNCTION_OPENER}|{_CONTRACTED}|The|An?|We|You|They|My|Our|Your|His|Her|Their|Its)\b"
)
#: Initials inside a name, each a capital and a full stop: "Mary J. Blige", "George R. R.
#: Martin" (never before a word that opens a sentence: "Plan B. Then ...").
INITIALS = rf"(?:[A-Z]\.{NAME_GAP}){{1,3}}(?!{_SENTENCE_OPENER})"
#: Two initials or more that open a name: "J. K. Rowling", "J.R.R. Tolkien", "U.S. Bank".
LEADING_INITIALS = rf"(?:[A-Z]\.(?:{NAME_GAP})?){{2,3}}(?!{_SENTENCE_OPENER})(?={UPPER})"

#: Names in words, tried after the typed dates, ids and codes ("EWR on May 21" is a code and
#: a date, not a name) and before the plain run of capitalised words.
SPOKEN_NAMES: list[tuple[str, re.Pattern[str]]] = [
    # A title in quotes: "The Lion King", 'Hotel California'; a name after an abbreviated
    # title: "Dr. Patel", "Mrs. Robinson", "St. Louis" (a capitalised word of two or three
    # letters without a vowel before a full stop is an abbreviation, not a sentence's last
    # word: "Yes. Please" stays apart; nor are "Ok." and "Hmm.", replies).
    (
        "name",
        re.compile(
            r"(?<![\w])(?=[\"“'A-Z])(?:[\"“'][A-Z][^\"”'\n]{1,60}[\"”'](?![\w])"
            rf"|(?<!\.)(?!Ok\b|Hm)[A-Z](?![a-z]*[aeiouy])[a-z]{{1,2}}\."
            rf"(?:{_GAP}(?:{INITIALS})?{NAME_WORD})+(?![\w'’-]))"
        ),
    ),
    # A multi-word name joined by small words or with a possessive: "Hotel del Coronado",
    # "Bank of America", "Ruth's Chris Steak House" (never from "I'm", "It's", "That's", ...,
    # nor from a sentence's first word when it is a function word: "Does Bank of America ..."); a
    # sentence that opens "Book the ...", "Put on ..." or "Reserve at ..." opens with a verb,
    # not a name's word.
    # (Nine words before the joiner at most: a run of capitalised words without one is not
    # read again from each of its words, which took seconds on a few thousand of them.)
    (
        "name",
        re.compile(
            rf"(?<![\w.])(?={UPPER})(?!{_CONTRACTED}['’]){NAME_OPENS}"
            rf"(?!{_SENTENCE_START}{UPPER}{LOWER}+{_GAP}(?:the|on|at|in){_GAP})"
            rf"(?:{CAPITALISED})"
            rf"(?:{_GAP}(?:{JOINER}{_GAP})+(?:{CAPITALISED})|{_GAP}(?:{CAPITALISED})){{0,8}}"
            rf"(?:{_GAP}(?:{JOINER}{_GAP})+(?:{CAPITALISED})|(?<=['’]s){_GAP}(?:{CAPITALISED}))"
            rf"(?:{_GAP}(?:{JOINER}{_GAP})*(?:{CAPITALISED}))*(?![\w])"
        ),
    ),
]

#: A word with inner capitals ("iPhone", "PlayStation", "MacBook", "OncoPharm"), which may end
#: in a run of them ("iOS", "iPadOS", "tvOS", "MacOS"; not camelCase after a longer start:
#: "userId", "getURL").
_INNER_TAIL = r"(?:(?:[A-Z][a-z]+)+(?:[A-Z]{2,})?|[A-Z]{2,})"
INNER_CAPITALS = rf"(?:[A-Z][a-z]+|[a-z]{{1,2}}){_INNER_TAIL}"
# A model's code: a capital or two and up to three digits, a letter after them ("S24", "M2",
# "X1c"); never three capitals (a booking code: "ZFA04Y", "HAT123").
_MODEL_CODE = r"(?=[A-Z]{1,2}\d)[A-Z]{1,2}\d{1,3}[A-Za-z]?"
_MODEL_NUMBER = rf"(?:\d{{1,4}}|{_MODEL_CODE})(?![\w/%'’-]|[.,:]\d)"

# What follows a product's name: up to two words, its number or model's code, up to three
# words and a generation's small number after them ("iPhone 15 Pro Max", "MacBook Air M2",
# "PlayStation 5", "ThinkPad X1 Carbon Gen 11").
_GENERATION = r"\d{1,2}(?![\w/%'’-]|[.,:]\d)"
_MODEL = (
    rf"(?:{_GAP}{NAME_WORD}){{0,2}}{_GAP}{_MODEL_NUMBER}"
    rf"(?:(?:{_GAP}{NAME_WORD}){{1,3}}(?:{_GAP}{_GENERATION})?)?"
)

#: A product's name and its model, one name: a word with inner capitals and its model
#: ("iPhone 15 Pro Max", "MacBook Air M2", "PlayStation 5"), or a capitalised word, a model's
#: code and a word or more ("Galaxy S24 Ultra"; "Pixel 8 Pro" and "Boeing 737 Max" are a run
#: of capitalised words with a small number, read by the pattern for those). Tried before
#: the street addresses and the identifiers, which would read "15 Pro Max" and "S24" out of
#: them; a word with inner capitals alone is read after the multi-word names.
PRODUCT_NAMES: list[tuple[str, re.Pattern[str]]] = [
    # (INNER_CAPITALS split by its first letter, the letter first, then what stands before
    # it: a pattern that opens with a lookbehind is tried at every position, one that opens
    # with a class is searched for it)
    (
        "name",
        re.compile(
            rf"[A-Z](?<![\w.'’-][A-Z])[a-z]+(?:{_INNER_TAIL}{_MODEL}"
            rf"|{_GAP}{_MODEL_CODE}(?:{_GAP}{NAME_WORD}){{1,3}})(?![\w'’-])"
        ),
    ),
    # "iPhone", "iPad": small letters first (the capital looked ahead for before the
    # lookbehind: this one is tried at every small letter)
    (
        "name",
        re.compile(
            rf"[a-z](?=[a-z]?[A-Z])(?<![\w.'’-][a-z])[a-z]?{_INNER_TAIL}{_MODEL}(?![\w'’-])"
        ),
    ),
]
