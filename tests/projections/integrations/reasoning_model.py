"""A deterministic reasoning model through the Agents SDK's ``Model`` interface: like an o-series
or gpt-5 model it returns reasoning items and a hosted web search beside its tool call, and it
reports usage, so a session must keep all of it and pass it back."""

from __future__ import annotations

import json
from typing import Any

from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionWebSearch,
    ResponseReasoningItem,
)
from openai.types.responses.response_function_web_search import ActionSearch
from openai.types.responses.response_reasoning_item import Summary
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

from tests.projections.integrations.fake_model import StreamsItsResponses, called, said


class ReasoningModel(StreamsItsResponses, Model):
    """Scripted; records every input it was given; streams as well (one completed event)."""

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        items, turn = self.record(input)
        reasoning = ResponseReasoningItem(
            id=f"rs_{turn}",
            type="reasoning",
            summary=[Summary(type="summary_text", text=f"thinking, step {turn}")],
            encrypted_content=f"enc-{turn}-" + "z" * 200,
        )
        output: list[Any] = [reasoning]
        if items[-1].get("type") == "function_call_output":
            text = f"Forecast: {json.loads(items[-1]['output'])['sky']}."
            output.append(said(turn, text))
        elif "weather" in str(items[-1].get("content", "")).lower():
            output += [
                ResponseFunctionWebSearch(
                    id=f"ws_{turn}",
                    type="web_search_call",
                    status="completed",
                    action=ActionSearch(type="search", query="Hangzhou weather"),
                ),
                called(turn, "get_weather", {"city": "Hangzhou", "day": "Sat"}),
            ]
        else:
            output.append(said(turn, "Noted."))
        usage = Usage(
            requests=1,
            input_tokens=100 * turn,
            input_tokens_details=InputTokensDetails(cached_tokens=10 * turn, cache_write_tokens=0),
            output_tokens=7,
            output_tokens_details=OutputTokensDetails(reasoning_tokens=3),
            total_tokens=100 * turn + 7,
        )
        return ModelResponse(output=output, usage=usage, response_id=None)
