"""The ``ctxmill`` command's entry point: a fast path for ``ctxmill search`` answered by the
warm server, everything else through the full command line (``ctxmill.cli``).

Importing click and the CLI costs about as much as the search itself on a warm server, and
agents and editors run ``ctxmill search`` hundreds of times a session. So a search whose
arguments are the plain ones (QUERY, --root, --path, -k, --json, --db) goes to the server with
the standard library only; anything else (--help, an unknown option, no server) takes the
full path, which prints the same output.
"""

from __future__ import annotations

import os
import sys

VALUE_OPTIONS = {"--root": "root", "--path": "path", "-k": "k", "--db": "db"}


def _parse_search(args: list[str]) -> dict | None:
    got: dict = {"root": ".", "path": None, "k": "10", "db": None, "json": False}
    query = None
    i = 0
    while i < len(args):
        a = args[i]
        name, eq, value = a.partition("=")
        if name in VALUE_OPTIONS:
            if not eq:
                i += 1
                if i >= len(args):
                    return None
                value = args[i]
            got[VALUE_OPTIONS[name]] = value
        elif a == "--json":
            got["json"] = True
        elif a.startswith("-") and a != "-":
            return None  # --help, -q, an unknown option: the full command line answers
        elif query is None:
            query = a
        else:
            return None
        i += 1
    if query is None or not got["k"].isdigit() or not 1 <= int(got["k"]) <= 1000:
        return None
    got["query"] = query
    return got


def _fast_search(args: list[str]) -> int | None:
    opts = _parse_search(args)
    if opts is None:
        return None
    from ctxmill import server

    if not server.enabled():
        return None
    root = os.path.realpath(opts["root"])
    db = os.path.realpath(opts["db"]) if opts["db"] else None
    if not os.path.isdir(root):
        return None  # the full path words the refusal
    try:
        reply = server.call("search", root=root, db=db, query=opts["query"], k=int(opts["k"]), path=opts["path"])
    except server.ServerUnavailable:
        os.environ["CTXMILL_SERVER"] = "0"  # the full path works in-process, without a second start attempt
        return None
    except server.ServerError as exc:
        print(f"ctxmill: {'refused' if exc.kind == 'refused' else 'error'}: {exc}", file=sys.stderr)
        return 3 if exc.kind == "refused" else 1
    from ctxmill.hits import hits_json, hits_text

    if not reply.get("fresh", True):
        print("ctxmill: note: the index is syncing changes; results may miss the newest edits", file=sys.stderr)
    text = hits_json(reply["hits"]) if opts["json"] else hits_text(reply["hits"], bold=sys.stdout.isatty())
    sys.stdout.write(text + "\n")
    return 0


def main() -> None:
    if sys.argv[1:2] == ["search"]:
        code = _fast_search(sys.argv[2:])
        if code is not None:
            sys.stdout.flush()
            sys.exit(code)
    from ctxmill.cli import main as cli_main

    cli_main()
