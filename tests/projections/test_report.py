"""The time-travel report: self-contained HTML, checked in headless Chromium against the API.

Chromium and ChromeDriver come from Debian's ``chromium`` and ``chromium-driver`` packages
(``.ci/run`` installs them). Locally without them the browser test skips and says why; under
``CI=true`` it fails instead. The screenshot is kept in ``test-artifacts/``.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from pathlib import Path

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.demo import run_demo
from projections.demo.run import DEMO_BUDGET, DEMO_SESSION, DEMO_TENANT
from projections.ledger import Ledger
from projections.reports.report import build_report
from tests.conftest import ROOT
from tests.projections.test_cli import ctxledger

ARTIFACTS = Path(os.environ.get("CTXLEDGER_ARTIFACTS", ROOT / "test-artifacts"))
INJECTION = "</script><script>document.title='owned'</script><img src=x onerror=alert(1)>"


def browser_or_skip() -> tuple[str, str]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium and driver:
        return chromium, driver
    message = "the report test needs Debian's chromium and chromium-driver (apt-get install)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {message}")
    pytest.skip(message)


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "demo.db"
    transcript = asyncio.run(run_demo(path))
    assert transcript["steps"][-1]["step"] == "done"

    async def inject() -> None:
        async with EventStore.open(path) as store:
            session = Ledger(store).session(DEMO_TENANT, DEMO_SESSION)
            await session.append([{"id": "evil", "role": "user", "content": INJECTION}])

    asyncio.run(inject())
    return path


async def api_context(path: Path, version: int, budget: Budget) -> tuple[list[str], int]:
    async with EventStore.open(path) as store:
        session = Ledger(store).session(DEMO_TENANT, DEMO_SESSION)
        rendered = await session.render(budget, at_version=version)
        return rendered.manifest.message_ids, rendered.manifest.tokens["total"]


def test_report_is_self_contained(demo_db: Path, tmp_path: Path) -> None:
    output = tmp_path / "report.html"
    result = ctxledger(
        "--db",
        str(demo_db),
        "report",
        "--tenant",
        DEMO_TENANT,
        "--session",
        DEMO_SESSION,
        "-o",
        str(output),
    )
    assert result.returncode == 0, result.stderr
    page = output.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "default-src 'none'" in page
    assert INJECTION not in page  # escaped wherever it appears
    for section in ("timeline", "context", "summaries", "pins", "tokens-chart"):
        assert f'id="{section}"' in page or f"id='{section}'" in page
    missing = ctxledger(
        "--db",
        str(demo_db),
        "report",
        "--tenant",
        DEMO_TENANT,
        "--session",
        "nope",
        "-o",
        str(tmp_path / "x.html"),
    )
    assert missing.returncode == 2
    assert "has no session 'nope'" in missing.stderr


def test_browser_shows_the_context_the_api_returns(demo_db: Path, tmp_path: Path) -> None:
    chromium, driver_path = browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    html = asyncio.run(_report(demo_db))
    output = tmp_path / "report.html"
    output.write_text(html, encoding="utf-8")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        browser.get(output.as_uri())
        assert browser.title.startswith("ctxledger report")  # the injection did not run
        items = browser.find_elements(By.CSS_SELECTOR, "#timeline li")
        last = int(items[-1].get_attribute("data-version") or 0)
        context = browser.find_element(By.ID, "context")
        assert context.get_attribute("data-shown-version") == str(last)
        # Select an earlier event: the first model call after the budget was crossed, before
        # any summary existed.
        earlier = next(li for li in items if "summary v1 committed" in li.text)
        version = int(earlier.get_attribute("data-version") or 0) - 1
        target = browser.find_element(By.CSS_SELECTOR, f'#timeline li[data-version="{version}"]')
        browser.execute_script("arguments[0].scrollIntoView()", target)
        target.click()
        assert context.get_attribute("data-shown-version") == str(version)
        shown_ids = [
            row.get_attribute("data-message-id")
            for row in browser.find_elements(By.CSS_SELECTOR, "#context-rows tr")
        ]
        shown_tokens = int(context.get_attribute("data-tokens") or -1)
        expected_ids, expected_tokens = asyncio.run(api_context(demo_db, version, DEMO_BUDGET))
        assert shown_ids == expected_ids
        assert shown_tokens == expected_tokens
        assert "summary none" in browser.find_element(By.ID, "context-title").text
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shot = ARTIFACTS / "report-time-travel.png"
        assert browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
    finally:
        browser.quit()


async def _report(path: Path) -> str:
    async with EventStore.open(path) as store:
        return await build_report(Ledger(store), DEMO_TENANT, DEMO_SESSION)
