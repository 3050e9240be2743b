"""One table writer for the JSON and XML engine readers (docling, Textract, GROBID, Document AI).

A reader that has a table's cells writes them as HTML here, so that engines' one table reader
(``engines._html_tables``) expands the spans and turns it into a GFM pipe table the one way.
"""

from __future__ import annotations

import html


def html_table(rows: list[list[tuple[str, int, int, bool]]]) -> str:
    """Rows of cells ``(text, rowspan, colspan, header?)`` as one line of HTML (the text in a
    span's first cell; a position a span covers has no cell of its own)."""
    out = ["<table>"]
    for row in rows:
        out.append("<tr>")
        for text, rs, cs, head in row:
            tag = "th" if head else "td"
            span = (f' rowspan="{rs}"' if rs > 1 else "") + (f' colspan="{cs}"' if cs > 1 else "")
            out.append(f"<{tag}{span}>{html.escape(' '.join(text.split()))}</{tag}>")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)
