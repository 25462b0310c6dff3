"""A scripted ADK run with the real ``Runner`` and a deterministic model (no network): a tool
that writes session, user and app state, ADK's own event compaction (its
``LlmEventSummarizer`` on the same fake model) and a rewind. The same script runs on ADK's
``InMemorySessionService`` and on ``LedgerSessionService``; what the model saw and what the
session holds must be the same."""

from __future__ import annotations

import warnings
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions.base_session_service import BaseSessionService
from google.adk.tools.tool_context import ToolContext
from google.genai import types

PRICES = {"G7311": 73, "G123": 88}
TURNS = ["Price of G7311?", "And G123?", "Which is cheaper?", "Book it."]


def price(train: str, tool_context: ToolContext) -> dict[str, Any]:
    """The second-class price of a train in CNY."""
    tool_context.state["last_train"] = train  # session scope
    tool_context.state["user:trains_asked"] = [
        *tool_context.state.get("user:trains_asked", []),
        train,
    ]
    tool_context.state["app:lookups"] = tool_context.state.get("app:lookups", 0) + 1
    tool_context.state["temp:scratch"] = train  # never persisted
    return {"train": train, "price_cny": PRICES[train]}


def _text(content: types.Content | None) -> str:
    if content is None or not content.parts:
        return ""
    return " ".join(part.text for part in content.parts if part.text)


class ScriptedLlm(BaseLlm):
    """Calls ``price`` when the last user turn names a train, answers after a tool result,
    and summarises when ADK's summarizer asks; records every request's contents."""

    model: str = "scripted"
    seen: list[list[str]]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        contents = list(llm_request.contents)
        self.seen.append([f"{c.role}: {_describe(c)}" for c in contents])
        last = contents[-1]
        prompt = _text(last)
        if "conversation history" in prompt:
            yield _reply("Summary: the user compared G7311 and G123 prices.")
            return
        response = next(
            (p.function_response for p in last.parts or [] if p.function_response), None
        )
        if response is not None:
            body = response.response or {}
            yield _reply(f"{body.get('train')} costs {body.get('price_cny')} CNY.")
            return
        train = next((name for name in PRICES if name in prompt), None)
        if train is not None:
            call = types.FunctionCall(name="price", args={"train": train})
            yield LlmResponse(
                content=types.Content(role="model", parts=[types.Part(function_call=call)])
            )
            return
        yield _reply(f"Noted: {prompt}")


def _describe(content: types.Content) -> str:
    parts = []
    for part in content.parts or []:
        if part.text:
            parts.append(part.text)
        elif part.function_call:
            parts.append(f"call {part.function_call.name}({part.function_call.args})")
        elif part.function_response:
            parts.append(f"result {part.function_response.name}")
    return " | ".join(parts)


def _reply(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


def _event(event: Any) -> tuple[Any, ...]:
    compaction = event.actions.compaction if event.actions else None
    rewind = getattr(event.actions, "rewind_before_invocation_id", None) if event.actions else None
    return (
        event.author,
        _describe(event.content) if event.content else "",
        _text(compaction.compacted_content) if compaction else None,
        bool(rewind),
        dict(event.actions.state_delta) if event.actions else {},
    )


async def run_script(service: BaseSessionService) -> dict[str, Any]:
    """The script; returns what the model saw, the session's events and state, and the
    user's state, with ids and timestamps left out (they are random)."""
    model = ScriptedLlm(seen=[])
    agent = LlmAgent(name="planner", model=model, tools=[price], instruction="Plan trains.")
    with warnings.catch_warnings():  # ADK marks event compaction experimental: it is tested here
        warnings.simplefilter("ignore", UserWarning)
        compaction = EventsCompactionConfig(
            summarizer=LlmEventSummarizer(llm=model), compaction_interval=2, overlap_size=0
        )
    app = App(name="trips", root_agent=agent, events_compaction_config=compaction)
    runner = Runner(app=app, session_service=service)
    await service.create_session(app_name="trips", user_id="ana", session_id="s1")
    invocations = []
    for turn in TURNS:
        message = types.Content(role="user", parts=[types.Part(text=turn)])
        async for event in runner.run_async(user_id="ana", session_id="s1", new_message=message):
            if event.invocation_id not in invocations:
                invocations.append(event.invocation_id)
    await runner.rewind_async(
        user_id="ana", session_id="s1", rewind_before_invocation_id=invocations[-1]
    )
    message = types.Content(role="user", parts=[types.Part(text="Book G123 instead.")])
    async for _ in runner.run_async(user_id="ana", session_id="s1", new_message=message):
        pass
    session = await service.get_session(app_name="trips", user_id="ana", session_id="s1")
    assert session is not None
    return {
        "model_saw": model.seen,
        "events": [_event(e) for e in session.events],
        "state": dict(session.state),
    }
