"""OpenAI's documented chat token accounting, as constants (pure: no tokenizer needed).

3 tokens per message, 1 more for a ``name``, 3 per tool call (not documented exactly), and 3
to prime the reply once per request.
"""

from __future__ import annotations

__all__ = [
    "REPLY_PRIMING_TOKENS",
    "TOKENS_PER_MESSAGE",
    "TOKENS_PER_NAME",
    "TOKENS_PER_TOOL_CALL",
    "USER_MESSAGE_OVERHEAD",
]

TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
TOKENS_PER_TOOL_CALL = 3
REPLY_PRIMING_TOKENS = 3

#: What a user-role message ctxledger writes (the summary, the recalled block) adds to its
#: text's tokens: the per-message tokens and its role, ``user``, which is one token in every
#: encoding ctxledger counts with (a test checks each).
USER_MESSAGE_OVERHEAD = TOKENS_PER_MESSAGE + 1
