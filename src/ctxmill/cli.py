"""The ``ctxmill`` command: a thin shell over the Python API.

Every command parses its arguments, calls one core function and formats the result. Exit
codes: 0 success, 1 unexpected failure, 2 usage error, 3 input refused (one line on stderr).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path

import click

from ctxmill.errors import CtxmillError, InputRefused, UsageError


def _print_json(obj) -> None:
    click.echo(json.dumps(obj, indent=2, ensure_ascii=False))


def handle_errors(func):
    """Map ctxmill errors to exit codes with a one-line reason on stderr."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except InputRefused as exc:
            click.echo(f"ctxmill: refused: {exc}", err=True)
            sys.exit(3)
        except UsageError as exc:
            click.echo(f"ctxmill: usage: {exc}", err=True)
            sys.exit(2)
        except CtxmillError as exc:
            click.echo(f"ctxmill: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("ctxmill: interrupted", err=True)
            sys.exit(130)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # unexpected: one line (CTXMILL_DEBUG=1 shows the traceback)
            if os.environ.get("CTXMILL_DEBUG"):
                raise
            first = str(exc).splitlines()[0] if str(exc) else ""
            click.echo(f"ctxmill: error: {type(exc).__name__}: {first}"[:500], err=True)
            sys.exit(1)

    return wrapper


@click.group()
@click.version_option(package_name="ctxmill")
def main() -> None:
    """ctxmill: clean, searchable, citation-aware context from PDFs, OCR text and code."""


# ------------------------------------------------------------------------------ compile


def _engine(ctx, param, value):
    """--from: checked here, not with click.Choice, so the engine table (regexes) is imported
    only by a compile, never on every command's start."""
    if value is None:
        return None
    from ctxmill.sources.engines import ENGINES

    if value not in ENGINES:
        raise click.BadParameter(f"{value!r} is not one of {', '.join(ENGINES)}")
    return value



@main.command("compile")
@click.argument("input_path", metavar="INPUT")
@click.option("-o", "--out", "out_dir", type=click.Path(path_type=Path), help="Output folder (default ./out/<stem>/).")
# many documents (INPUT a folder, a glob or a list file): ctxmill.batch, docs/batch.md
@click.option("--jobs", "-j", type=click.IntRange(1, 4096), help="Batch: documents at a time (default: all cores).")
@click.option("--resume", is_flag=True, help="Batch: skip inputs the manifest has done with the same sha256.")
@click.option("--engine", "batch_engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Batch: a local process pool, or Ray tasks (pip install 'ctxmill[ray]').")
@click.option("--address", metavar="ADDR", help="Batch, Ray: auto or ray://HOST:PORT (default: a local Ray).")
@click.option("--timeout", "doc_timeout", type=click.FloatRange(0.1), help="Batch: seconds per document.")
@click.option("--embed", is_flag=True, help="Batch: add an embedding column to chunks.parquet.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary.")
@click.option("--fast", is_flag=True, help="Skip chunks and the citation graph.")
@click.option("--no-chunks", is_flag=True, help="Do not write chunks.jsonl.")
@click.option("--no-citations", is_flag=True, help="Skip references, citations and the graph.")
@click.option("--include-source-text", is_flag=True, help="Add the source text to bundle.zip.")
@click.option("--chunk-tokens", type=click.IntRange(32, 8192), default=400, show_default=True)
@click.option("--ignore-pdf-links", is_flag=True, help="Build citations from the text alone.")
@click.option("--ocr", type=click.Choice(["never", "auto", "always"]), default="auto", show_default=True)
@click.option("--no-ocr-cache", is_flag=True, help="Read every scanned page with the OCR engine, not from the "
              "OCR cache (CTXMILL_OCR_CACHE=off turns it off for good).")
@click.option("--llm", "llm_url", metavar="URL", help="OpenAI-compatible endpoint (optional enhancer).")
@click.option("--llm-model", metavar="NAME")
@click.option("--llm-max-tokens", type=click.IntRange(256, 40960), default=8192, show_default=True)
@click.option("--from", "engine", metavar="ENGINE", default=None, callback=_engine,
              help="Raw OCR text: the engine that wrote it (mineru, marker, docling, nougat, mistral, "
                   "paddleocr-vl, deepseek-ocr, olmocr, ...; default: recognised from the text).")
@handle_errors
def compile_cmd(input_path, out_dir, jobs, resume, batch_engine, address, doc_timeout, embed, as_json, fast,
                no_chunks, no_citations, include_source_text, chunk_tokens, ignore_pdf_links, ocr, no_ocr_cache,
                llm_url, llm_model, llm_max_tokens, engine):
    """Compile a PDF, raw OCR text or Markdown file (or - for stdin); or, INPUT a folder, a
    glob or a list file, every document in it (one folder each under -o OUT)."""
    from ctxmill.batch.inputs import is_batch
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document
    from ctxmill.render import write_outputs

    options = CompileOptions(
        chunks=not no_chunks, citations=not no_citations, fast=fast,
        include_source_text=include_source_text, chunk_tokens=chunk_tokens,
        ignore_pdf_links=ignore_pdf_links, ocr=ocr, ocr_cache=not no_ocr_cache, llm_url=llm_url,
        llm_model=llm_model, llm_max_tokens=llm_max_tokens, engine=engine,
    )
    if is_batch(input_path):
        _compile_batch(input_path, out_dir or Path("out"), options, as_json, jobs=jobs, resume=resume,
                       engine=batch_engine, address=address, timeout=doc_timeout, embed=embed)
        return
    if jobs or resume or address or doc_timeout or embed or batch_engine != "local":
        raise UsageError("--jobs, --resume, --engine, --address, --timeout and --embed are for many "
                         "documents (INPUT a folder, a glob or a list file)")
    if input_path == "-":
        source: Path | bytes = sys.stdin.buffer.read()
        stem = "stdin"
    else:
        source = Path(input_path)  # load_source refuses a missing file or a folder
        stem = source.stem
    out_dir = out_dir or Path("out") / stem
    doc = compile_document(source, options, name=None if input_path == "-" else str(input_path))
    written = write_outputs(doc, out_dir, options)
    from ctxmill.counts import counts, summary_line

    # every count from ctxmill.counts, the one source metrics.json and the web page use too
    summary = {
        "out": str(out_dir),
        "files": {name: str(path) for name, path in written.items()},
        "kind": doc.stream.kind,
        "title": doc.metadata.title,
        **counts(doc),
        "warnings": list(doc.stream.warnings),
        "seconds": round(doc.metrics.total_seconds, 4),
        "pages_per_second": round(doc.metrics.pages_per_second, 2),
    }
    if as_json:
        _print_json(summary)
    else:
        click.echo(summary_line(doc, summary["seconds"], stem))
        click.echo(f"outputs in {out_dir}/")


def _compile_batch(arg, out_dir, options, as_json, **kw):
    """Many documents: exit 0 all done, 3 some refused or out of time, 1 some failed."""
    from ctxmill.batch import run_batch

    s = run_batch(arg, out_dir, options, **kw)
    if "note" in s["exported"]:
        click.echo(f"ctxmill: note: {s['exported']['note']}", err=True)
    if as_json:
        _print_json(s)
    else:
        for r in s["not_done"]:  # a refusal names its input already; a timeout does not
            why = r["reason"] if r["reason"].startswith(r["input"]) else f"{r['input']}: {r['reason']}"
            click.echo(f"ctxmill: {r['status']}: {why}", err=True)
        click.echo(f"{s['inputs']} documents: {s['done']} done ({s['skipped']} already done), {s['refused']} "
                   f"refused, {s['failed']} failed, {s['timeout']} out of time; {s['pages']} pages in "
                   f"{s['seconds']:.1f}s")
        click.echo(f"outputs in {out_dir}/ (manifest.jsonl" + (", chunks.parquet)" if "chunks" in s["exported"]
                                                              else ")"))
    if s["failed"]:
        sys.exit(1)
    if s["refused"] or s["timeout"]:
        sys.exit(3)


# ------------------------------------------------------------------------------ index, search, status


def _stderr_progress(quiet: bool):
    """A one-line progress bar on stderr, only when stderr is a terminal."""
    if quiet or not sys.stderr.isatty():
        return None
    import time as _time

    last = [0.0]

    def progress(done: int, total: int, path: str) -> None:
        now = _time.monotonic()
        if done != total and now - last[0] < 0.1:
            return
        last[0] = now
        width = 30
        filled = int(width * done / max(total, 1))
        line = f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {path[-40:]:<40}"
        sys.stderr.write(line)
        if done == total:
            sys.stderr.write("\r" + " " * len(line) + "\r")
        sys.stderr.flush()

    return progress


@main.command("index")
@click.argument("root", type=click.Path(path_type=Path), default=Path("."))
@click.option("--json", "as_json", is_flag=True, help="Print the sync counts as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar, no warnings.")
@click.option("--db", "db_path", type=click.Path(path_type=Path), help="Index database file (default: user cache).")
@click.option("--max-file-kb", type=click.IntRange(1, 1_000_000), default=1000, show_default=True,
              help="Skip files larger than this.")
@click.option("--watch", is_flag=True, help="Stay in the foreground: sync, then sync again after every save.")
@click.option("--store", "store", metavar="URL", envvar="CTXMILL_STORE",
              help="Sync into a team store (postgresql://...; also $CTXMILL_STORE) instead of the local index.")
@click.option("--store-text", is_flag=True, help="With --store: also keep chunk text on the server.")
@handle_errors
def index_cmd(root, as_json, quiet, db_path, max_file_kb, watch, store=None, store_text=False):
    """Build or bring up to date the index of the folder ROOT."""

    if not root.exists():
        raise InputRefused(f"{root}: no such folder")
    if not root.is_dir():
        raise InputRefused(f"{root}: is a file, not a folder")
    if store is None and db_path is None:  # the project's settings may name a team store
        from ctxmill.team.settings import project_store

        store = project_store(root)
    if store and db_path is None:  # the team store (ctxmill.team): synced here, not in the warm server
        from ctxmill.index import sync_index

        report = sync_index(root, store=store, store_text=store_text, progress=_stderr_progress(quiet),
                            max_file_bytes=max_file_kb * 1000)
        d = report.to_dict()
        if as_json:
            _print_json(d)
        elif not quiet:
            from ctxmill.hits import sync_counts

            click.echo(sync_counts(d))
        return
    if watch:
        from ctxmill.server.watch import watch_foreground

        watch_foreground(root, db_path=db_path, max_file_bytes=max_file_kb * 1000, quiet=quiet)
        return
    # A known index syncs in the warm server (no interpreter-wide imports here); a first build
    # runs here, with its progress bar.
    reply = None
    if db_path is not None and db_path.exists() or db_path is None and _default_db_exists(root):
        reply = _via_server("sync", root=str(root.resolve()), db=str(db_path.resolve()) if db_path else None,
                            max_file_bytes=max_file_kb * 1000)
    if reply is not None:
        d, db_file = dict(reply["report"]), reply["report"].get("db_path")
        d.pop("db_path", None)
    else:
        from ctxmill.index import sync_index

        report = sync_index(root, db_path=db_path, progress=_stderr_progress(quiet), max_file_bytes=max_file_kb * 1000)
        d, db_file = report.to_dict(), report.db_path
    if not quiet:
        for line in d.get("warnings", []):
            click.echo(f"ctxmill: warning: {line}", err=True)
    if as_json:
        _print_json(d)
    elif not quiet:
        from ctxmill.hits import sync_text

        click.echo(sync_text(d, db_file))


def _default_db_exists(root: Path) -> bool:
    from ctxmill.locations import default_db_path

    return default_db_path(root).exists()


@main.command("search")
@click.argument("query")
@click.option("--root", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="Indexed folder.")
@click.option("--path", "path_prefix", metavar="PREFIX", help="Only hits whose path starts with PREFIX.")
@click.option("-k", "k", type=click.IntRange(1, 1000), default=10, show_default=True, help="Number of hits.")
@click.option("--json", "as_json", is_flag=True, help="Print hits as a JSON list.")
@click.option("--db", "db_path", type=click.Path(path_type=Path), help="Index database file (default: user cache).")
@click.option("--store", "store", metavar="URL", envvar="CTXMILL_STORE",
              help="Search a team store (postgresql://...; also $CTXMILL_STORE) instead of the local index.")
@handle_errors
def search_cmd(query, root, path_prefix, k, as_json, db_path, store=None):
    """Search the index of ROOT (default: the current folder)."""
    if store is None and db_path is None:  # the project's settings may name a team store
        from ctxmill.team.settings import project_store

        store = project_store(root)
    if store and db_path is None:  # the team store: hits read from this checkout (ctxmill.team)
        from ctxmill.hits import hits_json, hits_text
        from ctxmill.index import search

        hits = [h.to_dict() for h in search(query, root, path_prefix=path_prefix, k=k, store=store)]
        click.echo(hits_json(hits) if as_json else hits_text(hits, bold=sys.stdout.isatty()))
        return
    reply = _via_server("search", root=str(root.resolve()), db=str(db_path.resolve()) if db_path else None,
                        query=query, k=k, path=path_prefix)
    if reply is not None:  # the warm server answered: no numpy, no index code in this process
        hits = reply["hits"]
        if not reply.get("fresh", True):
            click.echo("ctxmill: note: the index is syncing changes; results may miss the newest edits", err=True)
    else:
        from ctxmill.index import search

        hits = [h.to_dict() for h in search(query, root, db_path=db_path, path_prefix=path_prefix, k=k)]
    from ctxmill.hits import hits_json, hits_text

    click.echo(hits_json(hits) if as_json else hits_text(hits, bold=sys.stdout.isatty()))


def _via_server(op: str, **args) -> dict | None:
    """Ask the background server (started on demand); None: do the work in this process."""
    from ctxmill import server

    try:
        return server.call(op, **args)
    except server.ServerUnavailable:
        return None
    except server.ServerError as exc:
        if exc.kind == "refused":
            raise InputRefused(str(exc)) from None
        raise CtxmillError(str(exc)) from None


@main.command("status")
@click.argument("root", type=click.Path(path_type=Path), default=Path("."))
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--db", "db_path", type=click.Path(path_type=Path), help="Index database file (default: user cache).")
@handle_errors
def status_cmd(root, as_json, db_path):
    """Show what is indexed for ROOT and how fresh it is."""
    from ctxmill.index import index_status

    st = index_status(root, db_path=db_path)
    if as_json:
        _print_json(st)
        return
    age = st["age_seconds"]
    fresh = "never synced" if age is None else f"last sync {age:.0f}s ago"
    langs = ", ".join(f"{k} {v}" for k, v in list(st["languages"].items())[:8])
    click.echo(f"{st['root']}: {st['files']} files, {st['chunks']} chunks, {st['vectors']} vectors; {fresh}"
               + ("" if st["complete"] else " (last sync did not finish: run `ctxmill index` again)"))
    click.echo(f"languages: {langs or '-'}")
    click.echo(f"embedder: {st['embedder']['name']} ({st['embedder']['dim']} dims, {st['vector_backend']})")
    click.echo(f"merkle root: {st['merkle_root']}")
    click.echo(f"index: {st['db_path']} ({st['db_bytes'] / 1e6:.1f} MB)")
    red = st.get("redactions") or {}
    if red.get("count"):  # issue 8: secrets replaced before store/embed, listed path:line rule
        shown = ", ".join(f"{i['path']}:{i['line']} {i['rule']}" for i in red["items"][:10])
        more = f" and {red['count'] - 10} more" if red["count"] > 10 else ""
        click.echo(f"secrets redacted: {red['count']} ({shown}{more})")
    for line in st.get("warnings") or []:
        click.echo(f"warning (last sync): {line}")
    from ctxmill import server

    srv = server.running()
    mine = [r for r in (srv or {}).get("roots", []) if r["root"] == str(Path(root).resolve())]
    if mine:
        r = mine[0]
        state = "in sync" if r["in_sync"] else ("syncing" if r["syncing"] else "changes pending")
        click.echo(f"server: pid {srv['pid']}, {state}{', watching for saves' if r['watching'] else ''}")


# ------------------------------------------------------------------------------ serve


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0 picks a free port.")
@click.option("--index", "index_path", type=click.Path(path_type=Path), help="Indexed folder for the search tab.")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True, help="Compiles run at once.")
@click.option("--max-upload-mb", type=click.FloatRange(0.001, 4096), default=64, show_default=True)
@handle_errors
def serve_cmd(host, port, index_path, workers, max_upload_mb):
    """Start the web page (and its JSON API, OpenAPI at /docs)."""
    import socket

    import uvicorn

    from ctxmill.web.app import create_app

    if index_path is not None and not index_path.is_dir():
        raise UsageError(f"--index {index_path}: not a folder")
    # Bind first so that --port 0 can print the port it got before serving, and so that a
    # taken port fails before the app starts its worker processes.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)  # listening before we print the URL: early clients wait, not fail
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    bound = sock.getsockname()[1]
    app = create_app(index_path, workers=workers, max_upload_mb=max_upload_mb, host=host)
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    click.echo(f"ctxmill: serving on http://{shown}:{bound}/ (Ctrl-C stops)")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5))
    server.run(sockets=[sock])


