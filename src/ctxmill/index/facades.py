"""Forwarding files: files whose only job is to expose other files' API.

Every language has them: a C/C++ header that only ``#include``s others (fmt's ``core.h`` is
``#include "base.h"``), a Python ``__init__.py`` of ``from .x import Y`` lines, a TypeScript
``index.ts`` of ``export * from "./x"``, a Rust ``mod.rs``/``lib.rs`` of ``mod x;`` and
``pub use x::Y;``, a Ruby file of ``require``/``autoload`` lines. Their own text holds none of
the names a question asks about, so no lexical or vector search finds them; yet a reader who
asks for the API such a file exposes is served by the file and its target.

:func:`is_facade` tells such a file from code (the chunker marks its chunks with the kind
``facade``), and :func:`targets` lists the paths its forwarding lines may point to, relative to
the indexed root, spelled every way the language resolves them (the ranker keeps those that are
indexed files). Nothing here reads the disk: a path is a guess until the index confirms it.
"""

from __future__ import annotations

import posixpath
import re

KIND = "facade"  # the chunk kind the chunker gives a forwarding file's chunks
MAX_CHARS = 6000  # a forwarding file is small; a bigger one is a module with a long import list

# comments, blank lines and what only guards or annotates: stripped before the check
_C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_HASH_COMMENT = re.compile(r"#[^\n]*")
_PY_DOC = re.compile(r'^\s*(?:[rRbBuU]?"""[\s\S]*?"""|[rRbBuU]?\'\'\'[\s\S]*?\'\'\')', re.S)
_LUA_COMMENT = re.compile(r"--\[\[.*?\]\]|--[^\n]*", re.S)

# per language: (comment stripper, one forwarding or neutral statement, the forwarding ones)
_C_LINE = re.compile(
    r"#\s*(?:include\s*[\"<][^\">\n]+[\">]|pragma\s+once|if(?:n?def)?\b[^\n]*|elif\b[^\n]*|else\b|endif\b[^\n]*"
    r"|define\s+\w+\s*)$")
_C_FORWARD = re.compile(r"#\s*include\s*([\"<])([^\">\n]+)[\">]")

_PY_STMT = re.compile(
    r"(?:from\s+[.\w]+\s+import\s+(?:\([^)]*\)|[^\n]+)|import\s+[^\n]+"
    r"|__all__\s*(?::[^=\n]*)?[+]?=\s*(?:\[[^\]]*\]|\([^)]*\))|__all__\s*\+=[^\n]+"
    r"|__(?:version|author|license|copyright)__\s*=\s*[^\n]+)", re.S)
_PY_FORWARD = re.compile(r"from\s+(\.+)([\w.]*)\s+import\s+(\([^)]*\)|[^\n]+)|from\s+(\w[\w.]*)\s+import")

_JS_STMT = re.compile(
    r"(?:export\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+[\"'][^\"']+[\"']"
    r"|import\s+(?:type\s+)?(?:[\w*{}\s,]+?\s+from\s+)?[\"'][^\"']+[\"']"
    r"|export\s+(?:type\s+)?\{[^}]*\}|export\s+default\s+\w+|export\s+(?:import\s+)?\w+\s*=\s*[\w.]+"
    r"|[\"']use (?:strict|client|server)[\"'])\s*;?", re.S)
_JS_FORWARD = re.compile(r"(?:export|import)\b[^;\"']*?from\s+[\"']([^\"']+)[\"']|export\s+\*\s+from\s+[\"']([^\"']+)[\"']")

_RS_STMT = re.compile(
    r"(?:#!?\[[^\]]*\]|(?:pub(?:\([^)]*\))?\s+)?(?:mod\s+\w+\s*;|use\s+[^;]+;)|extern\s+crate\s+\w+(?:\s+as\s+\w+)?\s*;)",
    re.S)
_RS_MOD = re.compile(r"\bmod\s+(\w+)\s*;")
_RS_USE = re.compile(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);")

_RB_STMT = re.compile(
    r"(?:require(?:_relative)?\s*\(?\s*[\"'][^\"']+[\"']\s*\)?|autoload\s*\(?\s*:\w+\s*,\s*[\"'][^\"']+[\"']\s*\)?"
    r"|module\s+[\w:]+|end|#\s*frozen_string_literal:[^\n]*)")
_RB_FORWARD = re.compile(r"(require_relative|require|autoload\s*\(?\s*:\w+\s*,)\s*\(?\s*[\"']([^\"']+)[\"']")

