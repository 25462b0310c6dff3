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
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseUsage,
)

set_tracing_disabled(True)  # no network: nothing to export traces to


@function_tool
def get_weather(city: str, day: str) -> str:
    """The weather forecast of a city on a day."""
    return json.dumps({"city": city, "day": day, "sky": "sunny", "high_c": 29})


def said(turn: int, text: str) -> ResponseOutputMessage:
    """An assistant's text, as a model's output item."""
    return ResponseOutputMessage(
        id=f"msg_{turn}",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def called(turn: int, name: str, arguments: dict[str, Any] | str) -> ResponseFunctionToolCall:
    """A function call (``arguments`` as JSON text, or an object to dump), as an output item."""
    return ResponseFunctionToolCall(
        id=f"fc_{turn}",
        call_id=f"call_{turn}",
        type="function_call",
        name=name,
        arguments=arguments if isinstance(arguments, str) else json.dumps(arguments),
        status="completed",
    )


class StreamsItsResponses:
    """Streaming for a scripted model: the reply ``get_response`` would give, as the one
    ``response.completed`` event the SDK's streaming runner reads it from; and a record of
    every input the model was given."""

    def __init__(self) -> None:
        self.inputs: list[list[Any]] = []

    def record(self, input: Any) -> tuple[list[Any], int]:
        """The input as items (recorded) and the turn number it starts."""
        items = input if isinstance(input, list) else [{"role": "user", "content": input}]
        self.inputs.append(list(items))
        return items, len(self.inputs)

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        response = await self.get_response(*args, **kwargs)  # type: ignore[attr-defined]
        usage = response.usage
        details = usage.input_tokens_details
        yield ResponseCompletedEvent(
            type="response.completed",
            sequence_number=0,
            response=Response(
                id=f"resp_{id(response)}",
                created_at=0,
                model="scripted",
                object="response",
                output=response.output,
                parallel_tool_calls=False,
                tool_choice="auto",
                tools=[],
                usage=ResponseUsage.model_validate(
                    {
                        "input_tokens": usage.input_tokens,
                        "input_tokens_details": {
                            "cached_tokens": getattr(details, "cached_tokens", 0) or 0,
                            "cache_write_tokens": 0,
                        },
                        "output_tokens": usage.output_tokens,
                        "output_tokens_details": {
                            "reasoning_tokens": getattr(
                                usage.output_tokens_details, "reasoning_tokens", 0
                            )
                            or 0
                        },
                        "total_tokens": usage.total_tokens,
                    }
                ),
            ),
        )


class ScriptedModel(StreamsItsResponses, Model):
    """No network: a scripted reply to what the input asks."""

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        items, turn = self.record(input)
        last = items[-1]
        if last.get("type") == "function_call_output":
            text = f"Forecast: {json.loads(last['output'])['sky']}."
            output: list[Any] = [said(turn, text)]
        elif "weather" in str(last.get("content", "")).lower():
            output = [called(turn, "get_weather", {"city": "Hangzhou", "day": "Sat"})]
        else:
            output = [said(turn, "Noted.")]
        return ModelResponse(output=output, usage=Usage(), response_id=None)
