"""The web page in a real browser: Playwright driving Debian's Chromium headless.

Never downloads a browser: it uses /usr/bin/chromium (scripts/system-deps.sh installs it)
and skips cleanly when that is absent. Screenshots go to a temporary folder, so a test run
leaves the clone as it found it; `bash scripts/screenshots.sh` points CTXMILL_SCREENSHOTS at
docs/screenshots/ to refresh the ones the docs show.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from conftest import SHARED
from test_web_support import make_paper_pdf, serve

CHROMIUM = Path("/usr/bin/chromium")
REPO = Path(__file__).resolve().parents[1]
SHOTS: Path | None = None  # set by the shots_dir fixture below
SAMPLES = REPO / "src" / "ctxmill" / "samples"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not installed (scripts/system-deps.sh)"),
]

CODE = '''"""A tiny module for the search tab."""


def parse_user_record(line):
    """Split one CSV line into a user record."""
    name, email = line.split(",")
    return {"name": name.strip(), "email": email.strip()}
'''


TOPICS = ["Introduction", "Background", "Workload Model", "Method", "Implementation", "Evaluation Setup",
          "Results", "Ablations", "Limitations", "Related Work"]


def paper_pdf(path: Path, pages: int) -> tuple[Path, list[str]]:
    """A paper as LaTeX prints one: a bold 17 pt title, author line, and on every page a
    numbered section heading in 12 pt bold on its own line above 10 pt Times paragraphs.
    Returns the PDF and the headings it prints, in order."""
    from _pdfgen import make_pdf

    body = ("Compilers of technical documents read the page as a reader would, line by line, and "
            "keep the structure that the typesetter printed, which this paragraph describes at length.")
    words = body.split()
    heads, content = [], []
    for p in range(1, pages + 1):
        items, y = [], 72
        if p == 1:
            items += [("A Made-Up Study of Web Compilers", 130, y, 17, "Helvetica-Bold"),
                      ("Ada Example, Example University", 220, y + 26, 11, "Times-Roman")]
            y += 70
        head = f"{p} {TOPICS[(p - 1) % len(TOPICS)]}" + (f" of Part {(p - 1) // len(TOPICS) + 1}" if p > 10 else "")
        heads.append(head)
        items.append((head, 72, y, 12, "Helvetica-Bold"))
        y += 22
        line, k = [], 0
        while y < 720:  # 10 pt lines, 12 pt apart; a blank line between paragraphs
            line.append(words[k % len(words)])
            k += 1
            if len(" ".join(line)) > 88:
                items.append((" ".join(line), 72, y, 10, "Times-Roman"))
                y += 12 if k % 60 else 24
                line = []
        content.append(items)
    return make_pdf(path, content), heads


def sample_file() -> Path | None:
    from ctxmill.web.app import find_sample

    return find_sample()


@pytest.fixture(scope="module", autouse=True)
def shots_dir(tmp_path_factory):
    """Where shot() writes: CTXMILL_SCREENSHOTS (scripts/screenshots.sh sets docs/screenshots),
    else a temporary folder -- tests never rewrite the tracked screenshots."""
    global SHOTS
    SHOTS = Path(os.environ.get("CTXMILL_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    return SHOTS


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A small folder indexed with `ctxmill index`, its database under a temp folder."""
    root = tmp_path_factory.mktemp("code")
    (root / "users.py").write_text(CODE)
    env = {"CTXMILL_INDEX_DIR": str(tmp_path_factory.mktemp("indexdb"))}
    proc = subprocess.run([sys.executable, "-m", "ctxmill.cli", "index", str(root), "--quiet"],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"ctxmill index failed: {proc.stderr}")
    return root, env


@pytest.fixture(scope="module")
def server(indexed):
    root, env = indexed
    with serve("--workers", "2", "--index", str(root), env=env) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser, server):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    # every request the page makes must stay on this server
    outside: list[str] = []
    pg.on("request", lambda r: outside.append(r.url) if not r.url.startswith((server, "data:")) else None)
    pg.goto(server)
    yield pg
    ctx.close()
    assert not errors, errors
    assert not outside, outside


def wait_done(page, timeout=180_000):
    page.wait_for_selector("#job-status.done, #job-status.failed", timeout=timeout)
    status = page.inner_text("#job-status")
    err = page.inner_text("#error") if page.is_visible("#error") else ""
    assert status == "done", err


