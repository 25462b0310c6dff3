"""What a test needs from the machine (a server, a browser, a tool, a second environment):
missing locally, the test skips and says how to get it; missing under ``CI=true``, where
``.ci/run`` installs everything, the test fails, so CI can never pass by skipping."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

__all__ = ["missing", "under_ci"]


def under_ci() -> bool:
    """Whether this run is CI's (``CI=true``)."""
    return os.environ.get("CI", "").lower() == "true"


def missing(what: str) -> NoReturn:
    """Skip the calling test because ``what`` is missing here, or fail it under CI."""
    if under_ci():
        pytest.fail(f"CI=true but {what}")
    pytest.skip(what)