# ------------------------------------------------------------------------------ mcp, ask (agents)


@main.command("mcp")
@click.option("--root", "roots", multiple=True, type=click.Path(path_type=Path),
              help="Folder the server may index and read (repeatable; default: the current folder).")
@click.option("--print-config", "print_config", metavar="CLIENT",
              type=click.Choice(["claude-code", "cursor", "vscode", "zed", "json"]),
              help="Print a registration snippet for CLIENT with absolute paths, then exit.")
@handle_errors
def mcp_cmd(roots, print_config):
    """Serve the index and the document compiler to coding agents over MCP (stdio)."""
    from ctxmill.mcp import Roots, client_config, run_stdio

    Roots(list(roots) or ["."])  # refuse a missing root before any protocol starts
    if print_config:
        click.echo(client_config(print_config, list(roots)))
        return
    run_stdio(list(roots) or ["."])


@main.group("server")
def server_group() -> None:
    """The per-user background server that keeps indexes warm and watches them for saves."""


@server_group.command("start")
@handle_errors
def server_start() -> None:
    """Start the server (commands also start it on demand)."""
    from ctxmill import server

    st = server.running()
    if st is None:
        try:
            st = server.call("status")
        except server.ServerUnavailable as exc:
            raise CtxmillError(f"the server could not start: {exc}") from None
        click.echo(f"started: pid {st['pid']}, socket {st['socket']}")
    else:
        click.echo(f"already running: pid {st['pid']}, socket {st['socket']}")