def shot(page, name, selector=None, max_height=1000):
    """Screenshot the page, or the top (at most max_height px) of one element of it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = str(SHOTS / f"{name}.png")
    if selector is None:
        page.screenshot(path=path)
        return
    x, y, w, h = page.locator(selector).evaluate(
        "e => { const r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }")
    page.screenshot(path=path, full_page=True, clip={"x": x, "y": y, "width": w, "height": min(h, max_height)})


def expected_outputs(path: Path, tmp: Path) -> dict:
    """What the core API writes for the same input and options: the page must show it."""
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document
    from ctxmill.render import write_outputs

    opts = CompileOptions()
    doc = compile_document(path, opts, name=path.name)
    files = write_outputs(doc, tmp / "expected", opts)
    out = {"doc": doc, "files": set(files)}
    out["graph"] = json.loads(files["graph.json"].read_text()) if "graph.json" in files else None
    out["metrics"] = json.loads(files["metrics.json"].read_text()) if "metrics.json" in files else None
    return out


def test_compile_the_preloaded_sample_and_explore_every_tab(page, tmp_path):
    sample = sample_file()
    if sample is None:
        pytest.skip("no sample document in src/ctxmill/samples yet")
    # the text area opens with the sample, editable
    assert page.input_value("#text") == sample.read_text(encoding="utf-8")
    shot(page, "01-input")
    exp = expected_outputs(sample, tmp_path)
    doc = exp["doc"]
    assert doc.metadata.title

    page.click("#compile")
    wait_done(page)
    assert page.locator("#stages li.done").count() >= 8
    # the summary's counts are the ones metrics.json holds
    counts = exp["metrics"]["counts"]
    assert page.inner_text("#stat-sections") == f"{counts['sections']} sections"
    assert page.inner_text("#stat-citations").startswith(f"{counts['citations']} citations")
    shot(page, "02-progress", "#progress")

    # Document: rendered, raw one click away
    assert page.inner_text("#doc-html h1").strip() == doc.metadata.title
    assert page.locator("#doc-html h2").count() >= 1
    shot(page, "03-document", "#results")
    page.click("#md-raw")
    assert page.inner_text("#doc-raw").startswith(f"# {doc.metadata.title}")
    page.click("#md-rendered")

    # Metadata
    page.click('[data-tab="metadata"]')
    assert page.inner_text("#meta-title") == doc.metadata.title
    for author in doc.metadata.authors:
        assert author.name in page.inner_text("#panel-metadata")
    shot(page, "04-metadata", "#results")

    # Sections: one outline entry per section; clicking one jumps to its heading
    page.click('[data-tab="sections"]')
    assert page.locator("#panel-sections li").count() == len(doc.sections)
    shot(page, "05-sections", "#results")
    last = doc.sections[-1]
    page.click(f'#panel-sections li[data-section="{last.id}"] a')
    in_view = "e => { const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; }"
    assert page.locator(f'[id="sec-{last.id}"]').evaluate(in_view)

    # Chunks: browsable, filterable, with tokens / section path / pages
    if "chunks.jsonl" in exp["files"]:
        page.click('[data-tab="chunks"]')
        n = len(doc.chunks)
        assert page.inner_text("#chunk-count") == f"{n} of {n} chunks"
        first = page.locator("#chunk-list .chunk").first
        assert f"{doc.chunks[0].tokens} tokens" in first.inner_text()
        shot(page, "06-chunks", "#results")
        word = doc.sections[-1].title.split()[-1]
        page.fill("#chunk-filter", word)
        want = sum(1 for c in doc.chunks if word.lower() in c.text.lower()
                   or word.lower() in " / ".join(c.section_path).lower()
                   or any(word.lower() in r.lower() for r in c.citations))
        assert page.inner_text("#chunk-count") == f"{want} of {n} chunks"
        page.fill("#chunk-filter", "")

    # Citation graph: node count, click a node to see its callouts
    if exp["graph"]:
        page.click('[data-tab="graph"]')
        nodes, edges = exp["graph"]["nodes"], exp["graph"]["edges"]
        assert page.inner_text("#graph-count") == f"{len(nodes)} nodes, {len(edges)} edges"
        assert page.locator("#graph g.node").count() == len(nodes)
        page.wait_for_selector("#graph[data-settled]", timeout=30_000)
        cited = [n for n in nodes if n["kind"] == "reference"] or [n for n in nodes if n["kind"] == "section"]
        # the most-cited node: count its callouts from the core API's citations
        def callouts(node_id):
            return (sum(node_id in m.reference_ids for m in doc.mentions)
                    + sum(c.target_id == node_id for c in doc.crossrefs))
        best = max(cited, key=lambda n: callouts(n["id"]))
        page.locator(f'#graph g.node[data-id="{best["id"]}"] circle').click()
        k = callouts(best["id"])
        assert page.inner_text("#callout-count") == f"{k} callout{'' if k == 1 else 's'}"
        assert page.locator("#graph-info .callouts li").count() == k
        shot(page, "07-graph", "#results")

    # QA report: score and checks grouped by severity, each linking to its place
    page.click('[data-tab="qa"]')
    assert page.inner_text("#qa-score strong") == str(doc.qa.score)
    for sev in ("error", "warning", "info"):
        n = sum(c.severity == sev for c in doc.qa.checks)
        assert page.text_content(f"#panel-qa .qa-group.{sev} h3") == f"{sev} ({n})"
    shot(page, "08-qa", "#results")
    places = page.locator("#panel-qa a.loc:not(.ref)")
    if places.count():
        places.first.click()
        assert page.is_visible("#panel-document")
        page.click('[data-tab="qa"]')
    refs = page.locator("#panel-qa a.loc.ref")
    if refs.count():
        ref_id = refs.first.inner_text().removeprefix("→ ")
        refs.first.click()
        assert page.is_visible("#panel-graph")
        assert page.locator(f'#graph g.node.selected[data-id="{ref_id}"]').count() == 1
        assert page.inner_text("#graph-info code") == ref_id

    # Speed: one bar per stage
    page.click('[data-tab="speed"]')
    assert page.locator("#speed-chart rect").count() == len(exp["metrics"]["stages"])
    shot(page, "09-speed", "#results")

    # Download the bundle and check its files
    page.click('[data-tab="download"]')
    shot(page, "10-download", "#results")
    if "bundle.zip" in exp["files"]:
        with page.expect_download() as dl:
            page.click("#download-bundle")
        path = tmp_path / "bundle.zip"
        dl.value.save_as(path)
        with zipfile.ZipFile(path) as z:
            names = {Path(n).name for n in z.namelist()}
            assert exp["files"] - {"bundle.zip"} <= names
            md_name = next(n for n in z.namelist() if n.endswith("document.md"))
            assert z.read(md_name).decode().startswith(f"# {doc.metadata.title}")
    else:
        pytest.fail("bundle.zip was not written by the core renderers")


LABEL_BOXES = """() => [...document.querySelectorAll('#graph g.node')].map(g => {
  const t = g.querySelector('text'), r = t.getBoundingClientRect(), c = g.querySelector('circle').getBoundingClientRect();
  return {id: g.dataset.id, text: t.textContent, shown: getComputedStyle(t).display !== 'none' && r.width > 0,
          label: [r.left, r.top, r.right, r.bottom], circle: [c.left, c.top, c.right, c.bottom]};
})"""


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("paper", ["sample", "cvpr-face-bias", "usenix-sec-midas", "dive-into-claude-code"])
def test_graph_labels_every_node_and_its_panel_says_what_it_is(page, paper):
    """At the default zoom every node carries a label that overlaps no other label or node,
    and clicking a node of each kind shows its kind, label and page (never 'null')."""
    if paper != "sample":  # corpus papers with 43, 48 and 109 references (197 nodes)
        pdf = SHARED / "corpus" / ("" if paper == "dive-into-claude-code" else "papers") / paper / "paper.pdf"
        if not pdf.is_file():
            pytest.skip(f"{pdf} is not present")
        page.set_input_files("#file", str(pdf))
    page.click("#compile")
    wait_done(page)
    page.click('[data-tab="graph"]')
    page.wait_for_selector("#graph[data-settled]", timeout=60_000)
    boxes = page.evaluate(LABEL_BOXES)
    assert boxes and all(b["shown"] and len(b["text"].strip()) >= 3 for b in boxes), \
        [b["id"] for b in boxes if not b["shown"] or len(b["text"].strip()) < 3]
    assert not any(b["text"].strip().isdigit() for b in boxes)  # a bare year is not a label
    frame = page.locator("#graph").evaluate("e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }")
    clashes = []
    for i, a in enumerate(boxes):
        assert frame[0] <= a["label"][0] and a["label"][2] <= frame[2] + 1, a  # inside the frame
        for b in boxes[i + 1:]:
            if _overlap(a["label"], b["label"]) or _overlap(a["label"], b["circle"]) or _overlap(b["label"], a["circle"]):
                clashes.append((a["text"], b["text"]))
    assert not clashes, (len(clashes), len(boxes), clashes)
    kinds = {}
    for g in page.locator("#graph g.node").all():
        kinds.setdefault(g.get_attribute("class").split()[1], g.get_attribute("data-id"))
    assert {"document", "section", "reference"} <= set(kinds)
    for kind, node_id in kinds.items():
        page.locator(f'#graph g.node[data-id="{node_id}"] circle').click(force=True)
        assert page.inner_text("#node-kind") == kind
        assert page.inner_text("#node-label").strip()
        where = page.inner_text("#node-page")
        assert where.startswith(("p. ", "pp. ", "listed on p. ")), (kind, where)
        assert "null" not in page.inner_text("#graph-info").replace(node_id, "")
        if kind == "reference":  # its labelled fields (references.json), not only the raw string
            fields = page.inner_text("#ref-fields")
            assert "Authors" in fields or "Title" in fields, fields


def test_upload_a_real_pdf_and_see_46_pages(page, tmp_path):
    """The 46-page sample paper when ../shared has it, else a 46-page paper we print here:
    either way the page must show every page and the paper's outline."""
    paper = SHARED / "corpus" / "dive-into-claude-code" / "paper.pdf"
    heads = None
    if not paper.is_file():
        paper, heads = paper_pdf(tmp_path / "paper.pdf", 46)
    page.set_input_files("#file", str(paper))
    assert page.inner_text("#compile") == "Compile paper.pdf"
    page.click("#compile")
    wait_done(page)
    assert page.inner_text("#stat-pages") == "46 pages compiled"
    # the pages were counted as they were read (the last report stays on the stage)
    assert page.get_attribute('#stages li[data-stage="source"]', "data-pages") == "read:46/46"
    page.click('[data-tab="sections"]')
    outline = page.locator("#panel-sections li a").all_inner_texts()
    if heads is not None:  # our own paper: its outline is exactly the headings it prints
        assert outline == heads
        assert page.inner_text("#stat-sections") == "46 sections"
    else:
        assert len(outline) > 5
    shot(page, "11-pdf-upload", "#results")
    if heads is None:  # the sample paper's nine figures: pictures cropped from its pages, loaded
        page.click('[data-tab="document"]')
        assert_figures_loaded(page, 9)
        fig = page.locator("#doc-html #fig-1")
        fig.scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        fig.screenshot(path=str(SHOTS / "16-paper-figure.png"))  # the element alone: the page is very tall


