"""The time-travel report: self-contained HTML, checked in headless Chromium against the API.

Chromium and ChromeDriver come from Debian's ``chromium`` and ``chromium-driver`` packages
(``.ci/run`` installs them). Locally without them the browser test skips and says why; under
``CI=true`` it fails instead. The screenshot is kept in ``test-artifacts/``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from eventstore import EventStore
from projections.context.budget import Budget
from projections.demo import run_demo
from projections.demo.run import DEMO_BUDGET, DEMO_SESSION, DEMO_TENANT
from projections.ledger import Ledger
from projections.reports.report import build_report
from tests.conftest import ROOT
from tests.needs import missing
from tests.projections.test_cli import ctxledger

ARTIFACTS = Path(os.environ.get("CTXLEDGER_ARTIFACTS", ROOT / "test-artifacts"))
INJECTION = "</script><script>document.title='owned'</script><img src=x onerror=alert(1)>"


def browser_or_skip() -> tuple[str, str]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (chromium and driver):
        missing("the report test needs Debian's chromium and chromium-driver (apt-get install)")
    return chromium, driver


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


@contextmanager
def chromium() -> Iterator[Any]:
    """A real headless Chromium driven through ChromeDriver."""
    binary, driver_path = browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield browser
    finally:
        browser.quit()


# Every version's context as the page expands it: ids and the token total.
_ALL_CONTEXTS = """
const seen = {};
for (const entry of data.timeline) {
  show(entry[0]);
  const rows = [...document.querySelectorAll('#context-rows tr')];
  seen[entry[0]] = [rows.map((r) => r.dataset.messageId),
                    Number(document.getElementById('context').dataset.tokens)];
}
return seen;
"""


async def api_contexts(
    path: Path, versions: list[int], budget: Budget, session_id: str = DEMO_SESSION
) -> dict[int, tuple[list[str], int]]:
    tenant = DEMO_TENANT if session_id == DEMO_SESSION else "bench"
    async with EventStore.open(path) as store:
        session = Ledger(store).session(tenant, session_id)
        found = {}
        for version in versions:
            rendered = await session.render(budget, at_version=version)
            found[version] = (rendered.manifest.message_ids, rendered.manifest.tokens["total"])
        return found


def screenshot(browser: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / name
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000


def test_browser_shows_every_version_as_the_api_renders_it(demo_db: Path, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    output = tmp_path / "report.html"
    output.write_text(asyncio.run(_report(demo_db)), encoding="utf-8")
    with chromium() as browser:
        browser.get(output.as_uri())
        assert browser.title.startswith("ctxledger report")  # the injection did not run
        items = browser.find_elements(By.CSS_SELECTOR, "#timeline li")
        last = int(items[-1].get_attribute("data-version") or 0)
        context = browser.find_element(By.ID, "context")
        assert context.get_attribute("data-shown-version") == str(last)
        # Select an earlier event: the one before the first summary, when none was served.
        earlier = next(li for li in items if "summary v1 committed" in li.text)
        version = int(earlier.get_attribute("data-version") or 0) - 1
        target = browser.find_element(By.CSS_SELECTOR, f'#timeline li[data-version="{version}"]')
        browser.execute_script("arguments[0].scrollIntoView()", target)
        target.click()
        assert context.get_attribute("data-shown-version") == str(version)
        assert "summary none" in browser.find_element(By.ID, "context-title").text
        screenshot(browser, "report-time-travel.png")
        seen = browser.execute_script(_ALL_CONTEXTS)
    expected = asyncio.run(api_contexts(demo_db, list(range(1, last + 1)), DEMO_BUDGET))
    assert len(seen) == last
    for version, (ids, tokens) in expected.items():
        assert seen[str(version)] == [ids, tokens], f"version {version}"
    served = {ids[i] for ids, _ in expected.values() for i in range(len(ids))}
    assert any(i.startswith("summary:v") for i in served)  # summaries were checked too


def test_chart_timeline_filter_and_links(demo_db: Path, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    output = tmp_path / "report.html"
    output.write_text(asyncio.run(_report(demo_db)), encoding="utf-8")
    with chromium() as browser:
        browser.get(output.as_uri() + "#v40")
        context = browser.find_element(By.ID, "context")
        assert context.get_attribute("data-shown-version") == "40"  # a link opens a version
        labels = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".u-legend .u-label")]
        assert "context tokens (planned)" in labels
        assert "usable budget" in labels
        plot = browser.find_element(By.CSS_SELECTOR, "#tokens-chart .u-over")
        # Hover shows the values under the cursor; a click selects that version.
        ActionChains(browser).move_to_element_with_offset(plot, 0, 0).click().perform()
        # The version under the plot's centre, where the click landed.
        chosen = browser.execute_script(
            "const u = reportChart; return u.data[0][u.posToIdx(u.over.clientWidth / 2)]"
        )
        assert context.get_attribute("data-shown-version") == str(chosen)
        assert chosen != 40
        ActionChains(browser).move_to_element_with_offset(plot, 20, 0).perform()
        values = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".u-legend .u-value")]
        assert any(v.replace(",", "").isdigit() for v in values), values
        # Zoom: a drag narrows the x scale.
        ActionChains(browser).move_to_element_with_offset(
            plot, -200, 0
        ).click_and_hold().move_by_offset(150, 0).release().perform()
        scale = browser.execute_script(
            "return [reportChart.scales.x.min, reportChart.scales.x.max]"
        )
        total = browser.execute_script("return data.timeline.length")
        assert scale[1] - scale[0] < total / 2
        # The timeline filters by event type.
        before = len(browser.find_elements(By.CSS_SELECTOR, "#timeline li:not([hidden])"))
        box = browser.find_element(
            By.CSS_SELECTOR, '#timeline-filters input[value="MessageAppended"]'
        )
        box.click()
        visible = browser.find_elements(By.CSS_SELECTOR, "#timeline li:not([hidden])")
        assert 0 < len(visible) < before
        assert all(li.get_attribute("data-type") != "MessageAppended" for li in visible)
        screenshot(browser, "report-filtered.png")


@pytest.fixture(scope="module")
def big_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.benchmarks.bench_report import build_session

    path = tmp_path_factory.mktemp("report-20k") / "big.db"
    asyncio.run(build_session(path, 20_000, batch=500, compact_every=4))
    return path


def test_report_of_20000_messages_in_chromium(big_session: Path, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    from tests.benchmarks.bench_report import BUDGET, SESSION, TENANT

    output = tmp_path / "big.html"
    result = ctxledger(
        "--db", str(big_session), "report", "--tenant", TENANT, "--session", SESSION,
        "-o", str(output), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    size = json.loads(result.stdout)["bytes"]
    assert size == output.stat().st_size
    assert size < 20_000 * 3_000  # linear: each message once (they are 1-2 KB each)
    with chromium() as browser:
        browser.get(output.as_uri())
        versions = browser.execute_script("return data.timeline.map((e) => e[0])")
        assert len(versions) > 20_000
        context = browser.find_element(By.ID, "context")
        assert context.get_attribute("data-shown-version") == str(versions[-1])
        sample = [versions[i] for i in range(0, len(versions), len(versions) // 12)]
        seen = browser.execute_script(
            "const seen = {}; for (const v of arguments[0]) { show(v); seen[v] = ["
            "[...document.querySelectorAll('#context-rows tr')].map((r) => r.dataset.messageId),"
            "Number(document.getElementById('context').dataset.tokens)]; } return seen;",
            [*sample, versions[-1]],
        )
        screenshot(browser, "report-20000.png")
    expected = asyncio.run(api_contexts(big_session, [*sample, versions[-1]], BUDGET, SESSION))
    for version, (ids, tokens) in expected.items():
        assert seen[str(version)] == [ids, tokens], f"version {version}"
    assert any(any(i.startswith("summary:v") for i in ids) for ids, _ in expected.values())


async def _report(path: Path) -> str:
    async with EventStore.open(path) as store:
        return await build_report(Ledger(store), DEMO_TENANT, DEMO_SESSION)
