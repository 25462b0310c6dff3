"""A deterministic model implemented through the Agents SDK's own ``Model`` interface: it calls
the weather tool when asked about the weather, then answers from the tool's output."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agents import function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

set_tracing_disabled(True)  # no network: nothing to export traces to


@function_tool
def get_weather(city: str, day: str) -> str:
    """The weather forecast of a city on a day."""
    return json.dumps({"city": city, "day": day, "sky": "sunny", "high_c": 29})


class ScriptedModel(Model):
    """No network: a scripted reply to what the input asks."""

    def __init__(self) -> None:
        self.inputs: list[list[Any]] = []

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        items = input if isinstance(input, list) else [{"role": "user", "content": input}]
        self.inputs.append(list(items))
        last = items[-1]
        turn = len(self.inputs)
        if last.get("type") == "function_call_output":
            text = f"Forecast: {json.loads(last['output'])['sky']}."
            output: list[Any] = [
                ResponseOutputMessage(
                    id=f"msg_{turn}",
                    type="message",
                    role="assistant",
                    status="completed",
                    content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
                )
            ]
        elif "weather" in str(last.get("content", "")).lower():
            output = [
                ResponseFunctionToolCall(
                    id=f"fc_{turn}",
                    call_id=f"call_{turn}",
                    type="function_call",
                    name="get_weather",
                    arguments=json.dumps({"city": "Hangzhou", "day": "Sat"}),
                    status="completed",
                )
            ]
        else:
            output = [
                ResponseOutputMessage(
                    id=f"msg_{turn}",
                    type="message",
                    role="assistant",
                    status="completed",
                    content=[ResponseOutputText(type="output_text", text="Noted.", annotations=[])],
                )
            ]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the scripted model does not stream")
