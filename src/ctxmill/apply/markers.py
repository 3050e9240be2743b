"""Recognise elision markers: the comment lines a model writes for "unchanged code here".

A marker is a whole line that is a comment in one of the syntaxes the index knows
(``#``, ``//``, ``/* */``, ``<!-- -->``, ``{/* */}``, ``--``, ``;``, ``%``) whose text is an
ellipsis and/or a stock wording ("existing code", "rest of code", "same as before",
"unchanged", "keep"...). Real code is never a marker: a JS spread ``...args``, a Python
``...`` body or ``Ellipsis`` has no comment opener, and an ordinary comment that merely ends
in "..." needs one of the wordings as well.
"""

from __future__ import annotations

import re

# (opener, closer) pairs, longest first so "{/*" wins over "/*" and "<!--" over "<".
_COMMENTS = (
    ("{/*", "*/}"), ("<!--", "-->"), ("/*", "*/"), ("(*", "*)"), ("//", ""), ("--", ""),
    ("#", ""), (";;", ""), (";", ""), ("%", ""),
)
_ELLIPSIS = re.compile(r"(?:\.{2,}|…)")
# Wordings seen in model output; a marker needs one of these or to be only an ellipsis.
_WORDS = re.compile(
    r"\b(?:existing|rest|remaining|remainder|same|unchanged|keep|kept|previous|previously|"
    r"other|others|omitted|elided|before|original|more|etc|untouched|identical|preserved?|"
    r"retain(?:ed)?|as is|as-is)\b",
    re.I,
)
# Without an ellipsis only an unmistakable phrase counts ("// existing code", "# unchanged").
_STRONG = re.compile(
    r"^(?:(?:keep|keeping)\s+)?(?:(?:the|all|any)\s+)?(?:rest\s+of\s+(?:the\s+)?(?:\w+\s+)?|"
    r"(?:existing|remaining|unchanged|other|previous)\s+\w+(?:\s+\w+)?(?:\s+(?:here|below|above|"
    r"unchanged|remains?\s+(?:the\s+)?same))?$|"
    r"(?:\w+\s+)?(?:unchanged|same\s+as\s+before|as\s+before|remains?\s+(?:the\s+)?same|"
    r"stays?\s+the\s+same)$)",
    re.I,
)
_WORD_ONLY = re.compile(r"^[\w\s.,:;!'’()\-/…]*$")


def marker_body(line: str) -> str | None:
    """The text inside the comment if ``line`` is a whole-line comment, else None."""
    s = line.strip()
    for opener, closer in _COMMENTS:
        if s.startswith(opener):
            body = s[len(opener):]
            if closer:
                if not body.endswith(closer):
                    # "/* ... */" must close on the same line; "{/* ... */}" likewise.
                    return None
                body = body[: -len(closer)]
            elif opener == "#" and (body.startswith("!") or body.startswith("[")
                                    or re.match(r"(?:include|define|if|endif|pragma)\b", body)):
                return None  # shebang, Rust attribute, C preprocessor
            return body.strip(" \t*-#/;%!")
    return None


# Every marker holds one of these (an ellipsis or a stock word): a cheap first test.
_HINTS = ("..", "…", "xisting", "XISTING", "nchanged", "NCHANGED", "est of", "EST OF", "ame as",
          "emaining", "revious", "before", "eep", "ther ")


def is_marker(line: str) -> bool:
    """True when ``line`` stands for elided, unchanged code."""
    if not any(h in line for h in _HINTS):
        return False
    s = line.strip()
    if len(s) > 120 or not s:
        return False
    body = marker_body(s)
    if body is None:
        return False
    if not _WORD_ONLY.match(body):
        return False  # code-ish punctuation: a commented-out statement, not a marker
    has_ellipsis = bool(_ELLIPSIS.search(body))
    words = _ELLIPSIS.sub(" ", body).strip(" .,:;")
    if not words:
        return has_ellipsis  # "// ...", "# …", "<!-- ... -->"
    if len(words.split()) > 10:
        return False
    if has_ellipsis:
        return bool(_WORDS.search(words)) or bool(re.fullmatch(r"[\w\s]{1,40}", words)) and (
            body.strip().startswith(("...", "…")) and body.strip().endswith(("...", "…")))
    return bool(_STRONG.match(words))