@server_group.command("stop")
@handle_errors
def server_stop() -> None:
    """Stop the server (the next command that wants it starts a new one)."""
    from ctxmill import server

    st = server.running()
    if st is None:
        click.echo("not running")
        return
    server.call("stop", start=False, timeout=10)
    click.echo(f"stopped pid {st['pid']}")


@server_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@handle_errors
def server_status(as_json) -> None:
    """Whether the server runs, which indexes it holds and whether each is in sync."""
    from ctxmill import server

    st = server.running()
    if as_json:
        _print_json(st or {"running": False})
        return
    if st is None:
        click.echo("not running (commands start it on demand; CTXMILL_SERVER=0 turns it off)")
        return
    click.echo(f"pid {st['pid']}, up {st['uptime_seconds']:.0f}s, idle {st['idle_seconds']:.0f}s "
               f"(exits after {st['idle_limit_seconds']:.0f}s idle), socket {st['socket']}")
    for r in st["roots"]:
        state = "in sync" if r["in_sync"] else ("syncing" if r["syncing"] else "changes pending")
        click.echo(f"  {r['root']}: {state}{', watching' if r['watching'] else ''}"
                   + (f"; {r['error']}" if r.get("error") else ""))


@main.command("ask")
@click.argument("question")
@click.option("--root", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="Indexed folder to answer from.")
@click.option("--path", "path_prefix", metavar="PREFIX", help="Only use chunks under this path.")
@click.option("-k", "k", type=click.IntRange(1, 50), default=8, show_default=True, help="Chunks to retrieve.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer, citations and sources as JSON.")
@click.option("--no-sync", is_flag=True, help="Do not bring the index up to date first.")
@click.option("--llm", "llm_url", metavar="URL", help="OpenAI-compatible endpoint (or CTXMILL_LLM_URL / OPENAI_BASE_URL).")
@click.option("--llm-model", metavar="NAME", help="Model name (or CTXMILL_LLM_MODEL; default: the endpoint's first).")
@click.option("--llm-max-tokens", type=click.IntRange(256, 40960), default=8192, show_default=True)
@click.option("--llm-timeout", type=click.FloatRange(1, 3600), default=120, show_default=True,
              help="Seconds without a byte from the endpoint before a try fails.")