def assert_figures_loaded(page, at_least: int) -> None:
    imgs = page.locator("#doc-html .figure img")
    assert imgs.count() >= at_least
    page.evaluate("() => document.querySelectorAll('#doc-html .figure img').forEach(i => i.loading = 'eager')")
    page.wait_for_function("n => [...document.querySelectorAll('#doc-html .figure img')]"
                           ".filter(i => i.complete && i.naturalWidth > 100).length >= n", arg=at_least)


def test_figures_are_shown_as_pictures_under_their_captions(page, tmp_path):
    from test_figures import figure_pdf

    page.set_input_files("#file", str(figure_pdf(tmp_path / "figures.pdf")))
    page.check("#opt-fast")
    page.click("#compile")
    wait_done(page)
    assert_figures_loaded(page, 2)
    first = page.locator("#doc-html .figure").first
    assert first.locator(".figcaption").inner_text().startswith("Figure 1: Two boxes drawn as vector paths")
    box = first.locator("img").bounding_box()
    assert box and box["width"] > 200 and box["height"] > 60  # drawn at a readable size
    src = first.locator("img").get_attribute("src")
    assert src.endswith("/files/figures/fig-1.png")
    first.scroll_into_view_if_needed()
    shot(page, "15-figures", "#doc-html", max_height=700)


