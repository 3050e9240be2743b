"""Metadata: title, authors with affiliations (superscript markers resolved), emails,
affiliations, abstract, arXiv id/category/date from an arXiv stamp, DOI and URLs.

Reads the front matter blocks that structure left before the first section (superscript markers
arrive as ``[^1,2]`` from both the PDF text layer and OCR LaTeX) and marks them with
``attrs["front"]`` (title | authors | affiliations | note | abstract | correspondence) so the
Markdown renderer can write them cleanly.
"""

from __future__ import annotations

import re
from datetime import datetime

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Author, Block, BlockKind, Document

EMAIL_RE = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}")
URL_RE = re.compile(r"https?://[^\s<>()\[\]{}\"']+[^\s<>()\[\]{}\"'.,;:!?]")
DOI_RE = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+[^\s\"<>.,;:)])")
ARXIV_RE = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5}(?:v\d+)?)\s*(?:\[([\w.\-]+)\])?\s*(\d{1,2}\s+[A-Za-z]{3,9}\.?\s+\d{4})?")
MARK_RE = re.compile(r"\[\^([^\]]+)\]|<sup>([^<]+)</sup>")
NAME_RE = re.compile(r"^[A-Z][\w'’.\-]*(?:\s+(?:[A-Z][\w'’.\-]*|van|von|de|der|da|bin|al|la|le|di|du)){1,4}$")
INSTITUTION_RE = re.compile(
    r"universit|institut|college|school|laborator|\blab\b|department|dept\.|academy|research|centre|center|"
    r"inc\.|ltd|corporation|company|foundation|hospital|faculty|GmbH|AI\b|Google|Microsoft|Meta|OpenAI|Anthropic",
    re.I)
NOTE_RE = re.compile(r"corresponding|equal contribution|contributed equally|work done|project lead|intern", re.I)


def _marks(s: str) -> list[str]:
    return [p.strip() for p in s.replace(" ", "").split(",") if p.strip()]


def _authors_from(text: str) -> list[tuple[str, list[str]]]:
    """'A B[^1], C D[^1,2]' -> [(name, marks)] ; names without markers too ('A B, C D and E F')."""
    t = re.sub(r"\s+and\s+", ", ", text.strip())
    out: list[tuple[str, list[str]]] = []
    pos = 0
    pieces: list[tuple[str, list[str]]] = []
    for m in MARK_RE.finditer(t):
        chunk = t[pos:m.start()]
        marks = _marks(m.group(1) or m.group(2))
        if pieces and not chunk.strip(" ,"):
            pieces[-1][1].extend(marks)  # "Name[^1][^2]" or "Name[^1][^,][^2]"
        else:
            pieces.append((chunk, marks))
        pos = m.end()
    pieces.append((t[pos:], []))
    for chunk, marks in pieces:
        names = [n.strip(" ,;*") for n in re.split(r"[,;]", chunk) if n.strip(" ,;*")]
        for k, name in enumerate(names):
            out.append((name, marks if k == len(names) - 1 else []))
    return out


def _looks_like_authors(text: str) -> bool:
    if len(text) > 600 or EMAIL_RE.search(text) and not MARK_RE.search(text):
        return False
    names = _authors_from(text)
    good = [n for n, _ in names if NAME_RE.match(n)]
    return len(good) >= 1 and len(good) >= 0.75 * len(names) and (MARK_RE.search(text) is not None or len(good) >= 2)


def _affiliations_from(text: str) -> list[tuple[str, str]]:
    """'[^1] Lab, Univ, [^2] College' -> [("1", "Lab, Univ"), ("2", "College")]"""
    out = []
    parts = list(MARK_RE.finditer(text))
    for i, m in enumerate(parts):
        end = parts[i + 1].start() if i + 1 < len(parts) else len(text)
        label = (m.group(1) or m.group(2)).strip()
        val = text[m.end():end].strip(" ,;")
        if val:
            out.append((label, val))
    return out