@handle_errors
def ask_cmd(question, root, path_prefix, k, as_json, no_sync, llm_url, llm_model, llm_max_tokens, llm_timeout):
    """Answer QUESTION from the index with citations (an LLM if configured, else best passages)."""
    from ctxmill.ask import ask, format_text
    from ctxmill.llm import LLMConfig

    if not question.strip():
        raise UsageError("the question is empty")
    if not root.is_dir():
        raise InputRefused(f"{root}: not a folder")
    config = LLMConfig.resolve(url=llm_url, model=llm_model, max_tokens=llm_max_tokens, timeout=llm_timeout)
    answer = ask(question, root, k=k, path_prefix=path_prefix, llm=config, sync=not no_sync)
    if as_json:
        _print_json(answer.to_dict())
    else:
        click.echo(format_text(answer))


# ------------------------------------------------------------------------------ apply


def _read_text_arg(arg: str, what: str, errors: str = "strict") -> str:
    """The text of a command's file argument, ``-`` for stdin (apply's SKETCH, next-edit's PATCH).
    A missing file is refused; with ``errors="strict"`` so is one that is not UTF-8 (a sketch is
    code to merge), other ``errors`` decode as ``bytes.decode`` does (a patch's stray bytes)."""
    if arg == "-":
        return sys.stdin.read()
    path = Path(arg)
    if not path.is_file():
        raise InputRefused(f"{arg}: no such {what} file")
    try:
        return path.read_text(encoding="utf-8", errors=errors)
    except UnicodeDecodeError:
        raise InputRefused(f"{arg}: {what} is not UTF-8 text") from None


