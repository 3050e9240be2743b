"""More labelled reference strings by rendering: each labelled training string, its fields read
back as a CSL-JSON item, printed again by real citation styles through citeproc-py and labelled
by the fields the style printed (issue 22, training only).

A style decides what a bibliography entry shows and in what order: physics and chemistry styles
print no article title ("J. N. Bahcall, C. Flynn, and A. Gould, Astrophys. J. 389, 234 (1992)."),
Vancouver puts the year after the journal, APA puts it after the names. The labelled data of
GROBID and AnyStyle holds some of these styles, each as its documents happened to use them;
rendering gives every style the same items, so the model sees the same title, journal and names
with and without the title, before and after the year.

Labels come from the renderer itself, not from matching text: while a string is rendered,
citeproc-py's elements for a variable (``<text variable="title">``, ``<number>``, ``<date>``, a
``<names>`` role) wrap what they print in a pair of private-use characters for that variable,
inside the element's prefix and suffix ("pp. ", quotes, brackets stay outside, as GROBID's
annotators leave them). Title-casing, stripped periods, initials and page ranges are the
style's own; the sentinels are stripped and become the spans.

citeproc-py (BSD-2-Clause) is a training-time package (``pip install citeproc-py``), imported
only here; the product never imports this module. The styles and the English locale come from
github.com/citation-style-language/styles and /locales (CC BY-SA 3.0).
"""

from __future__ import annotations

import contextlib
import re
import zlib
from pathlib import Path

from ctxmill.compile.refparse.datasets import Example, _Builder, norm_key
from ctxmill.compile.refparse.names import split_people

# The styles, chosen by field before any held-out string was read (issue 22, round 18): physics
# (APS, APS without titles, AIP, IOP, ApJ), chemistry (ACS, RSC), biomedicine (Vancouver as NLM citation-sequence,
# Nature, Cell), engineering and computing (IEEE, Springer LNCS) and the humanities and social
# sciences (APA, Chicago author-date, MLA, Harvard). ACS, AIP, RSC, ApJ and APS-without-titles
# print no article title.
STYLES = (
    "american-physics-society", "american-physics-society-without-titles", "american-institute-of-physics",
    "institute-of-physics-numeric", "the-astrophysical-journal", "american-chemical-society",
    "royal-society-of-chemistry", "nlm-citation-sequence", "nature", "cell", "ieee",
    "springer-lecture-notes-in-computer-science", "apa", "chicago-author-date",
    "modern-language-association", "harvard-cite-them-right",
)

# The styles of STYLES that print no article title for a journal article (measured on 40 GROBID
# articles a style: every rendering titleless in these three, none in the others; AIP and ACS
# print one for citeproc-py): train_refparse.py --render-no-title renders in these alone, so
# that the model meets more strings whose words after the names are a journal, not a title.
NO_TITLE_STYLES = ("american-physics-society-without-titles", "the-astrophysical-journal", "royal-society-of-chemistry")

# CSL variable -> our label (datasets.LABELS); a variable not here prints unlabelled
VARIABLE_LABEL = {
    "author": "author", "editor": "editor", "title": "title", "container-title": "container",
    "collection-title": "collection", "volume": "volume", "issue": "issue", "page": "pages",
    "page-first": "pages", "issued": "date", "publisher": "publisher", "publisher-place": "location",
    "edition": "edition", "DOI": "doi", "URL": "url", "ISBN": "isbn",
}
_LABELS = sorted(set(VARIABLE_LABEL.values()))
_OPEN = {lab: chr(0xE000 + 2 * i) for i, lab in enumerate(_LABELS)}
_CLOSE = {lab: chr(0xE001 + 2 * i) for i, lab in enumerate(_LABELS)}
_SENTINEL = {c: (lab, True) for lab, c in _OPEN.items()} | {c: (lab, False) for lab, c in _CLOSE.items()}

_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
_PAGES_LABEL = re.compile(r"^(pp?\.?|pages?|s\.)\s*", re.I)
_BARE_INITIALS = re.compile(r"^[A-Z]{1,3}$")
_PROCEEDINGS = re.compile(r"\b(proc|proceedings|conference|conf|workshop|symposium|meeting|congress)\b", re.I)


def _clean(value: str) -> str:
    """A field's text without the punctuation and quotes the style prints itself."""
    value = " ".join(value.split())
    return value.strip(" ,;:.\"'“”‘’«»()[]").strip()


def _given(given: str) -> str:
    """Initials a style can initialise again: "J.N." -> "J. N.", "JN" (Vancouver) -> "J. N."."""
    if _BARE_INITIALS.match(given):
        return " ".join(f"{c}." for c in given)
    return re.sub(r"\.(?=\S)", ". ", given)


