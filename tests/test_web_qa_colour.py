"""The page shows QA in the colour of its verdict: a failed compile is red, not the calm grey
of a good one (issue 13). Real browser, real server (fixtures of test_web_browser)."""

from __future__ import annotations

from test_web_browser import browser, indexed, page, pytestmark, server, shots_dir, wait_done  # noqa: F401


def test_a_failed_compile_is_red(page):  # noqa: F811
    page.fill("#text", "hello world")
    page.click("#compile")
    wait_done(page)
    stat = page.locator("#stat-qa")
    assert stat.inner_text().startswith("QA ") and "bad" in stat.get_attribute("class")
    page.click('[data-tab="qa"]')
    assert "bad" in page.locator("#qa-score").get_attribute("class")
    assert "too_little_text" in page.inner_text("#panel-qa")


def test_a_good_compile_is_green(page):  # noqa: F811
    page.click("#compile")  # the text area opens with the bundled sample
    wait_done(page)
    assert "good" in page.locator("#stat-qa").get_attribute("class")
