"""`ctxmill lsp` end to end with a real LSP client nobody here wrote: Neovim headless and its
built-in client. A rename at a definition is offered at the other uses as code actions (one
per place, plus "apply all"); applying one rewrites that file; after a save, a new parameter
is offered at the call as a code action too, and applying it writes the call."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
NVIM = shutil.which("nvim")
needs_nvim = pytest.mark.skipif(NVIM is None, reason="nvim is not installed (apt-get install neovim)")
CTXMILL = Path(sys.executable).with_name("ctxmill")

SCRIPT = r"""
local root = vim.env.WS
local out = {}
local id = vim.lsp.start_client({cmd = {vim.env.CTXMILL, 'lsp'}, root_dir = root, name = 'ctxmill',
  workspace_folders = {{uri = vim.uri_from_fname(root), name = 'ws'}}})
vim.cmd('edit ' .. root .. '/shop.py')
local shop = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(shop, id)
local client = vim.lsp.get_client_by_id(id)
vim.wait(30000, function() return client.initialized end, 50)
local function actions()
  local params = {textDocument = {uri = vim.uri_from_bufnr(shop)},
    range = {start = {line = 0, character = 0}, ['end'] = {line = 0, character = 0}}, context = {diagnostics = {}}}
  local res = vim.lsp.buf_request_sync(shop, 'textDocument/codeAction', params, 30000) or {}
  local got = {}
  for _, r in pairs(res) do for _, a in ipairs(r.result or {}) do table.insert(got, a) end end
  return got
end
local function step(name, line)
  vim.api.nvim_set_current_buf(shop)
  vim.api.nvim_buf_set_lines(shop, 0, 1, false, {line})
  local titles = {}
  for _, a in ipairs(actions()) do
    table.insert(titles, a.title)
    if a.title:find('use.py:3', 1, true) then vim.lsp.util.apply_workspace_edit(a.edit, 'utf-16') end
  end
  out[name] = titles
  vim.cmd('silent! wall')
end
step('rename', 'def order_total(items):')
step('signature', 'def order_total(items, tax):')
local f = io.open(vim.env.OUT_JSON, 'w'); f:write(vim.fn.json_encode(out)); f:close()
vim.lsp.stop_client(id)
vim.cmd('qa!')
"""


def test_an_insertion_is_an_empty_range_before_its_line():
    from ctxmill.apply.next_edit import Suggestion
    from ctxmill.lsp.server import patch_between, text_edit

    ins = text_edit(Suggestion("a.py", 3, 2, "import os\n", "import os", 0.6))
    assert (ins.range.start.line, ins.range.end.line, ins.range.end.character) == (2, 2, 0)
    rep = text_edit(Suggestion("a.py", 3, 4, "x\n", "r", 0.9))
    assert (rep.range.start.line, rep.range.end.line) == (2, 4)  # lines 3-4 whole, to the start of line 5
    assert patch_between("a.py", "a\nb\n", "a\nc\n").startswith("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@")


@needs_nvim
def test_neovim_gets_and_applies_next_edits(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "shop.py").write_text("def total_price(items):\n    return sum(i.price for i in items)\n\n\n"
                                "def checkout(cart):\n    return total_price(cart.items)\n")
    # the call holds a `tax` for the new parameter (where none is in scope, no suggestion is made)
    (ws / "use.py").write_text("from shop import total_price\ntax = 0.2\nprint(total_price([]))\n")
    (tmp_path / "t.lua").write_text(SCRIPT)
    env = dict(os.environ, WS=str(ws), CTXMILL=str(CTXMILL), OUT_JSON=str(tmp_path / "out.json"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_DATA_HOME=str(tmp_path / "data"))
    subprocess.run([NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {tmp_path / 't.lua'}"],
                   env=env, timeout=120, check=True, capture_output=True)
    out = json.loads((tmp_path / "out.json").read_text())
    rename = out["rename"]
    assert any("shop.py:6" in x and "rename total_price -> order_total" in x for x in rename)
    assert any("use.py:3" in x for x in rename) and any("apply all" in x for x in rename)
    assert any("use.py:3" in x and "signature of order_total" in x for x in out["signature"])
    # the rename, then the new parameter, applied by the editor and written by it
    assert (ws / "use.py").read_text() == "from shop import total_price\ntax = 0.2\nprint(order_total([], tax))\n"
    assert (ws / "shop.py").read_text().startswith("def order_total(items, tax):\n")
