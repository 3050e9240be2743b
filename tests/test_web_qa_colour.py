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


def test_repeated_findings_are_one_line_and_an_error_turns_the_chip_red(page):  # noqa: F811
    page.fill("#text", "# A Note\n\n## 1 Alpha\n\nOne line.\n\n## 2 Beta\n\nTwo lines.\n\n"
                       "## 3 Gamma\n\nThree.\n\n## 4 Delta\n\nFour.\n")
    page.click("#compile")
    wait_done(page)
    chip = page.locator("#stat-qa")
    assert "bad" in chip.get_attribute("class") and chip.inner_text().endswith("· 1 error")
    page.click('[data-tab="qa"]')
    rep = page.locator('#panel-qa .qa-repeated[data-id="short_section"]')
    assert rep.count() == 1  # four short sections: one line with a count
    assert "×4" in rep.locator("summary").inner_text()
    assert not rep.locator("ul li").first.is_visible()
    rep.locator("summary").click()  # its places fold out
    assert rep.locator("ul li").count() == 4 and rep.locator("ul li").first.is_visible()
    assert page.locator("#panel-qa .qa-group.info > ul > li").count() == 2  # short_section x4, text_kept
