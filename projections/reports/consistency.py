"""Answer consistency, the seed's seventh metric: do answers from the compacted context agree
with answers from the full history?

- With a model (any OpenAI-compatible server): :func:`answer_consistency` asks each question
  twice, once after the whole history and once after the context ctxledger would serve for it
  (window, summary, recall), and reports the share of agreeing answers (``ctxledger
  consistency``).
- Without one: :func:`evidence_present` stands in: for each earlier user question whose reply
  has left the window, is that reply back in the context served for the question again (by
  recall)? ``ctxledger stats`` reports this one and says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict

from projections.context.budget import Budget
from projections.context.formats import from_messages
from projections.context.messages import text_of
from projections.errors import SummarizerError
from projections.recall.search import RecallOptions
from projections.summaries.server_errors import server_failure

if TYPE_CHECKING:
    from projections.session_reads import SessionReads

__all__ = [
    "AnswerModel",
    "ConsistencyReport",
    "OpenAICompatibleAnswerer",
    "answer_consistency",
    "answers_agree",
    "evidence_present",
    "session_questions",
]

_QUESTION = re.compile(r"[?？]\s*$")


class AnswerModel(Protocol):
    """Answers the last user message of a conversation (chat-completions messages)."""

    model: str

    async def answer(self, messages: list[dict[str, Any]]) -> str:
        """The model's answer (raise :class:`~projections.errors.SummarizerError` on failure)."""
        ...


class OpenAICompatibleAnswerer:
    """An :class:`AnswerModel` over any chat-completions server (temperature 0)."""

    def __init__(self, *, base_url: str, model: str, api_key: str = "unused") -> None:
        from openai import AsyncOpenAI  # the openai package is needed only here

        self.model = model
        self.base_url = base_url
        self._client = AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=60, max_retries=2)

    async def answer(self, messages: list[dict[str, Any]]) -> str:
        """Ask the server; a failure raises :class:`SummarizerError` with what went wrong."""
        import openai

        try:
            response = await self._client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]  # wire messages, as the SDK takes
                temperature=0,
                max_tokens=300,
            )
        except openai.APIError as error:
            raise SummarizerError(
                server_failure(error, self.base_url, "the answer model")
            ) from error
        return str(response.choices[0].message.content or "")


class Agreement(BaseModel):
    """One question, its two answers, and whether they agree."""

    model_config = ConfigDict(frozen=True)

    question: str
    full: str
    compacted: str
    agree: bool


class ConsistencyReport(BaseModel):
    """The share of questions answered alike from the full history and the compacted context."""

    model_config = ConfigDict(frozen=True)

    model: str
    questions: int
    agreeing: int
    share: float | None
    items: list[Agreement]


def _normalised(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def answers_agree(first: str, second: str) -> bool:
    """Equal after normalisation, or one holds the other (a short answer in a sentence)."""
    a, b = _normalised(first), _normalised(second)
    return bool(a and b) and (a == b or a in b or b in a)


def session_questions(session_messages: Sequence[Any], limit: int = 20) -> list[str]:
    """The session's own user questions (ending in a question mark), the latest ``limit``."""
    asked = [
        text_of(m) for m in session_messages if m.role == "user" and _QUESTION.search(text_of(m))
    ]
    return asked[-limit:]


async def answer_consistency(
    session: SessionReads,
    budget: Budget,
    questions: Sequence[str],
    model: AnswerModel,
    *,
    keep_groups: int = 6,
) -> ConsistencyReport:
    """Ask each question after the full history and after the served context; compare."""
    full = from_messages("openai", await session.messages())
    items = []
    for question in questions:
        asked = {"role": "user", "content": question}
        served = await session.render(
            budget, keep_groups=keep_groups, recall=RecallOptions(query=question)
        )
        whole = await model.answer([*full, asked])
        compacted = await model.answer([*served.wire, asked])
        items.append(
            Agreement(
                question=question,
                full=whole,
                compacted=compacted,
                agree=answers_agree(whole, compacted),
            )
        )
    agreeing = sum(item.agree for item in items)
    share = agreeing / len(items) if items else None
    return ConsistencyReport(
        model=model.model, questions=len(items), agreeing=agreeing, share=share, items=items
    )


async def evidence_present(
    session: SessionReads, budget: Budget, *, keep_groups: int = 6, limit: int = 20
) -> tuple[int, int]:
    """(replies found again, questions): earlier user questions whose reply (the next assistant
    text) has left the window, asked again with recall; at most the latest ``limit``."""
    messages = await session.messages()
    plain = set((await session.render(budget, keep_groups=keep_groups)).manifest.message_ids)
    pairs = []
    for index, message in enumerate(messages):
        if message.role != "user" or not _QUESTION.search(text_of(message)):
            continue
        reply = next(
            (m for m in messages[index + 1 :] if m.role == "assistant" and text_of(m)),
            None,
        )
        if reply is not None and reply.id not in plain:
            pairs.append((text_of(message), reply.id))
    found = 0
    for question, reply_id in pairs[-limit:]:
        options = RecallOptions(query=question)
        served = await session.render(budget, keep_groups=keep_groups, recall=options)
        sent = set(served.manifest.message_ids) | {
            e["message_id"] for e in served.manifest.recalled
        }
        found += reply_id in sent
    return found, len(pairs[-limit:])
