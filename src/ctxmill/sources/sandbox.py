"""Parse PDFs in a child process with memory, CPU and wall-clock limits.

A hostile or broken PDF can make a native parser allocate without bound, loop, or crash. The
parent never opens the file itself: it starts ``python -m ctxmill.sources.sandbox``, sends the
request as JSON on stdin, and reads the page stream back as JSON on stdout. The child lowers its
own limits (``RLIMIT_AS``, ``RLIMIT_CPU``) before touching the file; the parent enforces a wall
clock. Any failure becomes :class:`InputRefused` with a one-line reason.

Limits (environment variables, defaults in brackets):

- ``CTXMILL_PDF_MEMORY_MB`` [4096] address space of the child
- ``CTXMILL_PDF_CPU_SECONDS`` [300] CPU seconds of the child
- ``CTXMILL_PDF_TIMEOUT_SECONDS`` [CPU seconds + 60] wall clock
- ``CTXMILL_PDF_MAX_PAGES`` [5000] more pages than this is refused
- ``CTXMILL_PDF_SANDBOX`` [1] set to 0 to parse in-process (debugging only)
"""

from __future__ import annotations

import base64
import contextlib
import gc
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, fields
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.errors import CtxmillError, InputRefused
from ctxmill.model import Line, Link, OutlineEntry, Page, PageStream, Span
from ctxmill.procs import collect_rarely, die_with_parent


def limits() -> dict[str, float]:
    cpu = int(os.environ.get("CTXMILL_PDF_CPU_SECONDS", "300"))
    return {
        "memory_mb": int(os.environ.get("CTXMILL_PDF_MEMORY_MB", "4096")),
        "cpu_seconds": cpu,
        "timeout_seconds": float(os.environ.get("CTXMILL_PDF_TIMEOUT_SECONDS", str(cpu + 60))),
        "max_pages": int(os.environ.get("CTXMILL_PDF_MAX_PAGES", "5000")),
    }


# ------------------------------------------------------------------ compact (de)serialisation


def _r(v):
    if v is None:
        return None
    if len(v) == 4:  # a box: no comprehension's call
        a, b, c, d = v
        return [round(a, 2), round(b, 2), round(c, 2), round(d, 2)]
    return [round(x, 2) for x in v]


def encode_stream(stream: PageStream) -> dict:
    fonts: dict[tuple, int] = {}

    def font_id(s: Span) -> int:
        key = (s.font, s.size, s.bold, s.italic, s.mono)
        if key not in fonts:
            fonts[key] = len(fonts)
        return fonts[key]

    pages = []
    for p in stream.pages:
        lines = []
        for ln in p.lines:
            sp = ln.spans
            if len(sp) == 1 and sp[0].text == ln.text and sp[0].bbox == ln.bbox:
                # (two lines in three of a PDF page) the span's text and box are the line's:
                # sent once, not twice (less to round, write and parse on the critical path)
                spans = [[None, None, font_id(sp[0]), int(sp[0].superscript)]]
            else:
                spans = [[s.text, _r(s.bbox), font_id(s), int(s.superscript)] for s in sp]
            lines.append([ln.text, _r(ln.bbox), ln.confidence, spans])
        pages.append({
            "n": p.number, "w": p.width, "h": p.height, "t": p.has_text_layer, "o": p.ocr,
            "c": p.ocr_confidence, "pn": p.printed_number, "dt": p.declared_total, "iv": p.invisible_chars,
            "er": p.error,
            "im": [list(b) for b in p.images],
            "fg": [{k: v for k, v in f.items() if k != "png"} for f in p.figures],  # pixels follow later
            "lk": [[list(k.bbox), k.uri, k.dest_page, k.dest_name] for k in p.links],
            "l": lines,
        })
    return {
        "kind": stream.kind, "path": stream.path, "sha256": stream.sha256,
        "outline": [asdict(o) for o in stream.outline], "declared_pages": stream.declared_pages,
        "info": stream.info, "input_chars": stream.input_chars, "warnings": stream.warnings,
        "fonts": [list(k) for k in fonts], "pages": pages,
    }


