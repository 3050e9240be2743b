"""Walk a folder the way a code index should: ignore rules, no binaries, no escapes.

Rules, in order of precedence:

* hidden folders (``.git``, ``.venv``, ...) are never entered;
* ``.gitignore``, ``.ignore`` and ``.ctxmillignore`` files are honoured in every folder, with git's
  semantics (pathspec's gitignore patterns): a deeper file wins over a shallower one, the last
  matching line wins inside one file, ``!pattern`` re-includes, and nothing below an ignored
  folder can be re-included. ``.git/info/exclude`` of the root counts as a root ignore file;
* symlinks are never followed out of the root; a symlinked file inside the root is indexed
  under its link name; symlinked folders are not entered (their target, when inside the root,
  is walked on its own), so symlink cycles cannot loop;
* files over ``max_file_bytes`` are skipped from their stat alone (documents such as PDFs get
  the larger ``max_doc_bytes``); binary files (a NUL byte in the first 8 KB) are recognised by
  :func:`is_binary` once the indexer reads them.

Paths are relative to the root, with ``/`` separators. The walk stats each file once and reads
nothing but the ignore files: the indexer compares the stat with what it stored before
hashing anything (the stat fast path).
"""

from __future__ import annotations

import os
import pickle
import re
import stat as stat_mod
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

try:  # the regex group that marks a match as a folder's (pathspec's backends read it)
    from pathspec.patterns.gitignore.spec import _DIR_MARK
except ImportError:  # pragma: no cover
    _DIR_MARK = "ps_d"

from ctxmill.limits import INDEX_MAX_DOC_BYTES as DEFAULT_MAX_DOC_BYTES
from ctxmill.limits import INDEX_MAX_FILE_BYTES as DEFAULT_MAX_FILE_BYTES

IGNORE_FILES = (".gitignore", ".ignore", ".ctxmillignore")
DOCUMENT_SUFFIXES = (".pdf",)  # compiled by the document compiler; may be larger than code files
BINARY_SNIFF_BYTES = 8192


@dataclass(slots=True)
class FileEntry:
    path: str  # relative to the root, "/"-separated
    size: int
    mtime_ns: int
    inode: int


@dataclass
class WalkResult:
    files: list[FileEntry] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    unchanged: list[str] = field(default_factory=list)  # with ``known``: files whose stat matched


def index_name(name: str) -> str:
    """A file name as the index stores it: always valid UTF-8, and reversible.

    A name that is not valid UTF-8 reaches Python with lone surrogates (``os.fsdecode``'s
    surrogateescape), which SQLite cannot store. Such a name is written with ``\\xHH`` for each
    byte that is not UTF-8 (``\\uHHHH`` for any other lone surrogate) and ``\\\\`` for a
    backslash (escaped too, so that a real name like ``\\xff.py`` stays distinct); every other
    name is left as it is.
    """
    if "\\" not in name and (name.isascii() or not _SURROGATE.search(name)):
        return name
    return _SURROGATE.sub(_escape_surrogate, name.replace("\\", "\\\\"))


def _escape_surrogate(m: re.Match) -> str:
    code = ord(m.group())
    # a byte that is not UTF-8 (surrogateescape's U+DC80-U+DCFF) as \xHH; any other lone
    # surrogate (no file system hands one over, but a str may hold it) as \uHHHH
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def fs_name(name: str) -> str:
    """The inverse of :func:`index_name`: the name to open on disk."""
    if "\\" not in name:
        return name
    return _ESCAPE.sub(_unescape, name)


def _unescape(m: re.Match) -> str:
    text = m.group()
    if text == "\\\\":
        return "\\"
    return chr(0xDC00 + int(text[2:], 16)) if text[1] == "x" else chr(int(text[2:], 16))


_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPE = re.compile(r"\\\\|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}")


