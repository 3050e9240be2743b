"""The web JSON API against a real `ctxmill serve` on 127.0.0.1 (httpx as the client)."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from test_web_support import SMALL_OCR, make_encrypted_pdf, make_paper_pdf, serve, wait_job

STATIC = Path(__file__).resolve().parents[1] / "src" / "ctxmill" / "web"


@pytest.fixture(scope="module")
def server():
    # 1 MiB upload cap so the 413 test stays small; 4 workers for the concurrency test.
    with serve("--workers", "4", "--max-upload-mb", "1") as url:
        yield url


@pytest.fixture()
def client(server):
    with httpx.Client(base_url=server, timeout=60) as c:
        yield c


def submit_text(client, text=SMALL_OCR, **options):
    data = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()}
    resp = client.post("/api/jobs", files={"file": ("paper.txt", text.encode(), "text/plain")}, data=data)
    assert resp.status_code == 202, resp.text
    return resp.json()


# ------------------------------------------------------------------------------ page and limits


def test_page_and_static_files_fetch_nothing_from_outside(client):
    page = client.get("/")
    assert page.status_code == 200
    assert '<textarea id="text"' in page.text
    for path in ["/static/app.js", "/static/graph.js", "/static/style.css"]:
        assert client.get(path).status_code == 200
    # every src/href of the page and every url() of the CSS is local
    everything = page.text + "".join(p.read_text() for p in (STATIC / "static").iterdir())
    assert not re.search(r"""(src|href)\s*=\s*["']https?://""", everything)
    assert not re.search(r"""url\(\s*["']?https?://|@import""", everything)
    assert not re.search(r"""fetch\(\s*["'`]https?://""", everything)


def test_openapi_documents_the_api(client):
    spec = client.get("/openapi.json").json()
    for path in ["/api/jobs", "/api/jobs/{job_id}", "/api/jobs/{job_id}/events",
                 "/api/jobs/{job_id}/files/{name}", "/api/jobs/{job_id}/bundle", "/api/search"]:
        assert path in spec["paths"], path
    docs = client.get("/docs")
    assert docs.status_code == 200
    # Swagger UI comes from this server, not from a CDN
    assert "/static/swagger/swagger-ui-bundle.js" in docs.text
    assert not re.search(r"""(src|href)\s*=\s*["']https?://""", docs.text)
    assert client.get("/static/swagger/swagger-ui-bundle.js").status_code == 200


def test_page_forbids_loading_from_elsewhere_and_markdown_images_are_not_fetched(client):
    csp = client.get("/").headers["content-security-policy"]
    assert "default-src 'self'" in csp and "connect-src 'self'" in csp
    text = "# Images\n\n## 1 Part\n\nSee ![Figure 1: a plot](http://example.invalid/plot.png) here.\n"
    job = wait_job(client, submit_text(client, text, fast=True)["id"])
    assert job["status"] == "done", job["error"]
    html = client.get(job["links"]["document_html"]).text
    assert "<img" not in html and "example.invalid" not in html
    assert "Figure 1: a plot" in html


def test_upload_over_the_cap_is_413_with_a_clear_message(client):
    big = b"%PDF-1.4\n" + b"0" * (1024 * 1024 + 300 * 1024)
    resp = client.post("/api/jobs", files={"file": ("big.pdf", big, "application/pdf")})
    assert resp.status_code == 413
    assert resp.json()["detail"] == "This file is larger than the upload limit of 1 MiB."

    # a chunked body (no Content-Length) is cut off as well
    def chunks():
        boundary = b"--xyz\r\n"
        yield boundary + b'Content-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n'
        for _ in range(40):
            yield b"a" * 65536
        yield b"\r\n--xyz--\r\n"

    resp = client.post("/api/jobs", content=chunks(), headers={"content-type": "multipart/form-data; boundary=xyz"})
    assert resp.status_code == 413
    assert "1 MiB" in resp.json()["detail"]
    # the server still serves
    assert client.get("/api/health").json()["ok"] is True