def decode_stream(data: dict) -> PageStream:
    fonts = [tuple(f) for f in data.get("fonts", [])]
    pages = []
    for p in data["pages"]:
        lines = []
        for text, bbox, conf, spans in p["l"]:
            box = tuple(bbox) if bbox else None
            sp = []
            for st, sb, fid, sup in spans:
                name, size, bold, italic, mono = fonts[fid]
                if st is None:  # the line's text and box (encode_stream)
                    st, sbox = text, box
                else:
                    sbox = tuple(sb) if sb else None
                sp.append(Span(text=st, bbox=sbox, size=size, font=name, bold=bold, italic=italic, mono=mono,
                               superscript=bool(sup)))
            lines.append(Line(text=text, bbox=box, spans=sp, confidence=conf))
        pages.append(Page(
            number=p["n"], lines=lines, width=p["w"], height=p["h"],
            links=[Link(bbox=tuple(b), uri=u, dest_page=d, dest_name=dn) for b, u, d, dn in p["lk"]],
            images=[tuple(b) for b in p["im"]], has_text_layer=p["t"], ocr=p["o"], ocr_confidence=p["c"],
            printed_number=p["pn"], declared_total=p["dt"], invisible_chars=p.get("iv", 0), error=p.get("er"),
            figures=p.get("fg", []),
        ))
    return PageStream(
        pages=pages, kind=data["kind"], path=data["path"], sha256=data.get("sha256", ""),
        outline=[OutlineEntry(**o) for o in data["outline"]], declared_pages=data["declared_pages"],
        info=data["info"], input_chars=data["input_chars"], warnings=data["warnings"],
    )


def _options_to_json(options: CompileOptions) -> dict:
    return {f.name: getattr(options, f.name) for f in fields(options)}


# ------------------------------------------------------------------ parent side

# progress(what, done, total) for the pages of the PDF being read ("read") and OCRed ("ocr"),
# set by whoever shows progress (the web worker) around a compile; None: nobody listens, and
# the child does not report
_page_progress: list = [None]


@contextlib.contextmanager
def page_progress(callback):
    """Report the pages of every PDF read inside the block to ``callback(what, done, total)``."""
    old = _page_progress[0]
    _page_progress[0] = callback
    try:
        yield
    finally:
        _page_progress[0] = old



