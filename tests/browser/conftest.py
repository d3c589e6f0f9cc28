"""One headless Chromium (Debian's ``/usr/bin/chromium``) per test session, driven by
Playwright for Python; and ``open_page``, which writes a page under the test's tmp dir
and loads it from ``file://`` with every request and console error recorded.

The browser never reaches the network: every request that is not ``file://`` is
recorded and aborted. The tests skip, with the reason, when Chromium or Playwright is
missing; under CI (``CI`` set) they fail instead, since ``.ci/run`` installs both and a
silent skip would hide a missing install step.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Route

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run"]
SCREENSHOTS = Path(os.environ.get("REPLAY_SCREENSHOTS") or
                   Path(tempfile.gettempdir()) / f"replay-screenshots-{os.getuid() if hasattr(os, 'getuid') else 0}")
"""Where the screenshots are copied for a human to look at (``REPLAY_SCREENSHOTS``, else a
folder of this user's in the temporary folder: two users' suites never share one)."""


def _missing() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is absent (apt-get install -y chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install -e '.[test]'; never `playwright install`)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    missing = _missing()
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests cannot run under CI: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Loaded:
    """A page loaded from ``file://``, with what it asked for and what it complained about."""

    page: Page
    url: str
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Console errors (CSP violations among them) and uncaught exceptions."""

    @property
    def foreign_requests(self) -> list[str]:
        return [url for url in self.requests if url != self.url]


Opener = Callable[..., Loaded]


@pytest.fixture
def open_page(browser: Browser, tmp_path: Path) -> Iterator[Opener]:
    contexts: list[BrowserContext] = []

    def opener(html: str, *, width: int = 1280, height: int = 800, scale: float = 1, name: str = "page.html") -> Loaded:
        path = tmp_path / name
        path.write_text(html, encoding="utf-8")
        context = browser.new_context(viewport={"width": width, "height": height}, offline=True,
                                      reduced_motion="reduce", color_scheme="light",
                                      device_scale_factor=scale)
        contexts.append(context)

        def refuse(route: Route) -> None:
            route.abort("blockedbyclient")

        context.route(lambda url: not url.startswith("file:"), refuse)
        page = context.new_page()
        loaded = Loaded(page, path.as_uri())

        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error":
                loaded.errors.append(message.text)

        page.on("request", lambda request: loaded.requests.append(request.url))
        page.on("console", on_console)
        page.on("pageerror", lambda error: loaded.errors.append(f"pageerror: {error}"))
        page.goto(loaded.url)
        return loaded

    yield opener
    for context in contexts:
        context.close()


def keep_screenshot(path: Path) -> Path:
    """Print a screenshot's path and copy it to ``SCREENSHOTS`` for a human to look at."""
    kept = SCREENSHOTS / path.name
    try:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, kept)
    except OSError as exc:  # a convenience for a person: never a failed test
        print(f"screenshot: {path} (not copied to {SCREENSHOTS}: {exc})")
        return path
    print(f"screenshot: {path} (copy: {kept})")
    return kept