def _people(spans: list[str]) -> list[dict] | None:
    people = []
    for s in spans:
        found, _ = split_people(s)
        for p in found:
            if "literal" in p:
                people.append({"literal": p["literal"]})
            elif p.get("family") and p["family"][:1].isalpha():
                people.append({"family": p["family"], **({"given": _given(p["given"])} if p.get("given") else {})})
            else:
                return None  # a name we cannot read back; better no rendering than a wrong one
    return people or None


def item_of(example: Example, key: str) -> dict | None:
    """The CSL-JSON item of one labelled string, or None when it lacks a person, a year or both
    a title and a container (nothing a style could print as a reference)."""
    text, spans = example
    by: dict[str, list[str]] = {}
    for s, e, lab in spans:
        by.setdefault(lab, []).append(text[s:e])
    authors = _people(by.get("author", []))
    editors = _people(by.get("editor", []))
    year = next((m.group(1) for d in by.get("date", []) for m in [_YEAR.search(d)] if m), None)
    title = _clean(by["title"][0]) if "title" in by else ""
    container = _clean(by["container"][0]) if "container" in by else ""
    if not (authors or editors) or year is None or not (title or container):
        return None
    item: dict = {"id": key, "issued": {"date-parts": [[int(year)]]}}
    if authors:
        item["author"] = authors
    if editors:
        item["editor"] = editors
    if title:
        item["title"] = title
    if container:
        item["container-title"] = container
    for lab, var in (("volume", "volume"), ("issue", "issue"), ("publisher", "publisher"),
                     ("location", "publisher-place"), ("edition", "edition"), ("doi", "DOI"),
                     ("url", "URL"), ("isbn", "ISBN"), ("collection", "collection-title")):
        if lab in by and _clean(by[lab][0]):
            item[var] = _clean(by[lab][0])
    if "pages" in by:
        pages = _clean(_PAGES_LABEL.sub("", by["pages"][0].strip()))
        if pages:
            item["page"] = pages
    if container:
        if editors or "publisher" in item or _PROCEEDINGS.search(container):
            item["type"] = "paper-conference" if _PROCEEDINGS.search(container) else "chapter"
        else:
            item["type"] = "article-journal"
    elif title and not ({"volume", "page"} & item.keys()):
        item["type"] = "book"
    else:
        item["type"] = "article-journal"
    return item


@contextlib.contextmanager
def _labelled_variables():
    """citeproc-py's variable elements wrap what they print in their label's sentinels (for the
    time of the block: the patch is undone after)."""
    from citeproc import model
    from citeproc.string import MixedString, String

    def wrap(text, variable):
        lab = VARIABLE_LABEL.get(variable or "")
        if not text or lab is None or not isinstance(text, (str, MixedString)):
            return text
        # one String, not three segments: citeproc-py's text-case joins a MixedString's
        # segments with spaces ("“ Multiple Predicate Learning ”")
        # (our items hold no <span class="nocase">, so a MixedString is plain String segments)
        return String(_OPEN[lab] + str(text) + _CLOSE[lab])

    saved = (model.Text.process, model.Number.process, model.Date.process, model.Name.render)

    def text_process(self, item, context=None, **kw):
        if self.get("variable") == "citation-number":
            # no "[12]" or "12." before the entry: the product cuts such a label off before it
            # parses (refparse._LABEL), and a superscript style's glued "12O. Gron" would stay
            return None, "en"
        text, language = saved[0](self, item, context, **kw)
        return (wrap(text, self.get("variable")) if "variable" in self.attrib else text), language

    def number_process(self, item, context=None, **kw):
        return wrap(saved[1](self, item, context, **kw), self.get("variable"))

    def date_process(self, item, variable=None, *a, **kw):
        return wrap(saved[2](self, item, variable, *a, **kw), variable or self.get("variable"))

    def name_render(self, item, variable, *a, **kw):
        return wrap(saved[3](self, item, variable, *a, **kw), variable)

    model.Text.process, model.Number.process, model.Date.process, model.Name.render = (
        text_process, number_process, date_process, name_render)
    try:
        yield
    finally:
        model.Text.process, model.Number.process, model.Date.process, model.Name.render = saved