@main.command("apply")
@click.argument("file", metavar="FILE", type=click.Path(path_type=Path))
@click.argument("sketch", metavar="SKETCH")
@click.option("--write", is_flag=True, help="Replace FILE (atomically) when the sketch applies.")
@click.option("--json", "as_json", is_flag=True, help="Print {applied, result, diff, reason, hunks}.")
@handle_errors
def apply_cmd(file, sketch, write, as_json):
    """Merge a sketched edit (SKETCH file, or - for stdin) into FILE and print the diff."""
    from ctxmill.apply import apply_file

    sketch_text = _read_text_arg(sketch, "sketch")
    res = apply_file(file, sketch_text, write=write)
    if as_json:
        _print_json(res.to_dict())
    elif res.applied:
        click.echo(res.diff, nl=False)
    if not res.applied:
        raise InputRefused(res.reason)


@main.command("next-edit")
@click.option("--root", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="The folder whose files are in their state after the edit.")
@click.option("--diff", "diff_path", required=True, metavar="PATCH",
              help="Unified diff of the edit just made (a file, or - for stdin).")
@click.option("--json", "as_json", is_flag=True, help='Print {"suggestions": [...]} as JSON.')
@click.option("-n", "limit", type=click.IntRange(1, 500), default=50, show_default=True, help="Most suggestions.")
@handle_errors
def next_edit_cmd(root, diff_path, as_json, limit):
    """Suggest the other edits that the edit in PATCH needs (renames propagated to every use)."""
    from ctxmill.apply.next_edit import suggest

    patch = _read_text_arg(diff_path, "patch", errors="replace")
    got = suggest(root, patch, limit=limit)
    if as_json:
        _print_json({"suggestions": [s.to_dict() for s in got]})
        return
    if not got:
        click.echo("no suggestions")
    for s in got:
        click.echo(click.style(f"{s.path}:{s.start_line}-{s.end_line}", bold=True) + f"  {s.reason} ({s.confidence:.2f})")
        for line in s.replacement.rstrip("\n").split("\n")[:6]:
            click.echo(f"  + {line}")


@main.command("lsp")
@click.option("--root", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="The workspace folder (default: the one the editor names, else the current folder).")
@handle_errors
def lsp_cmd(root):
    """Serve next-edit suggestions to an editor over the Language Server Protocol (stdio)."""
    try:
        from ctxmill.lsp import serve
    except ModuleNotFoundError as e:
        if e.name not in ("pygls", "lsprotocol"):
            raise
        raise InputRefused("the language server needs pygls: pip install 'ctxmill[lsp]'") from None
    serve(root)


# ------------------------------------------------------------------------------ agent (issue 24)

from ctxmill.agent.cli import agent_group  # noqa: E402  (click only; the agent loads when used)

main.add_command(agent_group)

# ------------------------------------------------------------------------------ team store (issue 25)

from ctxmill.team.commands import store_group  # noqa: E402  (click only; the server code loads when used)

main.add_command(store_group)


if __name__ == "__main__":  # pragma: no cover
    main()
