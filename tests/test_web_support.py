"""Helpers for the web tests (no tests here): a real `ctxmill serve` process, PDFs we write."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
import zlib
from contextlib import contextmanager
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]


@contextmanager
def serve(*args: str, timeout: float = 60.0, env: dict | None = None):
    """Start `ctxmill serve --port 0 ARGS` on 127.0.0.1 and yield its base URL."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxmill.cli", "serve", "--host", "127.0.0.1", "--port", "0", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env,
        cwd=REPO,
    )
    try:
        deadline = time.monotonic() + timeout
        url = None
        while time.monotonic() < deadline and url is None:
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if ready:
                line = proc.stdout.readline()
                if not line:
                    break
                if "serving on " in line:
                    url = line.split("serving on ", 1)[1].split()[0].rstrip("/")
            if proc.poll() is not None:
                break
        if url is None:
            raise RuntimeError(f"ctxmill serve did not start: {proc.stderr.read() if proc.poll() is not None else ''}")
        yield url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdout, proc.stderr):
            stream.close()


def wait_job(client: httpx.Client, job_id: str, timeout: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["status"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish in {timeout} s")


def _pdf(objects: list[bytes], trailer_extra: bytes = b"") -> bytes:
    """Assemble numbered objects (1..n, object 1 the catalog) with a correct xref table."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R ".encode() + trailer_extra
    out += f">>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def make_pdf(pages: list[list[str]]) -> bytes:
    """A real text-layer PDF (Helvetica, A4): one list of lines per page."""
    n = len(pages)
    # 1 catalog, 2 pages, 3 font, then (page, content) pairs
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for i, lines in enumerate(pages):
        ops = [b"BT"]
        y = 780
        for j, line in enumerate(lines):
            size = 16 if j == 0 and i == 0 else 11
            ops.append(f"/F1 {size} Tf 1 0 0 1 72 {y} Tm".encode() + b" (" + _escape(line) + b") Tj")
            y -= 24 if size == 16 else 15
        ops.append(b"ET")
        stream = zlib.compress(b"\n".join(ops))
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode() + stream + b"\nendstream")
    return _pdf(objects)


def make_paper_pdf(pages: int) -> bytes:
    """A small paper-like PDF of `pages` pages: a title, numbered sections, paragraphs."""
    content = []
    for p in range(1, pages + 1):
        lines = []
        if p == 1:
            lines += ["A Made-Up Study of Web Compilers", "Ada Example, Example University", ""]
        lines.append(f"{p} Section Number {p}")
        for k in range(12):
            lines.append(f"This is sentence {k} of page {p}, which talks about compilers and pages in general.")
        content.append(lines)
    return make_pdf(content)


def make_encrypted_pdf() -> bytes:
    """A PDF whose trailer declares the standard security handler with an unknown user password."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
        b"<< /Filter /Standard /V 1 /R 2 /O <" + b"11" * 32 + b"> /U <" + b"22" * 32 + b"> /P -4 >>",
    ]
    doc_id = b"<" + b"ab" * 16 + b">"
    return _pdf(objects, b"/Encrypt 4 0 R /ID [" + doc_id + b" " + doc_id + b"] ")


SMALL_OCR = """Tiny Test Paper About Compilers

Ada Example

Abstract

We describe a tiny document used by the web tests.

1 Introduction

Compilers turn sources into outputs (Example, 2024). This paragraph is long enough to be a paragraph.

2 Method

We compile pages, and the method is described here in a few plain sentences for the test.

References

Example, A. (2024). A study of examples. Journal of Tests.
"""
