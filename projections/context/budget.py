"""The token budget of a model call (the seed's definition). Pure: no I/O."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["Budget"]

_DEFAULT_TOOL_RESERVE = 1000
_DEFAULT_SAFETY_MARGIN = 500


class Budget(BaseModel):
    """``usable = context_limit - max_output_tokens - tool_reserve - safety_margin``;
    compaction is due when the input exceeds ``trigger_ratio * usable``."""

    model_config = ConfigDict(frozen=True)

    context_limit: int = Field(gt=0)
    max_output_tokens: int = Field(ge=0)
    tool_reserve: int = Field(default=_DEFAULT_TOOL_RESERVE, ge=0)
    safety_margin: int = Field(default=_DEFAULT_SAFETY_MARGIN, ge=0)
    trigger_ratio: float = Field(default=0.8, gt=0, le=1)

    @model_validator(mode="after")
    def _positive(self) -> Budget:
        if self.usable <= 0:
            raise ValueError(
                f"the budget leaves no room for input: context_limit {self.context_limit} - "
                f"max_output_tokens {self.max_output_tokens} - tool_reserve {self.tool_reserve}"
                f" - safety_margin {self.safety_margin} = {self.usable}; raise context_limit "
                f"or lower the others (tool_reserve and safety_margin default to "
                f"{_DEFAULT_TOOL_RESERVE} and {_DEFAULT_SAFETY_MARGIN}: pass 0 to keep "
                f"nothing back)"
            )
        return self

    @property
    def usable(self) -> int:
        """Tokens available for the rendered input."""
        return self.context_limit - self.max_output_tokens - self.tool_reserve - self.safety_margin

    @property
    def trigger(self) -> int:
        """The input size above which compaction is due."""
        return int(self.trigger_ratio * self.usable)

    def shrunk(self, ratio: float) -> Budget:
        """The same budget with only ``ratio`` (0 < ratio <= 1) of the usable tokens: the room
        a compaction aims for."""
        if not 0 < ratio <= 1:
            raise ValueError(f"ratio must be in (0, 1], got {ratio}")
        room = self.usable - max(1, int(ratio * self.usable))
        return self.model_copy(update={"context_limit": self.context_limit - room})

    def need_compaction(self, input_tokens: int) -> bool:
        """Whether ``input_tokens`` exceeds ``trigger_ratio * usable``."""
        return input_tokens > self.trigger_ratio * self.usable
