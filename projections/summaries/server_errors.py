"""What went wrong when a chat-completions server failed a call, in words a user can act on
(the ``openai`` client's exception names alone, ``APIConnectionError``, say nothing of the
URL or the fix). Never includes the API key."""

from __future__ import annotations

__all__ = ["server_failure"]

_STATUS_ADVICE = {
    401: "the key was refused: set OPENAI_API_KEY to a key this server accepts",
    403: "the key may not use this model or endpoint",
    404: "no such endpoint or model: the base URL usually ends in /v1; check the model name",
    429: "the server is rate-limiting or out of quota: wait and retry",
}


def server_failure(error: Exception, base_url: str, who: str) -> str:
    """A sentence for ``error`` raised by the ``openai`` client calling ``base_url`` as
    ``who`` ("the summarizer server", "the answer model")."""
    import openai

    name = type(error).__name__
    if isinstance(error, openai.APITimeoutError):
        return f"{who} at {base_url} did not answer in time ({name}); retry, or raise the timeout"
    if isinstance(error, openai.APIConnectionError):
        cause = error.__cause__ or error.__context__
        reason = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        return (
            f"could not reach {who} at {base_url} ({name}{reason}); check the base URL and "
            f"that the server is running"
        )
    if isinstance(error, openai.APIStatusError):
        advice = _STATUS_ADVICE.get(error.status_code, "see the server's message")
        return f"{who} at {base_url} answered HTTP {error.status_code} ({name}): {advice}"
    return f"{name} from {who} at {base_url}"
