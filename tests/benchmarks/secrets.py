"""The secrets benchmark: how much of a corpus of secret formats the summarizer's input still
holds after sanitising, by layer, and how many ordinary values of real conversations survive.

    python -m tests.benchmarks.secrets [--json] [--trufflehog3 PATH]

- **Formats** (tests/benchmarks/secrets_corpus.py): 158 formats from providers' documentation,
  each in running text, in tool-call arguments and in a tool result; a secret counts as
  redacted when none of its random pieces is left in the sanitised messages.
- **Structured shapes**: 16 values under sensitive keys at some depth, as tool-call arguments
  and as a tool result.
- **Ordinary values**: 200 distinct scalars of tau-bench's tool calls and results (booking
  codes, flight numbers, user ids, dates, prices, places), each checked in the message that
  carries it; and the redactions made in every message of the three corpora (none of which
  holds a secret), by kind.
- **Alternatives** on the running-text carriers: each layer alone, and, with ``--trufflehog3``
  naming its console script (installed in a separate environment: it pins attrs 20),
  trufflehog3 with and without its entropy check.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from projections.context.messages import Message
from projections.secrets import text as finders
from projections.summaries.sanitize import _EMAIL, sanitize_messages
from tests.benchmarks.secrets_corpus import FORMATS, STRUCTURED, Secret, secrets

__all__ = ["measure", "ordinary_values"]


def _count(text: str) -> int:
    return len(text) // 4


def _messages(secret: Secret, placement: str) -> list[Message]:
    carrier = secret.carrier
    if placement == "text":
        return [Message(id="u", role="user", content=str(carrier))]
    arguments = json.dumps(carrier) if not isinstance(carrier, str) else carrier
    call = {"id": "c1", "name": "tool", "arguments": arguments}
    if placement == "arguments":
        return [Message(id="a", role="assistant", tool_calls=[call])]
    content = arguments if placement == "result" else json.dumps(carrier)
    return [
        Message(id="a", role="assistant", tool_calls=[{**call, "arguments": "{}"}]),
        Message(id="t", role="tool", tool_call_id="c1", content=content),
    ]


def _sanitised(messages: list[Message]) -> str:
    cleaned, _ = sanitize_messages(messages, count_tokens=_count, tool_result_tokens=100_000)
    return json.dumps([m.model_dump(mode="json") for m in cleaned], ensure_ascii=False)


def _cases(corpus: list[Secret]) -> list[tuple[Secret, str]]:
    cases = []
    for secret in corpus:
        if secret.where == "structured":
            cases += [(secret, "arguments"), (secret, "result")]
        else:
            cases.append((secret, secret.where))
    return cases


def formats() -> dict[str, Any]:
    """Redaction of the format corpus and the structured shapes through the sanitiser."""
    corpus = secrets()
    missed: list[str] = []
    shapes_missed: list[str] = []
    total = shapes = 0
    for secret, placement in _cases(corpus):
        left = secret.survives_in(_sanitised(_messages(secret, placement)))
        if secret.where == "structured":
            shapes += 1
            shapes_missed += [f"{secret.name} ({placement})"] if left else []
        else:
            total += 1
            missed += [f"{secret.name} ({placement}): {left[0][:12]}…"] if left else []
    return {
        "formats": len(FORMATS),
        "format_cases": total,
        "format_redacted": total - len(missed),
        "format_missed": missed,
        "shapes": len(STRUCTURED),
        "shape_cases": shapes,
        "shape_redacted": shapes - len(shapes_missed),
        "shape_missed": shapes_missed,
    }


def layers() -> dict[str, int]:
    """How many running-text carriers each layer alone redacts."""
    corpus = [s for s in secrets() if s.where == "text"]
    layer_finders: dict[str, Callable[[str], list[finders.Finding]]] = {
        "key and value": finders._key_values,
        "detect-secrets patterns": finders._library,
        "checksummed and PEM rules": finders._rules,
        "random-looking tokens": finders._random_tokens,
        "all layers": finders.find_secrets,
        "all but detect-secrets": lambda text: [
            *finders._key_values(text),
            *finders._rules(text),
            *finders._random_tokens(text),
        ],
    }
    found = {}
    for name, find in layer_finders.items():
        found[name] = sum(not s.survives_in(_cut(str(s.carrier), find)) for s in corpus)
    found["carriers"] = len(corpus)
    return found


def _cut(text: str, find: Callable[[str], list[finders.Finding]]) -> str:
    spans = finders._merged(find(text))
    out, at = [], 0
    for span in spans:
        out.append(text[at : span.start] + "█")
        at = span.end
    return "".join(out) + text[at:]


def trufflehog3(script: str) -> dict[str, int]:
    """trufflehog3 over the running-text carriers, one file each; a carrier counts when every
    random piece is inside a reported secret."""
    corpus = [s for s in secrets() if s.where == "text"]
    figures = {}
    with tempfile.TemporaryDirectory() as directory:
        for index, secret in enumerate(corpus):
            (Path(directory) / f"{index:03d}.txt").write_text(str(secret.carrier))
        for label, extra in (("trufflehog3", []), ("trufflehog3 --no-entropy", ["--no-entropy"])):
            report = Path(directory) / "report.json"
            command = [script, "-z", "--no-history", "--format", "JSON", "-o", str(report)]
            subprocess.run([*command, *extra, directory], check=True, capture_output=True)
            hits: dict[int, list[str]] = {}
            for issue in json.loads(report.read_text()):
                name = Path(issue["path"]).name
                if name[:3].isdigit():
                    hits.setdefault(int(name[:3]), []).append(issue["secret"])
            figures[label] = sum(
                all(any(piece in hit for hit in hits.get(i, [])) for piece in s.pieces)
                for i, s in enumerate(corpus)
            )
            report.unlink()
    return figures


def ordinary_values(count: int = 200) -> list[tuple[str, Message]]:
    """``count`` distinct scalars of tau-bench's tool calls and results, each with the first
    message that carries it (a seeded sample). E-mail addresses are left out: the sanitiser
    redacts them by policy, as personal data (``ordinary()`` counts them apart)."""
    from tests.benchmarks.corpora import scalars, tau_bench

    seen: dict[str, Message] = {}
    for _, messages, _ in tau_bench(None):
        for message in messages:
            for raw in _payloads(message):
                for value in _scalars_of(raw, scalars):
                    if value not in seen and value in raw and not _EMAIL.fullmatch(value):
                        seen[value] = message
    values = sorted(seen)
    random.Random(26).shuffle(values)
    return [(value, seen[value]) for value in values[:count]]


def _payloads(message: Message) -> list[str]:
    payloads = [call.arguments for call in message.tool_calls]
    if message.role == "tool" and isinstance(message.content, str):
        payloads.append(message.content)
    return payloads


def _scalars_of(raw: str, scalars: Callable[[Any], list[str]]) -> list[str]:
    try:
        return [s for s in scalars(json.loads(raw)) if len(s) <= 40]
    except ValueError:
        return []


def ordinary() -> dict[str, Any]:
    """Ordinary values kept, and the redactions made across the corpora."""
    from tests.benchmarks.corpora import bfcl, locomo, tau_bench

    values = ordinary_values()
    lost = [v for v, message in values if v not in _sanitised([message])]
    kinds: Counter[str] = Counter()
    messages = 0
    for load in (tau_bench, locomo, bfcl):
        for _, conversation, _ in load(None):
            _, report = sanitize_messages(conversation, count_tokens=_count)
            kinds.update(report.redactions)
            messages += len(conversation)
    return {
        "values": len(values),
        "kept": len(values) - len(lost),
        "lost": lost,
        "corpus_messages": messages,
        "corpus_redactions": dict(sorted(kinds.items())),
    }


def measure(trufflehog3_script: str | None = None) -> dict[str, Any]:
    """Every figure of the benchmark (the corpora part only when they are present)."""
    from tests.conftest import corpora_dir

    figures: dict[str, Any] = {**formats(), "layers": layers()}
    if corpora_dir().exists():
        figures["ordinary"] = ordinary()
    if trufflehog3_script:
        figures["alternatives"] = trufflehog3(trufflehog3_script)
    return figures


def _print(figures: dict[str, Any]) -> None:
    cases, redacted = figures["format_cases"], figures["format_redacted"]
    print(f"formats: {figures['formats']} ({cases} placements)")
    print(f"  redacted {redacted}/{cases} = {redacted / cases:.1%}")
    for miss in figures["format_missed"]:
        print(f"  missed: {miss}")
    shapes, kept = figures["shape_cases"], figures["shape_redacted"]
    print(f"structured shapes: {figures['shapes']} ({shapes} placements)")
    print(f"  redacted {kept}/{shapes} = {kept / shapes:.1%}")
    for miss in figures["shape_missed"]:
        print(f"  missed: {miss}")
    layer = figures["layers"]
    print(f"each layer alone, running text ({layer['carriers']} carriers):")
    for name, count in layer.items():
        if name != "carriers":
            print(f"  {name:28} {count:4} = {count / layer['carriers']:.1%}")
    for name, count in figures.get("alternatives", {}).items():
        print(f"  {name:28} {count:4} = {count / layer['carriers']:.1%}")
    if "ordinary" in figures:
        o = figures["ordinary"]
        print(f"ordinary values kept: {o['kept']}/{o['values']} = {o['kept'] / o['values']:.1%}")
        for value in o["lost"]:
            print(f"  lost: {value}")
        print(f"redactions in {o['corpus_messages']} corpus messages: {o['corpus_redactions']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--trufflehog3", help="trufflehog3's console script, to compare")
    arguments = parser.parse_args(argv)
    figures = measure(arguments.trufflehog3)
    if arguments.json:
        print(json.dumps(figures, indent=2, ensure_ascii=False))
    else:
        _print(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