def test_junk_upload_shows_the_error(page):
    # dropped onto the drop zone, declared as a PDF: the server answers 415
    page.evaluate("""() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['this is not a PDF at all'], 'junk.pdf', {type: 'application/pdf'}));
      document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
    }""")
    assert "junk.pdf" in page.inner_text("#file-chosen")
    page.click("#compile")
    page.wait_for_selector("#error:not([hidden])")
    err = page.inner_text("#error")
    assert err.startswith("This file is named as a PDF but is not one") and "415" not in err
    shot(page, "12-error", "#progress")
    # a PDF that starts right but is cut before its first page: the compile refuses it with a readable reason
    good = make_paper_pdf(3)
    page.set_input_files("#file", files=[{"name": "broken.pdf", "mimeType": "application/pdf",
                                          "buffer": good[:good.index(b"/Type /Pages")]}])
    page.click("#compile")
    page.wait_for_selector("#job-status.failed", timeout=60_000)
    error = page.inner_text("#error")
    assert error.startswith("Refused: ") and "PDF" in error and "\n" not in error
    # and the page still compiles afterwards
    page.click("#clear-file")
    page.fill("#text", "# A Tiny Note\n\n## 1 Intro\n\nSome words here for a paragraph.\n\n"
                       "![Figure 1: elsewhere](http://example.invalid/plot.png)\n")
    page.check("#opt-fast")
    page.click("#compile")
    wait_done(page)
    assert "Some words here for a paragraph." in page.inner_text("#doc-html")
    assert "Figure 1: elsewhere" in page.inner_text("#doc-html")  # and nothing fetched (see the fixture)
    assert page.inner_text("#job-status") == "done" and not page.is_visible("#error")


