"""Split source files into retrieval chunks along their syntax (tree-sitter).

A chunk is one definition (function, method, class, struct, ...) with its leading comments,
doc comments, decorators and attributes. A definition larger than ``MAX_CHARS`` is split at
its children: a class into its header and its members, a long function into runs of whole
statements; every part after the first carries the enclosing signature as ``context`` so the
part still says where it lives. Runs of top-level statements between definitions (imports,
constants, script code) become ``code`` chunks, and tiny neighbours (getters, one-line type
aliases, a Haskell signature and its equations) are merged so the index does not fill with
fragments. Markdown is split by headings; anything without a grammar falls back to line windows.

Grammars come from the official per-language PyPI wheels (``tree-sitter-python`` and friends),
which ship the compiled parser inside the wheel and need no network at run time.

Lines are 1-based and inclusive; ``text`` is exactly those lines of the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate

from ctxmill import parse_guard
from ctxmill.grammars import EXTENSIONS, get_parser, language_for, parse_bounded  # noqa: F401 (re-exported)
from ctxmill.index.facades import KIND as FACADE_KIND
from ctxmill.index.facades import is_facade

# Bumped whenever chunking changes what a file's chunks are: an index built by another version
# re-chunks every file once on its next sync (vectors are reused by content hash), so an
# upgrade never leaves old chunks behind for files that did not change.
CHUNKER_VERSION = "5"
STUB_MARK = "---@meta"  # first line of a LuaLS definition file (rank.STUB_MARK reads it back)
MAX_CHARS = 2000  # a chunk larger than this is split at child boundaries
MIN_CHARS = 100  # neighbours of one kind, both smaller than this, are merged
ERROR_DESCEND_LINES = 20  # an unparsable stretch at least this long is searched for definitions
CODE_RUN_CHARS = 800  # neighbouring runs of plain statements are merged up to this size
WINDOW_LINES = 60  # line-window fallback
MINIFIED_LINE = 400  # average line length above which a file is treated as minified


@dataclass
class CodeChunk:
    path: str
    start_line: int  # 1-based
    end_line: int  # 1-based, inclusive
    kind: str  # function | method | class | struct | interface | enum | trait | impl | module | type | ...
    symbol: str | None
    language: str
    text: str
    context: str = ""  # enclosing signature(s) for parts of a split definition
    # Filled by ctxmill.index.sync.finalize_chunk just before storing:
    hash: str = ""  # content hash of context + text (the vector key)
    fts: str = ""  # text plus identifier parts, for the FTS body column
    symbol_fts: str = ""

    def to_dict(self) -> dict:
        return {
            "path": self.path, "start_line": self.start_line, "end_line": self.end_line,
            "kind": self.kind, "symbol": self.symbol, "language": self.language,
            "text": self.text, "context": self.context,
        }


# ------------------------------------------------------------------------------ languages


@dataclass(frozen=True)
class Lang:
    name: str  # a key of ctxmill.grammars.GRAMMARS (where its parser comes from)
    defs: dict[str, str]  # node type -> chunk kind
    comments: frozenset[str] = frozenset({"comment"})
    leading: frozenset[str] = frozenset()  # attach forward like comments (attributes, annotations)
    wrappers: frozenset[str] = frozenset()  # wrap one definition (export, decorators, templates)
    transparent: frozenset[str] = frozenset()  # always descended (namespaces, include guards)
    special: Callable | None = None  # node -> (kind, name) for definitions no type alone reveals


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


def _js_special(node) -> tuple[str, str | None] | None:
    if node.type in ("lexical_declaration", "variable_declaration"):
        for d in node.named_children:
            if d.type == "variable_declarator":
                value = d.child_by_field_name("value")
                if value is not None and value.type in (
                    "arrow_function", "function_expression", "function", "generator_function"
                ):
                    return "function", _text(d.child_by_field_name("name"))
                if value is not None and value.type in ("class", "class_expression"):
                    return "class", _text(d.child_by_field_name("name"))
        return None
    if node.type == "expression_statement":  # TypeScript `namespace X { }`
        inner = node.named_children[0] if node.named_child_count else None
        if inner is not None and inner.type == "internal_module":
            return "module", _text(inner.child_by_field_name("name"))
    return None


def _go_receiver(node) -> str | None:
    """The type of a Go method's receiver: ``func (m *Mux) Use()`` -> ``Mux`` (pointer and
    type parameters dropped)."""
    recv = node.child_by_field_name("receiver")
    param = next((c for c in recv.named_children if c.type == "parameter_declaration"), None) if recv else None
    t = param.child_by_field_name("type") if param is not None else None
    while t is not None and t.type in ("pointer_type", "generic_type", "parenthesized_type"):
        t = t.child_by_field_name("type") or next((c for c in t.named_children if c.type == "type_identifier"), None)
    return _text(t) if t is not None and t.type == "type_identifier" else None


def _go_special(node) -> tuple[str, str | None] | None:
    if node.type == "method_declaration":
        # A method is named with its receiver, as Go's docs write it (Mux.ServeHTTP): the
        # type is what ties the methods of one file or several files together.
        name, recv = _text(node.child_by_field_name("name")), _go_receiver(node)
        return "method", f"{recv}.{name}" if recv and name else name
    if node.type == "type_declaration":
        for spec in node.named_children:
            if spec.type in ("type_spec", "type_alias"):
                t = spec.child_by_field_name("type")
                kind = {"struct_type": "struct", "interface_type": "interface"}.get(t.type if t else "", "type")
                return kind, _text(spec.child_by_field_name("name"))
    return None


_ELIXIR_DEFS = {
    "defmodule": "module", "defprotocol": "interface", "defimpl": "impl", "def": "function",
    "defp": "function", "defmacro": "macro", "defmacrop": "macro", "defguard": "function",
    "defdelegate": "function", "defstruct": "struct", "defexception": "struct",
}


def _elixir_special(node) -> tuple[str, str | None] | None:
    if node.type != "call":
        return None
    target = node.child_by_field_name("target")
    kind = _ELIXIR_DEFS.get(_text(target) or "")
    if kind is None:
        return None
    name = None
    args = next((c for c in node.named_children if c.type == "arguments"), None)
    if args is not None and args.named_child_count:
        first = args.named_children[0]
        if first.type == "binary_operator":  # def name(args) when guard
            first = first.child_by_field_name("left") or first
        if first.type == "call":
            first = first.child_by_field_name("target") or first
        name = _text(first)
    return kind, name


def _zig_special(node) -> tuple[str, str | None] | None:
    if node.type == "variable_declaration":
        for c in node.named_children:
            kind = {"struct_declaration": "struct", "enum_declaration": "enum",
                    "union_declaration": "struct", "opaque_declaration": "type"}.get(c.type)
            if kind:
                ident = next((x for x in node.named_children if x.type == "identifier"), None)
                return kind, _text(ident)
    return None


def _swift_special(node) -> tuple[str, str | None] | None:
    if node.type == "class_declaration":
        kw = node.child_by_field_name("declaration_kind")
        kind = {"struct": "struct", "enum": "enum", "extension": "impl", "actor": "class"}.get(_text(kw) or "", "class")
        return kind, _text(node.child_by_field_name("name"))
    return None


_C_DEFS = {
    "function_definition": "function", "struct_specifier": "struct", "union_specifier": "struct",
    "enum_specifier": "enum", "type_definition": "type", "preproc_function_def": "macro",
}
_C_TRANSPARENT = _f("preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "linkage_specification")
_JS_DEFS = {
    "function_declaration": "function", "generator_function_declaration": "function",
    "class_declaration": "class", "method_definition": "method",
}
_TS_DEFS = {
    **_JS_DEFS, "abstract_class_declaration": "class", "interface_declaration": "interface",
    "type_alias_declaration": "type", "enum_declaration": "enum", "function_signature": "function",
    "method_signature": "method", "abstract_method_signature": "method", "module": "module",
}

LANGS: dict[str, Lang] = {
    "python": Lang("python", {"function_definition": "function", "class_definition": "class"},
                   wrappers=_f("decorated_definition")),
    "javascript": Lang("javascript", _JS_DEFS,
                       wrappers=_f("export_statement"), special=_js_special),
    "typescript": Lang("typescript", _TS_DEFS,
                       wrappers=_f("export_statement", "ambient_declaration"), special=_js_special),
    "tsx": Lang("tsx", _TS_DEFS,
                wrappers=_f("export_statement", "ambient_declaration"), special=_js_special),
    "go": Lang("go", {"function_declaration": "function", "method_declaration": "method"}, special=_go_special),
    "rust": Lang("rust", {"function_item": "function", "function_signature_item": "function", "struct_item": "struct",
                  "enum_item": "enum", "union_item": "struct", "trait_item": "trait", "impl_item": "impl",
                  "mod_item": "module", "macro_definition": "macro", "type_item": "type",
                  "const_item": "constant", "static_item": "constant"},
                 comments=_f("line_comment", "block_comment"), leading=_f("attribute_item")),
    "java": Lang("java", {"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
                  "record_declaration": "class", "annotation_type_declaration": "interface",
                  "method_declaration": "method", "constructor_declaration": "method",
                  "compact_constructor_declaration": "method"},
                 comments=_f("line_comment", "block_comment")),
    "c": Lang("c", _C_DEFS, transparent=_C_TRANSPARENT),
    "cpp": Lang("cpp", {**_C_DEFS, "class_specifier": "class"},
                wrappers=_f("template_declaration"),
                transparent=_C_TRANSPARENT | {"namespace_definition"}),
    "csharp": Lang("csharp", {"class_declaration": "class", "struct_declaration": "struct",
                    "interface_declaration": "interface", "enum_declaration": "enum",
                    "record_declaration": "class", "method_declaration": "method",
                    "constructor_declaration": "method", "property_declaration": "property",
                    "delegate_declaration": "type"},
                   transparent=_f("namespace_declaration", "file_scoped_namespace_declaration")),
    "ruby": Lang("ruby", {"method": "function", "singleton_method": "method", "class": "class", "module": "module",
                  "singleton_class": "class"}),
    "php": Lang("php", {"function_definition": "function", "class_declaration": "class",
                 "interface_declaration": "interface", "trait_declaration": "trait",
                 "enum_declaration": "enum", "method_declaration": "method"},
                transparent=_f("namespace_definition")),
    "kotlin": Lang("kotlin", {"class_declaration": "class", "object_declaration": "object",
                    "function_declaration": "function", "companion_object": "object", "type_alias": "type"},
                   comments=_f("line_comment", "block_comment", "multiline_comment")),
    "swift": Lang("swift", {"protocol_declaration": "interface", "function_declaration": "function",
                   "init_declaration": "method", "protocol_function_declaration": "method",
                   "typealias_declaration": "type"},
                  comments=_f("comment", "multiline_comment"), special=_swift_special),
    "scala": Lang("scala", {"class_definition": "class", "object_definition": "object", "trait_definition": "trait",
                   "function_definition": "function", "function_declaration": "function",
                   "enum_definition": "enum"},
                  comments=_f("comment", "block_comment")),
    "lua": Lang("lua", {"function_declaration": "function"}),
    "bash": Lang("bash", {"function_definition": "function"}),
    "elixir": Lang("elixir", {}, special=_elixir_special),
    "haskell": Lang("haskell", {"function": "function", "bind": "function", "signature": "function",
                     "data_type": "type", "newtype": "type", "type_synomym": "type", "type_family": "type",
                     "class": "class", "instance": "impl"},
                    comments=_f("comment", "haddock"), transparent=_f("declarations")),
    "zig": Lang("zig", {"function_declaration": "function", "test_declaration": "function"}, special=_zig_special),
}

CONTAINER_KINDS = {"class", "struct", "interface", "trait", "impl", "module", "object", "enum"}
_SOLE_KINDS = {"class", "struct", "interface", "trait", "module", "object", "enum"}  # see _Chunker.sole_types
_IDENT_TYPES = {
    "identifier", "type_identifier", "field_identifier", "property_identifier", "constant", "name",
    "simple_identifier", "word", "namespace_identifier", "alias", "variable", "qualified_identifier",
    "scoped_identifier", "dot_index_expression", "operator_name", "destructor_name", "type_constructor",
}
_BODY_TYPES = {
    "block", "class_body", "declaration_list", "field_declaration_list", "interface_body", "enum_body",
    "template_body", "body_statement", "do_block", "class_declarations", "protocol_body",
    "enum_class_body", "statement_block", "compound_statement", "function_body", "statements",
    "enum_variant_list", "struct_declaration", "instance_declarations", "object_type",
}




def _text(node) -> str | None:
    if node is None:
        return None
    return node.text.decode("utf-8", "replace")


def _last_row(node) -> int:
    """0-based last row that holds a character of ``node`` (tree-sitter ends may sit at col 0)."""
    end = node.end_point
    row = end[0]
    if end[1] == 0 and row > node.start_point[0]:
        row -= 1
    return row


# ------------------------------------------------------------------------------ units


@dataclass
class _Unit:
    start: int  # 0-based first row (leading comments included)
    end: int  # 0-based last row
    kind: str
    name: str | None = None
    node: object = None  # the definition node (after unwrapping); None for code runs
    def_start: int = 0  # row where the definition itself starts (after comments)
    children: list = field(default_factory=list)


class _Chunker:
    def __init__(self, path: str, lang: Lang, lines: list[str]):
        self.path = path
        self.lang = lang
        self.lines = lines
        # Offset of each line's start (+1 per line for its "\n"), summed in C, not in a loop.
        self.cum = list(accumulate(map((1).__add__, map(len, lines)), initial=0))
        self.out: list[CodeChunk] = []

    def size(self, start: int, end: int) -> int:
        return self.cum[end + 1] - self.cum[start]

    def classify(self, node) -> tuple[str, str | None, object] | None:
        """(kind, name, definition node) when ``node`` is a definition, else None."""
        lang = self.lang
        if node.type in lang.wrappers:
            for c in node.named_children:
                got = self.classify(c)
                if got:
                    return got
            return None
        if lang.special is not None:
            got = lang.special(node)
            if got:
                return got[0], got[1], node
        kind = lang.defs.get(node.type)
        if kind is None:
            return None
        return kind, _name(node), node

    def units(self, nodes, inside: str | None) -> list[_Unit]:
        """Group sibling nodes into definition units and code runs."""
        lang = self.lang
        units: list[_Unit] = []
        pending: tuple[int, int] | None = None  # a run of comments waiting for a definition
        code: _Unit | None = None

        def add_code(start: int, end: int) -> None:
            nonlocal code
            if code is not None and start <= code.end + 2:
                code.end = max(code.end, end)
            else:
                code = _Unit(start, end, "code", def_start=start)
                units.append(code)

        for node in nodes:
            ntype = node.type
            if not node.is_named and ntype not in lang.comments:
                continue
            s, e = node.start_point[0], _last_row(node)
            if ntype in lang.comments or ntype in lang.leading or _is_doc_attr(lang, node):
                if pending is not None and s <= pending[1] + 1:
                    pending = (pending[0], e)
                else:
                    if pending is not None:
                        add_code(*pending)
                    pending = (s, e)
                continue
            if ntype in lang.transparent and not (
                "namespace" in ntype and node.child_by_field_name("body") is None
            ):  # PHP's `namespace App;` has no body: it is a plain statement
                if pending is not None:
                    add_code(*pending)
                    pending = None
                code = None
                units.extend(self.units(_transparent_children(node), inside))
                continue
            if ntype == "ERROR" and e - s >= ERROR_DESCEND_LINES and any(
                    k.is_named and self.classify(k) for k in node.children):
                # the grammar wraps a stretch it could not parse (an unbalanced macro, a
                # construct it does not know) in one ERROR node; the definitions inside it are
                # usually intact, so they are chunked as such instead of as line windows
                if pending is not None:
                    add_code(*pending)
                    pending = None
                code = None
                units.extend(self.units(node.children, inside))
                last = max(_last_row(k) for k in node.children)
                code = None
                if last < e:  # the node may reach past its last child: keep those lines too
                    add_code(last + 1, e)
                continue
            got = self.classify(node)
            if got is None:
                if pending is not None:
                    add_code(*pending)
                    pending = None
                add_code(s, e)
                continue
            kind, name, defnode = got
            if inside in CONTAINER_KINDS and kind == "function":
                kind = "method"
            start = s
            if pending is not None:
                if pending[1] >= s - 1:
                    start = pending[0]
                else:
                    add_code(*pending)
                pending = None
            code = None
            units.append(_Unit(start, e, kind, name, defnode, s))
        if pending is not None:
            add_code(*pending)
        return units

    # -- emission

    def emit(self, unit: _Unit, context: str, prefix: str) -> None:
        symbol = f"{prefix}{unit.name}" if unit.name else (prefix.rstrip(".") or None)
        if self.size(unit.start, unit.end) <= MAX_CHARS or unit.node is None:
            if unit.node is None and self.size(unit.start, unit.end) > MAX_CHARS:
                self.windows(unit.start, unit.end, "code", prefix.rstrip(".") or None, context)
                return
            kind = unit.kind
            if unit.kind == "module" and symbol:
                # `module Rack; class ETag ... end; end`: a module that only wraps one type is
                # that type's chunk (Rack.ETag, a class), not one more chunk named Rack
                for inner in self.sole_types(unit):
                    symbol, kind = f"{symbol}.{inner.name}", inner.kind
            self.add(unit.start, unit.end, kind, symbol, context)
            return
        body = _body(unit.node)
        inner = self.units(self.lead_comments(unit, body) + list(body.children), unit.kind) if body is not None else []
        sig = self.signature(unit.node, body)
        sub_context = (context + "\n" + sig).strip("\n") if sig else context
        first_def = next((i for i, u in enumerate(inner) if u.node is not None), None)
        if first_def is not None and unit.kind == "function" and self.lang.name in ("c", "cpp") and any(
                u.kind in ("function", "method") for u in inner[first_def:]):
            # A macro before `namespace x {` or a macro-made block (`BEGIN_SCOPE(x) {`) makes
            # the grammar read a scope as a function; C has no nested functions, so it is a
            # scope: its members are chunked as if it were transparent, as namespaces are.
            head_end = inner[first_def].start - 1
            if head_end >= unit.start:
                self.part(unit.start, head_end, "code", None, context)
            for u in inner[first_def:]:
                self.emit(u, context, prefix)
            return
        if first_def is not None:
            # The header runs up to the first inner definition: signature, docstring, fields.
            head_end = inner[first_def].start - 1
            if head_end >= unit.start:
                self.part(unit.start, head_end, unit.kind, symbol, context)
            sub_prefix = f"{symbol}." if symbol else prefix
            for u in inner[first_def:]:
                self.emit(u, sub_context, sub_prefix)
            return
        # A long definition without inner definitions: split at its statements.
        self.split_rows(unit, body, symbol, context, sub_context)

    def sole_types(self, unit: _Unit) -> list[_Unit]:
        """The chain of types a module wraps alone (module A; module B; class C -> [B, C]):
        each holds exactly one definition, a named class-like one, beside plain statements."""
        out: list[_Unit] = []
        while unit.node is not None and unit.kind == "module" and len(out) < 8:
            body = _body(unit.node)
            if body is None:
                break
            defs = [u for u in self.units(list(body.children), unit.kind) if u.node is not None]
            if len(defs) != 1 or not defs[0].name or defs[0].kind not in _SOLE_KINDS:
                break
            unit = defs[0]
            out.append(unit)
        return out

    def lead_comments(self, unit: _Unit, body) -> list:
        """Comments inside a definition but before its body node (Ruby parses the comment above
        a class's first member as a child of the module, not of its body): they document
        what follows, so they go with the inner units instead of the header."""
        lead: list = []
        for c in unit.node.children:
            if c.start_byte >= body.start_byte:
                break
            if c.type in self.lang.comments and c.start_point[0] > unit.def_start:
                lead.append(c)
            elif lead and c.is_named:
                lead = []
        return lead

    def split_rows(self, unit: _Unit, body, symbol, context: str, sub_context: str) -> None:
        bounds = []
        for c in body.children if body is not None else []:
            if not c.is_named and c.type not in self.lang.comments:
                continue
            s, e = c.start_point[0], _last_row(c)
            if bounds and s <= bounds[-1][1]:  # statements sharing a line stay together
                bounds[-1] = (bounds[-1][0], max(e, bounds[-1][1]))
            else:
                bounds.append((s, e))
        if not bounds:
            self.windows(unit.start, unit.end, unit.kind, symbol, context)
            return
        # The signature lines belong to the first part; the closing lines to the last.
        bounds[0] = (unit.start, bounds[0][1])
        bounds[-1] = (bounds[-1][0], unit.end)
        part_start, part_end = bounds[0]
        first = True
        for s, e in bounds[1:]:
            if self.size(part_start, e) <= MAX_CHARS:
                part_end = e
                continue
            self.part(part_start, part_end, unit.kind, symbol, context if first else sub_context)
            first = False
            part_start, part_end = s, e
        self.part(part_start, part_end, unit.kind, symbol, context if first else sub_context)

    def part(self, start: int, end: int, kind: str, symbol, context: str) -> None:
        if self.size(start, end) > MAX_CHARS * 2:  # one huge statement: line windows
            self.windows(start, end, kind, symbol, context)
        else:
            self.add(start, end, kind, symbol, context)

    def windows(self, start: int, end: int, kind: str, symbol, context: str) -> None:
        for s, e in _line_windows(self.lines, start, end):
            self.add(s, e, kind, symbol, context)

    def signature(self, node, body) -> str:
        s = node.start_point[0]
        b = body.start_point[0] if body is not None else s
        e = min(b - 1, s + 2) if b > s else s  # the lines before the body, else the first line
        sig = "\n".join(self.lines[s:e + 1]).strip()
        return sig[:300]

    def add(self, start: int, end: int, kind: str, symbol, context: str) -> None:
        while start < end and not self.lines[start].strip():
            start += 1
        while end > start and not self.lines[end].strip():
            end -= 1
        text = "\n".join(self.lines[start:end + 1])
        if not text.strip():
            return
        if len(text) > MAX_CHARS * 4:  # a few enormous lines (data, minified code)
            for piece in _char_pieces(text, MAX_CHARS * 2):
                self.out.append(CodeChunk(self.path, start + 1, end + 1, kind, symbol, self.lang.name, piece, context))
            return
        self.out.append(CodeChunk(self.path, start + 1, end + 1, kind, symbol, self.lang.name, text, context))


def _is_doc_attr(lang: Lang, node) -> bool:
    # Elixir's @doc/@spec attributes document the def that follows.
    if lang.name != "elixir" or node.type != "unary_operator":
        return False
    return bool(re.match(rb"@(doc|spec|impl|typedoc)\b", node.text or b""))


def _transparent_children(node):
    skip = {id(x) for x in (node.child_by_field_name("name"), node.child_by_field_name("condition")) if x}
    body = node.child_by_field_name("body")
    kids = body.children if body is not None else node.children
    return [c for c in kids if id(c) not in skip]


def _name(node) -> str | None:
    name = node.child_by_field_name("name")
    if name is not None:
        return _text(name)
    if node.type == "impl_item":  # Rust: impl Trait for Type
        t, tr = node.child_by_field_name("type"), node.child_by_field_name("trait")
        return f"{_text(tr)} for {_text(t)}" if tr is not None else _text(t)
    decl = node.child_by_field_name("declarator")
    depth = 0
    while decl is not None and depth < 8:  # C/C++ declarator chains: pointer -> function -> identifier
        if decl.type in _IDENT_TYPES:
            return _text(decl)
        nxt = decl.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in decl.named_children if c.type in _IDENT_TYPES), None)
        decl, depth = nxt, depth + 1
    for c in node.named_children:
        if c.type in _IDENT_TYPES:
            return _text(c)
    return None


def _body(node):
    body = node.child_by_field_name("body")
    if body is None:
        body = next((c for c in node.named_children if c.type in _BODY_TYPES), None)
    # Unwrap single-child shells (Kotlin function_body -> block, Swift function_body -> statements).
    while body is not None and body.named_child_count == 1:
        only = body.named_children[0]
        if only.type in _BODY_TYPES and only.named_child_count:
            body = only
        else:
            break
    return body


def _line_windows(lines: list[str], start: int, end: int, size: int = WINDOW_LINES) -> list[tuple[int, int]]:
    """Windows of about ``size`` lines, preferring to end at a blank line, within MAX_CHARS*2."""
    out = []
    s = start
    while s <= end:
        e = min(s + size - 1, end)
        chars = 0
        for i in range(s, e + 1):  # keep windows of long lines small
            chars += len(lines[i]) + 1
            if chars > MAX_CHARS * 2 and i > s:
                e = i - 1
                break
        if e < end:
            for j in range(e, max(s, e - size // 4), -1):
                if not lines[j].strip():
                    e = j
                    break
        out.append((s, e))
        s = e + 1
    return out


def _char_pieces(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


_FILLER = re.compile(r"\s*(?:#\s*(?:endif|else)\b.*|[})\];]*)\s*$")  # what may separate two runs of code


def _mergeable(prev: CodeChunk, c: CodeChunk, lines: list[str] | None) -> bool:
    if prev.kind != c.kind or prev.context != c.context or c.start_line <= prev.end_line:
        return False
    gap = c.start_line - prev.end_line
    if gap <= 2 and len(prev.text) < MIN_CHARS and len(c.text) < MIN_CHARS:
        return True  # tiny neighbours of one kind: getters, one-line aliases
    # Runs of top-level statements cut apart by conditional compilation (each #if branch of a
    # C header is its own node, its #endif in no chunk): one passage of the file, read together.
    return (c.kind == "code" and prev.symbol == c.symbol and lines is not None and gap <= 4
            and len(prev.text) + len(c.text) <= CODE_RUN_CHARS
            and all(_FILLER.match(ln) for ln in lines[prev.end_line : c.start_line - 1]))


def _merge_tiny(chunks: list[CodeChunk], lines: list[str] | None = None) -> list[CodeChunk]:
    out: list[CodeChunk] = []
    for c in chunks:
        prev = out[-1] if out else None
        if prev is not None and _mergeable(prev, c, lines):
            names = [n for n in (prev.symbol, c.symbol) if n]
            symbol = ", ".join(dict.fromkeys(", ".join(names).split(", "))) if names else None
            if lines is not None:  # the lines between them too, exactly as in the file
                text = "\n".join(lines[prev.start_line - 1 : c.end_line])
            else:
                text = prev.text + "\n" * (c.start_line - prev.end_line) + c.text
            out[-1] = CodeChunk(
                prev.path, prev.start_line, c.end_line, prev.kind,
                symbol, prev.language, text, prev.context,
            )
        else:
            out.append(c)
    return out


# ------------------------------------------------------------------------------ entry points


# C and C++ libraries wrap declarations in their own macros (FMT_CONSTEXPR, FMT_API,
# FMT_BEGIN_NAMESPACE, Q_OBJECT...): the grammar cannot expand them and misreads what follows
# (a namespace as a function, a function as loose statements). The parser gets a copy with
# such macros blanked out - same length, same lines - as ctags' -I option does; chunk text
# and lines still come from the file itself.
_MACRO = rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\([^()\n]*\))?"
_MACRO_LINE = re.compile(rb"^[ \t]*" + _MACRO + rb"[ \t]*$", re.M)  # FMT_BEGIN_NAMESPACE alone
_MACRO_LEAD = re.compile(rb"^[ \t]*((?:" + _MACRO + rb"[ \t]+)+)(?=[A-Za-z_~])", re.M)  # FMT_CONSTEXPR inline auto f()
_MACRO_TAG = re.compile(rb"\b(?:class|struct|union)[ \t]+(" + _MACRO + rb")[ \t]+(?=[A-Za-z_])")  # class FMT_API x


def _blank(m: re.Match, group: int = 0) -> bytes:
    whole = m.group(0)
    s, e = m.start(group) - m.start(0), m.end(group) - m.start(0)
    return whole[:s] + b" " * (e - s) + whole[e:]


def _mask_macros(data: bytes) -> bytes:
    out = _MACRO_LINE.sub(_blank, data)
    out = _MACRO_LEAD.sub(lambda m: _blank(m, 1), out)
    return _MACRO_TAG.sub(lambda m: _blank(m, 1), out)


def chunk_code(path: str, data: bytes, text: str, language: str) -> list[CodeChunk]:
    """Chunk one source file with its grammar; ``text`` is ``data`` decoded (same line breaks).

    The parse and the walk of its tree run in the grammar child (ctxmill.parse_guard) for a
    large file or a grammar known to crash: a grammar that crashes on this file raises :class:`~ctxmill.parse_guard.GrammarCrashed` here, and the
    caller reads the file as plain text (the index names it in its warnings)."""
    if not text or _minified(text, text.count("\n") + (not text.endswith("\n"))):
        return chunk_text(path, text, language)  # (no parse: nothing a grammar could crash on)
    if parse_guard.needed(language, len(data)):
        return [CodeChunk(*t) for t in parse_guard.call(_chunk_rows, path, data, text, language)]
    return _chunk_parsed(path, data, text, language)


def _chunk_rows(path: str, data: bytes, text: str, language: str) -> list[tuple]:
    """The chunks as plain tuples: what the grammar child sends back (a dataclass pickles through
    copyreg in Python, ~10x slower than a tuple of strings and ints)."""
    return [(c.path, c.start_line, c.end_line, c.kind, c.symbol, c.language, c.text, c.context)
            for c in _chunk_parsed(path, data, text, language)]


def _chunk_parsed(path: str, data: bytes, text: str, language: str) -> list[CodeChunk]:
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    if not lines:
        return []
    if _minified(text, len(lines)):
        return _windows_only(path, lines, language)
    parser = get_parser(language)
    tree = parse_bounded(parser, _mask_macros(data) if language in ("c", "cpp") else data)
    if tree is None:  # syntax soup the grammar cannot get through: line windows, as minified code
        return _windows_only(path, lines, language)
    chunker = _Chunker(path, LANGS[language], lines)
    for unit in chunker.units(tree.root_node.children, None):
        chunker.emit(unit, "", "")
    return _merge_tiny(chunker.out, lines)


def chunk_markdown(path: str, text: str) -> list[CodeChunk]:
    """Markdown by headings (ATX and setext, fenced code ignored); symbol is the heading path."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    heads: list[tuple[int, int, str]] = []  # (row, level, title)
    fence: str | None = None
    for i, ln in enumerate(lines):
        stripped = ln.lstrip()
        if fence:
            if stripped.startswith(fence):
                fence = None
            continue
        m = re.match(r"(`{3,}|~{3,})", stripped)
        if m and len(ln) - len(stripped) < 4:
            fence = m.group(1)
            continue
        m = re.match(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$", ln)
        if m:
            heads.append((i, len(m.group(1)), (m.group(2) or "").strip()))
            continue
        if i > 0 and re.match(r" {0,3}(=+|-+)[ \t]*$", ln) and lines[i - 1].strip() and (
            not heads or heads[-1][0] != i - 1
        ) and not re.match(r" {0,3}([-*+]|\d+[.)])\s", lines[i - 1]):
            heads.append((i - 1, 1 if "=" in ln else 2, lines[i - 1].strip()))
    sections: list[tuple[int, int, str | None]] = []
    stack: list[tuple[int, str]] = []
    starts = [h[0] for h in heads]
    if not heads or starts[0] > 0:
        sections.append((0, (starts[0] - 1) if heads else len(lines) - 1, None))
    for n, (row, level, title) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        end = heads[n + 1][0] - 1 if n + 1 < len(heads) else len(lines) - 1
        sections.append((row, end, " > ".join(t for _, t in stack)))
    chunker = _Chunker(path, Lang("markdown", "", "", {}), lines)
    for s, e, sym in sections:
        if chunker.size(s, e) <= MAX_CHARS:
            chunker.add(s, e, "document", sym, "")
        else:
            chunker.windows(s, e, "document", sym, sym or "")
    return _merge_tiny(chunker.out, lines)


def chunk_text(path: str, text: str, language: str = "text") -> list[CodeChunk]:
    """Line windows for files without a grammar."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    if not lines:
        return []
    return _windows_only(path, lines, language)


def _windows_only(path: str, lines: list[str], language: str) -> list[CodeChunk]:
    chunker = _Chunker(path, Lang(language, "", "", {}), lines)
    chunker.windows(0, len(lines) - 1, "text", None, "")
    return chunker.out


def _minified(text: str, nlines: int) -> bool:
    return len(text) > 20_000 and len(text) / max(nlines, 1) > MINIFIED_LINE


# Machine-written files announce themselves in their first lines (Cython, protoc, bindgen, Go's
# "Code generated ... DO NOT EDIT"); they are megabytes of boilerplate that outrank the source
# they were generated from, so they get no chunks (the file is still tracked by the sync).
_GENERATED = re.compile(
    r"Generated by Cython|@generated|Code generated .{0,80}DO NOT EDIT|DO NOT EDIT[.!]? (?:THIS FILE|It is generated)"
    r"|This file is (?:auto-?generated|automatically generated)|The file is autogenerated",
    re.IGNORECASE,
)


def is_generated(text: str) -> bool:
    """True when the file's first lines say a tool wrote it."""
    return bool(_GENERATED.search(text[:1000]))


# What only C++ writes: a `.h` file with any of these is parsed with the C++ grammar.
_CPP_HINTS = re.compile(
    r"^[ \t]*(?:namespace\b[^;\n]*\{|template[ \t]*<|(?:public|private|protected):|using[ \t]+namespace\b)"
    r"|\bstd::|^[ \t]*class[ \t]+\w+[^;\n]*$|#[ \t]*include[ \t]*<(?:string|vector|memory|utility|type_traits|iostream)>",
    re.M,
)


def chunk_file(path: str, data: bytes, text: str) -> list[CodeChunk]:
    """Pick the chunker for ``path``: a grammar, Markdown headings, or line windows."""
    if is_generated(text):
        return []
    language = language_for(path)
    if language == "c" and path.endswith(".h") and _CPP_HINTS.search(text[:65536]):
        language = "cpp"  # a C++ header: the C grammar misreads templates, classes, namespaces
    if language == "markdown":
        return chunk_markdown(path, text)
    if language in LANGS:
        out = chunk_code(path, data, text, language)
        if out and is_facade(path, text, language):
            # a file that only forwards to others (a header of #includes, an index.ts of
            # `export * from`, a mod.rs of `pub use`): the ranker places it after its targets
            for c in out:
                c.kind = FACADE_KIND
        if language == "lua" and text.lstrip().startswith(STUB_MARK):
            # a LuaLS definition file (types for the editor, no code that runs): every chunk
            # carries the file's marker, so the ranker can tell it from the implementation
            for c in out:
                c.context = f"{STUB_MARK}\n{c.context}" if c.context else STUB_MARK
        return out
    return chunk_text(path, text)