# Go: a file of type aliases (`type Router = chi.Router`) and variables bound to another
# package's values (`var New = chi.NewRouter`) re-exports that package
_GO_STMT = re.compile(
    r"(?:package\s+\w+|import\s+(?:\w+\s+)?\"[^\"]+\"|import\s*\((?:\s*(?:[\w.]+\s+)?\"[^\"]+\")*\s*\)"
    r"|(?:type|var|const)\s+\w+(?:\[[^\]]*\])?\s*=\s*[\w.]+(?:\[[^\]]*\])?"
    r"|(?:type|var|const)\s*\((?:\s*\w+(?:\[[^\]]*\])?\s*=\s*[\w.]+(?:\[[^\]]*\])?)*\s*\))", re.S)
_GO_IMPORT = re.compile(r"\"([^\"]+)\"")
_GO_ALIAS = re.compile(r"\b\w+(?:\[[^\]]*\])?\s*=\s*(\w+)\.\w+")

_LANGS = {
    "c": (_C_COMMENT, _C_LINE, "line"), "cpp": (_C_COMMENT, _C_LINE, "line"),
    "python": (None, _PY_STMT, "stmt"),
    "javascript": (_C_COMMENT, _JS_STMT, "stmt"), "typescript": (_C_COMMENT, _JS_STMT, "stmt"),
    "tsx": (_C_COMMENT, _JS_STMT, "stmt"),
    "rust": (_C_COMMENT, _RS_STMT, "stmt"),
    "ruby": (_HASH_COMMENT, _RB_STMT, "stmt"),
    "go": (_C_COMMENT, _GO_STMT, "stmt"),
}

_JS_EXTS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def _strip(text: str, language: str) -> str:
    if language == "python":
        text = _PY_DOC.sub("", text, count=1)
        return "\n".join(line for line in (_HASH_COMMENT.sub("", ln) if ln.lstrip().startswith("#") else ln
                                           for ln in text.splitlines()))
    comment = _LANGS[language][0]
    if language in ("c", "cpp"):
        # keep preprocessor lines whole, drop comments around them
        return _C_COMMENT.sub("", text)
    return comment.sub("", text) if comment is not None else text


def is_facade(path: str, text: str, language: str) -> bool:
    """True when every statement of the file forwards to, or guards, other files' code, and
    at least one forwards to a file of this project (a relative path or module)."""
    if language not in _LANGS or not text.strip() or len(text) > MAX_CHARS:
        return False
    _comment, stmt, mode = _LANGS[language]
    body = _strip(text, language)
    if mode == "line":
        lines = [ln.strip() for ln in body.splitlines() if ln.strip()]
        if not lines or not all(stmt.fullmatch(ln) for ln in lines):
            return False
    else:
        rest = stmt.sub("", body)
        if rest.strip(" \t\r\n;"):
            return False
    return bool(targets(path, text, language))


_C_IF = re.compile(r"#\s*(if|ifdef|ifndef|elif|else|endif)\b\s*(\w*)")


def fanout(text: str, language: str, n_targets: int) -> int:
    """How many files the forwarding file always forwards to: in C and C++ an include inside an
    ``#if`` block (other than the include guard) is an option of the build, not the file's API
    (fmt/core.h includes format.h only under ``FMT_DEPRECATED_HEAVY_CORE``)."""
    if language not in ("c", "cpp"):
        return max(n_targets, 1)
    stack: list[bool] = []  # per open #if: is it a condition of the build (not the guard)?
    seen: set[str] = set()
    always: set[str] = set()
    lines = _C_COMMENT.sub("", text).splitlines()
    for i, line in enumerate(lines):
        line = line.strip()
        m = _C_IF.match(line)
        if m:
            what, name = m.groups()
            if what in ("if", "ifdef", "ifndef"):
                nxt = next((ln.strip() for ln in lines[i + 1:] if ln.strip()), "")
                guard = what == "ifndef" and bool(name) and re.fullmatch(rf"#\s*define\s+{re.escape(name)}\s*", nxt)
                stack.append(not guard)
            elif what == "endif" and stack:
                stack.pop()
            elif stack:
                stack[-1] = True  # an #else/#elif branch is always a condition
            continue
        inc = _C_FORWARD.match(line)
        if inc and inc.group(2) not in seen:
            seen.add(inc.group(2))
            if not any(stack):
                always.add(inc.group(2))
    return max(len(always), 1)