def test_search_tab_shows_hits_with_line_numbers(page):
    page.click('[data-tab="search"]')
    page.fill("#search-q", "parse user record")
    page.click("#search-form button[type=submit]")
    page.wait_for_selector("#search-hits .hit")
    first = page.locator("#search-hits .hit").first
    head = first.locator("header .path").inner_text()
    assert head.startswith("users.py:")
    start = int(head.split(":")[1].split("-")[0])
    gutter = first.locator(".ln").all_inner_texts()
    assert gutter[0] == str(start)
    assert [int(x) for x in gutter] == list(range(start, start + len(gutter)))
    assert "parse_user_record" in first.inner_text()
    shot(page, "13-search", "#results")


def test_api_docs_render_offline(page, server):
    page.goto(f"{server}/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
    assert "/api/jobs" in page.inner_text(".swagger-ui")
    shot(page, "14-api-docs")


def test_cancel_a_running_job(page, server):
    page.set_input_files("#file", files=[{"name": "long.pdf", "mimeType": "application/pdf",
                                          "buffer": make_paper_pdf(3000)}])
    page.click("#compile")
    page.wait_for_selector("#cancel:not([hidden])")
    job_id = page.get_attribute("#job-status", "data-job")
    page.click("#cancel")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error").startswith("Cancelled")
    assert page.inner_text("#job-status") == "cancelled"
    assert httpx.get(f"{server}/api/jobs/{job_id}").status_code == 404
    assert not page.is_disabled("#compile")


def _drop(page, name: str, js_bytes: str, mime: str = "application/octet-stream") -> None:
    """Drop a File made in the page (``js_bytes`` evaluates to a BlobPart) onto the drop zone."""
    page.evaluate(f"""() => {{
      const dt = new DataTransfer();
      dt.items.add(new File([{js_bytes}], {name!r}, {{type: {mime!r}}}));
      document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {{dataTransfer: dt, bubbles: true, cancelable: true}}));
    }}""")


def test_errors_say_what_the_file_is_and_a_big_file_is_stopped_before_upload(page, server):
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("word/document.xml", "<w:document/>")
    page.set_input_files("#file", files=[{"name": "report.docx", "mimeType": "application/octet-stream",
                                          "buffer": buf.getvalue()}])
    page.click("#compile")
    page.wait_for_selector("#error:not([hidden])")
    err = page.inner_text("#error")
    assert err.startswith("This is a Word document (.docx)") and "save it as PDF" in err and "415" not in err
    # 70 MiB against the server's limit: refused in the page, nothing is sent
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    _drop(page, "huge.pdf", "new Uint8Array(70 * 1024 * 1024)", "application/pdf")
    page.click("#compile")
    msg = page.inner_text("#submit-msg")
    assert "larger than the upload limit" in msg and "nothing was uploaded" in msg
    assert posts == []


@pytest.mark.skipif(not Path("/usr/bin/tesseract").exists(), reason="tesseract is not installed")
def test_a_png_of_a_page_is_read_with_ocr(page):
    from test_ocr import BODY, page_image

    buf = __import__("io").BytesIO()
    page_image("1 Introduction", BODY).save(buf, "PNG", dpi=(200, 200))
    page.set_input_files("#file", files=[{"name": "scan.png", "mimeType": "image/png", "buffer": buf.getvalue()}])
    page.click("#compile")
    wait_done(page)
    assert "scanned pages into clean text" in page.inner_text("#doc-html")


def test_a_reload_reopens_the_job_and_cancel_clears_the_old_results(page, server):
    page.click("#compile")  # the preloaded sample
    wait_done(page)
    title = page.inner_text("#summary .title")
    job_id = page.get_attribute("#job-status", "data-job")
    assert f"job={job_id}" in page.url
    page.reload()
    page.wait_for_selector("#job-status.done")
    assert page.inner_text("#summary .title") == title
    assert page.locator("#recent-list li").count() >= 1
    # a second document, cancelled: the first one's results must not stay on screen
    page.set_input_files("#file", files=[{"name": "long.pdf", "mimeType": "application/pdf",
                                          "buffer": make_paper_pdf(3000)}])
    page.click("#compile")
    page.wait_for_selector("#cancel:not([hidden])")
    page.wait_for_function("() => document.querySelectorAll('#stages li.done').length >= 1", timeout=60_000)
    page.click("#cancel")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#summary") == ""
    assert title not in page.inner_text("#results")
    # the bar keeps where the job stopped (a progress event may land between a read and the
    # click, so it is read once the cancel has taken effect) and moves no further
    width = page.evaluate("() => document.querySelector('#bar-fill').style.width")
    page.wait_for_timeout(1000)
    assert page.evaluate("() => document.querySelector('#bar-fill').style.width") == width != "0%"
    # a job that is gone says so in plain words
    page.goto(f"{server}/?job=0123456789abcdef")
    page.wait_for_selector("#error:not([hidden])")
    assert "no longer on this server" in page.inner_text("#error")


def test_math_is_rendered_as_mathml(page):
    page.fill("#text", "# Notes on a formula\n\n## 1 Model\n\nThe rate is $r_{p,b} \\leftarrow \\frac{h}{t}$ per key.\n\n"
                       "$$\\sum_{i=1}^{n} x_i^2 = 1$$ (1)\n\nThat is all there is to say about the model here.\n")
    page.click("#compile")
    wait_done(page)
    assert page.locator("#doc-html math").count() >= 2
    # drawn by the browser's own MathML engine: real boxes, fractions stacked
    box = page.locator("#doc-html math mfrac").first.bounding_box()
    assert box and box["height"] > 15
    assert page.inner_text("#doc-html .eqno") == "(1)"
    assert page.get_attribute("#doc-html .math.display", "data-latex") == "\\sum_{i=1}^{n} x_i^2 = 1"


def test_a_callout_click_lands_on_its_reference(page):
    page.click("#compile")  # the preloaded sample: 8 references, 10 callouts
    wait_done(page)
    cites = page.locator("#doc-html a.cite")
    assert cites.count() >= 8
    first = cites.first
    href = first.get_attribute("href")
    assert href.startswith("#ref-") and first.get_attribute("title")  # hover shows the entry
    first.click()
    target = page.locator(f"#doc-html {href}")
    page.wait_for_function("id => { const r = document.getElementById(id).getBoundingClientRect(); "
                           "return r.top >= 0 && r.top < innerHeight; }", arg=href[1:])
    entry = target.locator("xpath=..").inner_text()
    assert entry.strip() and entry.strip()[:20] in first.get_attribute("title")


def test_a_new_compile_while_a_reopened_job_loads_raises_no_page_error(page, server):
    page.click("#compile")
    wait_done(page)
    page.reload()  # reopens the finished job: its outputs start loading ...
    page.fill("#text", "# A second note\n\nShort text, compiled at once.\n")
    page.click("#compile")  # ... and a new compile clears them mid-way
    wait_done(page)
    assert page.inner_text("#summary .title") == "A second note"


def held_in_time(page, routes: list, seconds: float = 30) -> bool:
    """Whether a request the test holds (its route appended to ``routes``) came within ``seconds``."""
    deadline = time.monotonic() + seconds
    while not routes and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    return bool(routes)


def test_a_reopen_answered_after_a_new_compile_does_not_take_the_page_back(page, server):
    page.click("#compile")
    wait_done(page)
    job_id = page.get_attribute("#job-status", "data-job")
    held = []  # the reload's request for the finished job, answered only after the new compile
    page.route(f"**/api/jobs/{job_id}", lambda route: held.append(route))
    page.reload()
    assert held_in_time(page, held), "the reload never asked for its job"
    page.fill("#text", "# A second note\n\nShort text, compiled at once.\n")
    page.click("#compile")
    wait_done(page)
    assert page.inner_text("#summary .title") == "A second note"
    held[0].continue_()  # the old job's answer lands now, late
    page.wait_for_timeout(1000)  # time for the late answer to redraw, were it taken
    wait_done(page)
    assert page.inner_text("#summary .title") == "A second note"
    assert page.get_attribute("#job-status", "data-job") != job_id


def test_a_compile_started_while_the_page_loads_is_not_taken_back_by_the_reopen(page, server):
    # a click on Compile right after a reload, before the page's settings have come: the page
    # then reopened the job of the old URL, showing the old document as "done" while the new
    # compile ran (a loaded machine hit it in test_a_new_compile_while_a_reopened_job_loads...)
    page.click("#compile")
    wait_done(page)
    old = page.get_attribute("#job-status", "data-job")
    config, posts, asked = [], [], []
    page.route("**/api/config", lambda route: config.append(route))
    page.route("**/api/jobs", lambda route: posts.append(route) if route.request.method == "POST"
               else route.continue_())
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith(f"/api/jobs/{old}") else None)
    page.reload(wait_until="domcontentloaded")
    assert held_in_time(page, config), "the page never asked for its settings"
    page.fill("#text", "# A second note\n\nShort text, compiled at once.\n")
    page.click("#compile")
    assert held_in_time(page, posts), "the compile was never sent"
    with page.expect_request("**/api/jobs"):  # the page's list of recent jobs, asked right before a reopen
        config[0].continue_()
    page.wait_for_timeout(500)
    assert not asked, "the old job was reopened over the new compile"
    assert page.inner_text("#job-status") != "done"
    posts[0].continue_()
    wait_done(page)
    assert page.inner_text("#summary .title") == "A second note"
    assert page.get_attribute("#job-status", "data-job") != old


