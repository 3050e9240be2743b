"""`ctxmill next-edit ... --json` answers without click (ctxmill.apply.next_cli) and prints the
same bytes, refusals and exit codes as the full command line."""

from __future__ import annotations

import subprocess
import sys

import pytest

RENAME = ("--- a/shop.py\n+++ b/shop.py\n@@ -1,2 +1,2 @@\n-def total_price(items):\n+def order_total(items):\n"
          "     return sum(items)\n")
SHOP = "def order_total(items):\n    return sum(items)\n\n\ndef checkout(cart):\n    return total_price(cart)\n"

# runs ctxmill's entry point, then says on stderr's last line whether click was imported
ENTRY = ("import atexit, sys; atexit.register(lambda: sys.stderr.write('click=%s\\n' % ('click' in sys.modules)));"
         "sys.argv[0] = 'ctxmill'; from ctxmill.entry import main; main()")
FULL = "import sys; sys.argv[0] = 'ctxmill'; from ctxmill.cli import main; main()"


def _run(code: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, "next-edit", *args], capture_output=True, text=True,
                          input=stdin, timeout=120)


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "shop.py").write_text(SHOP)
    (tmp_path / "edit.diff").write_text(RENAME)
    return tmp_path


def test_json_form_skips_click_and_prints_the_same(repo):
    for args, stdin in ((["--root", str(repo), "--diff", str(repo / "edit.diff"), "--json"], None),
                        ([f"--root={repo}", "--json", "-n", "1", "--diff", "-"], RENAME)):
        fast = _run(ENTRY, *args, stdin=stdin)
        full = _run(FULL, *args, stdin=stdin)
        assert fast.returncode == full.returncode == 0, fast.stderr
        assert '"replacement": "    return order_total(cart)\\n"' in fast.stdout
        assert fast.stdout == full.stdout
        assert fast.stderr.splitlines()[-1] == "click=False"


@pytest.mark.parametrize("args", [["--diff", "/nonexistent.diff", "--json"],
                                  ["--root", "/nonexistent-root", "--diff", "{patch}", "--json"]])
def test_refusals_are_the_full_command_lines(repo, args):
    args = [a.replace("{patch}", str(repo / "edit.diff")) for a in args]
    fast, full = _run(ENTRY, *args), _run(FULL, *args)
    assert fast.returncode == full.returncode == 3
    assert fast.stderr.splitlines()[0] == full.stderr.splitlines()[0]
    assert fast.stderr.splitlines()[0].startswith("ctxmill: refused: ")


@pytest.mark.parametrize("args", [["--diff", "{patch}"],  # text output
                                  ["--diff", "{patch}", "--json", "-n", "0"],  # out of range: click words it
                                  ["--diff", "{patch}", "--json", "--help"]])
def test_other_forms_take_the_full_command_line(repo, args):
    args = [a.replace("{patch}", str(repo / "edit.diff")) for a in ["--root", str(repo), *args]]
    fast, full = _run(ENTRY, *args), _run(FULL, *args)
    assert (fast.returncode, fast.stdout) == (full.returncode, full.stdout)
    assert fast.stderr.splitlines()[-1] == "click=True"
