"""The language server: documents' baselines, the edit since them, suggestions as LSP answers."""

from __future__ import annotations

import difflib
import logging
import os
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer

from ctxmill.apply.next_edit import Suggestion, _read, suggest

log = logging.getLogger(__name__)
KIND = t.CodeActionKind.QuickFix  # what editors list first under their "code action" key
TREE_TTL_S = 5.0  # the tree on disk is re-read at most this often (the open buffers always count)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ctxmill")
    except PackageNotFoundError:
        return "0"


def uri_to_path(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def patch_between(rel: str, before: str, after: str) -> str:
    """The unified diff (3 lines of context) of one file, as `ctxmill next-edit --diff` reads it."""
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"a/{rel}", f"b/{rel}", n=3))


def text_edit(s: Suggestion) -> t.TextEdit:
    """Whole lines replaced; ``end_line = start_line - 1`` inserts before ``start_line``."""
    start = t.Position(line=s.start_line - 1, character=0)
    end = t.Position(line=max(s.end_line, s.start_line - 1), character=0)
    return t.TextEdit(range=t.Range(start=start, end=end), new_text=s.replacement)


class NextEditServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("ctxmill", _version())
        self.root: Path = Path.cwd()
        self.baseline: dict[str, str] = {}  # uri -> text when opened or last saved
        self.suggestions: dict[str, list[Suggestion]] = {}  # uri -> the latest suggestions
        self._tree: tuple[float, dict[str, str]] | None = None

    def rel(self, uri: str) -> str | None:
        p = uri_to_path(uri)
        try:
            return p.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None

    def tree(self) -> dict[str, str]:
        now = time.monotonic()
        if self._tree is None or now - self._tree[0] > TREE_TTL_S:
            self._tree = (now, _read(self.root))
        return self._tree[1]

    def overlay(self) -> dict[str, str]:
        out = {}
        for uri in self.baseline:
            rel = self.rel(uri)
            if rel is not None:
                out[rel] = self.workspace.get_text_document(uri).source
        return out

    def recompute(self, uri: str) -> list[Suggestion]:
        rel = self.rel(uri)
        if rel is None or uri not in self.baseline:
            return []
        now = self.workspace.get_text_document(uri).source
        patch = patch_between(rel, self.baseline[uri], now)
        if not patch:
            self.suggestions[uri] = []
            return []
        try:
            got = suggest(self.root, patch, limit=50, overlay=self.overlay(), files=self.tree())
        except Exception as e:  # a suggestion engine failure must not take the editor's server down
            log.exception("next-edit failed")
            self.window_log_message(t.LogMessageParams(type=t.MessageType.Error, message=f"next-edit: {e}"))
            got = []
        self.suggestions[uri] = got
        return got

    def uri_of(self, rel: str) -> str:
        return (self.root / rel).resolve().as_uri()

    def actions(self, uri: str) -> list[t.CodeAction]:
        got = self.suggestions.get(uri, [])
        out = []
        for s in got:
            out.append(t.CodeAction(
                title=f"Next edit: {s.path}:{s.start_line} ({s.reason}, {s.confidence:.2f})", kind=KIND,
                edit=t.WorkspaceEdit(changes={self.uri_of(s.path): [text_edit(s)]})))
        if len(got) > 1:
            changes: dict[str, list[t.TextEdit]] = {}
            for s in got:
                changes.setdefault(self.uri_of(s.path), []).append(text_edit(s))
            out.append(t.CodeAction(title=f"Next edit: apply all {len(got)}", kind=KIND,
                                    edit=t.WorkspaceEdit(changes=changes)))
        return out


def build_server() -> NextEditServer:
    server = NextEditServer()

    @server.feature(t.INITIALIZE)
    def initialize(ls: NextEditServer, params: t.InitializeParams):
        folders = params.workspace_folders or []
        if folders:
            ls.root = uri_to_path(folders[0].uri)
        elif params.root_uri:
            ls.root = uri_to_path(params.root_uri)
        elif params.root_path:
            ls.root = Path(params.root_path)

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: NextEditServer, params: t.DidOpenTextDocumentParams):
        ls.baseline[params.text_document.uri] = params.text_document.text

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: NextEditServer, params: t.DidChangeTextDocumentParams):
        ls.recompute(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: NextEditServer, params: t.DidSaveTextDocumentParams):
        # a save closes the edit: what comes next is compared with the saved text
        uri = params.text_document.uri
        ls.baseline[uri] = ls.workspace.get_text_document(uri).source
        ls.suggestions[uri] = []
        ls._tree = None

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: NextEditServer, params: t.DidCloseTextDocumentParams):
        ls.baseline.pop(params.text_document.uri, None)
        ls.suggestions.pop(params.text_document.uri, None)

    @server.feature(t.TEXT_DOCUMENT_CODE_ACTION,
                    t.CodeActionOptions(code_action_kinds=[KIND], resolve_provider=False))
    def code_action(ls: NextEditServer, params: t.CodeActionParams):
        return ls.actions(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_INLINE_COMPLETION, t.InlineCompletionOptions())
    def inline_completion(ls: NextEditServer, params: t.InlineCompletionParams):
        uri = params.text_document.uri
        rel = ls.rel(uri)
        mine = [s for s in ls.suggestions.get(uri, []) if s.path == rel]
        if not mine:
            return None
        line = params.position.line + 1
        mine.sort(key=lambda s: (s.start_line < line, abs(s.start_line - line)))  # the next one below first
        return t.InlineCompletionList(items=[
            t.InlineCompletionItem(insert_text=s.replacement, range=text_edit(s).range) for s in mine[:3]])

    return server


def serve(root: str | os.PathLike | None = None) -> None:
    """Serve on stdin/stdout until the client says exit."""
    server = build_server()
    if root is not None:
        server.root = Path(root)
    server.start_io()