def test_non_pdf_bytes_sent_as_pdf_are_415_in_plain_words(client):
    resp = client.post("/api/jobs", files={"file": ("paper.pdf", b"PK\x03\x04 this is a zip, not a PDF", "application/pdf")})
    assert resp.status_code == 415
    assert resp.json()["detail"].startswith("This is a ZIP archive")
    resp = client.post("/api/jobs", files={"file": ("paper.pdf", b"just some words", "application/pdf")})
    assert resp.status_code == 415
    assert resp.json()["detail"].startswith("This file is named as a PDF but is not one")
    # binary junk that is neither a PDF nor text
    resp = client.post("/api/jobs", files={"file": ("x.bin", bytes(range(256)) * 8, "application/octet-stream")})
    assert resp.status_code == 415


def test_empty_and_missing_input_are_400(client):
    assert client.post("/api/jobs", files={"file": ("a.txt", b"  \n", "text/plain")}).status_code == 400
    assert client.post("/api/jobs", data={"fast": "true"}).status_code == 400
    assert client.post("/api/jobs", files={"file": ("a.txt", b"x", "text/plain")}, data={"chunk_tokens": "5"}).status_code == 422


@pytest.mark.parametrize("kind", ["corrupt", "truncated", "encrypted"])
def test_bad_pdf_gives_a_readable_error_and_the_server_keeps_serving(client, kind):
    good = make_paper_pdf(2)
    data = {"corrupt": b"%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage garbage",
            # cut before its first page (a PDF cut later keeps the pages before the cut: below)
            "truncated": good[: good.index(b"endobj", good.index(b"/Type /Pages")) + len(b"endobj")],
            "encrypted": make_encrypted_pdf()}[kind]
    job = client.post("/api/jobs", files={"file": ("bad.pdf", data, "application/pdf")}).json()
    job = wait_job(client, job["id"])
    assert job["status"] == "failed"
    assert job["error_kind"] == "refused"
    assert job["error"] and "\n" not in job["error"]
    if kind == "encrypted":
        assert "encrypt" in job["error"].lower()
    if kind == "truncated":
        assert "truncated" in job["error"]
    assert job["files"] == []
    # the server and its pool still work
    ok = wait_job(client, submit_text(client, fast=True)["id"])
    assert ok["status"] == "done", ok["error"]


