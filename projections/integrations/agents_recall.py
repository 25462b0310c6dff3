"""Recall for the OpenAI Agents SDK session: the best older turns for the run's newest user
input, paged back in before each model call, never stored.

The SDK reads a session's history (``get_items``) before it knows the new input, and stores
whatever a ``session_input_callback`` returns that is not history. So the block is added where
the SDK lets a caller change what the model sees and nothing is stored: its
``call_model_input_filter``. ``get_items`` leaves ``recall.share`` of the usable budget free
(:func:`window_budget`), and :func:`add_recalled` fills it::

    session = LedgerSession(
        "trip", ledger, tenant_id="acme",
        compaction=CompactionSettings(budget, recall=RecallOptions()),
    )
    await Runner.run(agent, "Which train did I pick?", session=session,
                     run_config=session.run_config())

The query is the text of the newest user item of the model's input (the run's input); the
groups the session already served are left out of the block; what was recalled is kept on
the session (``last_recall``) for audit. The block is untrusted data in a user message, as in
a ctxledger render.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from projections.context.budget import Budget
from projections.context.formats import from_messages, to_messages
from projections.context.messages import text_of
from projections.recall.search import RecallOptions
from projections.session.recall_block import RECALL_SHARE, RecallPlan

if TYPE_CHECKING:
    from agents.run_config import CallModelData, ModelInputData

__all__ = ["add_recalled", "recall_room", "window_budget"]


def recall_room(budget: Budget, recall: RecallOptions) -> int:
    """The tokens set aside for the recalled block: its share of usable."""
    return int(recall.share * budget.usable)


def window_budget(budget: Budget, recall: RecallOptions | None) -> Budget:
    """The budget ``get_items`` renders and compacts under: ``budget`` with the recall share
    kept free (as a larger safety margin, so every other figure stays the caller's)."""
    if recall is None:
        return budget
    room = recall_room(budget, recall)
    return budget.model_copy(update={"safety_margin": budget.safety_margin + room})


class _Recalling(Protocol):
    """What the block is asked of: a session's reads (:class:`~projections.ledger.Session`)."""

    async def recall_block(
        self, query: str, room: int, served: Iterable[str] = (), *, share: float = RECALL_SHARE
    ) -> RecallPlan: ...


async def add_recalled(
    data: CallModelData[Any],
    session: _Recalling,
    budget: Budget,
    recall: RecallOptions,
    served: Sequence[str],
) -> tuple[ModelInputData, RecallPlan | None]:
    """The model's input with the recalled block before its newest user item, and the block's
    plan (the input unchanged and None when there is no user item; unchanged when nothing
    fits). ``served``: the message ids the session's render already holds."""
    from agents.run_config import ModelInputData

    model_data = data.model_data
    items: list[Any] = list(model_data.input)
    at = _newest_user_item(items)
    if at is None:
        return model_data, None
    room = recall_room(budget, recall)
    plan = await session.recall_block(_text(items[at]), room, served, share=recall.share)
    if plan.message is None:
        return model_data, plan
    block: list[Any] = from_messages("responses", [plan.message])
    updated = ModelInputData(
        input=[*items[:at], *block, *items[at:]], instructions=model_data.instructions
    )
    return updated, plan


def _newest_user_item(items: list[Any]) -> int | None:
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if isinstance(item, dict) and item.get("role") == "user":
            return index
    return None


def _text(item: dict[str, Any]) -> str:
    """A user item's text, however its content is given (a string or input parts)."""
    (message,) = to_messages("responses", [{"type": "message", **item}])
    return text_of(message)
