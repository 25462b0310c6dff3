"""The value ledger: every identifier, code, amount, quantity, date, time, count and name a
chunk of conversation used, verbatim, with where it came from. Pure: no I/O.

- From text (user and assistant turns): typed patterns, spoken forms first (``spoken``: "the
  8th", "half past 1 in the afternoon", "a table for two"); a value's label is the words right
  before it ("my user ID is omar_rossi_1241" gives ``user_id``).
- From tool-call arguments and tool results that parse as JSON: every short scalar, labelled
  by its JSON key path (``flights[0].flight_number``); long strings are read as text.

Each candidate has a score (who said it, what kind of value, whether later turns use it again)
so the summarizer can rank once and keep the best that fit. Typed patterns, not a named-entity
model: on the corpora they did as well (see docs/quality.md) at no dependency cost.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from projections.context.messages import Message, text_of
from projections.secrets.prefilter import Prefilter, requirement
from projections.summaries.answers import short_answers
from projections.summaries.choice_patterns import choice_key
from projections.summaries.echoes import NameMatcher, name_like
from projections.summaries.ranges import range_start
from projections.summaries.value_patterns import VALUE_PATTERNS
from projections.text_caches import remembered

__all__ = ["ValueCandidate", "json_scalars", "text_values", "value_candidates"]

_NEEDS = Prefilter([requirement(pattern) for _, pattern in VALUE_PATTERNS])
_COMMON_CAPS = {"THE", "AND", "FOR", "YOU", "NOT", "ARE", "THIS", "THAT", "WITH", "OKAY", "STOP"}
_KIND_BONUS = {
    "id": 3.0,
    "date": 2.5,
    "amount": 2.0,
    "time": 2.0,
    "count": 2.0,
    "frequency": 2.0,
    "quantity": 2.0,
    "relative": 1.0,
    # A count known only by its noun's plural ("2 cokes", "three continents"): a user's ranks
    # under the user's statement that holds it (9.5), which says it with its context; ranked as
    # a count it displaced names from BFCL's summaries (docs/quality.md, "Orders, seats ...").
    "tally": -1.0,
    # A thing a user chose in small letters ("window seat", "salmon", "paypal"), read by the
    # sentence that states it: ranked as a tally, under the statement that holds it.
    "choice": -5.0,
    "code": 1.0,
    "name": 1.0,
    "number": 0.5,
    "json": 0.0,
}
_ORIGIN = {"user": 10.0, "call": 8.0, "assistant": 4.0, "tool": 3.0}
_REUSED_BONUS = 2.0  # a value a later turn uses again (docs/quality.md)
_KEY_IMPORTANT = re.compile(
    r"(?i)(?:^|[._\[])(?:id|\w+_id|number|code|date|dob|name|first_name|last_name|email|"
    r"reservations?|payment_methods?|"
    r"status|cabin|type|origin|destination|city|country)(?:$|[._\]])"
)
_KEY_AMOUNT = re.compile(r"(?i)price|amount|total|balance|cost|fee")
_LABEL_STOP = {
    "is", "are", "was", "my", "the", "a", "an", "to", "on", "at", "for", "of", "with", "it",
    "i", "am", "me", "your", "our", "and", "or", "in", "by", "from", "be", "as", "that", "this",
    "have", "has", "its", "their", "his", "her", "about", "around", "will", "would",
}  # fmt: skip
_WORD = re.compile(r"[A-Za-z]{2,}")


@dataclass(frozen=True)
class ValueCandidate:
    """One value found in one message, with its label, kind and score."""

    key: str
    value: str
    src: int
    path: str | None
    kind: str
    score: float


def _label(text: str, start: int, fallback: str) -> str:
    clause = re.split(r"[,.;:!?，。；：！？\n]", text[max(0, start - 48) : start])[-1]
    before = _WORD.findall(clause)
    words = [w.lower() for w in before if w.lower() not in _LABEL_STOP][-2:]
    return "_".join(words) or fallback


_GLUED = re.compile(r"[A-Za-z0-9_]")
# An acronym or a capitalised word inside a sentence, right before a number: the number is
# the name's ("UA 838 lands at 7:20", "we take Bus 42 leaves"), the plural after it a verb.
_NAME_BEFORE = re.compile(r"(?:(?<![\w.])[A-Z]{2,}|(?<=[a-z\d,;] )[A-Z][a-z]+) $")


# Rolling compaction reads the same turns at every roll: a text's values are remembered (a pure
# function of the text; emptied with the other text caches when an erasure is seen).
@remembered
@lru_cache(maxsize=16_384)
def text_values(text: str) -> tuple[tuple[str, str, int], ...]:
    """``(kind, value, start)`` of every typed value in ``text`` (spans taken once, first
    pattern wins)."""
    return tuple(_typed_values(text))


# A field's label opens its line (after a list marker or emphasis) and ends at a colon.
_LABEL_START = re.compile(r"[ \t]*(?:(?:[-*•+]|\d{1,2}[.)])[ \t]+)?[*_]*")
_LABEL_END = re.compile(r"[*_]*[ \t]*:(?![\d/])")


def _is_label(text: str, start: int, end: int) -> bool:
    """Whether the span is a field's label: "Trip Type" in "- **Trip Type**: one way" (a
    table or list the agent wrote), not "the Grand Hyatt: near the station"."""
    line_start = text.rfind("\n", 0, start) + 1
    opening = _LABEL_START.match(text, line_start)
    return opening is not None and opening.end() == start and bool(_LABEL_END.match(text, end))


def _name_before(
    kind: str, pattern: re.Pattern[str], text: str, start: int, cut: int
) -> re.Match[str] | None:
    """A name whose match ran into a value taken before it, read again up to that value:
    "Lord of the Rings at the AMC" (the code taken) is "Lord of the Rings", "the Museum of
    Modern Art on Saturday" (the date taken) "Museum of Modern Art", not two broken names.
    Other kinds are not cut: a number or a date cut short is another value."""
    if kind != "name" or cut <= start:
        return None
    return pattern.match(text, start, cut)


def _typed_values(text: str) -> Iterator[tuple[str, str, int]]:
    taken = bytearray(len(text))  # 1 where a value was taken: one C scan per overlap check
    for index in _NEEDS.admitted(text, text.lower()):  # a pattern whose literals it lacks: out
        kind, pattern = VALUE_PATTERNS[index]
        for found in pattern.finditer(text):
            start, end = found.span()
            cut = taken.find(1, start, end)
            match = found if cut == -1 else _name_before(kind, pattern, text, start, cut)
            if match is None:
                continue
            # (a pattern that reads its value out of a phrase names it: the choice in "I'd
            # like a window seat" is "window seat")
            group = "value" if "value" in pattern.groupindex else 0
            said = match.group(group)
            value = said.strip()
            if kind == "code" and value in _COMMON_CAPS:
                continue
            start = match.start(group)
            if kind == "tally" and _NAME_BEFORE.search(text, max(0, start - 32), start):
                continue  # a name's number, read by the patterns after: no tally
            end = start + said.find(value) + len(value)
            start = range_start(text, kind, end - len(value), taken)
            value = text[start:end]
            if _GLUED.match(text[start - 1 : start]) or _GLUED.match(text[end : end + 1]):
                continue  # part of a longer token: the gate checks whole tokens
            label = kind == "name" and _is_label(text, start, end)
            taken[start:end] = b"\x01" * (end - start)  # a label's words are no value either
            if not label:  # a field's label ("- **Trip Type**: one way") is not a value
                yield kind, value, start


def json_scalars(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """``(key path, scalar)`` of every scalar in a parsed JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_scalars(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from json_scalars(item, f"{path}[{index}]")
    else:
        yield path, value


def _parse_json(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return None


class _Later:
    """Which values a later turn (user or assistant text, or a call's arguments) uses again."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self.texts = [_spoken(message) for message in messages]
        self.where: dict[str, list[int]] = {}
        for index, text in enumerate(self.texts):
            for token in set(_TOKEN.findall(text)):
                self.where.setdefault(token, []).append(index)

    def used_after(self, value: str, index: int) -> bool:
        first = _TOKEN.search(value.lower())
        if first is None:
            return False
        later = [i for i in self.where.get(first.group(0), ()) if i > index]
        return any(value.lower() in self.texts[i] for i in later)


_TOKEN = re.compile(r"[\w$€£¥]+")


def _spoken(message: Message) -> str:
    if message.role not in ("user", "assistant"):
        return ""
    calls = " ".join(call.arguments for call in message.tool_calls)
    return f"{text_of(message)} {calls}".lower()


# A candidate as its message alone gives it: the score without the bonus a later turn's use
# adds (``bonus``, when a later turn uses ``value`` again). Rolling compaction and masking
# read the same messages again and again, so a message's candidates are remembered.
class _Base(NamedTuple):
    key: str
    value: str
    path: str | None
    kind: str
    score: float
    bonus: float


def _json_candidates(parsed: Any, origin: str, prefix: str, path_prefix: str = "") -> list[_Base]:
    found: list[_Base] = []
    for path, scalar in json_scalars(parsed, path_prefix.rstrip(".")):
        if isinstance(scalar, bool) or scalar is None:
            continue
        text = str(scalar).strip()
        if not text:
            continue
        if isinstance(scalar, str) and len(text) > 80:  # prose inside JSON: read as text
            found += _text_candidates(text, origin, f"{prefix}{path}")
            continue
        score = _ORIGIN[origin] + (2.0 if _KEY_IMPORTANT.search(path) else 0.0)
        score += 1.0 if _KEY_AMOUNT.search(path) else 0.0
        score += 2.0 if isinstance(scalar, str) and _ID_KEY.fullmatch(text) else 0.0
        bonus = 4.0 if origin == "tool" and len(text) >= 3 else 0.0
        local = path.removeprefix(path_prefix)
        short = ".".join(local.replace("]", "").split(".")[-2:]).replace("[", ".")
        found.append(_Base(f"{prefix}{short}", text, path, "json", score, bonus))
    return found + _key_candidates(parsed, origin)


def _key_candidates(parsed: Any, origin: str) -> list[_Base]:
    """Identifiers used as object keys (``{"gift_card_8190333": {...}}``): text values."""
    found: list[_Base] = []
    stack = [parsed]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, item in node.items():
                if _ID_KEY.fullmatch(str(key)):
                    score = _ORIGIN[origin] + _KIND_BONUS["id"]
                    found.append(_Base("key", str(key), None, "id", score, 4.0))
                stack.append(item)
        elif isinstance(node, list):
            stack.extend(node)
    return found


_ID_KEY = re.compile(r"(?=\w*[A-Za-z])(?=\w*\d)\w+")


def _text_candidates(text: str, origin: str, fallback: str) -> list[_Base]:
    # A value a later turn uses again (a call's arguments, the assistant, the user repeating
    # it) is one the conversation depends on, whoever said it first (docs/quality.md); a
    # call's own arguments are what later turns use, and score by their key path instead.
    bonus = 0.0 if origin == "call" else _REUSED_BONUS
    return [
        _Base(
            _key(kind, _label(text, start, fallback or kind)), value, None, kind,
            _ORIGIN[origin] + _KIND_BONUS[kind], bonus,
        )
        for kind, value, start in text_values(text)
        # a choice is what the user states ("I'd like a window seat"); an agent's "I need the
        # following details" chooses nothing
        if kind != "choice" or origin == "user"
    ]  # fmt: skip


def _key(kind: str, label: str) -> str:
    return choice_key(label) if kind == "choice" else label


def value_candidates(messages: Sequence[Message], versions: Sequence[int]) -> list[ValueCandidate]:
    """Every value of ``messages`` (with their session versions), best occurrence per value;
    a value that a later turn uses again scores higher."""
    calls = {call.id: call.name for message in messages for call in message.tool_calls}
    later = _Later(messages)
    found: dict[str, ValueCandidate] = {}
    for index, (message, version) in enumerate(zip(messages, versions, strict=True)):
        for base in _message_candidates(message, calls):
            _keep(found, base, version, later, index)
    for index, base in _said_by_name(messages, found):
        _keep(found, base, versions[index], later, index)
    # A user's few words after the agent's question ("Economy, please.", "No, thanks."): the
    # choice they state, ranked as one (``answers``).
    for index, key, value in short_answers(messages):
        base = _Base(key, value, None, "choice", _ORIGIN["user"] + _KIND_BONUS["choice"], 0.0)
        _keep(found, base, versions[index], later, index)
    return list(found.values())


def _keep(
    found: dict[str, ValueCandidate], base: _Base, version: int, later: _Later, index: int
) -> None:
    """``base`` (of message ``index``) as its value's candidate when it scores best so far,
    with its bonus when a later turn uses the value again."""
    score = base.score
    if base.bonus and later.used_after(base.value, index):
        score += base.bonus
    best = found.get(base.value)
    if best is None or score > best.score:
        found[base.value] = ValueCandidate(
            base.key, base.value, version, base.path, base.kind, score
        )


def _said_by_name(
    messages: Sequence[Message], found: dict[str, ValueCandidate]
) -> Iterator[tuple[int, _Base]]:
    """The user's own words for a name another turn spells so the patterns read it
    (:mod:`projections.summaries.echoes`): "los angeles" when the assistant says "Los
    Angeles". Only names some user turn says, in some letter case, go into the matcher; a
    chunk without a user turn (masking reads one tool result at a time) costs nothing."""
    users = [(index, text_of(m)) for index, m in enumerate(messages) if m.role == "user"]
    if not users:
        return
    said = " ".join(" ".join(text for _, text in users).lower().split())
    names = tuple(
        sorted(
            c.value
            for c in found.values()
            if c.kind in _NAMED and name_like(c.value) and " ".join(c.value.lower().split()) in said
        )
    )
    if not names:
        return
    matcher = _matcher(names)
    score = _ORIGIN["user"] + _KIND_BONUS["name"]
    for index, text in users:
        for span, start in matcher.mentions(text):
            yield (
                index,
                _Base(_label(text, start, "name"), span, None, "name", score, _REUSED_BONUS),
            )


_NAMED = ("name", "json")


# Rolling compaction reads the same names again at every roll; the names are text, so the
# cache is emptied with the other text caches when an erasure is seen.
@remembered
@lru_cache(maxsize=256)
def _matcher(names: tuple[str, ...]) -> NameMatcher:
    return NameMatcher(names)


def _message_candidates(message: Message, calls: dict[str, str]) -> tuple[_Base, ...]:
    if message.role == "tool":
        name = calls.get(message.tool_call_id or "", "tool")
        return _tool_candidates(text_of(message), name)
    if message.role not in ("user", "assistant"):
        return ()
    arguments = tuple((call.name, call.arguments) for call in message.tool_calls)
    return _turn_candidates(message.role, text_of(message), arguments)


@remembered
@lru_cache(maxsize=16_384)
def _tool_candidates(text: str, name: str) -> tuple[_Base, ...]:
    parsed = _parse_json(text)
    if parsed is not None:
        return tuple(_json_candidates(parsed, "tool", ""))
    return tuple(_text_candidates(text, "tool", name))


@remembered
@lru_cache(maxsize=16_384)
def _turn_candidates(
    role: str, text: str, arguments: tuple[tuple[str, str], ...]
) -> tuple[_Base, ...]:
    found = _text_candidates(text, role, "")
    for index, (name, call_arguments) in enumerate(arguments):
        parsed = _parse_json(call_arguments)
        if parsed is not None:
            prefix = f"call[{index}]."
            found += _json_candidates(parsed, "call", f"{name}.", prefix)
    return tuple(found)
