"""document.md from the model, with the character span of every block.

``run(doc, options)`` sets ``doc.markdown`` and ``doc.block_spans`` (block id -> (start, end) in
document.md) so that later stages (chunks, citations) can point into the file; ``write`` only
writes the text.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from ctxmill.compile.figures import float_label
from ctxmill.compile.options import CompileOptions
from ctxmill.model import Block, Document, Kind

SUPERSCRIPT = str.maketrans("0123456789,abcdefghijklmnoprstuvwxyz*", "⁰¹²³⁴⁵⁶⁷⁸⁹˒ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ*")


def _sup(marks: str) -> str:
    return marks.replace(" ", "").translate(SUPERSCRIPT)


def _front_text(text: str) -> str:
    text = re.sub(r"(?<=[^\s(])(?=\[\^[^\]]+\]\s)(?<![\w\]])", " ", text)
    text = re.sub(r",(?=\[\^)", ", ", text)
    return re.sub(r"\[\^([^\]]+)\]|<sup>([^<]+)</sup>", lambda m: _sup(m.group(1) or m.group(2)), text)


# What CommonMark reads as the start of a block where a paragraph's line begins (up to three
# blanks first): an ATX heading, with its text or without ("#" alone is an empty heading); a
# code fence (``` or ~~~: the rest of the document would be code); a block quote; a list item,
# empty or not; a thematic break or a setext underline ("***", "- - -", "==="); an HTML block
# (types 1-6 by their opening, 7 a lone complete tag); a link reference definition ("[x]: y",
# which would vanish); and a table row's pipe
_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|"
    "fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|"
    "menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|"
    "title|tr|track|ul")
_LEADING = re.compile(
    r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|`{3,}|~{3,}|>|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)"
    r"|(?:\*[ \t]*){3,}$|(?:_[ \t]*){3,}$|-{3,}|={3,}|\|"
    r"|<(?i:script|pre|style|textarea)(?:[\s>]|$)|<!--|<\?|<![A-Za-z]|<!\[CDATA\["
    r"|</?(?i:" + _BLOCK_TAGS + r")(?:[\s>]|/>|$)"
    r"|<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s\"'=<>`]+|'[^']*'|\"[^\"]*\"))?)*\s*/?>\s*$"
    r"|</[A-Za-z][A-Za-z0-9-]*\s*>\s*$"
    r"|\[(?:[^\]\\]|\\.)+\]:)")
_LEADING_FIRST = frozenset("#-+*>=|`~_<[ ")  # (or a digit)
_ORDERED = re.compile(r"^( {0,3}\d{1,9})([.)])")


def _escape_line(line: str) -> str:
    c = line[:1]
    if (c in _LEADING_FIRST or c.isdigit()) and _LEADING.match(line):
        m = _ORDERED.match(line)
        if m:
            return m.group(1) + "\\" + line[m.end(1):]
        lead = len(line) - len(line.lstrip(" "))
        return line[:lead] + "\\" + line[lead:]
    return line


_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")  # under a paragraph's line: that line's heading

# where escape_paragraph may have put its backslash: after a line's blanks, or between an ordered
# list number and its "." or ")"
_ESCAPE_AT = re.compile(r"^ {0,3}(?:\d{1,9}(?=\\[.)])|(?=\\))", re.MULTILINE)


def written_escapes(md: str) -> list[tuple[int, int]]:
    """The (start, end) of each backslash escape_paragraph wrote into ``md`` (a line's own "\\)" or
    "\\[", OCR's math delimiters, is not one: the line without it would not have been escaped), so
    that checks reading document.md for left-over markup do not count the renderer's own escapes."""
    if "\\" not in md:
        return []
    spans = []
    for m in _ESCAPE_AT.finditer(md):
        at = m.end()
        end = md.find("\n", at)
        line = md[m.start():end if end >= 0 else len(md)]
        bare = line[:at - m.start()] + line[at - m.start() + 1:]
        if _escape_line(bare) == line or (_SETEXT.match(bare) and not bare.startswith(" " * 4)):
            spans.append((at, at + 1))
    return spans


def escape_paragraph(text: str) -> str:
    """Keep a paragraph a paragraph: escape what Markdown would read as block syntax at the start
    of any of its lines (a backslash before ASCII punctuation is that character, in every reader)."""
    if "\n" not in text:
        return _escape_line(text)
    lines = text.split("\n")
    out = [_escape_line(lines[0])]
    for line in lines[1:]:
        if _SETEXT.match(line):
            lead = len(line) - len(line.lstrip(" "))
            out.append(line[:lead] + "\\" + line[lead:])
        else:
            out.append(_escape_line(line))
    return "\n".join(out)


_CELL_PIPE = re.compile(r"\\?\|")


def _cell(text: str) -> str:
    """A cell's text is inline Markdown, as a paragraph's is (math, code, escapes kept as they
    are); only its pipes are escaped, once, so they do not end the cell."""
    return _CELL_PIPE.sub(r"\\|", text.replace("\n", " ")).strip() or " "


def table_markdown(rows: list[list[str]]) -> str:
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    out = ["| " + " | ".join(_cell(c) for c in rows[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
    for r in rows[1:]:
        out.append("| " + " | ".join(_cell(c) for c in r) + " |")
    return "\n".join(out)


def _html_cell(text: str) -> str:
    return html.escape(text.replace("\n", " ").strip(), quote=False)


def table_html(rows: list[list[str]], header_rows: int = 1, spans: list[list[int]] | None = None) -> str:
    """A table GFM cannot hold (cells spanning columns, several header rows): HTML, one row a
    line, header rows in <thead>. A spanning cell's text sits in its first column."""
    width = max(len(r) for r in rows)
    span_at = {(r, c): n for r, c, n in (spans or [])}
    out = ["<table>"]
    for ri, row in enumerate(rows):
        row = row + [""] * (width - len(row))
        tag = "th" if ri < header_rows else "td"
        if ri == 0:
            out.append("<thead>")
        if ri == header_rows:
            out.append("<tbody>")
        cells, ci = [], 0
        while ci < width:
            n = span_at.get((ri, ci), 1)
            attr = f' colspan="{n}"' if n > 1 else ""
            cells.append(f"<{tag}{attr}>{_html_cell(row[ci])}</{tag}>")
            ci += n
        out.append("<tr>" + "".join(cells) + "</tr>")
        if ri == header_rows - 1:
            out.append("</thead>")
    if len(rows) > header_rows:
        out.append("</tbody>")
    out.append("</table>")
    return "\n".join(out)


def render_table(b: Block) -> str:
    """GFM where it can hold the table, HTML where cells span or the header has several rows."""
    rows = b.attrs.get("rows") or []
    if not rows:
        return ""
    header = b.attrs.get("header_rows") or 1
    if b.attrs.get("spans") or header > 1:
        return table_html(rows, min(header, len(rows)), b.attrs.get("spans"))
    return table_markdown(rows)


def _caption_label(kind: str, b: Block) -> str:
    return f"{kind} {b.number}" if b.number else kind


def _alt_text(text: str) -> str:
    """Alt text may hold balanced brackets (``[14]``) as they are; only a bracket without its
    pair would end it early or open a link, and only that one is escaped (an escaped ``\\[``
    everywhere would read like a LaTeX display delimiter)."""
    out, opened = list(text), []
    for i, ch in enumerate(text):
        if ch == "[":
            opened.append(i)
        elif ch == "]":
            if opened:
                opened.pop()
            else:
                out[i] = "\\]"
    for i in opened:
        out[i] = "\\["
    alt = "".join(out)
    return alt + " " if alt.endswith("\\") else alt  # a last backslash would escape the closing bracket


def _image_line(label: str, caption: str, target: str) -> str:
    """``![Figure 3: caption](figures/fig-3.png)``: the caption is the alt text, so the chunk
    and the reader keep it."""
    return f"![{_alt_text((f'{label}: {caption}' if caption else label).replace(chr(10), ' '))}]({target})"


def render_block(b: Block) -> str | None:
    k = b.kind
    if k is Kind.FURNITURE:
        return None
    if k is Kind.HEADING:
        level = 1 if b.attrs.get("title") else max(2, min(6, b.level or 2))
        return "#" * level + " " + _front_text(b.text.strip()) if b.attrs.get("title") else "#" * level + " " + b.text.strip()
    if b.attrs.get("front") in ("authors", "affiliations", "note"):
        return escape_paragraph(_front_text(b.text.strip()))
    if k is Kind.PARAGRAPH or k is Kind.CAPTION or k is Kind.REFERENCE:
        t = b.text.strip()
        return escape_paragraph(t) if t else None
    if k is Kind.LIST_ITEM:
        indent = "  " * max(0, (b.level or 1) - 1)
        num = (b.number or "").strip()
        if b.attrs.get("ordered") and re.fullmatch(r"\d{1,9}[.)]", num):
            return f"{indent}{num} {b.text.strip()}"
        if b.attrs.get("ordered") and num:
            return f"{indent}- {num} {b.text.strip()}"
        return f"{indent}- {b.text.strip()}"
    if k is Kind.TABLE:
        parts = []
        caption = (b.attrs.get("caption") or "").strip()
        if b.attrs.get("image_file") and not b.attrs.get("rows"):  # a table printed as a picture
            return _image_line(_caption_label("Table", b), caption, b.attrs["image_file"])
        if b.number or caption:
            parts.append(f"**{_caption_label('Table', b)}:** {caption}".rstrip())
        t = render_table(b)
        if t:
            parts.append(t)
        return "\n\n".join(parts) if parts else None
    if k is Kind.FIGURE:
        caption = (b.attrs.get("caption") or "").strip()
        label = _caption_label(float_label(b.attrs), b)  # "Algorithm 1", "Listing 2" keep their word
        if b.attrs.get("image_file"):  # cropped from the PDF page (compile/figures.py)
            return _image_line(label, caption, b.attrs["image_file"])
        if not b.number and not caption:
            return None
        return f"**{label}:** {caption}".rstrip()
    if k is Kind.CODE:
        lang = b.attrs.get("language") or ""
        body = b.text.rstrip("\n")
        fence = "```"
        while fence in body:
            fence += "`"
        return f"{fence}{lang}\n{body}\n{fence}"
    if k is Kind.EQUATION:
        return f"$$\n{b.text.strip()}\n$$"
    if k is Kind.FOOTNOTE:
        return f"[^{b.number or '?'}]: {b.text.strip()}"
    return b.text or None


LLM_MARK = "<!-- ctxmill:llm -->"  # ends a block whose text an LLM wrote (compile --llm)


def run(doc: Document, options: CompileOptions) -> None:
    parts: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    pos = 0
    prev_kind = None
    for b in doc.blocks:
        text = render_block(b)
        if text is None:
            continue
        if b.attrs.get("llm"):  # issue 8: LLM-written text is marked in the output itself
            text += " " + LLM_MARK
        if parts:
            sep = "\n" if (b.kind is Kind.LIST_ITEM and prev_kind is Kind.LIST_ITEM) else "\n\n"
            parts.append(sep)
            pos += len(sep)
        spans[b.id] = (pos, pos + len(text))
        parts.append(text)
        pos += len(text)
        prev_kind = b.kind
    parts.append("\n")
    doc.markdown = "".join(parts)
    doc.block_spans = spans


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    if not doc.markdown:
        run(doc, options)
    Path(folder, "document.md").write_text(doc.markdown, encoding="utf-8")
    names = ["document.md"]
    from ctxmill.compile.figures import images

    pngs = images(doc)  # the figure crops document.md links to (waits for the PDF child)
    if pngs:
        Path(folder, "figures").mkdir(exist_ok=True)
        for name, png in sorted(pngs.items()):
            Path(folder, name).write_bytes(png)
            names.append(name)
    return names