def _iso_date(s: str | None) -> str | None:
    if not s:
        return None
    s = re.sub(r"\s+", " ", s.replace(".", "")).strip()
    for fmt in ("%d %b %Y", "%d %B %Y"):
        try:
            return datetime.strptime(s, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def run(doc: Document, options: CompileOptions) -> None:
    md = doc.metadata
    blocks = doc.blocks
    stream = doc.stream
    md.pages = len(stream.pages)
    md.source = {"path": stream.path, "sha256": stream.sha256, "kind": stream.kind}
    title_block = next((b for b in blocks if b.kind is BlockKind.HEADING and b.attrs.get("title")), None)
    if title_block is not None:
        md.title = title_block.text.strip()
        title_block.attrs["front"] = "title"
    elif stream.info.get("Title"):
        md.title = str(stream.info["Title"]).strip()
    # front matter: everything before the first section heading
    first_sec = next((i for i, b in enumerate(blocks) if b.kind is BlockKind.HEADING and not b.attrs.get("title")),
                     len(blocks))
    front = blocks[:first_sec]
    first_page = min((b.page for b in blocks), default=1)
    authors: list[tuple[str, list[str]]] = []
    aff_map: dict[str, str] = {}
    notes: dict[str, str] = {}
    for b in front:
        if b.kind not in (BlockKind.PARAGRAPH, BlockKind.FURNITURE, BlockKind.LIST_ITEM, BlockKind.FOOTNOTE) \
                or b.attrs.get("front"):
            continue
        if b.page != first_page:
            continue
        text = b.text
        if b.kind is BlockKind.FOOTNOTE:
            if not authors:
                continue
            text = f"[^{b.number}] {b.text}"
            marks = {m for _, ms in authors for m in ms}
            pairs = _affiliations_from(text)
            if not pairs or any(label not in marks for label, _ in pairs) or not all(
                    NOTE_RE.search(v) or INSTITUTION_RE.search(v) for _, v in pairs):
                continue
            b.kind = BlockKind.PARAGRAPH
            b.text = text
            b.number = None
        if not authors and _looks_like_authors(text):
            authors = [(n, m) for n, m in _authors_from(text) if NAME_RE.match(n)]
            b.attrs["front"] = "authors"
            continue
        if authors and MARK_RE.match(text.strip()):
            pairs = _affiliations_from(text)
            if pairs:
                kinds = []
                for label, val in pairs:
                    if NOTE_RE.search(val):
                        notes[label] = val
                        kinds.append("note")
                    else:
                        aff_map[label] = val
                        kinds.append("aff")
                b.attrs["front"] = "affiliations" if "aff" in kinds else "note"
                continue
        if re.match(r"^(correspondence|corresponding author|contact|e-?mail)\b", text.strip(), re.I):
            b.attrs["front"] = "correspondence"
    # authors without markers: one affiliation block directly after them
    md.authors = []
    for name, marks in authors:
        affs = [aff_map[m] for m in marks if m in aff_map]
        if not marks and len(aff_map) == 1:
            affs = list(aff_map.values())
        md.authors.append(Author(name=name, affiliations=affs))
    seen: list[str] = []
    for a in md.authors:
        for x in a.affiliations:
            if x not in seen:
                seen.append(x)
    for val in aff_map.values():
        if val not in seen:
            seen.append(val)
    md.affiliations = seen
    # emails (front matter first, then the first page)
    first_text = "\n".join(b.text for b in blocks if b.page == first_page)
    emails: list[str] = []
    for e in EMAIL_RE.findall(first_text):
        e = e.rstrip(".")
        if e not in emails:
            emails.append(e)
    md.emails = emails
    for e in emails:
        local = re.sub(r"[^a-z]", "", e.split("@")[0].lower())
        owner = None
        for a in md.authors:
            parts = [re.sub(r"[^a-z]", "", p.lower()) for p in a.name.split()]
            if parts and (local == "".join(parts) or local == "".join(reversed(parts)) or
                          (len(parts) >= 2 and parts[-1] in local and (parts[0] in local or local.startswith(parts[0][:1])))):
                owner = a
                break
        if owner is None:
            for line in first_text.splitlines():
                if e in line:
                    for a in md.authors:
                        if a.name in line:
                            owner = a
                            break
        if owner is not None and owner.email is None:
            owner.email = e
    # abstract
    abstract_block = None
    for i, b in enumerate(blocks):
        if b.kind is BlockKind.HEADING and b.text.strip().lower().rstrip(".:") == "abstract":
            nxt = next((x for x in blocks[i + 1:] if x.kind is BlockKind.PARAGRAPH), None)
            abstract_block = nxt
            break
        if b.kind is BlockKind.PARAGRAPH and re.match(r"^abstract\b[\s.:—–-]*", b.text, re.I) and b.page == first_page:
            abstract_block = b
            break
    if abstract_block is None:
        for b in front:
            if b.kind is BlockKind.PARAGRAPH and not b.attrs.get("front") and len(b.text) > 150 \
                    and not EMAIL_RE.search(b.text[:80]):
                abstract_block = b
                break
    if abstract_block is not None:
        md.abstract = re.sub(r"^abstract\b[\s.:—–-]*", "", abstract_block.text, flags=re.I).strip()
        md.abstract = re.sub(r"\[\^[^\]]+\]|<sup>[^<]+</sup>", "", md.abstract)
        if abstract_block in front:
            abstract_block.attrs["front"] = "abstract"
    # arXiv stamp
    stamp_text = "\n".join(b.text for b in blocks if b.attrs.get("furniture") == "arxiv_stamp") or first_text
    m = ARXIV_RE.search(stamp_text)
    if m:
        md.arxiv_id = m.group(1)
        if m.group(2):
            md.categories = [m.group(2)]
        md.date = _iso_date(m.group(3))
    if not md.date:
        created = str(stream.info.get("CreationDate", ""))
        mm = re.match(r"D:(\d{4})(\d{2})(\d{2})", created)
        if mm and md.arxiv_id is None:
            md.date = f"{mm.group(1)}-{mm.group(2)}-{mm.group(3)}"
    m = DOI_RE.search(first_text)
    if m:
        md.doi = m.group(1)
    urls: list[str] = []
    for b in blocks:
        if b.attrs.get("bibliography") or b.kind is BlockKind.REFERENCE:
            continue
        texts = [b.text] + ([b.attrs.get("caption", "")] if b.attrs.get("caption") else [])
        for t in texts:
            for u in URL_RE.findall(t):
                if u not in urls:
                    urls.append(u)
    md.urls = urls


def front_blocks(doc: Document) -> list[Block]:
    return [b for b in doc.blocks if b.attrs.get("front")]
