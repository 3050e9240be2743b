"""Does a text still parse? tree-sitter grammars for the languages the index covers."""

from __future__ import annotations

import importlib
from functools import cache

# language -> (grammar module, function returning the language pointer)
GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "swift": ("tree_sitter_swift", "language"),
    "scala": ("tree_sitter_scala", "language"),
    "lua": ("tree_sitter_lua", "language"),
    "bash": ("tree_sitter_bash", "language"),
    "elixir": ("tree_sitter_elixir", "language"),
    "haskell": ("tree_sitter_haskell", "language"),
    "zig": ("tree_sitter_zig", "language"),
}
EXTENSIONS = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
    ".cjs": "javascript", ".jsx": "javascript", ".ts": "typescript", ".mts": "typescript",
    ".cts": "typescript", ".tsx": "tsx", ".go": "go", ".rs": "rust", ".java": "java", ".c": "c",
    ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".php": "php", ".kt": "kotlin", ".kts": "kotlin",
    ".swift": "swift", ".scala": "scala", ".lua": "lua", ".sh": "bash", ".bash": "bash",
    ".ex": "elixir", ".exs": "elixir", ".hs": "haskell", ".zig": "zig",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
}
ALIASES = {"js": "javascript", "ts": "typescript", "py": "python", "rs": "rust", "jsx": "javascript",
           "c#": "csharp", "c++": "cpp", "sh": "bash", "shell": "bash", "golang": "go", "md": "markdown"}


def language_for(path: str | None, hint: str | None = None) -> str | None:
    if hint:
        h = hint.lower()
        return ALIASES.get(h, h)
    if not path:
        return None
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return EXTENSIONS.get(name[dot:].lower()) if dot >= 0 else None


@cache
def _parser(lang: str):
    spec = GRAMMARS.get(lang)
    if spec is None:
        return None
    try:
        import tree_sitter

        module = importlib.import_module(spec[0])
        return tree_sitter.Parser(tree_sitter.Language(getattr(module, spec[1])()))
    except Exception:  # grammar not installed: no parse check for this language
        return None


def first_error(text: str, lang: str | None) -> int | None | bool:
    """1-based line of the first syntax error; None when it parses; False when we cannot tell."""
    parser = _parser(lang) if lang else None
    if parser is None:
        return False
    root = parser.parse(text.encode("utf-8", "surrogatepass")).root_node
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return node.start_point[0] + 1
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing or c.is_error]))
    return root.start_point[0] + 1


def new_error(original: str, result: str, lang: str | None) -> int | None:
    """1-based line of a syntax error ``result`` has where ``original`` parsed cleanly.

    The original is parsed once; the result is re-parsed incrementally from that tree (only
    the edited span is new to the parser), which keeps the check cheap on big files.
    """
    parser = _parser(lang) if lang else None
    if parser is None:
        return None
    old = original.encode("utf-8", "surrogatepass")
    new = result.encode("utf-8", "surrogatepass")
    tree = parser.parse(old)
    if tree.root_node.has_error:
        return None  # it did not parse before: nothing to compare with
    p = _common_prefix(old, new)
    q = _common_suffix(old, new, p)

    def point(buf: bytes, at: int) -> tuple[int, int]:
        row = buf.count(b"\n", 0, at)
        return row, at - (buf.rfind(b"\n", 0, at) + 1)

    tree.edit(start_byte=p, old_end_byte=len(old) - q, new_end_byte=len(new) - q,
              start_point=point(old, p), old_end_point=point(old, len(old) - q),
              new_end_point=point(new, len(new) - q))
    root = parser.parse(new, tree).root_node
    if not root.has_error:
        return None
    return _error_line(root)


def _error_line(root) -> int:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return node.start_point[0] + 1
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing or c.is_error]))
    return root.start_point[0] + 1


def _common_prefix(a: bytes, b: bytes) -> int:
    # Binary search over slice comparisons: each is a C memcmp, so this is O(n log n) in C
    # rather than a Python loop over every byte.
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, prefix: int) -> int:
    lo, hi = 0, min(len(a), len(b)) - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return lo

