"""Checks of the arguments a session's reads take: a value of the wrong type or out of range is
named, with what was expected and what to pass, before anything is read (an
``AttributeError`` or ``IndexError`` from deep inside a render is a bug, not an answer)."""

from __future__ import annotations

from projections.context.budget import Budget
from projections.errors import ConfigurationError

__all__ = ["check_budget", "check_count", "check_recall", "check_text", "check_version"]


def check_budget(budget: object) -> None:
    """``budget`` must be a :class:`Budget`."""
    if not isinstance(budget, Budget):
        hint = "Budget(...)"
        if isinstance(budget, int) and not isinstance(budget, bool):
            hint = f"Budget(context_limit={budget}, max_output_tokens=...)"
        raise ConfigurationError(
            f"budget must be a Budget, got {type(budget).__name__}: pass {hint} "
            f"(from projections.context.budget import Budget)"
        )


def check_count(name: str, value: object, *, least: int = 0, optional: bool = False) -> None:
    """``value`` must be a whole number, ``least`` or more (``keep_groups``, ``k``, a bound);
    ``optional``: None is accepted too."""
    if optional and value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        allowed = f"a whole number >= {least}{' or None' if optional else ''}"
        raise ConfigurationError(f"{name} must be {allowed}, got {value!r}")


def check_version(name: str, value: object) -> None:
    """``value`` must be None or a stream version (or a tenant position), 0 or more."""
    check_count(name, value, optional=True)


def check_text(name: str, value: object) -> None:
    """``value`` must be a string."""
    if not isinstance(value, str):
        raise ConfigurationError(f"{name} must be a string, got {type(value).__name__}")


def check_recall(recall: object) -> None:
    """``recall`` must be True, False or :class:`RecallOptions` (a query goes in the options)."""
    if isinstance(recall, bool):
        return
    from projections.recall.search import RecallOptions

    if isinstance(recall, RecallOptions):
        return
    hint = f"RecallOptions(query={recall!r})" if isinstance(recall, str) else "RecallOptions(...)"
    raise ConfigurationError(
        f"recall must be True, False or RecallOptions, got {type(recall).__name__}: pass {hint} "
        f"(from projections.recall.search import RecallOptions)"
    )
