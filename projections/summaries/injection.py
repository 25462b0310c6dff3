"""Instruction-like text: directives to the model and attempts to grant tools or permissions,
in English and Chinese, as plain phrasing or paraphrase. Pure: no I/O.

The offline summarizer leaves such clauses out of facts and decisions (they are data, and one
hostile sentence must not block every later compaction); the gate refuses a summary that still
carries one. What this does not promise: detecting every phrasing, or intent hidden in another
language or an encoding; the summary block is untrusted data either way (docs/summaries.md).
"""

from __future__ import annotations

import re

from projections.secrets.prefilter import Alternation

__all__ = ["looks_like_instruction"]

_VERBS = (
    r"(?:ignore|disregard|forget|override|bypass|skip|drop|abandon|discard|overrule|neglect|"
    r"set\s+aside|stop\s+following|reset|replace|disable|turn\s+off)"
)
_PRIOR = (
    r"(?:all|any|the|your|my|these|those|previous|prior|above|earlier|preceding|former|"
    r"existing|other|original|hidden|safety|security|content|old)"
)
_RULES = (
    r"(?:instructions?|directives?|rules?|guidelines?|guidance|prompts?|messages?|constraints?|"
    r"policies|policy|orders?|commands?|restrictions?|safeguards?|guardrails?|settings|"
    r"filters?|programming|training)"
)
_POWER = r"(?:admin(?:istrator)?|root|sudo|superuser|privileges?|permissions?|full\s+access)"
_PATTERNS = [
    rf"\b{_VERBS}\s+(?:{_PRIOR}\s+){{0,3}}{_RULES}\b",
    r"\b(?:ignore|disregard|forget)\s+(?:everything|all\s+of\s+(?:that|this)|the\s+above)\b",
    rf"\b(?:{_PRIOR}\s+){{1,3}}{_RULES}\s+(?:no\s+longer\s+appl|(?:are|is)\s+(?:now\s+)?"
    r"(?:void|obsolete|cancell?ed|revoked|suspended))",
    r"\b(?:everything|all)\s+(?:before|above)\s+(?:this|here)\b[^.!?\n]{0,20}\b(?:obsolete|void|"
    r"ignored?)\b",
    rf"\bpretend\s+(?:that\s+)?(?:the\s+|your\s+)?(?:{_PRIOR}\s+)?{_RULES}\b",
    r"\byou\s+(?:are|will\s+be)\s+now\b|\bfrom\s+now\s+on,?\s+you\b|\bact\s+as\s+(?:an?\s+|the\s+)?"
    r"(?:admin|administrator|root|developer|system|operator)\b",
    r"\byou\s+(?:must|shall|will)\s+now\b|\bobey\s+(?:only\s+)?me\b|\bdo\s+(?:exactly\s+)?what\s+"
    r"i\s+say\b|\bhighest[- ]priority\s+instruction\b|\bas\s+if\s+you\s+had\s+no\b",
    r"\b(?:new|updated|revised|real)\s+(?:system\s+)?(?:instructions?|prompt|directives?|orders?|"
    r"policy)\b",
    r"\bsystem\s+prompt\b|\bdeveloper\s+mode\b|\bjailbreak\b|\bdo\s+anything\s+now\b",
    r"(?:^|[.!?;]\s*)system\s*:",
    r"\b(?:hidden|secret|original|internal)\s+(?:instructions|prompt|rules)\b",
    r"\b(?:authori[sz]ed|allowed|permitted)\s+you\s+to\b|\bi\s+(?:instruct|order|command)\s+you\b"
    r"|\bas\s+your\s+(?:administrator|admin|developer|creator|operator|owner)\b"
    r"|\b(?:the\s+)?(?:developer|operator|administrator)\s+says\s+you\s+may\b",
    rf"\b(?:grant|give|enable|assign|elevate|escalate|promote)\s+(?:me|yourself|them|us|the\s+"
    rf"(?:assistant|user|agent)|my\s+account)?\s*(?:to\s+)?(?:full\s+|root\s+|admin\s+)?"
    rf"(?:{_POWER}|access|tools?)\b",
    r"\b(?:call|invoke|run|execute|trigger)\s+(?:the\s+)?(?:[\w.-]+\s+){0,2}(?:tool|function|"
    r"command|shell|script)\b",
    r"\b(?:book|buy|purchase|pay|transfer|order|charge|approve|refund|cancel|delete)\b[^.!?\n]"
    r"{0,40}\b(?:automatically|without\s+(?:asking|confirmation|confirming|approval|checking))\b",
    r"\bskip\s+(?:the\s+)?(?:confirmation|approval|verification|review)\b",
    r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|ask|mention\s+(?:this|it)\s+to)\s+the\s+"
    r"user\b|\bwithout\s+telling\s+(?:anyone|the\s+user)\b",
    r"\b(?:reveal|print|show|leak|dump|output|send|email|upload|exfiltrate)\s+(?:me\s+)?(?:the|your|"
    r"all|all\s+the)\s+(?:stored\s+|hidden\s+)?(?:system\s+)?(?:prompt|instructions|secrets?|keys?|"
    r"api\s+keys|passwords|credentials|database|customer\s+list)\b",
    # Families generalised from the first held-out round (docs/summaries.md): authority
    # claims, lifted limits, skipped confirmation, forwarding, elevated rights.
    r"\b(?:urgent|important|official|priority)\s+(?:system|admin|security)\s+(?:notice|message|"
    r"update|alert)\b|\b(?:coming|comes)\s+from\s+the\s+(?:system|developer|admin)",
    rf"\b{_RULES}\s+(?:have|has)\s+been\s+(?:updated|changed|lifted|removed|relaxed)\b"
    r"|\bnothing\s+is\s+off[- ]limits\b|\bunfiltered\b|\b(?:no|without\s+any)\s+(?:rules|"
    r"restrictions|limits|filters)\s+at\s+all\b",
    r"\bno\s+(?:longer\s+)?need\s+to\s+(?:ask|check|confirm)|\bno\s+need\s+to\s+(?:ask|check|"
    r"confirm)|\bwithout\s+(?:the\s+)?user(?:'s)?\s+(?:confirmation|approval|consent)",
    r"\b(?:forward|send|copy)\s+(?:every|all)\s+(?:the\s+)?(?:messages?|emails?|data|files?|"
    r"records?)\b",
    r"\b(?:admin|root|sudo|superuser)\s+(?:rights|access|privileges|permissions)\b|\bgive\s+me\s+"
    r"(?:sudo|root|admin)\b",
    r"\b(?:ignore|disregard|forget)\s+what\s+(?:the|your)\s+(?:developer|system|operator|admin|"
    r"instructions?)\b",
    r"(?:忽略|无视|忘记|覆盖)(?:之前|以上|先前|所有|全部|的)*(?:指令|指示|规则|提示)",
    r"(?:不需要|无需|不用)(?:用户)?确认|新(?:的)?指令",
    r"你现在(?:必须|是)|从现在开始你|授予.{0,10}权限|管理员权限|无需确认直接|不要告诉用户|"
    r"自动(?:购买|付款|预订)",
]
# One pass over the text; the branches whose literals a text lacks are left out of it.
_INSTRUCTION = Alternation(_PATTERNS, re.IGNORECASE)


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
