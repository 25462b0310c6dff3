"""Instruction-like text: directives to the model and attempts to grant tools or permissions,
in English and Chinese, as plain phrasing or paraphrase. Pure: no I/O.

The offline summarizer leaves such clauses out of facts and decisions (they are data, and one
hostile sentence must not block every later compaction); the gate refuses a summary that still
carries one. What this does not promise: detecting every phrasing, or intent hidden in another
language or an encoding; the summary block is untrusted data either way (docs/summaries.md).
"""

from __future__ import annotations

import re

__all__ = ["looks_like_instruction"]

_VERBS = r"(?:ignore|disregard|forget|override|bypass|skip|drop|abandon|discard|overrule)"
_PRIOR = r"(?:all|any|the|your|my|previous|prior|above|earlier|preceding|former|existing|other)"
_RULES = (
    r"(?:instructions?|directives?|rules?|guidelines?|prompts?|messages?|constraints?|policies|"
    r"policy|orders?|commands?|restrictions?|safeguards?|guardrails?)"
)
_PATTERNS = [
    rf"\b{_VERBS}\s+(?:{_PRIOR}\s+){{0,3}}{_RULES}\b",
    r"\byou\s+(?:are|will\s+be)\s+now\b|\bfrom\s+now\s+on,?\s+you\b|\bact\s+as\s+(?:an?\s+)?"
    r"(?:admin|administrator|root|developer|system)\b",
    r"\b(?:new|updated|revised|real)\s+(?:system\s+)?(?:instructions?|prompt|directives?)\b",
    r"\bsystem\s+prompt\b|\bdeveloper\s+mode\b|\bjailbreak\b|\bdo\s+anything\s+now\b",
    r"\b(?:grant|give|enable|assign|elevate|escalate)\s+(?:me|yourself|the\s+(?:assistant|user|"
    r"agent)|them|us)?\s*(?:full\s+|root\s+|admin\s+)?(?:admin(?:istrator)?|root|sudo|"
    r"privileges?|permissions?|access|tools?)\b",
    r"\b(?:call|invoke|run|execute|trigger)\s+(?:the\s+)?(?:tool|function|command|shell)\b",
    r"\b(?:book|buy|purchase|pay|transfer|order|charge)\b[^.!?\n]{0,40}\b(?:automatically|"
    r"without\s+(?:asking|confirmation|confirming|approval))\b",
    r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|ask)\s+the\s+user\b",
    r"\b(?:reveal|print|show|leak|dump)\s+(?:the|your)\s+(?:system\s+)?(?:prompt|"
    r"instructions|secrets?|keys?)\b",
    r"(?:忽略|无视|忘记|覆盖)(?:之前|以上|先前|所有|全部)?的?(?:指令|指示|规则|提示)",
    r"你现在(?:必须|是)|从现在开始你|授予.{0,10}权限|无需确认直接|不要告诉用户|自动(?:购买|付款|预订)",
]
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


# A negator right before the phrase, in the same clause ("never book automatically", "do
# not book it without asking"); punctuation in between ends the negation's reach.
_NEGATED = re.compile(r"(?i)(?:\bnever|\bnot|n't|\bno|\bwithout|不要|不|别|勿)\s*(?:\w+\s+)?$")


def looks_like_instruction(text: str) -> re.Match[str] | None:
    """The first instruction-like span of ``text`` that is not negated ("never book
    automatically" is a constraint, not a directive), or None."""
    flat = " ".join(text.split())
    for match in _INSTRUCTION.finditer(flat):
        if not _NEGATED.search(flat[max(0, match.start() - 30) : match.start()]):
            return match
    return None
