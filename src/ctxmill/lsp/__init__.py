"""`ctxmill lsp`: next-edit suggestions in any editor that speaks the Language Server Protocol.

The server keeps, per open document, the text it had when it was opened (or last saved); after
each ``textDocument/didChange`` the difference between that text and the buffer is the edit
just made, and :func:`ctxmill.apply.next_edit.suggest` turns it into suggestions over the
workspace (unsaved buffers included). They are offered as code actions (one workspace edit per
suggestion, plus "apply all") and, where the client asks for them, as
``textDocument/inlineCompletion`` items for the document being edited. Needs the ``lsp`` extra
(pygls); see docs/apply.md for Neovim, Helix, Zed and VS Code.
"""

from ctxmill.lsp.server import build_server, serve

__all__ = ["build_server", "serve"]
