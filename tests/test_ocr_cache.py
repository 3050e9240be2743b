"""The OCR result cache (sources/ocr_cache.py): real Tesseract on small pages these tests draw.

A scanned PDF compiled again reads each page's hOCR from the cache instead of the engine and gives
the same document; a changed engine setting or page image misses; a damaged entry is ignored and
written anew; the cache can be turned off; writes are atomic and the folder stays under its bound.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ctxmill.compile.options import CompileOptions
from ctxmill.sources import ocr, ocr_cache

needs_tesseract = pytest.mark.skipif(ocr.tesseract_command() is None, reason="tesseract is not installed")

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"


def _scan(path: Path, lines: list[str], dpi: int = 200) -> Path:
    """A half-letter image-only PDF (what a scanner writes) with ``lines`` of text."""
    from PIL import Image, ImageDraw, ImageFont

    k = dpi / 72.0
    img = Image.new("L", (int(396 * k), int(306 * k)), 255)
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, int(11 * k)) if Path(FONT).is_file() else ImageFont.load_default(int(11 * k))
    y = 40 * k
    for line in lines:
        draw.text((40 * k, y), line, font=font, fill=0)
        y += 16 * k
    img.save(str(path), "PDF", resolution=float(dpi))
    return path


LINES = ["Scanned pages are read once.", "A second compile takes the reading", "from the cache on disk."]


@pytest.fixture
def engine_calls(monkeypatch, tmp_path):
    """OCR in this process (no sandbox child), every engine reading counted; the cache in tmp_path."""
    monkeypatch.setenv("CTXMILL_PDF_SANDBOX", "0")
    monkeypatch.setenv("CTXMILL_OCR_CACHE", str(tmp_path / "cache"))
    calls: list[int] = []
    api_hocr, cli_hocr = ocr.TesseractEngine.hocr, ocr.PageReader.read_hocr

    def counted_api(self, image, dpi, timeout):
        calls.append(dpi)
        return api_hocr(self, image, dpi, timeout)

    def counted_cli(self, image, dpi, timeout):
        calls.append(dpi)
        return cli_hocr(self, image, dpi, timeout)

    monkeypatch.setattr(ocr.TesseractEngine, "hocr", counted_api)
    monkeypatch.setattr(ocr.PageReader, "read_hocr", counted_cli)
    return calls


def _compile(path: Path, **kw):
    from ctxmill.compile.pipeline import compile_document

    return compile_document(path, CompileOptions(**kw))


def _entries(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.z"))


@needs_tesseract
def test_second_compile_reads_the_cache_and_gives_the_same_document(tmp_path, engine_calls):
    pdf = _scan(tmp_path / "scan.pdf", LINES)
    first = _compile(pdf)
    assert "Scanned pages are read once." in first.markdown
    assert len(engine_calls) == 1 and len(_entries(tmp_path / "cache")) == 1
    second = _compile(pdf)
    assert len(engine_calls) == 1  # the engine was not asked again
    assert second.markdown == first.markdown
    assert [ln.text for ln in second.stream.pages[0].lines] == [ln.text for ln in first.stream.pages[0].lines]
    assert [ln.bbox for ln in second.stream.pages[0].lines] == [ln.bbox for ln in first.stream.pages[0].lines]


@needs_tesseract
def test_a_changed_setting_or_page_misses(tmp_path, engine_calls, monkeypatch):
    pdf = _scan(tmp_path / "scan.pdf", LINES)
    _compile(pdf)
    assert len(engine_calls) == 1
    monkeypatch.setenv("CTXMILL_OCR_DPI", "150")  # another render: other pixels
    _compile(pdf)
    assert engine_calls == [200, 150]
    monkeypatch.setenv("CTXMILL_OCR_DPI", "200")
    other = ocr.TesseractEngine(lang="deu") if _has_lang("deu") else None
    if other is not None:  # another language is another engine identity
        monkeypatch.setenv("CTXMILL_OCR_LANG", "deu")
        _compile(pdf)
        assert len(engine_calls) == 3
        monkeypatch.setenv("CTXMILL_OCR_LANG", "eng")
    _compile(_scan(tmp_path / "other.pdf", [*LINES, "One more line."]))  # another page
    assert len(engine_calls) == (4 if other is not None else 3)
    _compile(pdf)  # and the first reading is still there
    assert len(engine_calls) == (4 if other is not None else 3)


def _has_lang(lang: str) -> bool:
    try:
        return ocr._tessdata_dir(ocr.tesseract_command(), [lang]) is not None
    except Exception:  # noqa: BLE001
        return False


@needs_tesseract
def test_a_damaged_entry_is_ignored_and_written_again(tmp_path, engine_calls):
    pdf = _scan(tmp_path / "scan.pdf", LINES)
    first = _compile(pdf)
    (entry,) = _entries(tmp_path / "cache")
    good = entry.read_bytes()
    entry.write_bytes(good[: len(good) // 2])  # cut short, as a full disk would
    again = _compile(pdf)
    assert len(engine_calls) == 2 and again.markdown == first.markdown
    assert entry.read_bytes() == good  # written anew
    body = bytearray(good)
    body[-3] ^= 0xFF  # one flipped byte in the compressed hOCR
    entry.write_bytes(bytes(body))
    assert _compile(pdf).markdown == first.markdown and len(engine_calls) == 3
    entry.write_bytes(b"not an entry at all")
    assert _compile(pdf).markdown == first.markdown and len(engine_calls) == 4
    assert entry.read_bytes() == good


@needs_tesseract
def test_the_cache_turned_off_reads_with_the_engine_and_writes_nothing(tmp_path, engine_calls, monkeypatch):
    pdf = _scan(tmp_path / "scan.pdf", LINES)
    _compile(pdf, ocr_cache=False)
    _compile(pdf, ocr_cache=False)
    assert len(engine_calls) == 2 and not (tmp_path / "cache").exists()
    monkeypatch.setenv("CTXMILL_OCR_CACHE", "off")
    _compile(pdf)
    assert len(engine_calls) == 3 and not (tmp_path / "cache").exists()


@needs_tesseract
def test_the_command_line_flag_turns_it_off_and_the_sandboxed_compile_uses_it(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from ctxmill.cli import main

    monkeypatch.setenv("CTXMILL_OCR_CACHE", str(tmp_path / "cache"))
    pdf = _scan(tmp_path / "scan.pdf", LINES)
    runner = CliRunner()
    r = runner.invoke(main, ["compile", str(pdf), "-o", str(tmp_path / "a"), "--no-ocr-cache"])
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "cache").exists()
    r = runner.invoke(main, ["compile", str(pdf), "-o", str(tmp_path / "b")])  # the sandbox child writes it
    assert r.exit_code == 0, r.output
    assert len(_entries(tmp_path / "cache")) == 1
    r = runner.invoke(main, ["compile", str(pdf), "-o", str(tmp_path / "c")])
    assert r.exit_code == 0, r.output
    md = [(tmp_path / d / "document.md").read_text() for d in "abc"]
    assert md[0] == md[1] == md[2] and "read once" in md[0]


def _array(seed: int):
    import numpy as np

    return np.random.default_rng(seed).integers(0, 255, (40, 60), dtype=np.uint8)


def test_key_names_image_dpi_and_identity(tmp_path):
    a = ocr_cache.OcrCache(tmp_path, "tesseract|5.5|lang=eng")
    b = ocr_cache.OcrCache(tmp_path, "tesseract|5.5|lang=deu")
    img = _array(1)
    assert a.key(img, 200) == a.key(img.copy(), 200)
    assert a.key(img, 200) != a.key(img, 150) != b.key(img, 200)
    assert a.key(img, 200) != a.key(_array(2), 200)
    assert a.key(img, 200) != a.key(img.reshape(60, 40), 200)  # same bytes, another shape
    assert a.key(img[:, :30], 200) == a.key(img[:, :30].copy(), 200)  # a view hashes as its pixels


def test_a_write_cut_short_leaves_no_entry(tmp_path, monkeypatch):
    cache = ocr_cache.OcrCache(tmp_path, "x")
    key = cache.key(_array(1), 200)

    def killed(src, dst):
        raise KeyboardInterrupt  # the process stopped between writing and renaming

    monkeypatch.setattr(ocr_cache.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        cache.put(key, b"<hocr/>")
    monkeypatch.undo()
    assert cache.get(key) is None and list(tmp_path.rglob("*")) == [tmp_path / key[:2]]
    cache.put(key, b"<hocr/>")
    assert cache.get(key) == b"<hocr/>" and (cache.hits, cache.misses) == (1, 1)


def test_prune_keeps_the_cache_under_its_bound_newest_first(tmp_path):
    cache = ocr_cache.OcrCache(tmp_path, "x", limit=10_000)
    keys = [cache.key(_array(i), 200) for i in range(8)]
    now = time.time()
    for n, key in enumerate(keys):
        cache.put(key, os.urandom(3000))  # incompressible: ~3 KB an entry
        os.utime(cache._path(key), (now - 100 + n, now - 100 + n))
    cache.get(keys[0])  # used just now: kept
    stale = tmp_path / keys[1][:2] / ".tmp-left-by-a-killed-process"
    stale.write_bytes(b"half")
    os.utime(stale, (now - 7200, now - 7200))
    cache.prune()
    left = [k for k in keys if cache._path(k).exists()]
    assert keys[0] in left and keys[-1] in left and keys[1] not in left
    assert sum(cache._path(k).stat().st_size for k in left) <= 8_000
    assert not stale.exists()


def test_cache_folder_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CTXMILL_OCR_CACHE", str(tmp_path))
    assert ocr_cache.cache_dir() == tmp_path
    monkeypatch.setenv("CTXMILL_OCR_CACHE", "off")
    assert ocr_cache.cache_dir() is None
    monkeypatch.delenv("CTXMILL_OCR_CACHE")
    assert ocr_cache.cache_dir().parts[-2:] == ("ctxmill", "ocr")
    assert ocr_cache.for_engine(object()) is None  # an engine with no identity gets no cache