def test_a_pdf_cut_after_its_first_page_gives_that_page_and_names_the_rest(client):
    # (round eighteen: a truncated PDF is read as far as it goes, not refused whole)
    good = make_paper_pdf(3)
    job = client.post("/api/jobs", files={"file": ("cut.pdf", good[: len(good) // 2], "application/pdf")}).json()
    job = wait_job(client, job["id"])
    assert job["status"] == "done", job["error"]
    md = client.get(job["links"]["files"]["document.md"]).text
    assert "sentence 0 of page 1" in md
    qa = client.get(job["links"]["files"]["qa.json"]).json()
    codes = json.dumps(qa)
    assert "damaged_page" in codes and "truncated" in codes


def test_an_upload_the_compiler_can_read_is_not_refused_at_the_door(client):
    # a .pdf whose header was overwritten (it still holds its objects), and text whose lines
    # are in different encodings (a UTF-16 line's NULs): `ctxmill compile` reads both, and so
    # must the page (415 before round eighteen's review)
    good = make_paper_pdf(2)
    headless = b"XXXXXXXX" + good[8:]
    job = client.post("/api/jobs", files={"file": ("scan.pdf", headless, "application/pdf")})
    assert job.status_code == 202, job.text
    done = wait_job(client, job.json()["id"])
    assert done["status"] == "done", done["error"]
    assert "sentence 0 of page 1" in client.get(done["links"]["files"]["document.md"]).text
    text = (b"# Mixed Lines\n\nA line of plain prose that is long enough to read.\n"
            + "A line written in UTF-16 here".encode("utf-16-le") + b"\n" + "The end: café\n".encode())
    job = client.post("/api/jobs", files={"file": ("mixed.txt", text, "text/plain")})
    assert job.status_code == 202, job.text
    done = wait_job(client, job.json()["id"])
    assert done["status"] == "done", done["error"]
    assert "written in UTF-16" in client.get(done["links"]["files"]["document.md"]).text
    # binary data is still refused at the door
    assert client.post("/api/jobs", files={"file": ("x.txt", b"\x00\x01\x02garbage\x00" * 100, "text/plain")}).status_code == 415


# ------------------------------------------------------------------------------ jobs and outputs


def test_text_job_streams_progress_and_serves_every_output(client):
    job = submit_text(client)
    assert job["status"] in ("queued", "running")
    events = []
    with client.stream("GET", job["links"]["events"]) as resp:
        assert resp.headers["content-type"].startswith("text/event-stream")
        name = None
        for line in resp.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                events.append((name, json.loads(line[6:])))
                if name == "end":
                    break
    stages = [(d["stage"], d["state"]) for n, d in events if n == "stage"]
    assert ("source", "start") in stages and ("source", "done") in stages
    assert ("write", "done") in stages
    assert stages.index(("metadata", "start")) < stages.index(("metadata", "done"))
    end = events[-1][1]
    assert end["status"] == "done", end["error"]
    assert {"document.md", "metadata.json", "sections.json"} <= set(end["files"])
    assert end["summary"]["pages"] == 1

    meta = client.get(end["links"]["files"]["metadata.json"]).json()
    assert meta["title"] == "Tiny Test Paper About Compilers"
    md = client.get(end["links"]["files"]["document.md"])
    assert md.headers["content-type"].startswith("text/markdown")
    assert "# Tiny Test Paper About Compilers" in md.text
    html = client.get(end["links"]["document_html"]).text
    sections = client.get(end["links"]["files"]["sections.json"]).json()
    assert any(s["title"].endswith("Method") for s in sections)
    method = next(s for s in sections if s["title"].endswith("Method"))
    assert f'id="sec-{method["id"]}"' in html  # the outline and QA can link to it
    assert "data-line=" in html


def test_outputs_are_only_served_by_their_contract_names(client):
    job = wait_job(client, submit_text(client, fast=True)["id"])
    base = f"/api/jobs/{job['id']}/files/"
    for name in ["job.json", "input.txt", "worker.log", "..%2Fjob.json", "..%2F..%2Fetc%2Fpasswd"]:
        assert client.get(base + name).status_code == 404, name
    assert client.get("/api/jobs/0123456789abcdef/files/document.md").status_code == 404


def test_upload_file_names_are_never_used_as_paths(client, tmp_path):
    evil = "../../../../tmp/ctxmill-evil-upload.pdf"
    resp = client.post("/api/jobs", files={"file": (evil, make_paper_pdf(1), "application/pdf")})
    assert resp.status_code == 202
    job = wait_job(client, resp.json()["id"])
    assert not Path("/tmp/ctxmill-evil-upload.pdf").exists()
    assert "/" not in job["name"] and ".." not in job["name"]


def test_fast_mode_skips_chunks_and_graph(client):
    job = wait_job(client, submit_text(client, fast=True)["id"])
    assert job["status"] == "done", job["error"]
    assert "chunks.jsonl" not in job["files"]
    assert "graph.json" not in job["files"]
    assert job["options"]["fast"] is True


def test_four_jobs_run_at_once(client):
    pdf = make_paper_pdf(6)
    ids, errors = [], []

    def post(i):
        try:
            if i % 2:
                r = client.post("/api/jobs", files={"file": (f"p{i}.pdf", pdf, "application/pdf")})
            else:
                r = client.post("/api/jobs", files={"file": (f"p{i}.txt", SMALL_OCR.encode(), "text/plain")})
            assert r.status_code == 202, r.text
            ids.append(r.json()["id"])
        except Exception as exc:  # collected: asserts in threads do not fail the test by themselves
            errors.append(exc)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(ids) == 4
    jobs = [wait_job(client, i, timeout=240) for i in ids]
    assert [j["status"] for j in jobs] == ["done"] * 4, [j["error"] for j in jobs]
    # all four were running at the same moment: each started before any one of them finished
    assert max(j["started"] for j in jobs) < min(j["finished"] for j in jobs)
    assert sorted(j["summary"]["pages"] for j in jobs) == [1, 1, 6, 6]


def test_bundle_download_holds_the_outputs(client):
    job = wait_job(client, submit_text(client, include_source_text=True)["id"])
    assert job["status"] == "done", job["error"]
    if "bundle.zip" not in job["files"]:
        pytest.xfail("bundle renderer has not landed yet")
    resp = client.get(job["links"]["bundle"])
    assert resp.status_code == 200
    assert resp.headers["content-type"] == "application/zip"
    assert "attachment" in resp.headers["content-disposition"]
    names = set(zipfile.ZipFile(io.BytesIO(resp.content)).namelist())
    assert {"document.md", "metadata.json", "sections.json"} <= {Path(n).name for n in names}


def test_delete_job_removes_it(client):
    job = wait_job(client, submit_text(client, fast=True)["id"])
    assert client.delete(f"/api/jobs/{job['id']}").json() == {"deleted": job["id"]}
    assert client.get(f"/api/jobs/{job['id']}").status_code == 404
    assert client.delete(f"/api/jobs/{job['id']}").status_code == 404


def test_search_without_index_says_how_to_get_one(client):
    resp = client.get("/api/search", params={"q": "x"})
    assert resp.status_code == 404
    assert "--index" in resp.json()["detail"]


def test_a_pdf_job_reports_its_pages_as_they_are_read(client):
    resp = client.post("/api/jobs", files={"file": ("long.pdf", make_paper_pdf(46), "application/pdf")},
                       data={"fast": "true"})
    assert resp.status_code == 202, resp.text
    job = wait_job(client, resp.json()["id"])
    assert job["status"] == "done", job
    pages = []
    with client.stream("GET", f"/api/jobs/{job['id']}/events") as sse:  # replayed from the start
        kind = None
        for line in sse.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == "pages":
                ev = json.loads(line[6:])
                pages.append((ev["what"], ev["done"], ev["total"]))
            elif kind == "end":
                break
    # the child reports at most ~10 times a second: a fast machine reads 46 generated pages in two
    # reports (the first range, then the end); what matters is that one comes before the end
    assert len(pages) >= 2 and pages[-1] == ("read", 46, 46), pages
    done = [d for _, d, _ in pages]
    assert done == sorted(done) and done[0] < 46  # page by page, not one report at the end


def test_index_a_folder_from_the_page_refuses_what_is_not_a_folder(client, tmp_path):
    resp = client.post("/api/index", json={"folder": str(tmp_path / "nowhere")})
    assert resp.status_code == 400 and resp.json()["detail"].endswith("is not a folder on this computer.")
    assert client.post("/api/index", json={"folder": "  "}).status_code == 400
    assert client.get("/api/index").json()["state"] == "none"  # nothing started, no search root
    assert client.get("/api/config").json()["index_from_page"] is True


def test_indexing_from_the_page_is_only_for_a_local_client(tmp_path):
    from starlette.testclient import TestClient

    from ctxmill.web.app import create_app

    app = create_app(jobs_root=tmp_path / "jobs", mount_mcp=False)
    with TestClient(app, base_url="http://127.0.0.1") as c:  # its client address is not loopback
        resp = c.post("/api/index", json={"folder": str(tmp_path)})
        assert resp.status_code == 403 and "local server" in resp.json()["detail"]


# ------------------------------------------------------------------------------ job store


def test_a_killed_worker_fails_its_job_only(tmp_path):
    """A hostile input that takes its worker down fails that job; the next job still runs."""
    from ctxmill.web.jobs import JobStore

    store = JobStore(tmp_path / "jobs", workers=2)
    try:
        victim = store.submit(make_paper_pdf(2000), "pdf", {"fast": True}, display_name="big.pdf")
        other = store.submit(SMALL_OCR.encode(), "text", {"fast": True})
        deadline = time.monotonic() + 30
        while victim.proc is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os.killpg(victim.proc.pid, signal.SIGKILL)  # as the kernel would on a memory blow-up
        while not (victim.ended and other.ended) and time.monotonic() < deadline + 60:
            time.sleep(0.1)
        assert victim.status == "failed"
        assert "signal 9" in victim.error and "server is fine" in victim.error
        assert other.status == "done", other.error
        after = store.submit(SMALL_OCR.encode(), "text", {"fast": True})
        while not after.ended and time.monotonic() < deadline + 90:
            time.sleep(0.1)
        assert after.status == "done", after.error
    finally:
        store.close()
    assert not (tmp_path / "jobs" / victim.id).exists()


def test_a_job_past_its_time_limit_is_stopped(tmp_path):
    from ctxmill.web.jobs import JobStore, _descendants

    # A loaded machine may not start the worker's sandbox child within a 1 s limit: then the
    # job times out with no child to stop, which says nothing. Try again with a longer limit
    # and a longer PDF until a child was there. An idle machine compiles ~700 of these pages
    # a second, so each PDF is sized to outlast its limit about twice over; one that still
    # ends in time must have ended inside it (the limit is what is under test).
    for limit, pages in ((1.0, 2000), (2.0, 4000), (4.0, 8000)):
        store = JobStore(tmp_path / f"jobs-{limit:g}", workers=1, job_timeout=limit)
        try:
            job = store.submit(make_paper_pdf(pages), "pdf", {})
            deadline = time.monotonic() + 60
            seen: set[int] = set()  # the worker's children (the PDF sandbox runs in its own session)
            while not job.ended and time.monotonic() < deadline:
                if job.proc is not None and job.proc.poll() is None:
                    seen.update(_descendants(job.proc.pid))
                time.sleep(0.02)
            if job.status == "done":
                assert job.finished - job.started < limit + 0.5, "a job ran past its limit"
                continue
            assert job.status == "failed" and job.error_kind == "timeout", (job.status, job.error)
            assert f"longer than {limit:g} s" in job.error
            if not seen:
                continue
            time.sleep(0.5)
            for pid in seen:  # none of them lives on (a zombie awaiting its reaper is dead)
                try:
                    state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
                except OSError:
                    continue
                assert state == b"Z", f"process {pid} outlived its job"
            return
        finally:
            store.close()
    pytest.fail("no job was stopped at its limit with the PDF sandbox child seen running")


def test_finished_jobs_expire_after_their_lifetime(tmp_path):
    from ctxmill.web.jobs import JobStore

    store = JobStore(tmp_path / "jobs", workers=1, ttl=60, max_jobs=2)
    try:
        jobs = []
        for _ in range(3):
            job = store.submit(SMALL_OCR.encode(), "text", {"fast": True})
            while not job.ended:
                time.sleep(0.05)
            jobs.append(job)
        # max_jobs=2: submitting the third dropped the oldest finished one
        assert store.get(jobs[0].id) is None and not jobs[0].dir.exists()
        assert store.get(jobs[2].id) is not None
        # past the ttl everything finished goes
        assert store.cleanup(now=time.time() + 61) == 2
        assert not jobs[2].dir.exists()
    finally:
        store.close()


def test_serve_refuses_a_missing_index_folder(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ctxmill.cli", "serve", "--index", str(tmp_path / "nope")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "not a folder" in proc.stderr


# ------------------------------------------------------------------------------ search and MCP


def test_search_api_returns_hits_with_lines(tmp_path):
    root = tmp_path / "code"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "users.py").write_text(
        '"""Users."""\n\n\ndef parse_user_record(line):\n    name, email = line.split(",")\n    return name, email\n')
    (root / "notes.md").write_text("# Notes\n\nNothing about parsing here, only gardening and tomatoes.\n")
    env = {"CTXMILL_INDEX_DIR": str(tmp_path / "db")}
    done = subprocess.run([sys.executable, "-m", "ctxmill.cli", "index", str(root), "--quiet"],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with serve("--index", str(root), env=env) as url, httpx.Client(base_url=url, timeout=60) as c:
        assert c.get("/api/config").json()["search"] is True
        body = c.get("/api/search", params={"q": "parse user record", "k": 5}).json()
        top = body["hits"][0]
        assert top["path"] == "pkg/users.py"
        assert top["start_line"] <= 4 <= top["end_line"]
        assert "def parse_user_record" in top["text"]
        only = c.get("/api/search", params={"q": "parse user record", "path": "notes"}).json()["hits"]
        assert all(h["path"].startswith("notes") for h in only)
        assert c.get("/api/search", params={"q": ""}).status_code == 422


def test_mcp_is_mounted_at_mcp(client):
    pytest.importorskip("ctxmill.mcp")
    if not client.get("/api/config").json()["mcp"]:
        pytest.fail("ctxmill.mcp is importable but the server did not mount it")
    resp = client.post("/mcp/", headers={"accept": "application/json, text/event-stream"}, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert resp.status_code == 200
    assert '"serverInfo"' in resp.text


def test_rendered_markdown_escapes_html_and_fetches_no_images():
    from ctxmill.web.app import render_markdown

    md = ("# T\n\n## 2 Method\n\nx <script>alert(1)</script> ![Figure 1: a plot](http://example.invalid/p.png)\n\n"
          "| a | b |\n|---|---|\n| 1 | 2 |\n\nSee $x^2$ and[^1].\n\n[^1]: A note.\n")
    html = render_markdown(md, [{"id": "s2", "level": 2, "number": "2", "title": "Method"}])
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<img" not in html and "example.invalid" not in html
    assert '<span class="img-placeholder" title="image not included">Figure 1: a plot</span>' in html
    assert '<h2 data-line="2" id="sec-s2">2 Method</h2>' in html
    assert "<table" in html and 'class="footnote-ref"' in html
    # math as MathML made on the server (no script, nothing fetched), its LaTeX kept beside it
    assert 'data-latex="x^2"' in html and "<msup><mi>x</mi><mn>2</mn></msup>" in html


def test_display_math_keeps_its_equation_number_and_bad_latex_stays_readable():
    from ctxmill.web.app import render_markdown

    html = render_markdown("$$\\frac{a}{b} = c$$ (3)\n\nand $\\alpha <script>$ here\n", [])
    assert '<span class="eqno">(3)</span>' in html and "<mfrac>" in html and 'display="block"' in html
    assert "<script>" not in html


def test_serve_refuses_a_taken_port():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "ctxmill.cli", "serve", "--port", str(port)],
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"ctxmill: usage: cannot listen on 127.0.0.1:{port}")


def test_llm_settings_reach_the_compile_and_the_key_is_never_stored(client, tmp_path):
    from llm_loopback import Loopback

    key = "sk-web-" + "t3st-k3y-n0t-st0red-91c2"

    def model(body):
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        if system.startswith("You repair"):
            return user
        return "This passage is about compilers."

    with Loopback(answer=model) as loop:
        job = submit_text(client, llm_url=loop.url, llm_model="tiny", llm_max_tokens=16384, llm_api_key=key)
        job = wait_job(client, job["id"])
        requests = list(loop.requests)
    assert job["status"] == "done", job["error"]
    assert "llm" in [s["name"] for s in job["stages"]]
    assert requests and all(r["headers"]["Authorization"] == f"Bearer {key}" for r in requests)
    assert all(b["max_tokens"] == 16384 and b["model"] == "tiny" for b in loop.chat_bodies())
    metrics = client.get(job["links"]["files"]["metrics.json"]).json()
    assert metrics["llm"]["calls"] == len(loop.chat_bodies())
    assert "llm_api_key" not in job["options"] and key not in json.dumps(job)
    for name in job["files"]:
        assert key.encode() not in client.get(job["links"]["files"][name]).content, name


def test_the_api_key_is_not_written_into_the_job_folder(tmp_path):
    from ctxmill.web.jobs import JobStore

    key = "sk-web-" + "f0lder-k3y-31d"
    store = JobStore(tmp_path / "jobs", workers=1)
    try:
        # an endpoint nobody listens on: the compile still finishes without the LLM's help
        job = store.submit(SMALL_OCR.encode(), "text", {"llm_url": "http://127.0.0.1:9/v1", "llm_model": "m"},
                           api_key=key)
        deadline = time.monotonic() + 120
        while not job.ended and time.monotonic() < deadline:
            time.sleep(0.1)
        for path in job.dir.rglob("*"):
            if path.is_file():
                assert key.encode() not in path.read_bytes(), path
    finally:
        store.close()


def test_foreign_host_names_are_refused(client):
    # a page on another site that rebinds its name to 127.0.0.1 cannot read this server
    assert client.get("/api/config", headers={"host": "attacker.example"}).status_code == 400
    assert client.get("/api/config", headers={"host": "localhost"}).status_code == 200


def test_text_can_be_sent_as_a_form_field(client):
    resp = client.post("/api/jobs", data={"text": SMALL_OCR, "fast": "true"})
    assert resp.status_code == 202, resp.text
    job = wait_job(client, resp.json()["id"])
    assert job["status"] == "done", job["error"]
    assert job["kind"] == "text" and job["summary"]["title"] == "Tiny Test Paper About Compilers"


def test_expired_jobs_are_swept_without_new_submissions(tmp_path):
    from ctxmill.web.jobs import JobStore

    store = JobStore(tmp_path / "jobs", workers=1, ttl=1.0)
    try:
        job = store.submit(SMALL_OCR.encode(), "text", {"fast": True})
        deadline = time.monotonic() + 60
        while not job.ended and time.monotonic() < deadline:
            time.sleep(0.05)
        assert job.dir.exists()
        # the sweep runs every second for ttl=1; it drops the record, then removes the folder
        # outside its lock, so the test waits for both (it failed in the gap between them)
        while (store.get(job.id) is not None or job.dir.exists()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert store.get(job.id) is None and not job.dir.exists()
    finally:
        store.close()


def test_callouts_link_to_their_entries_by_position():
    from ctxmill.web.app import link_citations, render_markdown

    md = ("# T\n\n## 1 Intro\n\nAs Lee (2020) showed, and later (Lee, 2020), caching helps.\n\n"
          "Table text mentions Lee only.\n\n## References\n\nLee, A. Caching at the edge. Proc. X, 2020.\n")
    first = md.index("Lee (2020)")
    second = md.index("Lee, 2020")
    mentions = [{"text": "Lee, 2020", "reference_ids": ["ref-1"], "char_span": [second, second + 9]},
                {"text": "Lee (2020)", "reference_ids": ["ref-1"], "char_span": [first, first + 10]},
                {"text": "Nobody, 1999", "reference_ids": [], "char_span": [0, 1]}]
    refs = [{"id": "ref-1", "raw": "Lee, A. Caching at the edge. Proc. X, 2020."}]
    html_doc = link_citations(render_markdown(md, []), md, mentions, refs)
    assert html_doc.count('<a class="cite" href="#ref-1"') == 2
    assert html_doc.count('id="ref-1"') == 1
    assert 'title="Lee, A. Caching at the edge. Proc. X, 2020."' in html_doc
    # the entry's own "Lee, 2020"-like words are not turned into a callout
    assert html_doc.index('id="ref-1"') > html_doc.rindex('class="cite"')


def test_figure_crops_the_job_wrote_become_pictures_and_others_stay_placeholders():
    from ctxmill.web.app import render_markdown

    md = "![Figure 2: a [boxed] plot](figures/fig-2.png)\n\n![Figure 3: gone](figures/fig-3.png)\n"
    html = render_markdown(md, [], "/api/jobs/abc/files/", {"figures/fig-2.png"})
    assert '<img src="/api/jobs/abc/files/figures/fig-2.png" alt="Figure 2: a [boxed] plot"' in html
    assert '<span class="figcaption">Figure 2: a [boxed] plot</span>' in html and 'id="fig-2"' in html
    assert "fig-3.png" not in html and "img-placeholder" in html  # not written by the job: not fetched
