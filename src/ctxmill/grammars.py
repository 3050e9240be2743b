"""The tree-sitter grammars ctxmill ships: which language a file is, and a parser for it.

Its own module, outside ``ctxmill.index``, so that a caller needing only a parser (next
edits, the language server) does not import the index package and numpy with it. The
chunker's per-language rules (what a definition is) stay in ``ctxmill.index.chunk_code``.
"""

from __future__ import annotations

import importlib

# language -> (the PyPI wheel's module, its function returning the language pointer)
GRAMMARS: dict[str, tuple[str, str]] = {
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

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".hxx": "cpp", ".ipp": "cpp", ".cs": "csharp", ".rb": "ruby", ".rake": "ruby", ".php": "php",
    ".kt": "kotlin", ".kts": "kotlin", ".swift": "swift", ".scala": "scala", ".sc": "scala",
    ".lua": "lua", ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".ex": "elixir", ".exs": "elixir",
    ".hs": "haskell", ".zig": "zig", ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
}


def language_for(path: str) -> str | None:
    """The language of a file by its name ("markdown" too, which has no grammar here)."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        base = path.rsplit("/", 1)[-1]
        return {"Makefile": None, "Rakefile": "ruby", "Gemfile": "ruby"}.get(base)
    return EXTENSIONS.get(path[dot:].lower())


_parsers: dict[str, object] = {}


def get_parser(lang: str):
    """A cached tree-sitter parser for ``lang`` (a key of :data:`GRAMMARS`)."""
    parser = _parsers.get(lang)
    if parser is None:
        import tree_sitter

        module_name, func = GRAMMARS[lang]
        module = importlib.import_module(module_name)
        parser = tree_sitter.Parser(tree_sitter.Language(getattr(module, func)()))
        _parsers[lang] = parser
    return parser


# A bound on one parse, in tree-sitter's progress calls (one per ~100 parser operations): real
# source needs at most ~0.011 a byte (this repository, /usr/include); some grammars meet
# syntax soup with an explosion of parse stacks (tree-sitter-c-sharp: 164 KB of soup parsed for
# over 350 CPU-s). 10x the real rate plus a floor: a file over it is no code we can read.
PARSE_CALLS_BASE = 2000
PARSE_CALLS_PER_BYTE = 0.1
PARSE_PLAIN_BYTES = 8192  # a file this small parses unbounded (the first 8 KB of that soup: 0.01 s)


def parse_bounded(parser, data: bytes, old_tree=None):
    """``parser.parse(data)``, or None when it needs more than the bound above (the parser is
    reset; the caller reads the file another way). Deterministic: the bound counts work, not time."""
    if len(data) <= PARSE_PLAIN_BYTES:  # (the progress calls cost ~10% of a parse: not for small files)
        return parser.parse(data) if old_tree is None else parser.parse(data, old_tree)
    budget = PARSE_CALLS_BASE + int(len(data) * PARSE_CALLS_PER_BYTE)
    calls = 0

    def progress(*_state) -> bool:
        nonlocal calls
        calls += 1
        return calls > budget

    def read(offset: int, _point) -> bytes:
        return data[offset:offset + 65536]

    try:
        if old_tree is None:
            return parser.parse(read, progress_callback=progress)
        return parser.parse(read, old_tree, progress_callback=progress)
    except ValueError:  # cancelled ("Parsing failed")
        parser.reset()
        return None



def _parses(lang: str, data: bytes) -> bool:
    """Run in the grammar child: the parse finishes (its tree stays there)."""
    return parse_bounded(get_parser(lang), data) is not None


def parse_contained(lang: str, data: bytes):
    """A tree of ``data`` for a caller that reads the tree in this process (next edits): for a
    grammar seen crashing (ctxmill.parse_guard.needed_for_tree), the child parses it first, and only a
    parse that finished there is repeated here (tree-sitter is deterministic). A grammar that
    crashes raises ``GrammarCrashed`` here instead of ending this process; None past the bound."""
    from ctxmill import parse_guard

    if parse_guard.needed_for_tree(lang) and not parse_guard.call(_parses, lang, data):
        return None
    return parse_bounded(get_parser(lang), data)
