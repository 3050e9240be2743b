"""The agent's tools: each a call into ctxmill's core, with a JSON schema the model sees.

Every result is text, capped (:data:`MAX_LINES` / :data:`MAX_CHARS`, with a hint saying how to
read on) and passed through :func:`ctxmill.redact.redact` before it goes into the transcript:
a secret in a file the model reads never reaches the model. Paths are confined to ROOT by
:mod:`ctxmill.agent.permissions` before a tool runs; the tools resolve them again (a symlink
could change between the two). A tool that cannot do what was asked raises :class:`ToolFailed`,
whose message goes back to the model as an error it can act on.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxmill.agent.permissions import Confined, rel, resolve_in_root
from ctxmill.redact import redact

MAX_LINES = 200  # lines of one result
MAX_CHARS = 16_000  # characters of one result
RUN_TIMEOUT = 120  # seconds, the most a command may ask for
# What a command never inherits: keys for the model endpoint and common cloud credentials.
_SCRUB = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|_AUTH)", re.I)


class ToolFailed(Exception):
    """The tool could not do what was asked; the message tells the model why."""


@dataclass
class ToolResult:
    content: str
    ok: bool = True
    diff: str | None = None  # edits: shown on a terminal
    changed: list[tuple[str, bytes | None, bytes | None]] = field(default_factory=list)  # (path, before, after)
    redactions: int = 0


def cap(text: str, *, path: str | None = None, first_line: int = 1,
        max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS) -> str:
    """At most ``max_lines`` lines / ``max_chars`` characters, then how to get the rest."""
    lines = text.splitlines()
    keep, size = [], 0
    for line in lines[:max_lines]:
        if size + len(line) + 1 > max_chars:
            break
        keep.append(line)
        size += len(line) + 1
    more = len(lines) - len(keep)
    if not more:
        return text
    out = "\n".join(keep)
    if path is not None:
        start = first_line + len(keep)
        end = first_line + len(lines) - 1
        return out + f"\n… {more} more lines: read({path!r}, {start}, {end})"
    return out + f"\n… {more} more lines"


def _numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{first + i:>5}\t{line}" for i, line in enumerate(lines))


def _unified(path: str, before: bytes | None, after: bytes | None) -> str:
    a = (before or b"").decode("utf-8", "replace").splitlines(keepends=True)
    b = (after or b"").decode("utf-8", "replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, f"a/{path}" if before is not None else "/dev/null",
                                        f"b/{path}" if after is not None else "/dev/null"))


def _child_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not _SCRUB.search(k)}
    env["PWD"] = str(root)
    return env


def _hold_ctrl_c(held: list[int]):
    """Note a Ctrl-C instead of raising it until ``run`` has its Popen: raised inside Popen, after
    the fork, it left the command (in its own session) running on after the agent stopped.
    Only over Python's default handler in the main thread; returns what to put back (or None)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return None
    return signal.signal(signal.SIGINT, lambda *_: held.append(1))


def _release_ctrl_c(prev) -> None:
    if prev is not None:
        signal.signal(signal.SIGINT, prev)