def parse_pdf_sandboxed(path: Path, options: CompileOptions, meanwhile=None) -> PageStream:
    lim = limits()
    if os.environ.get("CTXMILL_PDF_SANDBOX", "1") == "0":
        from ctxmill.compile.figures import crop_pages
        from ctxmill.sources.pdf import discard_repaired, extract, readable

        try:
            stream = extract(path, options, max_pages=lim["max_pages"])
            crop_pages(readable(path), stream.pages)
        finally:
            discard_repaired(path)  # (a copy rebuilt from the file's objects, when one was made)
        return stream
    sink = _page_progress[0]
    request = json.dumps({"path": str(path), "options": _options_to_json(options), "limits": lim,
                          "progress": sink is not None})
    env = child_env()
    proc = _take_child(env)
    deadline = time.monotonic() + lim["timeout_seconds"]
    reader = _Reader(proc, deadline, sink)
    try:
        proc.stdin.write(request.encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass
    try:
        if meanwhile is not None:
            meanwhile()  # the caller's own work, while the child starts and reads (idle time otherwise)
        first = reader.first()
    except BaseException:
        _kill_group(proc)
        raise
    if first is None:  # no reply line: the child died or ran out of time
        if time.monotonic() >= deadline and proc.poll() is None:
            _kill_group(proc)
            raise InputRefused(f"PDF parsing exceeded the {lim['timeout_seconds']:g} s time limit")
        reader.done.wait(max(0.0, deadline - time.monotonic()))
        _kill_group(proc, only_others=True)
        _refuse_failed(proc, reader.stderr_text(), lim)
    try:
        reply = json.loads(first)
    except ValueError:
        _kill_group(proc)
        raise InputRefused("PDF parser returned no readable result") from None
    if "refused" in reply:
        _kill_group(proc)
        raise InputRefused(reply["refused"])
    if "error" in reply:
        _kill_group(proc)
        # an exception in our extraction code is a bug to fix (exit 1), not a verdict on the file
        raise CtxmillError(f"PDF text extraction crashed: {reply['error']}")
    stream = decode_stream(reply["stream"])
    _keep_spare(env)
    if any(p.figures for p in stream.pages):
        stream.figure_pngs = reader.second  # not a dataclass field: a handle on the child still drawing
    else:
        reader.second()
    return stream


def child_env() -> dict:
    """The child's environment: this process's, with this tree's src/ first on PYTHONPATH
    (ctxmill.entry computes the same for the child it starts early; keep the two alike)."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _spawn(env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "ctxmill.sources.sandbox"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=env, start_new_session=True,
    )


# A process that has read two PDFs will likely read more (a server, a batch worker, a benchmark
# loop): from then on one child is started ahead (interpreter up, parser imported, waiting for its
# request on stdin), so the next PDF skips that start (~0.15 s on 2 cores). A one-shot `ctxmill
# compile` reads one PDF and starts no spare. The spare gets its limits with its request, like any
# child, and reads one file only. It is used only by the thread that started it (the kernel's
# die-with-parent signal follows that thread) and only with the same environment.
_spare_lock = threading.Lock()
_spare: list = []  # [(proc, env, thread, pid of this process)], at most one
_reads = {"count": 0, "atexit": False}


def _take_child(env: dict) -> subprocess.Popen:
    with _spare_lock:
        spare = _spare.pop() if _spare else None
        _reads["count"] += 1
    if spare is not None:
        proc, spare_env, thread, pid = spare
        if pid != os.getpid():  # a forked copy of the process that started it: not ours to use or kill
            return _spawn(env)
        if spare_env == env and thread is threading.current_thread() and proc.poll() is None:
            return proc
        _discard(proc)
    return _spawn(env)


def _drop_spare_at_exit() -> None:
    """(under _spare_lock) Stop an unused spare when this process exits; registered once."""
    if not _reads["atexit"]:
        import atexit

        atexit.register(_drop_spare)
        _reads["atexit"] = True


def adopt_spare(proc: subprocess.Popen, env: dict) -> None:
    """Keep ``proc``, a child started as :func:`_spawn` does with ``env`` by this thread (the
    ``ctxmill compile`` command starts one before its own imports), as the spare the next read
    takes: its interpreter start and imports then run beside the parent's. Used only if the
    environment is still ``env`` then (else stopped, as any spare); stopped at exit if unused."""
    with _spare_lock:
        _drop_spare_at_exit()
        if not _spare:
            _spare.append((proc, env, threading.current_thread(), os.getpid()))
            return
    _discard(proc)  # one spare at most


def _keep_spare(env: dict) -> None:
    if _reads["count"] < 2:
        return
    with _spare_lock:
        if _spare:
            return
        _drop_spare_at_exit()
        try:
            _spare.append((_spawn(env), env, threading.current_thread(), os.getpid()))
        except OSError:  # no spare then: the next read starts its own child
            pass


def _drop_spare() -> None:
    with _spare_lock:
        while _spare:
            proc, _, _, pid = _spare.pop()
            if pid == os.getpid():
                _discard(proc)


def _discard(proc: subprocess.Popen) -> None:
    _kill_group(proc)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        with contextlib.suppress(OSError):
            pipe.close()


class _Reader:
    """Reads the child's two reply lines on a thread: the page stream, then the figure crops
    (compile/figures.py), which the child draws while the parent compiles. The thread drains
    both pipes to the end and reaps the child whether or not anyone asks for the crops."""

    def __init__(self, proc: subprocess.Popen, deadline: float, sink=None) -> None:
        self.proc, self.deadline, self.sink = proc, deadline, sink
        self.got_first, self.done = threading.Event(), threading.Event()
        self.lines: list[bytes] = []
        self._err: list[bytes] = []
        self._pngs: dict[str, bytes] | None = None
        threading.Thread(target=self._drain_err, daemon=True).start()
        threading.Thread(target=self._drain_out, daemon=True).start()

    def _drain_err(self) -> None:
        self._err.append(self.proc.stderr.read())

    def _drain_out(self) -> None:
        try:
            for line in iter(self.proc.stdout.readline, b""):
                if line.startswith(b'{"pages":'):  # progress, before the reply: not a reply line
                    if self.sink is not None:
                        with contextlib.suppress(Exception):  # a broken listener must not stop the read
                            self.sink(*json.loads(line)["pages"])
                    continue
                self.lines.append(line)
                self.got_first.set()
        finally:
            self.got_first.set()
            try:
                self.proc.wait(timeout=max(0.1, self.deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            _kill_group(self.proc)
            self.done.set()

    def first(self) -> bytes | None:
        self.got_first.wait(max(0.0, self.deadline - time.monotonic()))
        return self.lines[0] if self.lines else None

    def second(self) -> dict[str, bytes]:
        """{"<page>:<index>": PNG bytes}; empty when the child failed or ran out of time."""
        if self._pngs is None:
            if not self.done.wait(max(0.0, self.deadline - time.monotonic())):
                _kill_group(self.proc)
            self._pngs = {}
            if len(self.lines) > 1:
                with contextlib.suppress(ValueError, TypeError, AttributeError):
                    sent = json.loads(self.lines[1]).get("pngs", {})
                    self._pngs = {k: base64.b64decode(v) for k, v in sent.items()}
        return self._pngs

    def stderr_text(self) -> str:
        return b"".join(self._err).decode("utf-8", "replace")


def _refuse_failed(proc: subprocess.Popen, stderr: str, lim: dict) -> None:
    """The child exited without a reply: say why as a refusal (limits, a crash, a signal)."""
    err = stderr.strip().splitlines()
    last = err[-1] if err else ""
    code = proc.returncode
    if code is not None and code < 0:
        sig = -code
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            raise InputRefused(f"PDF parsing exceeded the {lim['cpu_seconds']} s CPU limit or was killed")
        raise InputRefused(f"PDF parser was stopped by {signal.Signals(sig).name} (out of memory under the "
                           f"{lim['memory_mb']} MB memory limit, or a malformed file)")
    if "MemoryError" in last or "memory" in last.lower():
        raise InputRefused(f"PDF parsing exceeded the {lim['memory_mb']} MB memory limit")
    raise InputRefused(f"PDF parser failed: {last[:200] or 'exit code ' + str(code)}")


def _kill_group(proc: subprocess.Popen, only_others: bool = False) -> None:
    """Kill the child's process group (its page workers too). With only_others, the child has
    exited and only leftovers in its group are removed."""
    try:
        pgid = os.getpgid(proc.pid) if proc.poll() is None else proc.pid
    except ProcessLookupError:
        pgid = proc.pid
    if only_others and proc.poll() is None:
        return
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if not only_others:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    # a copy of the PDF rebuilt from its objects (pdf._rebuilt), which the killed child could not remove
    import glob
    import tempfile

    from ctxmill.sources.pdf import REBUILT_PREFIX

    for left in glob.glob(os.path.join(glob.escape(tempfile.gettempdir()), f"{REBUILT_PREFIX}{proc.pid}-*.pdf")):
        with contextlib.suppress(OSError):
            os.unlink(left)


# ------------------------------------------------------------------ child side


def _apply_limits(lim: dict) -> None:
    import resource

    mem = lim["memory_mb"] * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    except (ValueError, OSError):
        pass
    cpu = lim["cpu_seconds"]
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    except (ValueError, OSError):
        pass
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ValueError, OSError):
        pass


def load_pdf(path: str | Path, options: CompileOptions | None = None, meanwhile=None) -> PageStream:
    """Parse a PDF in a resource-limited child process: the way every caller reads a PDF.
    ``meanwhile()`` runs here while the child reads the file."""
    return parse_pdf_sandboxed(Path(path), options or CompileOptions(), meanwhile)


def _progress_lines(out):
    """Child side: ``{"pages": [what, done, total]}`` lines ahead of the reply, at most ~10 a second."""
    last = [0.0]

    def report(what: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < 0.1:
            return
        last[0] = now
        out.buffer.write(json.dumps({"pages": [what, done, total]}).encode() + b"\n")
        out.flush()

    return report


def _child() -> int:
    die_with_parent()
    # load the parser first (a spare child waits for its request with the parser loaded): the
    # limits are for what the file makes it do
    import concurrent.futures.process  # noqa: F401
    import multiprocessing.connection  # noqa: F401
    import multiprocessing.queues  # noqa: F401

    import pypdfium2  # noqa: F401

    from ctxmill.compile.figures import render
    from ctxmill.sources.pdf import discard_repaired, extract, readable  # (OCR: loaded as pages are read)

    # as the command's own process (entry.main): collect less often while the page workers
    # build and this process gathers, encodes and dumps tens of thousands of objects that are
    # never garbage (default threshold 700: ~0.05 G instructions of collections on the
    # sample); the imported modules frozen out of every later collection, here and in the
    # page workers forked from here
    collect_rarely()
    gc.freeze()
    req = json.loads(sys.stdin.buffer.read())
    _apply_limits(req["limits"])
    try:
        return _answer(req, extract, render, readable)
    finally:
        discard_repaired()  # (a copy rebuilt from the file's objects, when one was made)


def _answer(req: dict, extract, render, readable) -> int:
    out = sys.stdout
    try:
        options = CompileOptions(**req["options"])
        # figure boxes located as each page is read (cheap); their pixels after the reply
        stream = extract(req["path"], options, max_pages=req["limits"]["max_pages"],
                         progress=_progress_lines(out) if req.get("progress") else None, figures=True)
        reply = {"stream": encode_stream(stream)}
    except InputRefused as exc:
        reply = {"refused": str(exc)}
    except MemoryError:
        reply = {"refused": f"PDF parsing exceeded the {req['limits']['memory_mb']} MB memory limit"}
    except (OSError, ImportError) as exc:
        if getattr(exc, "errno", None) == 12 or "map" in str(exc) or "allocate" in str(exc):
            reply = {"refused": f"PDF parsing exceeded the {req['limits']['memory_mb']} MB memory limit"}
        else:
            reply = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]}
    except Exception as exc:  # noqa: BLE001 -- reported to the parent as one line
        if type(exc).__name__ == "PdfiumError":  # the native parser gave up on this file
            reply = {"refused": f"PDF is damaged (the parser failed: {str(exc).strip()[:200]})"}
        else:
            reply = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]}
    # the reply is valid UTF-8 whatever slipped through extraction (clean_text repairs the text;
    # "replace" keeps a stray surrogate in a message from crashing the reply itself)
    out.buffer.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace") + b"\n")
    out.flush()
    if "stream" in reply and any(p.figures for p in stream.pages):
        # second line: the figure crops, drawn while the parent already compiles the stream
        try:
            pngs = {k: base64.b64encode(v).decode("ascii") for k, v in render(readable(req["path"]),
                                                                              stream.pages).items()}
        except Exception as exc:  # noqa: BLE001 -- a crop that fails costs the images, not the document
            pngs, why = {}, f"{type(exc).__name__}: {exc}"[:200]
        else:
            why = None
        out.buffer.write(json.dumps({"pngs": pngs, "error": why}).encode("ascii") + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    _code = _child()
    # the reply is sent: skip the interpreter's shutdown (module teardown and a last full
    # collection of the page stream, ~0.09 G instructions the parent waits out before it has
    # the figure crops), unless a thread is still at work
    from ctxmill.procs import exit_now

    exit_now(_code, run_atexit=False)
    sys.exit(_code)
