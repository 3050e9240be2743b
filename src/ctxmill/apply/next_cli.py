"""``ctxmill next-edit ... --json`` without the full command line.

An editor or agent runs the command after every edit, and the suggestion itself takes a few
milliseconds: the interpreter's start and the imports are the rest, and click with the
command line's other commands was the largest of those. So ``ctxmill.entry`` hands the plain
form (``--root``, ``--diff``, ``--json``, ``-n``) here, which imports only the next-edit code
and prints the same bytes as ``ctxmill.cli``'s ``next-edit``; anything else (text output,
``--help``, an unknown option, a value out of range) returns None and takes the full path.
"""

from __future__ import annotations

import os
import sys

VALUES = {"--root": "root", "--diff": "diff", "-n": "limit"}
FLAGS = {"--json": "json"}


def parse(args: list[str]) -> dict | None:
    """The options of the plain ``--json`` form, or None for anything else."""
    from ctxmill.entry import parse_options

    parsed = parse_options(args, VALUES, FLAGS, {"root": ".", "diff": None, "limit": "50", "json": False})
    if parsed is None or parsed[1]:
        return None  # --help, a positional, an unknown option: the full command line answers
    got = parsed[0]
    if not got["json"] or not got["diff"] or not got["limit"].isdigit() or not 1 <= int(got["limit"]) <= 500:
        return None
    return got


def run(args: list[str]) -> int | None:
    """Print the suggestions as ``ctxmill.cli`` would and return its exit code, or None to let
    the full command line do it."""
    opts = parse(args)
    if opts is None:
        return None
    from ctxmill.errors import CtxmillError, InputRefused, UsageError

    try:
        if opts["diff"] == "-":
            patch = sys.stdin.read()
        elif not os.path.isfile(opts["diff"]):
            raise InputRefused(f"{opts['diff']}: no such patch file")
        else:
            with open(opts["diff"], encoding="utf-8", errors="replace") as f:
                patch = f.read()
        from ctxmill.apply.next_edit import suggest

        got = suggest(opts["root"], patch, limit=int(opts["limit"]))
    # the same lines and exit codes as ctxmill.cli's handle_errors
    except InputRefused as exc:
        sys.stderr.write(f"ctxmill: refused: {exc}\n")
        return 3
    except UsageError as exc:
        sys.stderr.write(f"ctxmill: usage: {exc}\n")
        return 2
    except CtxmillError as exc:
        sys.stderr.write(f"ctxmill: error: {exc}\n")
        return exc.exit_code
    except Exception as exc:
        if os.environ.get("CTXMILL_DEBUG"):
            raise
        first = str(exc).splitlines()[0] if str(exc) else ""
        sys.stderr.write(f"ctxmill: error: {type(exc).__name__}: {first}"[:500] + "\n")
        return 1
    import json

    sys.stdout.write(json.dumps({"suggestions": [s.to_dict() for s in got]}, indent=2, ensure_ascii=False) + "\n")
    return 0