def targets(path: str, text: str, language: str) -> list[list[str]]:
    """What the file's forwarding lines point to, one list per file forwarded to (in the order
    they appear), each the paths relative to the indexed root that the language could resolve
    it to (so a ranker keeps those that are indexed files)."""
    here = posixpath.dirname(path)
    groups: dict[str, dict[str, None]] = {}  # first spelling -> every spelling
    out: dict[str, None] = {}

    def add(p: str) -> None:
        p = posixpath.normpath(p)
        if not p.startswith("..") and p != "." and p != path:
            out[p.lstrip("/")] = None

    def close() -> None:
        # one forwarded file; the same file forwarded twice (mod x; pub use x::Y;) counts once
        if out:
            groups.setdefault(next(iter(out)), {}).update(out)
            out.clear()

    def anywhere(rel: str) -> None:
        # a path the build resolves from an include/load path: try every ancestor folder
        d = here
        while True:
            add(posixpath.join(d, rel))
            if not d:
                break
            d = posixpath.dirname(d)

    if language in ("c", "cpp"):
        for quote, inc in _C_FORWARD.findall(_C_COMMENT.sub("", text)):
            if quote == '"':
                add(posixpath.join(here, inc))
            anywhere(inc)
            close()
    elif language == "python":
        for dots, mod, names, absolute in _PY_FORWARD.findall(text):
            if absolute:
                anywhere(absolute.replace(".", "/") + ".py")
                anywhere(absolute.replace(".", "/") + "/__init__.py")
                close()
                continue
            base = here
            for _ in range(len(dots) - 1):
                base = posixpath.dirname(base)
            if mod:
                stem = posixpath.join(base, mod.replace(".", "/"))
                add(stem + ".py")
                add(stem + "/__init__.py")
                close()
            else:  # from . import a, b: each name is a module beside this one
                for name in re.findall(r"\b(\w+)\b(?:\s+as\s+\w+)?", names.strip("()")):
                    if name != "as":
                        add(posixpath.join(base, name + ".py"))
                        add(posixpath.join(base, name, "__init__.py"))
                        close()
    elif language in ("javascript", "typescript", "tsx"):
        for a, b in _JS_FORWARD.findall(_C_COMMENT.sub("", text)):
            spec = a or b
            if not spec.startswith("."):
                continue  # a package, not this project's file
            p = posixpath.join(here, spec)
            stem, ext = posixpath.splitext(p)
            if ext in _JS_EXTS:  # "./x.js" is x.ts in TypeScript's resolution
                for e in _JS_EXTS:
                    add(stem + e)
            else:  # "./x": x.ts, or the folder x's index file
                for e in _JS_EXTS:
                    add(p + e)
                for e in _JS_EXTS:
                    add(posixpath.join(p, "index" + e))
            close()
    elif language == "rust":
        clean = _C_COMMENT.sub("", text)
        name = posixpath.basename(path)
        # a mod.rs/lib.rs/main.rs declares modules beside itself; foo.rs declares foo/x.rs
        mod_dir = here if name in ("mod.rs", "lib.rs", "main.rs") else posixpath.join(here, name[:-3])
        for m in _RS_MOD.findall(clean):
            add(posixpath.join(mod_dir, m + ".rs"))
            add(posixpath.join(mod_dir, m, "mod.rs"))
            close()
        for use in _RS_USE.findall(clean):
            segs = [s for s in re.split(r"::", use.strip()) if s and re.fullmatch(r"\w+", s)]
            base = mod_dir
            if segs and segs[0] in ("self", "super", "crate"):
                if segs[0] == "super":
                    base = posixpath.dirname(mod_dir)
                elif segs[0] == "crate":
                    parts = path.split("/")
                    base = "/".join(parts[: parts.index("src") + 1]) if "src" in parts[:-1] else ""
                segs = segs[1:]
            for i in range(1, len(segs) + 1):
                add(posixpath.join(base, *segs[:i]) + ".rs")
                add(posixpath.join(base, *segs[:i], "mod.rs"))
            close()
    elif language == "go":
        # a package is a folder: the targets are folder keys ("dir/"), every tail of the
        # import path (the module's own prefix is not in the tree)
        clean = _C_COMMENT.sub("", text)
        used = set(_GO_ALIAS.findall(clean))
        for imp in _GO_IMPORT.findall(clean):
            parts = imp.split("/")
            if parts[-1] not in used and not any(re.fullmatch(r"v\d+", parts[-1]) and parts[-2] in used for _ in [0]):
                continue  # imported for another reason (the alias names the package by its last part)
            for i in range(len(parts)):
                out["/".join(parts[i:]) + "/"] = None
            close()
    elif language == "ruby":
        for how, spec in _RB_FORWARD.findall(text):
            spec = spec if spec.endswith(".rb") else spec + ".rb"
            if how == "require_relative":
                add(posixpath.join(here, spec))
            else:
                anywhere(spec)
                anywhere(posixpath.join("lib", spec))
            close()
    return [list(g) for g in groups.values()]