def strip_sentinels(rendered: str) -> Example:
    """The rendered string without its sentinels, and the spans they marked (the innermost label
    where two nest), whitespace collapsed as the data sets' strings are."""
    b = _Builder()
    stack: list[str] = []
    piece = ""
    for c in rendered:
        if c in _SENTINEL:
            if piece.startswith(".") and not piece.startswith("..") and b.text.endswith(".") \
                    and not b.text.endswith(".."):
                # citeproc-py drops a suffix's full stop after a field that ends in one
                # ("Lam, M.." -> "Lam, M."), but cannot see the field's end through a sentinel
                piece = piece[1:]
            b.add(piece, stack[-1] if stack else None)
            piece = ""
            lab, opening = _SENTINEL[c]
            if opening:
                stack.append(lab)
            elif lab in stack:
                del stack[len(stack) - 1 - stack[::-1].index(lab)]
        else:
            piece += c
    b.add(piece, stack[-1] if stack else None)
    return b.done()


def load_style(styles: Path, name: str):
    """One style of a styles checkout (not validated: citeproc-py's schema is older than some
    of today's styles, which it prints all the same)."""
    from citeproc import CitationStylesStyle

    return CitationStylesStyle(str(styles / f"{name}.csl"), validate=False)


def render(examples: list[Example], styles: Path, locales: Path, share: float = 1.0,
           names: tuple[str, ...] = STYLES, salt: str = "render:") -> tuple[list[Example], dict]:
    """Rendered strings for ``examples``: about ``share`` renderings per string (each string gets
    floor(share) styles, and one more with the fraction's chance, chosen by a hash of its text,
    so the same inputs give the same strings), each in a different style of ``names``.
    Returns the labelled strings, in style order then input order, and counts."""
    _use_locales(locales)
    per_style: dict[str, list[tuple[int, dict]]] = {n: [] for n in names}
    stats = {"items": 0, "skipped": 0, "rendered": 0, "errors": 0}
    for i, ex in enumerate(examples):
        h = zlib.crc32((salt + norm_key(ex[0])).encode())  # another salt, another draw
        k = int(share) + ((h % 1000) < round((share % 1) * 1000))
        if not k:
            continue
        item = item_of(ex, f"r{i}")
        if item is None:
            stats["skipped"] += 1
            continue
        stats["items"] += 1
        for j in range(min(k, len(names))):
            per_style[names[(h // 1000 + j) % len(names)]].append((i, item))
    out: list[Example] = []
    with _labelled_variables():
        for name in names:
            if not per_style[name]:
                continue
            style = load_style(styles, name)
            for _, item in per_style[name]:
                rendered = _render_one(style, item)
                if rendered is None:
                    stats["errors"] += 1
                    continue
                text, spans = strip_sentinels(rendered)
                if text and spans:
                    out.append((text, spans))
                    stats["rendered"] += 1
    return out, stats


def _render_one(style, item: dict) -> str | None:
    """One item's bibliography entry with its sentinels ("" when the style prints none), None
    where citeproc-py cannot print it (inside _labelled_variables)."""
    from citeproc import Citation, CitationItem, CitationStylesBibliography, formatter
    from citeproc.source.json import CiteProcJSON

    # one item a bibliography: no sorting, no year suffixes or dashes for repeated names
    try:
        bib = CitationStylesBibliography(style, CiteProcJSON([item]), formatter.plain)
        bib.register(Citation([CitationItem(item["id"])]))
        entries = bib.bibliography()
    except Exception:  # noqa: BLE001 - a style citeproc-py cannot print for this item
        return None
    return str(entries[0]) if entries else ""


def _use_locales(locales: Path) -> None:
    """citeproc-py reads a style's locale from its own data folder: read it from the locales
    checkout instead, so the strings depend on the commits given, not on citeproc-py's copy."""
    from citeproc import frontend

    if not (locales / "locales-en-US.xml").exists():
        raise FileNotFoundError(f"no locales-en-US.xml in {locales}")
    frontend.LOCALES_PATH = str(locales)


# --- Shape-targeted renderings (train_refparse.py --render-shapes; issue 22, round 29) ---------
# The dev title errors left are boundary errors of four shapes (round27_reftitle_rule.md): a
# title running on past a comma into a book series or a journal the model does not know, a
# title of two sentences cut at the first, and a book's title (the entry's only title) read as
# the venue. Clean renderings of the same items in more styles did not teach the boundary
# (rounds 16-18); these render items chosen and altered to have the failing shape, in the
# styles that print that shape, and keep a rendering only where its labels show it.
SHAPES = ("series", "swap", "two-sentence", "book")

_PROBE_PEOPLE = [{"family": "Probert", "given": "Anna B."}, {"family": "Quill", "given": "Carl"}]
_PROBE_TITLE = "Probing the deep structures of matter"
PROBE_BOOK = {"id": "probe-book", "type": "book", "author": _PROBE_PEOPLE, "title": _PROBE_TITLE,
              "collection-title": "Lecture notes in probing", "collection-number": "17",
              "publisher": "Probe Press", "publisher-place": "Probeville", "issued": {"date-parts": [[2001]]}}
PROBE_ARTICLE = {"id": "probe-article", "type": "article-journal", "author": _PROBE_PEOPLE, "title": _PROBE_TITLE,
                 "container-title": "Journal of probe studies", "volume": "12", "issue": "3", "page": "345-367",
                 "issued": {"date-parts": [[2001]]}}
# a sentence's end inside a title: "Alchemy. Selected", "(Omaliinae). Supplement", "(Hym.). 7e serie"
_TWO_SENTENCES = re.compile(r"[\w)\]][.?!] +[A-Z0-9(]")


def _between(rendered: str, first: str, then: str) -> str | None:
    """What a style prints between the end of field ``first`` and the start of field ``then``
    (sentinels aside); None where either is not printed or ``then`` comes first."""
    close, opening = _CLOSE[first], _OPEN[then]
    if close not in rendered or opening not in rendered or rendered.index(opening) < rendered.index(close):
        return None
    return "".join(c for c in rendered[rendered.index(close) + 1:rendered.index(opening)] if c not in _SENTINEL)


def probe_styles(styles: Path, locales: Path) -> dict[str, dict]:
    """For every style of a styles checkout (its independent styles, the *.csl files at its
    top), what it prints between a book's title and its series and between an article's title
    and its journal (PROBE_BOOK, PROBE_ARTICLE): {"series": ", ", "journal": ". "}, a value None
    where the style does not print that field after the title; a style citeproc-py cannot
    print is left out. About 20 s for the 2,858 styles of 0819c0e."""
    _use_locales(locales)
    out = {}
    with _labelled_variables():
        for path in sorted(styles.glob("*.csl")):
            try:
                style = load_style(styles, path.stem)
            except Exception:  # noqa: BLE001 - a style citeproc-py cannot read
                continue
            book, article = _render_one(style, PROBE_BOOK), _render_one(style, PROBE_ARTICLE)
            if book is None or article is None:
                continue
            out[path.stem] = {"series": _between(book, "title", "collection"),
                              "journal": _between(article, "title", "container")}
    return out


def shape_styles(probe: dict[str, dict]) -> dict[str, tuple[str, ...]]:
    """The styles each shape is rendered in: ``series``, those printing a book's series after its
    title with a comma ("Title, Lecture Notes in ..."); ``swap``, an article's journal after its
    title with a comma (no quotes, no "In"); ``two-sentence``, the journal after a full stop, as
    the title's own inner stop ("Title. Second part. Journal ..."); ``book``, the 16 STYLES."""
    return {"series": tuple(n for n, p in probe.items() if p["series"] == ", "),
            "swap": tuple(n for n, p in probe.items() if p["journal"] == ", "),
            "two-sentence": tuple(n for n, p in probe.items() if p["journal"] == ". "),
            "book": STYLES}


def _name_key(name: str) -> str:
    from ctxmill.compile.refparse.lexicon import lexkey
    from ctxmill.compile.refparse.tokens import tokenize

    return " ".join(lexkey(t) for t, _, _ in tokenize(name) if t[:1].isalnum())


def _pick(pool: list[str], h: int) -> str:
    return pool[(h // 7919) % len(pool)]


def shape_items(examples: list[Example], shape: str, known: frozenset[str] | set[str] = frozenset(),
                salt: str = "shape:") -> list[tuple[int, dict, str]]:
    """The items of one shape from the labelled ``examples``: ``(index, item, label)``, the label
    the rendering's title is checked for (``title``), or that its container becomes (``book``'s
    chapters: GROBID's annotators label the book of a chapter with no title of its own as the
    title). ``known``: the journal and venue names of the gazetteers (``_name_key`` form), which
    ``swap`` draws no journal from.

    - ``series``: each book (a title, no container) as a book with a series, its own or one of
      the training strings' series (``collection`` spans), by a hash of its text;
    - ``swap``: each journal article with another article's journal, one the gazetteers do not
      know, by a hash of its text: a title then a journal name the model cannot have memorised;
    - ``two-sentence``: each item whose title holds a sentence's end followed by more ("Modern
      Alchemy. Selected Papers of ...");
    - ``book``: each book (a title, no container) as a book, its volume kept ("Vol. 1"); and,
      where it has editors, as the chapter of no title in that book ("in: Gupta, R. K. (Ed.),
      Physics of Particles ..."), the book labelled as the title."""
    items: list[tuple[int, dict, str]] = []
    base = [item_of(ex, f"s{i}") for i, ex in enumerate(examples)]
    series_pool = sorted({_clean(ex[0][s:e]) for ex in examples for s, e, lab in ex[1] if lab == "collection"} - {""})
    journal_pool = sorted({it["container-title"] for it in base if it and it["type"] == "article-journal"
                           and it.get("title") and it.get("container-title")
                           and _name_key(it["container-title"]) not in known})
    for i, (ex, item) in enumerate(zip(examples, base, strict=True)):
        if item is None:
            continue
        h = zlib.crc32((salt + shape + ":" + norm_key(ex[0])).encode())
        is_book = "title" in item and "container-title" not in item
        if shape == "series" and is_book and series_pool:
            it = {**item, "type": "book"}
            if "collection-title" not in it:
                it["collection-title"] = _pick(series_pool, h)
                if h % 3 == 0:
                    it["collection-number"] = str(h % 400 + 1)
            items.append((i, it, "title"))
        elif shape == "swap" and item["type"] == "article-journal" and item.get("title") \
                and item.get("container-title") and journal_pool:
            others = [j for j in journal_pool if j != item["container-title"]]
            if others:
                items.append((i, {**item, "container-title": _pick(others, h)}, "title"))
        elif shape == "two-sentence" and _TWO_SENTENCES.search(item.get("title", "")):
            items.append((i, item, "title"))
        elif shape == "book" and is_book:
            items.append((i, {**item, "type": "book"}, "title"))
            if item.get("editor") and item.get("author"):
                chapter = {k: v for k, v in item.items() if k != "title"}
                items.append((i, {**chapter, "type": "chapter", "container-title": item["title"]}, "container"))
    return items


def has_shape(example: Example, shape: str) -> bool:
    """Whether a rendering's labels show its shape: one title, and after it the series
    (``series``), the journal (``swap``), any field (``two-sentence``, whose title must still
    hold its inner stop), or no container at all (``book``)."""
    text, spans = example
    titles = [(s, e) for s, e, lab in spans if lab == "title"]
    if len(titles) != 1:
        return False
    end = titles[0][1]
    after = [lab for s, _, lab in spans if s >= end]
    if shape == "series":
        return "collection" in after and "container" not in after
    if shape == "swap":
        return "container" in after
    if shape == "two-sentence":  # (a book's title too: a publisher or place may follow)
        return bool(after) and bool(_TWO_SENTENCES.search(text[titles[0][0]:end]))
    return not any(lab == "container" for _, _, lab in spans)


def render_shapes(examples: list[Example], styles: Path, locales: Path, shapes: tuple[str, ...],
                  known: frozenset[str] | set[str] = frozenset(), share: float = 1.0,
                  probe: dict[str, dict] | None = None) -> tuple[list[tuple[str, Example]], dict]:
    """Renderings of ``shapes`` (of SHAPES) from ``examples``: about ``share`` a shape's item,
    each in one of the shape's styles (shape_styles), chosen by a hash; kept where has_shape
    holds. Returns ``(shape, (text, spans))`` in shape order, then style order, then input
    order, and counts per shape."""
    _use_locales(locales)
    probe = probe if probe is not None else probe_styles(styles, locales)
    chosen = shape_styles(probe)
    out: list[tuple[str, Example]] = []
    stats: dict = {"styles_probed": len(probe)}
    with _labelled_variables():
        for shape in shapes:
            names = chosen[shape]
            st = stats[shape] = {"styles": len(names), "items": 0, "rendered": 0, "errors": 0, "no_shape": 0}
            per_style: dict[str, list[tuple[dict, str]]] = {}
            for i, item, label in shape_items(examples, shape, known):
                h = zlib.crc32(f"render-shape:{shape}:{i}".encode())
                k = int(share) + ((h % 1000) < round((share % 1) * 1000))
                for j in range(min(k, len(names))):
                    per_style.setdefault(names[(h // 1000 + j) % len(names)], []).append((item, label))
                st["items"] += 1
            for name in sorted(per_style):
                style = load_style(styles, name)
                for item, label in per_style[name]:
                    rendered = _render_one(style, item)
                    if rendered is None:
                        st["errors"] += 1
                        continue
                    text, spans = strip_sentinels(rendered)
                    if label != "title":
                        spans = [(s, e, "title" if lab == label else lab) for s, e, lab in spans]
                    if not text or not has_shape((text, spans), shape):
                        st["no_shape"] += 1
                        continue
                    out.append((shape, (text, spans)))
                    st["rendered"] += 1
    return out, stats
