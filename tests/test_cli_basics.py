import subprocess
import sys


def test_cli_help_lists_commands():
    out = subprocess.run([sys.executable, "-m", "ctxmill.cli", "--help"], capture_output=True, text=True, check=True)
    assert "compile" in out.stdout
