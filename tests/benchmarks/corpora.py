"""The public corpora as conversations with gold values (../shared/corpora, or
``$CTXLEDGER_CORPORA``): tau-bench airline (the scalar arguments of the gold actions), LoCoMo
(the answers of QA categories 1-4, with their evidence turns), BFCL memory (the recall
questions' acceptable answers)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projections.context.formats import to_messages
from projections.context.messages import Message
from tests.conftest import corpora_dir

__all__ = [
    "Question",
    "bfcl",
    "bfcl_questions",
    "locomo",
    "locomo_questions",
    "scalars",
    "tau_bench",
]


def tau_bench(limit: int | None) -> list[tuple[str, list[Message], list[str]]]:
    runs = json.loads((corpora_dir() / "tau-bench-airline" / "gpt-4o-airline.json").read_text())
    cases = []
    for run in runs[:limit]:
        messages = to_messages("openai", run["traj"])
        messages = [m.model_copy(update={"id": f"m{i}"}) for i, m in enumerate(messages)]
        gold: list[str] = []
        for action in run["info"]["task"]["actions"]:
            gold += scalars(action.get("kwargs", {}))
        cases.append((f"tau-{run['task_id']}-{run['trial']}", messages, gold))
    return cases


def scalars(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for item in value.values() for s in scalars(item)]
    if isinstance(value, list):
        return [s for item in value for s in scalars(item)]
    if isinstance(value, bool) or value is None:
        return []
    text = str(value)
    return [text] if len(text) >= 2 else []


def locomo(limit: int | None) -> list[tuple[str, list[Message], list[str]]]:
    data = json.loads((corpora_dir() / "locomo" / "locomo10.json").read_text())
    cases = []
    for sample in data[:limit]:
        conversation = sample["conversation"]
        speaker_a = conversation["speaker_a"]
        messages = []
        index = 1
        while f"session_{index}" in conversation or f"session_{index}_date_time" in conversation:
            turns = conversation.get(f"session_{index}") or []
            when = conversation.get(f"session_{index}_date_time", "")
            for turn in turns:
                role = "user" if turn["speaker"] == speaker_a else "assistant"
                messages.append(
                    Message(
                        id=turn["dia_id"],
                        role=role,
                        content=f"[{when}] {turn['speaker']}: {turn['text']}",
                    )
                )
            index += 1
        gold = [
            str(qa["answer"])
            for qa in sample["qa"]
            if qa.get("category") in (1, 2, 3, 4) and "answer" in qa
        ]
        cases.append((sample["sample_id"], messages, gold))
    return cases


def bfcl(limit: int | None) -> list[tuple[str, list[Message], list[list[str]]]]:
    """One conversation per scenario (all its prerequisite user turns, in order); gold: the
    acceptable answers of each recall question (any one counts)."""
    folder = corpora_dir() / "bfcl-memory"

    def lines(path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    answers = {
        row["id"]: row["ground_truth"]
        for row in lines(folder / "possible_answer" / "BFCL_v4_memory.json")
    }
    questions = lines(folder / "BFCL_v4_memory.json")
    cases = []
    for path in sorted((folder / "memory_prereq_conversation").glob("memory_*.json"))[:limit]:
        scenario = path.stem.removeprefix("memory_")
        messages = []
        for conversation in lines(path):
            for turn_index, turn in enumerate(conversation["question"]):
                for message in turn:
                    messages.append(
                        Message(
                            id=f"{conversation['id']}:{turn_index}",
                            role="user",
                            content=message["content"],
                        )
                    )
        gold = [
            [str(a) for a in answers[q["id"]]]
            for q in questions
            if q["scenario"] == scenario and q["id"] in answers
        ]
        cases.append((f"bfcl-{scenario}", messages, gold))
    return cases


def locomo_questions(limit: int | None) -> list[tuple[str, list[Message], list[Question]]]:
    """LoCoMo conversations with every QA of categories 1-4 as a :class:`Question` (its
    evidence turns by id)."""
    data = json.loads((corpora_dir() / "locomo" / "locomo10.json").read_text())
    cases = []
    for (name, messages, _), sample in zip(locomo(limit), data, strict=False):
        questions = [
            Question(
                text=qa["question"],
                answers=[str(qa["answer"])],
                evidence=[
                    e for item in qa.get("evidence", []) for e in re.split(r"[;,\s]+", item) if e
                ],
                category=LOCOMO_CATEGORIES[qa["category"]],
            )
            for qa in sample["qa"]
            if qa.get("category") in (1, 2, 3, 4) and "answer" in qa
        ]
        cases.append((name, messages, questions))
    return cases


def bfcl_questions(limit: int | None) -> list[tuple[str, list[Message], list[Question]]]:
    """BFCL memory scenarios with their recall questions (any acceptable answer counts)."""
    folder = corpora_dir() / "bfcl-memory"
    asked = {
        row["id"]: row
        for row in map(json.loads, (folder / "BFCL_v4_memory.json").read_text().splitlines())
        if row
    }
    answers = [
        json.loads(line)
        for line in (folder / "possible_answer" / "BFCL_v4_memory.json").read_text().splitlines()
        if line.strip()
    ]
    cases = []
    for name, messages, _ in bfcl(limit):
        scenario = name.removeprefix("bfcl-")
        questions = [
            Question(
                text=asked[row["id"]]["question"][0][0]["content"],
                answers=[str(a) for a in row["ground_truth"]],
                evidence=[],
            )
            for row in answers
            if row["id"] in asked and asked[row["id"]]["scenario"] == scenario
        ]
        cases.append((name, messages, questions))
    return cases


#: LoCoMo's QA categories as its evaluation code names them (5, adversarial, is left out).
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


@dataclass(frozen=True)
class Question:
    """A question about a conversation: its text, acceptable answers, evidence message ids."""

    text: str
    answers: list[str]
    evidence: list[str]
    category: str = ""  # LoCoMo's: single-hop, multi-hop, temporal, open-domain
