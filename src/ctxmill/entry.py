"""The ``ctxmill`` command's entry point: fast paths for ``ctxmill search`` and ``ctxmill index``
answered by the warm server, everything else through the full command line (``ctxmill.cli``).

Agents and editors run ``ctxmill search`` hundreds of times a session, and on a warm server
the search itself takes a few milliseconds: interpreter start and imports are the rest. So a
search or an index whose arguments are the plain ones goes to the server with nothing but
what the interpreter loaded at start (``os``, ``sys``) and ``ctxmill.server``'s C modules; the
server prints the reply (``out``/``err``), so neither click, json nor the formatting code is
imported here. Anything else (--help, an unknown option, no server, a first build) takes the
full path, which prints the same bytes.
"""

from __future__ import annotations

import os
import sys

SEARCH_VALUES = {"--root": "root", "--path": "path", "-k": "k", "--db": "db", "--store": "store"}
SEARCH_FLAGS = {"--json": "json"}
INDEX_VALUES = {"--db": "db", "--max-file-kb": "max_file_kb", "--store": "store"}
INDEX_FLAGS = {"--json": "json", "--quiet": "quiet", "-q": "quiet"}


def parse_options(args: list[str], values: dict, flags: dict, got: dict) -> tuple[dict, list[str]] | None:
    """Options and positional arguments, or None for anything a fast path does not take (also
    ``ctxmill.apply.next_cli``'s)."""
    positional = []
    i = 0
    while i < len(args):
        a = args[i]
        name, eq, value = a.partition("=")
        if name in values:
            if not eq:
                i += 1
                if i >= len(args):
                    return None
                value = args[i]
            got[values[name]] = value
        elif a in flags:
            got[flags[a]] = True
        elif a == "--":
            positional.extend(args[i + 1:])
            break
        elif a.startswith("-") and a != "-":
            return None  # --help, --watch, an unknown option: the full command line answers
        else:
            positional.append(a)
        i += 1
    return got, positional


def _parse_search(args: list[str]) -> dict | None:
    parsed = parse_options(args, SEARCH_VALUES, SEARCH_FLAGS, {"root": ".", "path": None, "k": "10", "db": None,
                                                         "json": False, "store": None})
    if parsed is None or len(parsed[1]) != 1:
        return None
    got = parsed[0]
    if not got["k"].isdigit() or not 1 <= int(got["k"]) <= 1000:
        return None
    got["query"] = parsed[1][0]
    return got


def _parse_index(args: list[str]) -> dict | None:
    parsed = parse_options(args, INDEX_VALUES, INDEX_FLAGS, {"db": None, "max_file_kb": "1000", "json": False,
                                                       "quiet": False, "store": None})
    if parsed is None or len(parsed[1]) > 1:
        return None
    got = parsed[0]
    if not got["max_file_kb"].isdigit() or not 1 <= int(got["max_file_kb"]) <= 1_000_000:
        return None
    got["root"] = parsed[1][0] if parsed[1] else "."
    return got


def _ask(op: str, args: dict, *, start: bool = True) -> int | None:
    """Send ``op`` to the server and print its reply; None: let the full command line do it."""
    from ctxmill import server

    if not server.enabled():
        return None
    try:
        reply = server.call(op, start=start, **args)
    except server.ServerUnavailable:
        if start:  # the full path works in-process, without a second start attempt
            os.environ["CTXMILL_SERVER"] = "0"
        return None
    except server.ServerError as exc:
        if exc.kind != "refused" and "unknown op" in str(exc):
            return None  # a server from before this op (team_search): the full path does it
        sys.stderr.write(f"ctxmill: {'refused' if exc.kind == 'refused' else 'error'}: {exc}\n")
        return 3 if exc.kind == "refused" else 1
    if reply.get("unknown"):
        return None  # not indexed yet: the first build runs in the command, with its progress bar
    if reply.get("err"):
        sys.stderr.write(reply["err"])
    sys.stdout.write(reply["out"])
    return 0


def _fast_search(args: list[str]) -> int | None:
    opts = _parse_search(args)
    where = _where(opts) if opts is not None else None
    if where is None:
        return None
    root, db, store = where
    if store:  # a team store (ctxmill.team): the warm server keeps its connection open
        return _ask("team_search", {"root": root, "store": store, "query": opts["query"], "k": int(opts["k"]),
                                    "path": opts["path"], "print": "json" if opts["json"] else "text",
                                    "bold": sys.stdout.isatty(), "env": _request_env()})
    return _ask("search", {"root": root, "db": db, "query": opts["query"], "k": int(opts["k"]), "path": opts["path"],
                           "print": "json" if opts["json"] else "text", "bold": sys.stdout.isatty()})


def _fast_index(args: list[str]) -> int | None:
    opts = _parse_index(args)
    where = _where(opts) if opts is not None else None
    if where is None:
        return None
    root, db, store = where
    if store:  # a team store (ctxmill.team): a known one syncs in the warm server, as team_search
        return _ask("team_sync", {"root": root, "store": store, "max_file_bytes": int(opts["max_file_kb"]) * 1000,
                                  "print": "json" if opts["json"] else "text", "quiet": opts["quiet"],
                                  "env": _request_env()})
    if db is not None and not os.path.exists(db):
        return None  # a first build
    # only a running server: the full path decides whether to start one (not for a first build)
    return _ask("sync", {"root": root, "db": db, "max_file_bytes": int(opts["max_file_kb"]) * 1000,
                         "known_only": True, "print": "json" if opts["json"] else "text", "quiet": opts["quiet"]},
                start=False)