def _kill_group(pgid: int) -> None:
    """SIGKILL the command's group. A group already gone (the command ended, and was reaped, just
    as Ctrl-C came) is no error: raised there, it replaced the KeyboardInterrupt with an OSError
    that became a tool error, and the agent went on as if no Ctrl-C had come."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class Tools:
    """The tools of one session over ``root``. ``read_only`` offers only the reading ones."""

    def __init__(self, root: Path, *, llm=None, read_only: bool = False, subagent: Callable | None = None) -> None:
        self.root = Path(root).resolve()
        self.llm = llm
        self.read_only = read_only
        self.subagent = subagent  # (goal) -> summary, for the task tool
        self.last_diff: str | None = None
        self._indexed = False

    # ------------------------------------------------------------------ helpers

    def path(self, p: str) -> Path:
        try:
            return resolve_in_root(self.root, p)
        except Confined as exc:
            raise ToolFailed(str(exc)) from None

    def rel(self, full: Path) -> str:
        return rel(self.root, full)

    def _text_of(self, full: Path) -> str:
        if not full.is_file():
            raise ToolFailed(f"{self.rel(full)}: no such file" + (" (a folder: use list)" if full.is_dir() else ""))
        data = full.read_bytes()
        if b"\x00" in data[:8192]:
            raise ToolFailed(f"{self.rel(full)}: a binary file ({len(data):,} bytes)")
        return data.decode("utf-8", "replace")

    def _walk(self, under: Path):
        from ctxmill.sources.repo import walk

        prefix = "" if under == self.root else self.rel(under) + "/"
        for f in walk(self.root).files:
            if f.path.startswith(prefix):
                yield f.path

    # ------------------------------------------------------------------ reading

    def search(self, query: str, k: int = 8, path: str | None = None) -> ToolResult:
        from ctxmill.index import search, sync_index

        if not self._indexed:  # brings the index up to date (a no-op when it is)
            sync_index(self.root)
            self._indexed = True
        prefix = self.rel(self.path(path)) if path else None
        hits = search(query, self.root, path_prefix=None if prefix == "." else prefix, k=max(1, min(int(k), 30)))
        if not hits:
            return ToolResult("no results")
        parts = []
        for h in hits:
            body = "\n".join(h.text.splitlines()[:12])
            parts.append(f"{h.path}:{h.start_line}-{h.end_line}" + (f" ({h.symbol})" if h.symbol else "")
                         + "\n" + body)
        return ToolResult("\n\n".join(parts))

    def grep(self, pattern: str, path: str = ".", max_results: int = 100) -> ToolResult:
        under = self.path(path or ".")
        try:
            rx = re.compile(pattern)
        except re.error as exc:
            raise ToolFailed(f"bad regular expression: {exc}") from None
        limit = max(1, min(int(max_results), 500))
        found: list[str] = []
        rg = shutil.which("rg")
        if rg and under.is_dir():
            proc = subprocess.run([rg, "-n", "--no-heading", "--color=never", "-m", "50", "-e", pattern, "."],
                                  cwd=under, capture_output=True, text=True, timeout=60, errors="replace")
            prefix = "" if under == self.root else self.rel(under) + "/"
            found = [prefix + line.removeprefix("./") for line in proc.stdout.splitlines()]
        else:
            files = [self.rel(under)] if under.is_file() else self._walk(under)
            for name in files:
                try:
                    text = (self.root / name).read_text("utf-8")
                except (UnicodeDecodeError, OSError):
                    continue
                for i, line in enumerate(text.splitlines(), 1):
                    if rx.search(line):
                        found.append(f"{name}:{i}:{line[:300]}")
                if len(found) > limit:
                    break
        if not found:
            return ToolResult("no matches")
        extra = len(found) - limit
        return ToolResult("\n".join(found[:limit]) + (f"\n… {extra} more matches: narrow the pattern or path"
                                                      if extra > 0 else ""))

    def read(self, path: str, start: int = 1, end: int | None = None) -> ToolResult:
        full = self.path(path)
        lines = self._text_of(full).splitlines()
        start = max(1, int(start or 1))
        end = len(lines) if end is None else min(len(lines), int(end))
        if start > max(1, len(lines)):
            raise ToolFailed(f"{self.rel(full)} has {len(lines)} lines; start {start} is past the end")
        body = _numbered(lines[start - 1:end], start)
        return ToolResult(cap(body, path=self.rel(full), first_line=start) if body else "(empty file)")

    def list(self, path: str = ".") -> ToolResult:
        under = self.path(path or ".")
        if not under.is_dir():
            raise ToolFailed(f"{path}: not a folder")
        names = list(self._walk(under))
        base = "" if under == self.root else self.rel(under) + "/"
        shown: dict[str, int] = {}
        for n in names:  # files directly under, folders with their file counts
            rest = n[len(base):]
            head = rest.split("/", 1)
            key = head[0] + ("/" if len(head) > 1 else "")
            shown[key] = shown.get(key, 0) + 1
        lines = [k + (f"  ({v} files)" if k.endswith("/") else "") for k, v in sorted(shown.items())]
        return ToolResult(cap("\n".join(lines)) if lines else "(no files)")

    # ------------------------------------------------------------------ editing

    def _change(self, full: Path, after: bytes | None, what: str) -> ToolResult:
        from ctxmill.agent.checkpoints import write_file

        before = full.read_bytes() if full.is_file() else None
        path = self.rel(full)
        write_file(full, after)
        diff = _unified(path, before, after)
        self.last_diff = diff
        return ToolResult(f"{what} {path}", diff=diff, changed=[(path, before, after)])

    def edit(self, path: str, old: str | None = None, new: str | None = None, sketch: str | None = None,
             replace_all: bool = False) -> ToolResult:
        full = self.path(path)
        self._text_of(full)  # exists, not binary
        try:
            text = full.read_bytes().decode("utf-8")  # strict: an edit must not mangle bytes
        except UnicodeDecodeError:
            raise ToolFailed(f"{self.rel(full)}: not UTF-8 text; write the whole file instead") from None
        if sketch is not None:
            from ctxmill.apply import apply_sketch

            res = apply_sketch(text, sketch, path=self.rel(full))
            if not res.applied:
                raise ToolFailed(f"the sketch was not applied: {res.reason}. Give an exact old/new replacement "
                                 "or a sketch with more unchanged lines around the change")
            result = res.result
        else:
            if old is None or new is None:
                raise ToolFailed("give old and new (an exact replacement) or sketch")
            if old == "":
                raise ToolFailed("old is empty: use write for a new file")
            n = text.count(old)
            if n == 0 and "\r\n" in text and "\n" in old and "\r\n" not in old:
                # models write \n; a CRLF file keeps its own line ends
                old, new = old.replace("\n", "\r\n"), new.replace("\r\n", "\n").replace("\n", "\r\n")
                n = text.count(old)
            if n == 0:
                raise ToolFailed(f"old text not found in {self.rel(full)}: read the file and copy the lines exactly")
            if n > 1 and not replace_all:
                raise ToolFailed(f"old text occurs {n} times in {self.rel(full)}: add surrounding lines to make it "
                                 "unique, or set replace_all")
            result = text.replace(old, new)
        if result == text:
            raise ToolFailed("the edit changes nothing")
        return self._change(full, result.encode("utf-8"), "edited")

    def write(self, path: str, content: str) -> ToolResult:
        full = self.path(path)
        if full.is_dir():
            raise ToolFailed(f"{path}: is a folder")
        return self._change(full, content.encode("utf-8"), "replaced" if full.exists() else "created")

    def delete(self, path: str) -> ToolResult:
        full = self.path(path)
        if not full.is_file():
            raise ToolFailed(f"{path}: no such file")
        return self._change(full, None, "deleted")

    def next_edits(self) -> ToolResult:
        if not self.last_diff:
            return ToolResult("no edit yet in this session")
        try:
            from ctxmill.apply.next_edit import suggest
        except ImportError:
            return ToolResult("next-edit suggestions are not available in this install")
        found = suggest(self.root, self.last_diff)
        if not found:
            return ToolResult("no further edits suggested")
        return ToolResult(cap("\n\n".join(f"{s.path}:{s.start_line}-{s.end_line} ({s.reason}, "
                                           f"confidence {s.confidence:.2f}):\n{s.replacement}" for s in found)))

    # ------------------------------------------------------------------ the rest

    def run(self, command: str, timeout: int = 60) -> ToolResult:
        timeout = max(1, min(int(timeout or 60), RUN_TIMEOUT))
        t0 = time.perf_counter()
        held: list[int] = []
        prev = _hold_ctrl_c(held)
        try:
            proc = subprocess.Popen(command, shell=True, cwd=self.root, env=_child_env(self.root),
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)  # its own group: a timeout ends all of it
        except BaseException:
            _release_ctrl_c(prev)
            if held:
                raise KeyboardInterrupt from None
            raise
        try:
            _release_ctrl_c(prev)
            if held:  # came while it started: now that proc exists, end it as below
                raise KeyboardInterrupt
            out, _ = proc.communicate(timeout=timeout)
            code: int | str = proc.returncode
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            out, _ = proc.communicate()
            code = f"killed after {timeout} s"
        except BaseException:  # Ctrl-C: the command goes with us
            _kill_group(proc.pid)
            proc.wait()
            raise
        text = out.decode("utf-8", "replace")
        lines = text.splitlines()
        if len(lines) > MAX_LINES:  # the end of a command's output is where its verdict is
            text = f"… {len(lines) - MAX_LINES} earlier lines\n" + "\n".join(lines[-MAX_LINES:])
        text = text[-MAX_CHARS:]
        return ToolResult(f"exit code: {code} ({time.perf_counter() - t0:.1f} s)\n{text}",
                          ok=code == 0)

    def compile_document(self, path: str) -> ToolResult:
        from ctxmill.compile.options import CompileOptions
        from ctxmill.compile.pipeline import compile_document
        from ctxmill.render import markdown

        options = CompileOptions()
        doc = compile_document(self.path(path), options)
        if not doc.markdown:
            markdown.run(doc, options)
        return ToolResult(cap(doc.markdown, max_lines=400))

    def task(self, goal: str) -> ToolResult:
        if self.subagent is None:
            raise ToolFailed("sub-agents are not available here")
        return ToolResult(self.subagent(goal))

    # ------------------------------------------------------------------ dispatch

    def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        if name not in self.names():
            raise ToolFailed(f"no tool named {name!r}; the tools are {', '.join(self.names())}")
        known = {p for p in SCHEMAS[name]["parameters"]["properties"]}
        extra = set(args) - known
        if extra:
            raise ToolFailed(f"{name} takes no argument {', '.join(sorted(extra))}")
        missing = [p for p in SCHEMAS[name]["parameters"].get("required", []) if p not in args]
        if missing:
            raise ToolFailed(f"{name} needs {', '.join(missing)}")
        try:
            res = getattr(self, name)(**args)
        except (TypeError, ValueError) as exc:
            raise ToolFailed(f"bad arguments for {name}: {exc}") from None
        except OSError as exc:
            raise ToolFailed(f"{exc.strerror or type(exc).__name__}: {exc.filename or ''}".rstrip(": ")) from None
        r = redact(res.content)  # the floor: no secret goes back to the model
        res.content, res.redactions = r.text, r.count
        return res

    def names(self) -> list[str]:
        return [n for n in SCHEMAS if not self.read_only or n in READ_ONLY]

    def schemas(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": n, **SCHEMAS[n]}} for n in self.names()]


def _p(kind: str, description: str, **extra) -> dict:
    return {"type": kind, "description": description, **extra}


def _tool(description: str, props: dict, required: list[str]) -> dict:
    return {"description": description,
            "parameters": {"type": "object", "properties": props, "required": required, "additionalProperties": False}}


READ_ONLY = ("search", "grep", "read", "list", "compile_document", "task")
SCHEMAS: dict[str, dict] = {
    "search": _tool("Hybrid (lexical + semantic) search over the project's code and documents; returns "
                    "path:start-end and the start of each hit.",
                    {"query": _p("string", "What to look for, in words or identifiers."),
                     "k": _p("integer", "How many hits (1-30, default 8)."),
                     "path": _p("string", "Only hits under this file or folder (relative to ROOT).")}, ["query"]),
    "grep": _tool("Regular-expression search over the project's files (ignore rules applied); path:line:text.",
                  {"pattern": _p("string", "A Python/ripgrep regular expression."),
                   "path": _p("string", "File or folder to search, relative to ROOT (default: all)."),
                   "max_results": _p("integer", "Most matching lines to return (default 100).")}, ["pattern"]),
    "read": _tool("Read lines of a text file, numbered. Long files are cut; the result says how to read on.",
                  {"path": _p("string", "File path relative to ROOT."),
                   "start": _p("integer", "First line, 1-based (default 1)."),
                   "end": _p("integer", "Last line, inclusive (default: the end).")}, ["path"]),
    "list": _tool("List the files and folders under a folder (ignore rules applied).",
                  {"path": _p("string", "Folder relative to ROOT (default '.').")}, []),
    "edit": _tool("Change an existing file: replace the exact text old with new, or give sketch: the changed "
                  "code with '... existing code ...' comments for unchanged stretches.",
                  {"path": _p("string", "File path relative to ROOT."),
                   "old": _p("string", "Exact text to replace (must occur once unless replace_all)."),
                   "new": _p("string", "The replacement text."),
                   "sketch": _p("string", "Instead of old/new: an edit sketch merged by ctxmill's apply step."),
                   "replace_all": _p("boolean", "Replace every occurrence of old (default false).")}, ["path"]),
    "write": _tool("Create a file (or replace one whole) with the given content.",
                   {"path": _p("string", "File path relative to ROOT."),
                    "content": _p("string", "The complete new content.")}, ["path", "content"]),
    "delete": _tool("Delete a file (it can be restored by a rewind).",
                    {"path": _p("string", "File path relative to ROOT.")}, ["path"]),
    "run": _tool("Run a shell command in ROOT; returns the exit code and the output's end. Its effects "
                 "cannot be rewound.",
                 {"command": _p("string", "The shell command line."),
                  "timeout": _p("integer", f"Seconds before it is killed (default 60, at most {RUN_TIMEOUT}).")},
                 ["command"]),
    "next_edits": _tool("After an edit: other places the change needs (callers of a renamed function, "
                        "imports, repeated code), from ctxmill's next-edit step.", {}, []),
    "compile_document": _tool("Compile a PDF or OCR text file of the project into clean Markdown.",
                              {"path": _p("string", "Document path relative to ROOT.")}, ["path"]),
    "task": _tool("Hand a self-contained question to a sub-agent with its own context and read-only tools; "
                  "returns its summary. For broad searches whose details need not stay in this context.",
                  {"goal": _p("string", "What the sub-agent should find out, in full.")}, ["goal"]),
}
