"""Every size limit ctxmill enforces on its input, in one place (docs/limits.md lists them).

Each limit is checked before the work it protects starts, and input over it is refused with
:class:`ctxmill.errors.InputRefused` (exit 3) whose message names the limit, e.g.
``input.txt: line 3 is 52,428,800 characters long, over MAX_LINE_CHARS (1,000,000)``. The
modules that enforce a limit import it from here; the values are chosen so that a real
document never meets them and memory stays bounded when a hostile one does.

The PDF parser's own limits (memory, CPU seconds, wall clock, pages) are environment
variables read by :mod:`ctxmill.sources.sandbox`.
"""

from __future__ import annotations

import re

from ctxmill.errors import InputRefused

# ---------------------------------------------------------------- compile: text and Markdown
MAX_TEXT_BYTES = 64 * 1024 * 1024  # a text input larger than this is refused (checked from the file size)
MAX_TEXT_LINES = 2_000_000  # ~1 GB of line and block objects; a 1,000-page book has ~50,000
MAX_LINE_CHARS = 1_000_000  # one line: 200 pages of prose; longer is a data dump, not a paragraph
# Not a refusal: bibliography entries past this many are kept whole, as their raw text with
# their printed label, without fields (the labeller costs ~0.5 ms an entry; a long survey has
# ~500 entries, a book a few thousand; 16,000 "entries" are a data dump). QA check
# references_not_parsed names them.
MAX_PARSED_REFERENCES = 2_000

# ---------------------------------------------------------------- compile: PDF and images
# The PDF parser's child process has its own limits, set by environment variables that
# ctxmill.sources.sandbox reads (CTXMILL_PDF_MAX_PAGES 5000, CTXMILL_PDF_MEMORY_MB 4096,
# CTXMILL_PDF_CPU_SECONDS 300, CTXMILL_PDF_TIMEOUT_SECONDS CPU + 60); docs/limits.md lists them.
OCR_MAX_PIXELS = 25_000_000  # a page rendered for OCR: the dpi is lowered to stay under this
IMAGE_MAX_PIXELS = 200_000_000  # one frame of an image input; larger is a decompression bomb
IMAGE_MAX_FRAMES = 2000  # pages of one multi-page image (TIFF)
# Not a refusal: a PDF page whose text layer holds more characters than this becomes a
# damaged_page error and the other pages compile. A dense page has ~10,000; one content stream
# of 4 million "TJ" operators (8 million characters) took 3 GB in pdfium and 20-40 CPU-s, and
# the whole PDF was refused at the parser's 4 GB memory limit (fuzz seed 1527, --kinds wide2).
MAX_PAGE_CHARS = 1_000_000
# Form XObjects one PDF page draws, counted through nested forms before pdfium loads the page
# (sources/pdf_forms.py); a page over it is a damaged_page error and the other pages compile.
# pdfium parses a form anew for every draw: 2^20 draws (forms that each draw the next twice, 20
# deep, in 6 KB) took 18-30 CPU-s and the whole PDF was refused at the 4 GB memory limit (fuzz
# --kinds wide2, form_nesting:fanout). The 17 corpus papers draw at most 1,238 on a page.
MAX_PAGE_FORM_DRAWS = 250_000

# ---------------------------------------------------------------- apply
APPLY_MAX_BYTES = 10 * 1024 * 1024  # the file and the sketch, each

# ---------------------------------------------------------------- index
INDEX_MAX_FILE_BYTES = 1_000_000  # a code or text file larger than this is skipped (listed in status)
INDEX_MAX_DOC_BYTES = 50_000_000  # a PDF found in the tree larger than this is skipped


# a line break followed by more than MAX_LINE_CHARS characters of one line (searched from its
# break: re skips to each "\n", then reads that line at most)
_LONG_LINE = re.compile(f"\n[^\n]{{{MAX_LINE_CHARS + 1}}}")


def check_text_bytes(size: int, label: str) -> None:
    """Refuse a text input over MAX_TEXT_BYTES (from the file size, before it is read)."""
    if size > MAX_TEXT_BYTES:
        raise InputRefused(f"{label}: {size:,} bytes of text, over MAX_TEXT_BYTES ({MAX_TEXT_BYTES:,})")


def check_text_lines(text: str, label: str) -> None:
    """Refuse decoded text (newlines already ``\\n``) over MAX_TEXT_LINES or MAX_LINE_CHARS.

    Both are C-speed passes (a count, a search): 64 MB take well under a second.
    """
    lines = text.count("\n") + 1
    if lines > MAX_TEXT_LINES:
        raise InputRefused(f"{label}: {lines:,} lines, over MAX_TEXT_LINES ({MAX_TEXT_LINES:,})")
    if len(text) <= MAX_LINE_CHARS:
        return
    # a line over the limit is looked for by one search (the first line by its break), not by
    # splitting the text into a list of its lines: the reader splits it again later anyway
    first = text.find("\n")
    if (first if first >= 0 else len(text)) <= MAX_LINE_CHARS and _LONG_LINE.search(text) is None:
        return
    lengths = list(map(len, text.split("\n")))
    longest = max(lengths)
    if longest > MAX_LINE_CHARS:
        number = lengths.index(longest) + 1
        raise InputRefused(f"{label}: line {number:,} is {longest:,} characters long, "
                           f"over MAX_LINE_CHARS ({MAX_LINE_CHARS:,})")