def _where(opts: dict) -> tuple[str, str | None, str | None] | None:
    """(ROOT, the --db file, the team store) a fast search or index works on, as the full path
    resolves them: the store only without --db (--store, else CTXMILL_STORE, else the project's
    settings; falsy for none). None sends the command down the full path, which words the
    refusal: ROOT is no folder, or the project's settings are refused."""
    root = os.path.realpath(opts["root"])
    if not os.path.isdir(root):
        return None
    db = os.path.realpath(opts["db"]) if opts["db"] else None
    store = None  # (a --db index is never a team store's)
    if db is None:
        store = opts["store"] if opts["store"] is not None else os.environ.get("CTXMILL_STORE", "").strip() or _team(root)
        if store is False:
            return None
    return root, db, store


def _request_env() -> dict:
    """The environment a team store's request carries to the warm server (ctxmill.team.settings)."""
    from ctxmill.team.settings import REQUEST_ENV

    return {k: os.environ.get(k) for k in REQUEST_ENV}


def _team(root: str) -> str | bool | None:
    """The team store ROOT's project settings name (ctxmill.team.settings), None for none, False
    when the settings are refused (the full path then says why)."""
    if not os.path.isfile(os.path.join(root, ".ctxmill", "settings.toml")):
        return None
    from ctxmill.team.settings import project_store

    try:
        return project_store(root)
    except Exception:
        return False


def _fast_next_edit(args: list[str]) -> int | None:
    # the plain `next-edit ... --json` without click (ctxmill.apply.next_cli says why)
    from ctxmill.apply.next_cli import run

    return run(args)


FAST = {"search": _fast_search, "index": _fast_index, "next-edit": _fast_next_edit}

# `ctxmill compile` options that take a value (the others are flags): to find its INPUT
COMPILE_VALUES = {"-o", "--out", "--jobs", "-j", "--engine", "--address", "--timeout", "--chunk-tokens", "--ocr",
                  "--llm", "--llm-model", "--llm-max-tokens", "--from"}


def _compile_pdf(args: list[str]) -> str | None:
    """The one INPUT of ``ctxmill compile ARGS`` when it is a PDF file; None otherwise
    (a folder, a glob, stdin, --help, anything this simple reading is unsure of)."""
    positional = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in COMPILE_VALUES:
            i += 1
        elif a in ("--", "-", "--help", "-h"):
            return None
        elif not a.startswith("-"):
            positional.append(a)
        i += 1
    if len(positional) != 1:
        return None
    try:
        with open(positional[0], "rb") as fh:
            head = fh.read(1024)
    except OSError:
        return None
    return positional[0] if b"%PDF-" in head else None


def _pdf_child_env() -> dict:
    """What sandbox.child_env() gives (without importing it): this tree's src/ first on PYTHONPATH."""
    env = dict(os.environ)
    src = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _start_pdf_child() -> None:
    """Start the PDF sandbox's child now, before this process's own imports (~0.6 G
    instructions: click, the compile stages): its interpreter start and imports (~0.4 G) then
    run beside them instead of after them. The sandbox takes it as its spare (adopt_spare)."""
    import subprocess

    env = _pdf_child_env()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "ctxmill.sources.sandbox"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    except OSError:
        return  # the sandbox starts its own child when it reads the file
    from ctxmill.sources import sandbox

    sandbox.adopt_spare(proc, env)


def main() -> None:
    fast = FAST.get(sys.argv[1]) if len(sys.argv) > 1 else None
    if os.environ.get("CTXMILL_STORE") and fast not in (_fast_search, _fast_index, _fast_next_edit):
        fast = None  # a team store: the full command line syncs it (ctxmill.team)
    if fast is not None:
        code = fast(sys.argv[2:])
        if code is not None:
            sys.stdout.flush()
            sys.exit(code)
    compiling = len(sys.argv) > 1 and sys.argv[1] == "compile"
    if compiling:
        from ctxmill.procs import collect_rarely

        # Collect cyclic garbage less often, as mypy does: the imports and a compile of many
        # short blocks allocate millions of objects, and at the default threshold (700) the
        # collector took ~12% of the compile of raw OCR text, for almost no garbage.
        collect_rarely()
        if os.environ.get("CTXMILL_PDF_SANDBOX", "1") != "0" and _compile_pdf(sys.argv[2:]):
            _start_pdf_child()
    from ctxmill.cli import main as cli_main

    try:
        cli_main()
    except SystemExit as exc:
        if compiling:
            _exit_now(exc.code)
        raise


def _exit_now(code) -> None:
    """End a finished ``ctxmill compile`` without the interpreter's shutdown (its outputs are
    written; tearing down the document's millions of objects changes nothing on disk), the
    atexit handlers run (the sandbox stops an unused child). Returns, for the ordinary exit,
    on an exit code Python would print, or where :func:`ctxmill.procs.exit_now` does."""
    if code is not None and not isinstance(code, int):
        return
    from ctxmill.procs import exit_now

    exit_now(code or 0, run_atexit=True)