GRAPH_FILL = """() => {
  const f = document.querySelector('#graph').getBoundingClientRect();
  const cs = [...document.querySelectorAll('#graph g.node circle')].map(c => c.getBoundingClientRect());
  const x0 = Math.min(...cs.map(r => r.left)), x1 = Math.max(...cs.map(r => r.right));
  const y0 = Math.min(...cs.map(r => r.top)), y1 = Math.max(...cs.map(r => r.bottom));
  return [(x1 - x0) / f.width, (y1 - y0) / f.height];
}"""


def _graph_of(page, pdf: Path | None) -> None:
    if pdf is not None:
        page.set_input_files("#file", str(pdf))
    page.click("#compile")
    wait_done(page)
    page.click('[data-tab="graph"]')
    page.wait_for_selector("#graph[data-settled]", timeout=60_000)


def test_graph_filter_and_search(page):
    """The 197-node sample paper when ../shared has it, else the bundled sample."""
    paper = SHARED / "corpus" / "dive-into-claude-code" / "paper.pdf"
    _graph_of(page, paper if paper.is_file() else None)
    total = page.locator("#graph g.node").count()
    refs = page.locator("#graph g.node.reference").count()
    assert refs >= 5
    # the layout fills the frame: nodes spread over most of its width and height
    wide, tall = page.evaluate(GRAPH_FILL)
    assert wide > 0.8 and tall > 0.6, (wide, tall)
    # sections are labelled in bold, and so are the most-cited references
    assert page.locator("#graph g.node.section.major").count() == page.locator("#graph g.node.section").count()
    assert 1 <= page.locator("#graph g.node.reference.major").count() < refs
    # switch references off in the legend: the graph is drawn again without them
    page.click('#graph-legend button[data-kind="reference"]')
    page.wait_for_selector("#graph[data-settled]", timeout=60_000)
    assert page.locator("#graph g.node.reference").count() == 0
    assert page.locator("#graph g.node").count() == total - refs
    assert page.get_attribute('#graph-legend button[data-kind="reference"]', "aria-pressed") == "false"
    assert page.inner_text("#graph-count").startswith(f"{total - refs} of {total} nodes")
    page.click('#graph-legend button[data-kind="reference"]')
    page.wait_for_selector("#graph[data-settled]", timeout=60_000)
    assert page.locator("#graph g.node").count() == total
    # search by a reference's label: it stays bright, the others dim; Enter opens it
    label = page.locator("#graph g.node.reference.major text").first.text_content()
    word = max(label.replace("[", " ").replace("]", " ").split(), key=len)
    page.fill("#graph-search", word)
    assert page.inner_text("#graph-found").endswith("found") and not page.inner_text("#graph-found").startswith("0")
    assert page.locator("#graph g.node.match").count() >= 1
    assert page.locator("#graph g.node.dim").count() == total - page.locator("#graph g.node.match").count()
    page.press("#graph-search", "Enter")
    assert word.lower() in page.inner_text("#graph-info").lower()
    shot(page, "07-graph", "#panel-graph")
    page.fill("#graph-search", "")
    assert page.locator("#graph g.node.dim").count() == 0


