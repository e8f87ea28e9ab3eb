"""Headless Chromium for the viewer's browser tests and benchmark: Debian's `chromium` and
`chromium-driver`, driven by Selenium (a dev dependency), started so it reaches nothing.

The flags keep Chromium off the network it cannot reach here (background networking,
component updates, sync, QUIC); it runs without a GPU and, as root, without a sandbox,
in a fresh profile that is removed on close. Selenium is given both paths, so Selenium
Manager never looks for, or downloads, a browser or a driver.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1400,1000")


def chromium_paths() -> tuple[str | None, str | None]:
    """(browser, driver); $CITELOOP_CHROMIUM / $CITELOOP_CHROMEDRIVER override the PATH lookup."""
    browser = os.environ.get("CITELOOP_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver = os.environ.get("CITELOOP_CHROMEDRIVER") or shutil.which("chromedriver")
    return browser, driver


def missing() -> list[str]:
    """What a browser session lacks here (empty when one can start)."""
    browser, driver = chromium_paths()
    out = [name for name, path in (("chromium", browser), ("chromedriver", driver)) if not path]
    try:
        import selenium  # noqa: F401
    except ImportError:
        out.append("selenium")
    return out


@contextmanager
def chromium() -> Iterator[Any]:
    """A Selenium Chrome driver on headless Chromium; browser console logs are kept."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = chromium_paths()
    if not browser or not driver_path:
        raise RuntimeError(f"headless Chromium needs {', '.join(missing())}")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="citeloop-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