def is_binary(data: bytes) -> bool:
    """Git's rule of thumb: a NUL byte in the first 8 KB means binary."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


class _Spec:
    """One ignore file's patterns, anchored at the folder that holds it, indexed.

    Every line is turned into pathspec's gitignore regex (``GitIgnoreSpecPattern.pattern_to_regex``)
    and compiled only when a path could match it: a pattern names the path components a matching
    path must have, so it is filed under one of them (a literal segment: the component itself; a
    ``*.ext`` segment: the component's ending; ``name*``: its beginning; any other glob: a run of
    its literal characters, looked up among the component's short substrings). A path is tried
    against the patterns filed under its components and those with nothing to file them by (``*``,
    a line with spaces or escapes), and the verdict is pathspec's own: the last pattern that
    matches the path as a file, else the last that matches it as a folder. A 100,000-line
    .gitignore took ~12 CPU-s to build (pathspec compiled every pattern, then one regex ORed them
    all as a prefilter) and 7-50 ms a path; decisions are pathspec's (tests/test_hostile_round12.py
    checks them against GitIgnoreSpec on generated trees).
    """

    __slots__ = ("base", "invalid", "_rx", "_inc", "_exact", "_suffix", "_prefix", "_sub", "_always",
                 "_suffix_lens", "_prefix_lens", "_sub_lens")

    def __init__(self, base: str, lines: Iterable[str]):
        self.base = base  # "" for the root, else "dir/sub/"
        self.invalid: list[str] = []  # lines that are no valid pattern: skipped, as git does
        self._rx: list = []  # per pattern: its regex, a str until first used, then compiled
        self._inc: list[bool] = []
        self._exact: dict[str, list[int]] = {}
        self._suffix: dict[str, list[int]] = {}
        self._prefix: dict[str, list[int]] = {}
        self._sub: dict[str, list[int]] = {}
        self._always: list[int] = []
        for line in lines:
            try:
                regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
                if include is None or regex is None:
                    continue  # a comment, a blank line: no pattern
                if "[" in line:  # a class can be an invalid range ([z-a]): compiled now, to tell
                    regex = re.compile(regex)
            except Exception:  # pathspec's own errors and re.error
                self.invalid.append(line)
                continue
            i = len(self._rx)
            self._rx.append(regex)
            self._inc.append(include)
            kind, key = _pattern_key(line)
            if kind is None:
                self._always.append(i)
            else:
                getattr(self, kind).setdefault(key, []).append(i)
        self._suffix_lens = sorted({len(k) for k in self._suffix})
        self._prefix_lens = sorted({len(k) for k in self._prefix})
        self._sub_lens = sorted({len(k) for k in self._sub})

    def decide(self, rel: str) -> bool | None:
        """True: ignored, False: re-included, None: no pattern speaks about ``rel``."""
        if not self._rx:
            return None
        sub = rel[len(self.base):]
        if sub.startswith("/"):  # pathspec's normalize_file
            sub = sub[1:]
        elif sub.startswith("./"):
            sub = sub[2:]
        found = set(self._always)
        exact, suffix, prefix, subs = self._exact, self._suffix, self._prefix, self._sub
        for comp in set(sub.split("/")):
            hit = exact.get(comp)
            if hit:
                found.update(hit)
            n = len(comp)
            for k in self._suffix_lens:
                if k > n:
                    break
                hit = suffix.get(comp[n - k:])
                if hit:
                    found.update(hit)
            for k in self._prefix_lens:
                if k > n:
                    break
                hit = prefix.get(comp[:k])
                if hit:
                    found.update(hit)
            for k in self._sub_lens:
                for j in range(n - k + 1):
                    hit = subs.get(comp[j:j + k])
                    if hit:
                        found.update(hit)
        # pathspec's SimpleGiBackend, patterns from the last: a match as a file (no folder mark)
        # decides; before one, the last match as a folder stands
        verdict = None
        rx = self._rx
        for i in sorted(found, reverse=True):
            r = rx[i]
            if isinstance(r, str):
                try:
                    r = rx[i] = re.compile(r)
                except re.error:  # (only a class can be invalid, and those were compiled up front)
                    rx[i] = re.compile(r"(?!)")
                    continue
            m = r.search(sub)  # (as pathspec: most begin with ^, a few match anywhere)
            if m is None:
                continue
            if not m.groupdict().get(_DIR_MARK):
                return self._inc[i]
            if verdict is None:
                verdict = self._inc[i]
        return verdict


# a line _pattern_key reads as pathspec does: no spaces, escapes or other characters that the
# gitignore syntax treats specially, classes of plain characters only, no "." or ".." segment
_PLAIN_LINE = re.compile(r"!?(?:[A-Za-z0-9._*?/-]|\[[A-Za-z0-9-]+\])+")
_GLOB = re.compile(r"\[[A-Za-z0-9-]+\]|[*?]")


def _pattern_key(line: str) -> tuple[str | None, str]:
    """(index, key): a path the pattern can match has a component equal to the key (index
    "_exact"), ending with it ("_suffix"), beginning with it ("_prefix") or holding it
    ("_sub"); (None, "") when the line says nothing so simple (it is tried on every path)."""
    if not _PLAIN_LINE.fullmatch(line):
        return None, ""
    best: tuple[int, str, str] = (0, "", "")
    for seg in line.lstrip("!").split("/"):
        if seg in ("", "**"):
            continue
        if seg in (".", ".."):
            return None, ""
        if not _GLOB.search(seg):
            return "_exact", seg
        runs = _GLOB.split(seg)
        if len(runs) == 2 and seg.startswith("*") and runs[1] and not runs[0]:
            cand = (3, "_suffix", runs[1])
        elif len(runs) == 2 and seg.endswith("*") and runs[0] and not runs[1]:
            cand = (2, "_prefix", runs[0])
        else:
            run = max(runs, key=len)
            cand = (1, "_sub", run[:4]) if run else (0, "", "")
        if (cand[0], len(cand[2])) > (best[0], len(best[2])):
            best = cand
    return (best[1], best[2]) if best[0] else (None, "")


def _read_spec(folder: str, base: str, names: Iterable[str]) -> _Spec | None:
    lines: list[str] = []
    for name in names:
        try:
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as fh:
                lines.extend(fh.read().splitlines())
        except OSError:
            continue
    return _Spec(base, lines) if any(ln.strip() and not ln.startswith("#") for ln in lines) else None


def _ignored(specs: list[_Spec], rel: str) -> bool:
    for spec in reversed(specs):  # the deepest ignore file decides first
        verdict = spec.decide(rel)
        if verdict is not None:
            return verdict
    return False


def walk(
    root: str | Path,
    *,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_doc_bytes: int = DEFAULT_MAX_DOC_BYTES,
    extra_ignore: Iterable[str] = (),
    sort: bool = True,
    known: dict[str, tuple[int, int, int]] | None = None,
    processes: int = 1,
) -> WalkResult:
    """Every indexable file under ``root`` (sorted by path unless ``sort=False``) and what was
    skipped, with why.

    ``extra_ignore`` takes gitignore-style lines applied at the root (below the root's own
    ignore files in precedence). With ``known`` (path -> (size, mtime_ns, inode) from the last
    sync), files whose stat equals it are listed in ``unchanged`` only: the indexer's fast path
    without an object per file.

    With ``processes`` > 1 (and where the process can fork safely) the folders below the top
    levels are shared between this process and ``processes - 1`` forked children: a stat is a
    system call plus a Python object, and Python cannot run two of those at once in threads.
    The result is the same as the one-process walk's (the order of ``files`` aside when
    ``sort=False``).
    """
    root_abs = os.path.abspath(root)
    root_real = os.path.realpath(root_abs)
    result = WalkResult()
    base_specs: list[_Spec] = []
    extra = list(extra_ignore)
    if extra:
        base_specs.append(_Spec("", extra))
    exclude = _read_spec(os.path.join(root_abs, ".git", "info"), "", ["exclude"])
    if exclude:
        base_specs.append(exclude)
    seen_dirs: set[tuple[int, int]] = set()
    ctx = (root_real, max_file_bytes, max_doc_bytes, known)

    def take(got) -> list:
        key, files, unchanged, skipped, subdirs = got
        if key is not None:
            if key in seen_dirs:  # a bind mount or similar: never walk one folder twice
                return []
            seen_dirs.add(key)
        result.files.extend(files)
        result.unchanged.extend(unchanged)
        result.skipped.extend(skipped)
        return subdirs

    # (absolute folder, relative prefix "" or "a/b/", specs in force above it). Not threads:
    # scanning folders on two threads was measured slower here (GIL contention).
    stack = [(root_abs, "", base_specs)]
    if processes > 1 and _can_fork():
        # Breadth-first until there are a few folders per child, then the children walk
        # their shares whole; their folders are taken here in order, so a folder seen twice
        # (a bind mount) still counts once.
        while stack and len(stack) < processes * 4:
            stack.extend(take(_visit(*stack.pop(0), ctx)))
        if len(stack) > 1:
            for got in _walk_forked(stack, ctx, processes):
                take(got)
            stack = []
    for got in _walk_share(stack, ctx):
        take(got)
    if sort:
        result.files.sort(key=lambda f: f.path)
    return result


def _can_fork() -> bool:
    # A child forked while other threads run may inherit a lock one of them held. Linux only:
    # that is where it was measured, and macOS frameworks are not safe across fork.
    return sys.platform.startswith("linux") and threading.active_count() == 1


def _walk_share(folders: list, ctx) -> list[tuple]:
    """Walk ``folders`` and everything below them: one tuple per folder, as ``_visit`` gives."""
    out = []
    seen: set[tuple[int, int]] = set()
    stack = list(folders)
    while stack:
        key, files, unchanged, skipped, subdirs = _visit(*stack.pop(), ctx)
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        out.append((key, files, unchanged, skipped, []))
        stack.extend(subdirs)
    return out


def _widen_pipe(fd: int) -> None:
    # A child's answer (mostly the unchanged paths) is ~20 bytes a file: in a 64 KB pipe it
    # would wait for this process to finish its own share before it could finish sending.
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except (ImportError, AttributeError, OSError):
        pass  # not Linux, or above the system's limit: a slower hand-over, same result


def _walk_forked(folders: list, ctx, processes: int) -> list[tuple]:
    """``_walk_share`` over ``folders`` split in ``processes`` shares: this process walks the
    first while forked children walk the others and send theirs back by pipe.

    A fork costs ~4 ms per 100 MB the process holds, hence no child for the first share. A
    child that fails (killed, out of memory, a pickling error) costs nothing but time: its
    share is walked again here.
    """
    shares = [folders[i::processes] for i in range(processes)]
    children = []
    for share in shares[1:]:
        if not share:
            continue
        r, w = os.pipe()
        _widen_pipe(w)
        pid = os.fork()
        if pid == 0:  # the child: walk, send, and leave without running any parent code
            code = 1
            try:
                from ctxmill.procs import die_with_parent

                die_with_parent()  # a killed sync leaves no walker behind
                os.close(r)
                with os.fdopen(w, "wb") as out:
                    out.write(pickle.dumps(_walk_share(share, ctx), pickle.HIGHEST_PROTOCOL))
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        children.append((pid, r, share))
    results = _walk_share(shares[0], ctx)
    for pid, r, share in children:
        with os.fdopen(r, "rb") as fh:
            data = fh.read()
        _, status = os.waitpid(pid, 0)
        got = None
        if status == 0:
            try:
                got = pickle.loads(data)
            except Exception:
                got = None
        results.extend(got if got is not None else _walk_share(share, ctx))
    return results


def _visit(folder: str, prefix: str, specs: list, ctx) -> tuple:
    """Scan one folder: (identity, files, unchanged, skipped, sub-folders to visit)."""
    root_real, max_file_bytes, max_doc_bytes, known = ctx
    files: list[FileEntry] = []
    unchanged: list[str] = []
    skipped: list[tuple[str, str]] = []
    subdirs: list = []
    try:
        # scandir over a folder descriptor: each entry's stat is an fstatat() relative to it,
        # which spares the kernel a full path lookup per file.
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        skipped.append((prefix.rstrip("/") or ".", f"unreadable folder: {exc.strerror or exc}"))
        return None, files, unchanged, skipped, subdirs
    try:
        st = os.fstat(fd)
        with os.scandir(fd) as it:
            entries = list(it)
        _scan(entries, folder, prefix, specs, root_real, max_file_bytes, max_doc_bytes, subdirs, files, skipped,
              known, unchanged)
    except OSError as exc:
        skipped.append((prefix.rstrip("/") or ".", f"unreadable folder: {exc.strerror or exc}"))
        return None, [], [], skipped, []
    finally:
        os.close(fd)
    return (st.st_dev, st.st_ino), files, unchanged, skipped, subdirs


def _scan(entries, folder, prefix, specs, root_real, max_file_bytes, max_doc_bytes, stack, files, skipped,
          known, unchanged):
    """One folder's entries: files appended to ``files``, sub-folders pushed on ``stack``."""
    names = {e.name for e in entries}
    present = [n for n in IGNORE_FILES if n in names]
    if present:
        spec = _read_spec(folder, prefix, present)
        if spec is not None:
            specs = [*specs, spec]
            for line in spec.invalid:
                skipped.append((prefix + "/".join(present), f"invalid ignore pattern skipped: {line!r}"))
    get_known = known.get if known is not None else None
    for entry in entries:
        name = entry.name
        rel = prefix + index_name(name)
        try:
            if entry.is_file(follow_symlinks=False):  # the common case: d_type, no syscall yet
                if specs and _ignored(specs, rel):  # ignored files are never even stat'ed
                    continue
                st = entry.stat(follow_symlinks=False)
            elif entry.is_symlink():
                full = os.path.join(folder, name)
                target = os.path.realpath(full)
                if target != root_real and not target.startswith(root_real + os.sep):
                    skipped.append((rel, "symlink points outside the root"))
                    continue
                st = os.stat(full)  # follows the link: it stays inside the root
                if stat_mod.S_ISDIR(st.st_mode):
                    # Not entered: the target is walked under its own path, and not
                    # following folder links is what makes cycles impossible.
                    skipped.append((rel, "symlinked folder not followed"))
                    continue
                if not stat_mod.S_ISREG(st.st_mode) or (specs and _ignored(specs, rel)):
                    continue
            elif entry.is_dir(follow_symlinks=False):
                if name.startswith("."):
                    continue
                if specs and _ignored(specs, rel + "/"):
                    continue
                stack.append((os.path.join(folder, name), rel + "/", specs))
                continue
            else:
                continue  # sockets, fifos, devices
        except OSError as exc:  # vanished between readdir and stat, or no permission
            skipped.append((rel, f"cannot stat: {exc.strerror or exc}"))
            continue
        size = st.st_size
        if size > max_file_bytes:
            cap = max_doc_bytes if name.lower().endswith(DOCUMENT_SUFFIXES) else max_file_bytes
            if size > cap:
                skipped.append((rel, f"too large ({size} bytes > {cap})"))
                continue
        if get_known is not None and get_known(rel) == (size, st.st_mtime_ns, st.st_ino):
            unchanged.append(rel)
            continue
        files.append(FileEntry(rel, size, st.st_mtime_ns, st.st_ino))