def test_graph_on_a_phone_shows_the_panel_over_it(browser, server):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        pg.goto(server)
        _graph_of(pg, None)
        frame = pg.locator("#graph").bounding_box()
        wide = pg.evaluate("""() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391)
            .slice(0, 40).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))""")
        if frame["width"] > 390 or frame["x"] < 0:  # the page is no wider than the phone
            pytest.fail("wider than the screen: " + " | ".join(wide))
        assert not pg.is_visible("#graph-info")  # no room beside the graph: hidden until a click
        boxes = pg.evaluate(LABEL_BOXES)
        cut = [b for b in boxes if not (frame["x"] - 1 <= b["label"][0] and b["label"][2] <= frame["x"] + frame["width"] + 1)]
        assert not cut, (frame, cut)  # no label cut off at the frame's edges
        pg.locator("#graph g.node.section circle").first.tap(force=True)
        pg.wait_for_selector("#graph-info.open")
        info = pg.locator("#graph-info").bounding_box()
        # over the graph, inside the screen: the bottom of the viewport, not below the fold
        assert info["y"] >= 0 and info["y"] + info["height"] <= 844 + 1 and info["width"] >= 380
        assert pg.inner_text("#node-kind") == "section"
        shot(pg, "17-graph-phone")
        pg.click("#graph-info .close-info")
        assert not pg.is_visible("#graph-info")
    finally:
        ctx.close()
    assert not errors, errors


