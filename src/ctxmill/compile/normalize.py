"""Normalise text: page furniture out, hyphenation repaired, ligatures and odd Unicode folded,
OCR LaTeX turned into Markdown math or footnote markers, HTML tables into rows.

Runs after :mod:`ctxmill.compile.blocks`; every paragraph leaves this stage as one re-flowed line
of Markdown-ready inline text.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from collections import Counter, deque
from html.parser import HTMLParser
from itertools import accumulate, chain, compress, islice
from operator import attrgetter, methodcaller

from ctxmill.compile.options import CompileOptions
from ctxmill.linescan import text_hits
from ctxmill.model import Block, Document, Kind, of_kind

LIGATURES = {
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st",
    "\u00ad": "", "\u200b": "", "\u200c": "", "\u200d": "", "\ufeff": "", "\ufffe": "-", "\u2060": "",
    "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u202f": " ", "\u2007": " ", "\u2008": " ",
    "\u2019": "'", "\u2018": "'", "\u2212": "-", "\u2010": "-", "\u2011": "-", "\uf0b7": "•", "\u2217": "*",
}
_LIG_RE = re.compile("[" + "".join(LIGATURES) + "]")

ARXIV_STAMP_RE = re.compile(r"^\s*arXiv:\s*\d{4}\.\d{4,5}(v\d+)?\s*\[[\w.\-]+\]\s*\d{1,2}\s+\w{3,9}\.?\s+\d{4}\s*$", re.I)
# stamps and running lines that mark a page on their own, without repeating: a repository's or
# a publisher's download stamp, a journal issue line, a document revision (issue 21)
STAMP_RE = re.compile(
    r"^\s*(?:downloaded\s+(?:from|by|on)\b|download\s+date\b|date\s+downloaded\b"
    r"|published\s+(?:by|online|in)\b|provided\s+by\b|accessed\s+(?:on|from)\b"
    r"|(?:revision|rev\.|document\s+version)\s*:?\s*[\w.-]{1,12}(?:\s+\d{1,4})?\s*$"
    r"|(?:[A-Z][a-z]+\.?\s+\d{4}\s*[|,]\s*)?vol(?:ume)?\.?\s*\d+\s*[|,(]\s*(?:no|issue|iss|number)\.?\s*\d+"
    # a draft's build stamp: a date and a time ("“main” — 2017/3/7 — 21:49 — page 1 — #1", OUP)
    r"|.{0,24}\b\d{4}/\d{1,2}/\d{1,2}\b.{0,6}\b\d{1,2}:\d{2}\b)",
    re.I)
PAGE_NUM_RE = re.compile(r"^\s*(?:page\s+)?(?:[-–—]\s*)?(\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?(?:\s*[-–—])?\s*$", re.I)

# LaTeX -> text for the symbols OCR engines emit inside \( \)
LATEX_SYMBOLS = {
    r"\%": "%", r"\$": "$", r"\&": "&", r"\#": "#", r"\_": "_", r"\{": "{", r"\}": "}",
    r"\dagger": "†", r"\ddagger": "‡", r"\times": "×", r"\cdot": "·", r"\approx": "≈", r"\sim": "~",
    r"\leq": "≤", r"\le": "≤", r"\geq": "≥", r"\ge": "≥", r"\neq": "≠", r"\pm": "±", r"\to": "→",
    r"\rightarrow": "→", r"\leftarrow": "←", r"\Rightarrow": "⇒", r"\infty": "∞", r"\ldots": "…",
    r"\dots": "…", r"\cdots": "⋯", r"\alpha": "α", r"\beta": "β", r"\gamma": "γ", r"\delta": "δ",
    r"\epsilon": "ε", r"\lambda": "λ", r"\mu": "μ", r"\pi": "π", r"\sigma": "σ", r"\tau": "τ",
    r"\theta": "θ", r"\star": "⋆", r"\ast": "*", r"\circ": "∘", r"\bullet": "•", r"\S": "§",
    r"\textasciitilde": "~", r"\quad": "\x00", r"\qquad": "\x00", r"\,": "\x00", r"\;": "\x00", r"\!": "",
    r"\ ": "\x00", r"\:": "\x00",
    r"\checkmark": "✓",
}
_SIMPLE_MATH_RE = re.compile(r"^[\w\s.,%+\-/:;()<>=~†‡×·≈≤≥≠±→←⇒∞…⋯αβγδελμπστθ⋆*∘•§✓|!?'\"\[\]$&#_{}]*$")
INLINE_MATH_RE = re.compile(r"\\\((.+?)\\\)", re.S)
DISPLAY_MATH_RE = re.compile(r"\\\[(.+?)\\\]", re.S)
_SUP_ONLY_RE = re.compile(r"^\s*(?:\{\s*\})?\s*\^\s*\{?\s*([\w,\s*†‡§¶]|\\dagger|\\ddagger|\\ast|\\star|\\S)+?\s*\}?\s*$")


def fold(text: str) -> str:
    """Ligatures, soft hyphens, odd spaces and similar Unicode folded to plain text."""
    if text.isascii():  # (every character folded here is outside ASCII)
        return text
    if _LIG_RE.search(text):
        text = _LIG_RE.sub(lambda m: LIGATURES[m.group(0)], text)
    return text


def _latex_symbols(s: str) -> str:
    for k in sorted(LATEX_SYMBOLS, key=len, reverse=True):
        if k in s:
            s = re.sub(re.escape(k) + r"(?![A-Za-z])", lambda _m, v=LATEX_SYMBOLS[k]: v, s)
    return s


def _strip_text_cmds(s: str) -> str:
    # \mathrm{x}, \text{x}, \textbf{x}, \mathbf{x} ... -> x
    prev = None
    while prev != s:
        prev = s
        s = re.sub(r"\\(?:mathrm|text|textbf|textit|mathbf|mathit|mathsf|mathtt|texttt|operatorname|emph|boldsymbol)\s*\{([^{}]*)\}",
                   r"\1", s)
    return s


def _sup_marks(inner: str) -> list[str] | None:
    """``^{1,2}`` / ``^{\\dagger}`` -> ["1", "2"] / ["†"]; None when it is not a marker."""
    s = inner.strip()
    m = re.fullmatch(r"(?:\{\s*\})?\^\s*\{(.+)\}|(?:\{\s*\})?\^\s*(\S)", s, re.S)
    if not m:
        return None
    body = _latex_symbols((m.group(1) or m.group(2)).strip())
    body = body.replace(r"\ast", "*").replace(" ", "")
    parts = [p for p in body.split(",") if p]
    if not parts or any(not re.fullmatch(r"[0-9]{1,3}|[a-z]|[*†‡§¶]{1,2}", p) for p in parts):
        return None
    return parts


def latex_inline(inner: str) -> str:
    """Content of one ``\\( … \\)`` -> Markdown: footnote marker, plain text, or $math$."""
    marks = _sup_marks(inner)
    if marks is not None:
        return "".join(f"[^{p}]" for p in marks)
    s = _strip_text_cmds(inner.strip())
    s2 = _latex_symbols(s)
    # in math mode only explicit spacing commands (now NUL) make space; operators get spaces
    s2 = re.sub(r"\s+", "", s2).replace("\x00", " ")
    s2 = re.sub(r"\s*([=<>≤≥≈≠→←⇒±×])\s*", r" \1 ", s2)
    s2 = re.sub(r"\s+", " ", s2).strip()
    if "\\" not in s2 and "^" not in s2 and _SIMPLE_MATH_RE.match(s2) and "{" not in s2:
        return s2
    s = s.replace("\x00", " ")
    # keep real math as Markdown math
    s = re.sub(r"\s+", " ", s).strip()
    return f"${s}$"


def _sub_closed(pattern: re.Pattern, close: str, repl, text: str) -> str:
    """``pattern.sub(repl, text)`` for a pattern whose every match ends in ``close``: only the
    text up to the last ``close`` is searched. An opener after it matches nothing, and each one
    was scanned to the end of the text: 100,000 unclosed ``\\(`` on one line took over 60 CPU-s
    (fuzz seed 1528 --kinds wide2, text case 200). Same result: no match can start after it."""
    end = text.rfind(close)
    if end < 0:
        return text
    end += len(close)
    return pattern.sub(repl, text[:end]) + text[end:]


def convert_latex(text: str) -> str:
    if "\\(" not in text and "\\[" not in text:
        return text
    text = _sub_closed(DISPLAY_MATH_RE, "\\]", lambda m: "$$" + re.sub(r"\s+", " ", m.group(1)).strip() + "$$", text)
    out = _sub_closed(INLINE_MATH_RE, "\\)", lambda m: latex_inline(m.group(1)), text)
    # markers stick to the word before them: "done [^1] ." -> "done[^1]."
    out = re.sub(r"\s+(\[\^[^\]]+\])", r"\1", out)
    out = re.sub(r"(\[\^[^\]]+\])\s+([.,;:!?)])", r"\1\2", out)
    out = re.sub(r"(?<=\S) +([.,;:])(?=\s|$)", r"\1", out)  # "\( x \) ." -> "x."
    return out


class _TableParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._span = 1

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
            try:
                self._span = max(1, min(20, int(dict(attrs).get("colspan", "1") or 1)))
            except ValueError:
                self._span = 1
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            if self._row is None:
                self._row = []
            text = re.sub(r"\s+", " ", "".join(self._cell)).strip()
            self._row.append(text)
            for _ in range(self._span - 1):
                self._row.append("")
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def html_table_rows(markup: str) -> list[list[str]]:
    p = _TableParser()
    p.feed(markup)
    p.close()
    if p._row:
        p.rows.append(p._row)
    rows = [[clean_inline(c) for c in r] for r in p.rows if any(c.strip() for c in r)]
    width = max((len(r) for r in rows), default=0)
    return [r + [""] * (width - len(r)) for r in rows]


URL_BREAK_RE = re.compile(r"(https?://[^\s<>()]*/)\s+([\w\-.~%]+(?:/[\w\-.~%]*)*[\w/])")
_SCHEME_GAP_RE = re.compile(r"\b(https?:)\s+//")
_BLANK_SLASHES_RE = re.compile(r"\s//")  # what _SCHEME_GAP_RE needs
_SLASH_BLANK_RE = re.compile(r"/\s")  # what URL_BREAK_RE needs
# what either needs: a "/" before a blank, or after a blank and before a "/" (a literal first: re
# skips to each "/")
_SLASH_GAP_RE = re.compile(r"/(?:(?=\s)|(?<=\s/)(?=/))")


def clean_inline(text: str) -> str:
    if text.isascii() and "\\(" not in text and "\\[" not in text and "&" not in text and "\t" not in text \
            and "  " not in text and (("http" not in text and "://" not in text) or _SLASH_GAP_RE.search(text) is None):
        # (nothing below changes such a text but the strip: every line of raw OCR text, and a
        # line with a link that no blank breaks, which took the two URL searches one by one)
        return text.strip()
    text = fold(text)
    text = convert_latex(text)
    text = html.unescape(text) if "&" in text else text
    # (each rewrite only where its blank is: a blank before "//", a blank after "/"; a page of
    # links spent ~5 us a line in the two patterns finding nothing)
    if "http" in text and _BLANK_SLASHES_RE.search(text):
        text = _SCHEME_GAP_RE.sub(r"\1//", text)
    if "://" in text and _SLASH_BLANK_RE.search(text):
        text = URL_BREAK_RE.sub(r"\1\2", text)  # "https://host/ path" broken by OCR or a line end
    if "\t" not in text and "  " not in text:  # every run of blanks is one space already
        return text.strip()
    return re.sub(r"[ \t]+", " ", text).strip()


# ---------------------------------------------------------------------- reflow


_VOCAB_WORD_RE = re.compile(r"[A-Za-z][\w\-]{2,}")
_LINE_HYPHEN_END_RE = re.compile(r"-[^\S\n]*(?:\n|$)")
_FIRST_WORD_RE = re.compile(r"^\S+")
_LAST_WORD_RE = re.compile(r"\S+$")
_BROKEN_WORDS_RE = re.compile(r"\S*-(?:\n\S*-)*(?:\n\S*|\Z)")


def _vocabulary(doc: Document) -> Counter:
    words: Counter[str] = Counter()
    found: list[str] = []
    # blocks with no line ending in a hyphen are read in one findall per run of them (no
    # word crosses a line end), not one per block
    plain: list[str] = []
    for b in doc.blocks:
        texts = b.attrs.get("_line_texts") or [b.text]
        if b.kind is Kind.TABLE:
            texts = [line for r in b.attrs.get("rows", []) for c in r for line in c.split("\n")]
        joined = texts[0] if len(texts) == 1 else "\n".join(texts)
        if "-" not in joined or not _LINE_HYPHEN_END_RE.search(joined):
            plain.append(joined)
            continue
        if plain:
            found.extend(_VOCAB_WORD_RE.findall("\n".join(plain)))
            plain.clear()
        if joined.count("\n") == len(texts) - 1:
            # the loop below in one pass over the block's stripped lines: each word at a line
            # end before a hyphen, and the word starting the next line, is blanked (a chain of
            # them at once: a one-word line between two such ends is both)
            found.extend(_VOCAB_WORD_RE.findall(_BROKEN_WORDS_RE.sub(" ", "\n".join(map(str.strip, texts)))))
            continue
        prev_hyphen = False
        for t in texts:
            t = t.strip()
            hyphen_end = t.endswith("-")
            if prev_hyphen:
                t = _FIRST_WORD_RE.sub(" ", t)  # the second half of a word broken at the line end
            if hyphen_end:
                t = _LAST_WORD_RE.sub(" ", t)  # its first half
            prev_hyphen = hyphen_end
            found.extend(_VOCAB_WORD_RE.findall(t))
    if plain:
        found.extend(_VOCAB_WORD_RE.findall("\n".join(plain)))
    words.update(map(str.lower, found))
    for w in found if "-" in "".join(found) else ():  # (no step a word where none holds a hyphen)
        if "-" in w:
            for part in w.split("-"):
                if len(part) >= 3:
                    words[part.lower()] += 1
    return words


_HYPHEN_END_RE = re.compile(r"(\w+)-$")
_WORD_START_RE = re.compile(r"(\w+)")
_WORD_RUN_RE = re.compile(r"\w*")
_LONGEST_WORD = 200  # a hyphenated "word" longer than this is no word to look up


def _word_before_hyphen(parts: list[str], ends: list[int]) -> re.Match | None:
    """``re.search(r"(\\w+)-$", "".join(parts))``, looking back at most _LONGEST_WORD
    characters (a search over the whole paragraph per line made re-flowing quadratic).
    ``ends[i]`` is the length of ``"".join(parts[:i + 1])``: the fewest last parts holding more
    than _LONGEST_WORD characters are found by bisection, not by walking back part by part."""
    k, size = _window(ends)
    tail = "".join(parts[-k:])[-(_LONGEST_WORD + 2):]
    m = _HYPHEN_END_RE.search(tail)
    if m is not None and m.start() == 0 and size > len(tail):
        return None  # the word runs on further back: longer than any word
    return m


def _window(ends: list[int]) -> tuple[int, int]:
    """(number of last parts, their length): the fewest holding more than _LONGEST_WORD."""
    total = ends[-1]
    j = bisect_left(ends, total - _LONGEST_WORD) - 1  # the last part ending before the window
    return (len(ends), total) if j < 0 else (len(ends) - 1 - j, total - ends[j])


# CJK ideographs, kana and their full-width punctuation (Hangul not: Korean spaces its words)
CJK_CHAR_RE = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff60]")


def cjk_seam(left: str, right: str) -> bool:
    """``left`` ends and ``right`` starts with a CJK character: Chinese and Japanese put no space
    between words, so a line break between the two joins them with none ("写作而" / "设计").
    The one rule for every stage that joins lines (here and blocks._join)."""
    return bool(CJK_CHAR_RE.match(left[-1:]) and CJK_CHAR_RE.match(right[:1]))


def _spaced(ts: list[str]) -> str:
    """Lines joined by a space, but none at a CJK seam (:func:`cjk_seam`)."""
    out = ts[:1]
    for t in ts[1:]:
        if not cjk_seam(out[-1], t):
            out.append(" ")
        out.append(t)
    return "".join(out)


def join_lines(lines: list[str], vocab: Counter | None = None, longest: int | None = None) -> str:
    """Re-flow lines into one; repair words hyphenated across line ends. ``longest``: the
    length of the longest word in ``vocab``, when the caller knows it."""
    ts = [t for t in map(str.strip, lines) if t]
    flat = "\n".join(ts)
    if "-\n" not in flat:  # no line but the last ends in a hyphen: lines and spaces
        return " ".join(ts) if flat.isascii() else _spaced(ts)
    # a word run on past any word of the vocabulary is read no more (see _run_on): its lines
    # are taken in one step where the lines are ASCII letters in a row
    run_on = longest is not None and longest < _LONGEST_WORD and flat.count("\n") == len(ts) - 1
    starts: list[int] | None = None
    lines_in = iter(ts)
    i = -1
    # the result is kept as pieces (lines, the spaces between them) and joined once at the
    # end, so a line costs its own length, not the paragraph's
    parts: list[str] = []
    ends: list[int] = []  # running length of "".join(parts)
    # the word characters ending "".join(parts) (run), that count before the last part was
    # added (prev), and the last part's own, before its hyphen (last_run): a word longer than
    # any word is then known without reading it again (a paragraph of 'con-' lines is one)
    prev = last_run = 0
    for t in lines_in:
        i += 1
        rev = t[::-1]
        own = _WORD_RUN_RE.match(rev, 1 if rev[:1] == "-" else 0).end()
        if not parts:
            parts.append(t)
            ends.append(len(t))
            last_run = own - 1 if rev[:1] == "-" else own
            continue
        last = parts[-1]
        before = last[-2] if len(last) >= 2 else parts[-2][-1:] if len(parts) >= 2 else ""
        if last.endswith("-") and before.isalpha() and t[:1].isalpha():
            hyphen_run = last_run + (prev if last_run == len(last) - 1 else 0)
            keep = False
            if hyphen_run > _LONGEST_WORD and longest is not None and longest < _LONGEST_WORD:
                # The word before the hyphen fills the window _word_before_hyphen reads, and is
                # longer than any word of the vocabulary, so no lookup below can find it: only
                # the capitals decide, as they would there (a paragraph of 'con-' lines spent
                # most of its time building and searching that window once a line).
                if t[:1].isupper():  # (the window only where the capitals can keep the hyphen)
                    k, size = _window(ends)
                    if size <= _LONGEST_WORD + 2:  # (else no word at all: the hyphen goes)
                        keep = next((p[0] for p in parts[-k:] if p), "").isupper()
                head = tail = None
            else:
                head = _word_before_hyphen(parts, ends)
                tail = _WORD_START_RE.match(t)
            if head and tail:
                joined = (head.group(1) + tail.group(1)).lower()
                hyph = f"{head.group(1)}-{tail.group(1)}".lower()
                if vocab is not None and vocab.get(joined, 0) > 0:
                    keep = False
                elif vocab is not None and vocab.get(hyph, 0) > 0:
                    keep = True
                elif vocab is not None and len(head.group(1)) >= 4 and len(tail.group(1)) >= 4 \
                        and vocab.get(head.group(1).lower(), 0) > 0 and vocab.get(tail.group(1).lower(), 0) > 0:
                    keep = True  # a compound of two known words: "context-\ncollapse"
                elif t[:1].isupper() and head.group(1)[:1].isupper():
                    keep = True  # "Claude-\nCode"-style compounds of names keep their hyphen
            if not keep:
                parts[-1] = last[:-1]
                ends[-1] -= 1
            prev = 0 if keep else hyphen_run
            parts.append(t)
            ends.append(ends[-1] + len(t))
        else:
            prev = 0
            parts.append(" ")
            parts.append(t)
            ends.append(ends[-1] + 1)
            ends.append(ends[-1] + len(t))
        if rev[:1] == "-":
            last_run = own - 1
            if run_on and last_run == len(t) - 1 and last_run + prev > _LONGEST_WORD and t[-2:-1].isalpha():
                if starts is None:
                    starts = [0, *accumulate(map((1).__add__, map(len, ts)))]
                at = starts[i + 1]
                end = _RUN_ON_END.search(flat, at - 1)  # (None after the last line)
                stop = at if end is None else end.start() + 1
                if stop > at:
                    prev, last_run, k = _run_on(parts, ends, flat[at:stop], prev + last_run)
                    i += k
                    deque(islice(lines_in, k), maxlen=0)  # (those lines are read)
        else:
            last_run = own + (prev if own == len(t) else 0)
    return "".join(parts)


# the line break before the first line that is not one word ending in a letter and a hyphen,
# starting with a small letter (ASCII): a word running on over the lines before it is re-flowed
# whole, each hyphen taken out (see _run_on). (A search for the line that ends the run: a
# repeated group costs ~1 us a line in the regex engine, the look-ahead at each break far less.)
_RUN_ON_END = re.compile(r"\n(?![a-z](?:\w*[A-Za-z])?-\n)")


def _run_on(parts: list[str], ends: list[int], lines: str, hyphen_run: int) -> tuple[int, int, int]:
    """join_lines' steps for the lines ``lines`` (each a line _RUN_ON_END passes, and its break) after a line of one word
    ending in a hyphen, where the word before that hyphen (``hyphen_run`` characters, the line's
    and those it runs on from) is longer than any word of the vocabulary. The loop then takes out
    every hyphen: each line starts with a small letter, so no capital keeps one, no lookup is
    made, and the word only grows (hyphenated word-sized pieces of 'con-' lines, a paragraph of
    them). The pieces and their ends are the loop's; returns its (prev, last_run) after the last
    line, and the number of lines."""
    pieces = lines[:-2].split("-\n")  # (each line but its hyphen; the last keeps its own)
    parts[-1] = parts[-1][:-1]
    ends[-1] -= 1
    pieces[-1] += "-"
    parts.extend(pieces)
    ends.extend(accumulate(map(len, pieces), initial=ends[-1]))
    del ends[-len(pieces) - 1]  # (the initial value, already there)
    # the run before each line's hyphen: the runs before it and the line's own letters
    prev = hyphen_run + len(lines) - 2 * len(pieces) - len(pieces[-1]) + 1
    return prev, len(pieces[-1]) - 1, len(pieces)


def _stamp(text: str, lines: list[str] | None = None) -> bool:
    """Lines that read as download stamps, issue lines or revision marks (a page number may
    share their line), every one of them: a stamp above body text never takes the body along."""
    lines = lines or text.split("\n")
    if len(text) > 300 or len(lines) > 4:
        return False
    for ln in lines:
        t = re.sub(r"^\s*\d{1,4}\s{2,}|\s{2,}\d{1,4}\s*$", "", ln).strip()  # "Revision: 2.4   7"
        if not t or len(t) > 160 or not (STAMP_RE.match(t) or PAGE_NUM_RE.match(t)):
            return False
    return any(STAMP_RE.match(ln.strip()) for ln in lines)


# the head of a book's running head, after its page number is taken off: "chapter 2." (book,
# report, Sphinx) or a section's number "2.2" (at least one dot: "2 Methods" is any heading)
_BOOK_HEAD_RE = re.compile(r"^(chapter #\.?|#(?:\.#)+\.?)\s.*$", re.S)


_MARK_NUMBER_RE = re.compile(r"\d{1,3}(?:\.\d{1,3})*\.?")


def _before_section_mark(text: str) -> str | None:
    """The text of a running head before the section mark it ends with (an optional section number,
    then words in capitals: "E4-STP/01 - Tisch 7 1 EINLEITUNG" -> "E4-STP/01 - Tisch"), or None
    when it ends with none or the part before it is in capitals too (a head all in capitals is
    its own key)."""
    words = text.split()
    k = len(words)
    while k and words[k - 1].isupper() and sum(c.isalpha() for c in words[k - 1]) >= 2:
        k -= 1
    if k == len(words) or k == 0:
        return None
    while k > 1 and _MARK_NUMBER_RE.fullmatch(words[k - 1]):  # (the number, and a number the fixed part
        k -= 1  # ends with: "Tisch 7 LISTINGS" on a page of no numbered section is the same head)
    fixed = " ".join(words[:k])
    return fixed if any(c.islower() for c in fixed) else None


def _furniture(doc: Document) -> None:
    """Mark page numbers and running headers/footers."""
    geo = [b for b in doc.blocks if b.bbox is not None and b.kind is Kind.PARAGRAPH]
    if geo:
        # printer's marks: a sign with no letter or digit beside the page's text block (a draft's
        # crop marks, OUP's ✐) are furniture, before the topmost block of each page is asked
        ext: dict[int, tuple[float, float]] = {}
        for b in geo:
            if len(b.text) > 40:
                lo, hi = ext.get(b.page, (b.bbox[0], b.bbox[2]))
                ext[b.page] = (min(lo, b.bbox[0]), max(hi, b.bbox[2]))
        for b in geo:
            e = ext.get(b.page)
            if e is not None and len(b.text) <= 3 and (b.bbox[2] < e[0] - 2 or b.bbox[0] > e[1] + 2) \
                    and b.text.strip() and not any(c.isalnum() for c in b.text):
                b.kind = Kind.FURNITURE
                b.attrs["furniture"] = "printer_mark"
        geo = [b for b in geo if b.kind is Kind.PARAGRAPH]
        # candidates: short blocks near the top or bottom edge of the page
        edge: list[tuple[Block, str]] = []
        marked: dict[int, str] = {}  # id(block) -> the fixed part of a head ending with a section mark
        # the topmost block of a page may sit lower than the band (JSS sets its head 76 pt down
        # an A4 page, 0.09 of it; a trim page centred on the sheet, classic JFM's on A4, 107 pt,
        # 0.127 of it): in body type or smaller it is a candidate down to 0.15 of the page (a
        # section heading atop each page is larger or bolder; the head must still repeat)
        highest: dict[int, float] = {}
        for b in geo:
            highest[b.page] = min(highest.get(b.page, b.bbox[1]), b.bbox[1])
        body = body_type_size(geo)
        for b in geo:
            h = b.attrs.get("_page_height") or 792.0
            top, bottom = b.bbox[1], b.bbox[3]
            near_top = top < h * 0.075 or (top < h * 0.15 and top <= highest[b.page] and body > 0
                                           and 0 < (b.attrs.get("_size") or 99.0) <= body + 0.5
                                           and not b.attrs.get("_bold"))
            # (a single line may be longer: a slide deck's footline holds the short author, the
            # title, the date and "n / 32", 125 characters on each page; it must still repeat)
            long_ok = len(b.text) < 200 and b.attrs.get("_nlines", 1) == 1
            # (a foot of two to four lines, a CV's contact details, a journal's licence, DOI and
            # page lines, or a draft's citation line running onto its DOI, is one too when it repeats)
            foot_ok = bottom > h * 0.9 and 2 <= b.attrs.get("_nlines", 1) <= 4 and len(b.text) < 400
            if (bottom > h * 0.9 or near_top) and ((len(b.text) < 120 or long_ok) and b.attrs.get("_nlines", 1) <= 2
                                                   or foot_ok):
                key = re.sub(r"\d+", "#", b.text.strip().lower())
                fixed = _before_section_mark(b.text)
                if fixed is not None:
                    # a head closing with the section the page is in, in capitals (fancyhdr's
                    # \rightmark: "Group 7   2 METHODS"): a second key for its fixed part
                    marked[id(b)] = re.sub(r"\d+", "#", fixed.lower())
                # a page number before or after the head ("2 Title" on even pages, "Title 3" on
                # odd) is one key; the bare title on page 1 is another
                paged = re.sub(r"^#\s+|\s+#$", "", key)
                if paged != key:
                    # a book's running head names the chapter or section the page is in, with the page
                    # number ("4 Chapter 2. README", "2.2 Basic principles 5"): one key for its shape,
                    # which repeats where each chapter's own title does not
                    paged = _BOOK_HEAD_RE.sub(r"\1 *", paged)
                edge.append((b, "#~" + paged if paged != key else key))
            elif (bottom > h * 0.9 or near_top) and _stamp(b.text, b.attrs.get("_line_texts")):
                edge.append((b, ""))  # a block of stamps, several lines deep
        counts = Counter(k for _, k in edge)
        mark_counts = Counter(marked.values())
        pages = max(1, len({b.page for b in doc.blocks}))
        short = _short_running_keys(edge, {b.page for b in doc.blocks}) if 2 <= pages <= 3 else set()
        short |= _paged_heads(edge, counts, max(3, pages // 4))
        for b, key in edge:
            if PAGE_NUM_RE.match(b.text):
                b.kind = Kind.FURNITURE
                b.attrs["furniture"] = "page_number"
            elif counts[key] >= max(3, pages // 4) or mark_counts[marked.get(id(b))] >= max(3, pages // 4) \
                    or key in short:
                b.kind = Kind.FURNITURE
                b.attrs["furniture"] = "running_header"
            elif _stamp(b.text, b.attrs.get("_line_texts")):
                b.kind = Kind.FURNITURE
                b.attrs["furniture"] = "stamp"
        _swapped_running_lines([(b, k) for b, k in edge if k and b.kind is Kind.PARAGRAPH], max(3, pages // 4))
        _foot_folios(doc.blocks, [b for b, k in edge if k.startswith("#~") or b.attrs.get("furniture") == "page_number"])
    # text pages: running header lines repeated at the top of many pages
    firsts: dict[int, Block] = {}
    for b in doc.blocks:
        if b.bbox is None and b.kind is Kind.PARAGRAPH and b.page not in firsts:
            firsts[b.page] = b
    if len(firsts) >= 4:
        counts = Counter(re.sub(r"\d+", "#", b.text.strip().lower()) for b in firsts.values())
        for b in firsts.values():
            key = re.sub(r"\d+", "#", b.text.strip().lower())
            if counts[key] >= max(3, len(firsts) // 3) and len(b.text) < 100:
                b.kind = Kind.FURNITURE
                b.attrs["furniture"] = "running_header"
    # text pages: a stamp as the first or last line of a page
    first: dict[int, Block] = {}
    last: dict[int, Block] = {}
    for b in doc.blocks:
        if b.bbox is None and b.kind is Kind.PARAGRAPH:
            first.setdefault(b.page, b)
            last[b.page] = b
    for page, b0 in first.items():
        for b in {id(x): x for x in (b0, last[page])}.values():
            if _stamp(b.text):
                b.kind = Kind.FURNITURE
                b.attrs["furniture"] = "stamp"
    # arXiv stamps, stray page numbers in OCR text: the paragraphs that start as a stamp or are a
    # line that may be a page number, found by one search of all the texts (ctxmill.linescan)
    paras = list(of_kind(doc.blocks, Kind.PARAGRAPH))
    texts = list(map(_TEXT, paras))
    # (blocks longer than 150 characters on average, prose: each block's own test costs less
    # than a search of all its text)
    hits = text_hits(texts, _MAYBE_PAGE_NUM_OR_STAMP_RE) if sum(map(len, texts)) <= 150 * len(texts) \
        else range(len(texts))
    for b in of_kind(doc.blocks, Kind.HEADING):
        # an engine's Markdown may type arXiv's margin stamp as a heading (opendataloader's "# arXiv:...")
        if b.attrs.get("_markup") and "arXiv" in b.text and ARXIV_STAMP_RE.match(b.text):
            b.kind, b.level = Kind.FURNITURE, None
            b.attrs["furniture"] = "arxiv_stamp"
    for k in hits:
        b = paras[k]
        if ":" in b.text and ARXIV_STAMP_RE.match(b.text.replace("\n", " ")):
            b.kind = Kind.FURNITURE
            b.attrs["furniture"] = "arxiv_stamp"
        elif b.bbox is None and PAGE_NUM_RE.match(b.text) and b.attrs.get("_line_texts"):
            # a stray printed page number in OCR text
            b.kind = Kind.FURNITURE
            b.attrs["furniture"] = "page_number"


# a line that opens, after blanks, with "arXiv:" in any case (as ARXIV_STAMP_RE's matches do: a
# ":" anywhere took every line of a page of links), or a line of only the characters PAGE_NUM_RE
# can match (its case-blind letters, digits, dashes, "/", blanks, anything outside ASCII): every
# block of one line the loop above can take (ctxmill.linescan returns every block of more)
_MAYBE_PAGE_NUM_OR_STAMP_RE = re.compile(
    r"\n(?=[^\S\n]*(?i:arxiv):|[\t\x0b\x0c\r \x1c-\x1f\-/0-9pPaAgGeEoOfFiIvVxXlLcCdDmM\x80-\U0010ffff]*(?:\n|\Z))")


def _short_running_keys(edge: list[tuple[Block, str]], doc_pages: set[int]) -> set[str]:
    """The keys of running heads or feet on a document of two or three pages, too few for a count
    to tell (a preprint style prints its head on pages 2 and 3 of a three-page paper): a line at
    the same place (top and an edge or the centre within 2 pt) on every page, or on every page but
    the first."""
    first = min(doc_pages)
    by_key: dict[str, list[Block]] = {}
    for b, key in edge:
        if key:
            by_key.setdefault(key, []).append(b)
    out = set()
    for key, blocks in by_key.items():
        on = {b.page for b in blocks}
        if len(on) != len(blocks) or len(on) < 2 or not (on == doc_pages or on == doc_pages - {first}):
            continue
        x0, top, x1, _ = blocks[0].bbox
        if all(abs(b.bbox[1] - top) <= 2 and (abs(b.bbox[0] - x0) <= 2 or abs(b.bbox[2] - x1) <= 2
                                               or abs(b.bbox[0] + b.bbox[2] - x0 - x1) <= 4) for b in blocks):
            out.add(key)
    return out


def _paged_heads(edge: list[tuple[Block, str]], counts: Counter, need: int) -> set[str]:
    """The keys of running heads that carry the page number, printed on too few pages for the count
    (a five-page paper's recto head "A SHORT TITLE 3", "A SHORT TITLE 5"): the same words on two
    pages or more, at the same height, each number its page's number less one offset."""
    out = set()
    by_key: dict[str, list[Block]] = {}
    for b, key in edge:
        if key.startswith("#~") and 2 <= counts[key] < need:
            by_key.setdefault(key, []).append(b)
    for key, blocks in by_key.items():
        if len({b.page for b in blocks}) != len(blocks) or any(abs(b.bbox[1] - blocks[0].bbox[1]) > 2 for b in blocks):
            continue
        offsets = set()
        for b in blocks:
            m = _FOLIO_AT_EDGE_RE.search(b.text)
            offsets.add(int(next(g for g in m.groups() if g)) - b.page if m else None)
        if len(offsets) == 1 and None not in offsets:
            out.add(key)
    return out


def body_type_size(paragraphs: list[Block]) -> float:
    """The body type's size: the median size of the paragraphs over 200 characters, or over 60 where
    there is none (a short book); 0.0 without any."""
    for least in (200, 60):
        sizes = sorted(b.attrs.get("_size") or 0.0 for b in paragraphs if len(b.text) > least)
        if sizes:
            return sizes[len(sizes) // 2]
    return 0.0


_FOLIO_AT_EDGE_RE = re.compile(r"^\s*(\d{1,4})\s|\s(\d{1,4})\s*$|^\s*(\d{1,4})\s*$")


def _foot_folios(blocks: list[Block], numbered: list[Block]) -> None:
    """Page numbers set above the bottom band: LaTeX's standard classes print the folio at 0.88-0.89
    of a letter or A4 page (book, article, ltxdoc), inside the 0.9 the band asks. The lowest block of
    a page, a bare number alone on its line in the page's lower quarter, is the page number when its
    number less its page's index (the offset) is that of another page's folio: another such foot
    number, a page number already found, or the number a running head opens or closes with."""
    lowest: dict[int, Block] = {}
    second: dict[int, float] = {}  # the lowest bottom of the page's other blocks
    for b in blocks:
        if b.bbox is None:
            continue
        low = lowest.get(b.page)
        if low is None or b.bbox[3] > low.bbox[3]:
            if low is not None:
                second[b.page] = max(second.get(b.page, 0.0), low.bbox[3])
            lowest[b.page] = b
        else:
            second[b.page] = max(second.get(b.page, 0.0), b.bbox[3])
    feet = [b for b in lowest.values()
            if b.kind is Kind.PARAGRAPH and b.attrs.get("_nlines", 1) == 1 and re.fullmatch(r"\s*\d{1,4}\s*", b.text)
            and b.bbox[1] > (b.attrs.get("_page_height") or 792.0) * 0.75 and second.get(b.page, 0.0) <= b.bbox[1]]
    if not feet:
        return
    offsets = Counter(int(b.text) - b.page for b in feet)
    for b in numbered:
        m = _FOLIO_AT_EDGE_RE.search(b.text)
        if m and b not in feet:
            offsets[int(next(g for g in m.groups() if g)) - b.page] += 1
    for b in feet:
        if offsets[int(b.text) - b.page] >= 2:
            b.kind = Kind.FURNITURE
            b.attrs["furniture"] = "page_number"


def _swapped_running_lines(edge: list[tuple[Block, str]], need: int) -> None:
    """Running heads or feet whose parts change places or one part changes from page to page:
    a two-sided layout sets "2 | bioRxiv  Smith et al. | Running title here" on even pages and
    "Smith et al. | Running title here  bioRxiv | 3" on odd ones, and the supplement's pages
    another label. A line at the same edge of ``need`` pages or more that shares most of its
    words (three at least) with the line there on each of the others is one such line."""
    if len(edge) > 400:
        return  # (pairwise; a long document's heads repeat as they are printed)
    words = [(b, b.bbox[1] < (b.attrs.get("_page_height") or 792.0) / 2,
              frozenset(re.findall(r"[^\W\d_]{2,}", b.text.lower()))) for b, _ in edge]
    for b, top, w in words:
        if len(w) < 3:
            continue
        pages = {b.page}
        for c, ctop, v in words:
            if c.page not in pages and ctop == top and len(w & v) >= 3 and len(w & v) >= 0.6 * len(w | v):
                pages.add(c.page)
        if len(pages) >= need:
            b.kind = Kind.FURNITURE
            b.attrs["furniture"] = "running_header"


_FLOWED = frozenset((Kind.PARAGRAPH, Kind.LIST_ITEM, Kind.FOOTNOTE, Kind.HEADING))


_TEXT, _ATTRS = attrgetter("text"), attrgetter("attrs")
_LINE_TEXTS, _HAS_CAPTION = methodcaller("get", "_line_texts"), methodcaller("__contains__", "caption")


def _fold_blocks(blocks: list[Block]) -> None:
    """Fold each block's text and lines, clean its table cells and caption: each step over the
    blocks it can change, found by map in C (the text of every block joined once to ask whether
    any is outside ASCII: fold changes no ASCII text). Raw OCR text's 47,000 one-line
    paragraphs a MB are ASCII and have no cells or caption: no Python step each."""
    texts = list(map(_TEXT, blocks))
    attrs_of = list(map(_ATTRS, blocks))
    lines_of = list(map(_LINE_TEXTS, attrs_of))
    try:
        texts_ascii = "\n".join(texts).isascii()
        lines_ascii = "\n".join(chain.from_iterable(filter(None, lines_of))).isascii()
    except TypeError:  # (a text that is no str: the blocks one by one)
        texts_ascii = lines_ascii = False
    for b in blocks if not texts_ascii else ():
        if b.text and not b.text.isascii():  # (fold changes no ASCII text)
            b.text = fold(b.text)
    for attrs, lts in zip(attrs_of, lines_of, strict=True) if not lines_ascii else ():
        if lts is not None and not all(map(str.isascii, lts)):
            attrs["_line_texts"] = [fold(t) for t in lts]
    for b in of_kind(blocks, Kind.TABLE):
        attrs = b.attrs
        if attrs.get("_html"):
            attrs["rows"] = html_table_rows(attrs.pop("_html"))
        else:
            attrs["rows"] = [[clean_inline(c) for c in r] for r in attrs.get("rows", [])]
    for attrs in compress(attrs_of, map(_HAS_CAPTION, attrs_of)):
        caption = attrs.get("caption")
        if isinstance(caption, str):
            attrs["caption"] = clean_inline(caption)


# a line ending in a hyphen with a line after it: only a text holding one makes join_lines
# look a word up in the vocabulary (it returns its lines joined by spaces before any lookup)
_HYPHEN_LINE_END_RE = re.compile(r"-[^\S\n]*\n")


def _vocabulary_needed(blocks: list[Block]) -> bool:
    """Whether any text run() re-flows (a block's text or lines, a table cell, a caption) has a
    line ending in a hyphen before another line: one search over each kind of them joined (a
    superset: a hyphen ending one text's last line before the next text counts too), the texts
    first. Where none has, no word is looked up and the vocabulary, every word of the document
    counted, is not built (4 MB of one-line paragraphs spent ~0.14 CPU-s on it)."""
    attrs_of = list(map(_ATTRS, blocks))
    kinds = (lambda: map(_TEXT, blocks),
             lambda: chain.from_iterable(filter(None, map(_LINE_TEXTS, attrs_of))),
             lambda: (c for attrs in compress(attrs_of, map(_HAS_CAPTION, attrs_of))
                      if isinstance(c := attrs.get("caption"), str)),
             lambda: chain.from_iterable(chain.from_iterable(b.attrs.get("rows", [])
                                                             for b in of_kind(blocks, Kind.TABLE))))
    try:
        return any(_HYPHEN_LINE_END_RE.search("\n".join(texts())) for texts in kinds)
    except TypeError:  # (a text, lines or a cell that are no str: built, as always before)
        return True


def run(doc: Document, options: CompileOptions) -> None:
    table = Kind.TABLE
    _fold_blocks(doc.blocks)
    _furniture(doc)
    # (join_lines reads vocab and longest only for lines with a broken word: none, none built)
    vocab = _vocabulary(doc) if _vocabulary_needed(doc.blocks) else None
    longest = max(map(len, vocab), default=0) if vocab is not None else None
    flowed = _FLOWED
    for b in doc.blocks:
        attrs = b.attrs
        kind = b.kind
        if kind is table:
            attrs["rows"] = [[join_lines(c.split("\n"), vocab, longest) if "\n" in c else c for c in r]
                             for r in attrs.get("rows", [])]
        caption = attrs.get("caption")
        if caption and "\n" in caption:
            attrs["caption"] = join_lines(caption.split("\n"), vocab, longest)
        if kind in flowed:
            lines = attrs.get("_line_texts") or b.text.split("\n")
            attrs["_line_texts"] = lines
            # (one line: join_lines is its strip)
            b.text = clean_inline(lines[0].strip() if len(lines) == 1 else join_lines(lines, vocab, longest))
        elif kind is Kind.CODE:
            b.text = b.text.replace("\t", "    ")
        elif kind is Kind.EQUATION:
            b.text = b.text.strip()