def test_search_tab_indexes_a_typed_folder_then_searches_it(browser, tmp_path):
    """A server started without --index: the Search tab indexes a folder typed into it, shows
    progress, then searches it."""
    root = tmp_path / "code"
    root.mkdir()
    (root / "users.py").write_text(CODE)
    (root / "notes.md").write_text("# Notes\n\nThe user records come from a CSV export.\n")
    env = {"CTXMILL_INDEX_DIR": str(tmp_path / "indexdb")}
    with serve("--workers", "1", env=env) as url:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        pg = ctx.new_page()
        pg.set_default_timeout(60_000)
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        try:
            pg.goto(url)
            pg.click('[data-tab="search"]')
            assert pg.is_disabled("#search-q") and pg.is_visible("#index-form")
            pg.fill("#index-folder", str(tmp_path / "missing"))
            pg.click("#index-start")
            pg.wait_for_function("() => document.querySelector('#index-progress').textContent.includes('not a folder')")
            pg.fill("#index-folder", str(root))
            pg.click("#index-start")
            pg.wait_for_function("() => !document.querySelector('#search-q').disabled", timeout=120_000)
            note = pg.inner_text("#search-note")
            assert note.startswith(f"Index: {root.resolve()}") and "2 files" in note
            pg.fill("#search-q", "parse user record")
            pg.press("#search-q", "Enter")
            pg.wait_for_selector("#search-hits .hit")
            assert "users.py" in pg.locator("#search-hits .hit .path").first.inner_text()
            shot(pg, "18-search-index", "#panel-search")
        finally:
            ctx.close()
        assert not errors, errors
        # the JSON API reports the finished run
        st = httpx.get(f"{url}/api/index").json()
        assert st["state"] == "done" and st["files_scanned"] == 2
