"""Generated apply triples from real code: git history plus seeded edits on real files.

    .venv/bin/python benchmarks/apply_generated.py [--repo PATH] [--seed N] [--limit N] [--show-wrong]

Triples (original, sketch, expected) come from two places:

* real commit history of a git repository on disk (default: this checkout), every modified
  source file of every commit: the sketch is the new version with unchanged stretches cut
  down to markers, keeping 1-3 lines of context around each change;
* seeded edits on real files that ship with this machine (npm's JavaScript, the Python
  standard library): insert/modify/delete a statement, add a function, edit the first or
  last line.

Each is cut in variants: marker wordings and comment syntaxes, re-indented sketch (dedented,
spaces to tabs, 2 to 4), CRLF file, trailing whitespace and blank lines around markers, and
deliberately ambiguous anchors (an edit inside a block the file has twice, shown with only
that block's lines as context: the only right answers are "refused" or, by luck, right).
Outcomes: correct, trailing_ws_only, refused, silently_wrong; the copy-until-the-next-line
merger runs on the same triples as the peer. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import sysconfig
import time
from collections import Counter, defaultdict
from difflib import SequenceMatcher
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from apply_continue import naive_merge  # noqa: E402
from ctxmill.apply import apply_sketch  # noqa: E402

EXTS = {".py": "#", ".js": "//", ".mjs": "//", ".ts": "//", ".tsx": "//", ".md": "<!--",
        ".toml": "#", ".sh": "#", ".rs": "//", ".go": "//"}
WORDINGS = ["... existing code ...", "... rest of code ...", "... same as before ...", "…",
            "... unchanged ...", "... keep existing ...", "...", "... existing code here ...",
            "… rest of the file …"]
MAX_LINES = 2000
# This checkout's history up to a fixed commit, so that reruns measure the same triples.
DEFAULT_REV = "ddca1961b"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          timeout=60, check=True).stdout


def history_pairs(repo: Path, limit: int, rev: str = "HEAD") -> list[tuple[str, str, str]]:
    """(name, old, new) for every modified source file in every commit of ``repo`` up to ``rev``."""
    pairs = []
    try:
        commits = git(repo, "log", "--format=%H %P", rev).splitlines()
    except (subprocess.SubprocessError, FileNotFoundError):
        return pairs
    for line in commits:
        parts = line.split()
        if len(parts) != 2:
            continue  # root or merge commit
        commit, parent = parts
        for path in git(repo, "diff-tree", "-r", "--no-commit-id", "--diff-filter=M", "--name-only",
                        commit).splitlines():
            if Path(path).suffix not in EXTS:
                continue
            try:
                old = git(repo, "show", f"{parent}:{path}")
                new = git(repo, "show", f"{commit}:{path}")
            except (subprocess.SubprocessError, UnicodeDecodeError):
                continue
            if old == new or not old.strip() or old.count("\n") > MAX_LINES:
                continue
            sm = SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
            if sm.ratio() < 0.6:
                continue  # a rewrite, not an edit
            pairs.append((f"{commit[:8]}:{path}", old, new))
            if len(pairs) >= limit:
                return pairs
    return pairs


def sample_files(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """Real source files on this machine: npm's JavaScript and the Python standard library."""
    found: list[Path] = []
    npm = Path("/usr/lib/node_modules/npm/node_modules")
    if npm.is_dir():
        found += sorted(p for p in npm.rglob("*.js") if ".min." not in p.name
                        and 3_000 < p.stat().st_size < 60_000)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    found += sorted(p for p in stdlib.glob("*.py") if 3_000 < p.stat().st_size < 80_000)
    rng.shuffle(found)
    out = []
    for p in found:
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "\r" in text or "\t" in text or text.count("\n") > MAX_LINES:
            continue
        out.append((str(p), text))
        if len(out) >= count:
            break
    return out


# ------------------------------------------------------------------------- sketches


def marker(ext: str, wording: str, indent: str, rng: random.Random) -> str:
    c = EXTS[ext]
    if c == "<!--":
        return f"{indent}<!-- {wording} -->"
    if c == "//" and rng.random() < 0.25:
        return f"{indent}/* {wording} */"
    return f"{indent}{c} {wording}"


def make_sketch(old: str, new: str, ext: str, ctx: int, rng: random.Random,
                wording: str | None = None, blank_noise: bool = False) -> str | None:
    a, b = old.split("\n"), new.split("\n")
    shown = [False] * len(b)
    changed = [False] * len(b)
    for tag, _i1, _i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for j in range(j1, j2):
            changed[j] = True
        # Context counts only once it holds a non-blank line on each side: a deletion with
        # nothing but blank lines between it and a marker is invisible (the marker would
        # stand for the deleted lines too), and no reader could tell it from "keep".
        lo, hi = max(0, j1 - ctx), min(len(b), j2 + ctx)
        while lo > 0 and not any(x.strip() for x in b[lo:j1]):
            lo -= 1
        while hi < len(b) and not any(x.strip() for x in b[j2:hi]):
            hi += 1
        for j in range(lo, hi):
            shown[j] = True
    if not any(shown):
        return None
    out: list[str] = []
    j = 0
    while j < len(b):
        if shown[j]:
            out.append(b[j])
            j += 1
            continue
        k = j
        while k < len(b) and not shown[k]:
            k += 1
        hidden = b[j:k]
        if all(not x.strip() for x in hidden):
            out.extend(hidden)  # only blank lines: show them rather than mark them
        else:
            # A model writes the marker where the elided code sits, at its depth.
            near = next(x for x in hidden if x.strip())
            indent = near[: len(near) - len(near.lstrip())]
            m = marker(ext, wording or rng.choice(WORDINGS), indent, rng)
            if blank_noise:
                # Models pad markers with blank lines; next to an unchanged line that is layout
                # noise (next to an added line a blank is meant, so none is added there).
                if j > 0 and not changed[j - 1] and b[j - 1].strip() and rng.random() < 0.5:
                    m = "\n" + m
                if k < len(b) and not changed[k] and b[k].strip() and rng.random() < 0.5:
                    m = m + "\n"
            out.append(m)
        j = k
    return "\n".join(out)


def reindent(sketch: str, how: str) -> str:
    lines = sketch.split("\n")
    if how == "dedent":
        pad = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
        return "\n".join(x[pad:] if x.strip() else "" for x in lines)
    out = []
    for x in lines:
        n = len(x) - len(x.lstrip(" "))
        body = x[n:]
        if how == "tabs":
            out.append("\t" * (n // 4) + " " * (n % 4) + body)
        elif how == "double":
            out.append(" " * (2 * n) + body)
        else:
            out.append(x)
    return "\n".join(out)


def is_marker(line: str) -> bool:
    s = line.strip()
    return len(s) < 60 and any(w in s for w in WORDINGS)


def unit_of(text: str) -> int:
    cols = [len(x) - len(x.lstrip(" ")) for x in text.split("\n") if x.strip() and x.startswith(" ")]
    return 2 if cols and min(cols) == 2 else 4


def to_tabs(text: str, unit: int) -> str:
    out = []
    for x in text.split("\n"):
        n = len(x) - len(x.lstrip(" "))
        out.append("\t" * (n // unit) + " " * (n % unit) + x[n:])
    return "\n".join(out)


def shifted(sketch: str, how: str, rng: random.Random, unit: int = 4) -> str:
    """The `reindent` variants a model writes: the whole sketch moved right ("shift"), each
    stretch between markers moved by its own amount or pulled to column 0 ("partial"), or the
    file's tabs written as spaces ("spaces", on a tab-indented file)."""
    lines = sketch.split("\n")
    if how == "shift":
        k = rng.choice([2, 4, 8])
        return "\n".join(" " * k + x if x.strip() else x for x in lines)
    if how == "spaces":
        return "\n".join(x.replace("\t", " " * unit) if x.startswith("\t") else x for x in lines)
    segs: list[list[str]] = [[]]
    for x in lines:
        segs[-1].append(x)
        if is_marker(x):
            segs.append([])
    out = []
    for seg in segs:
        k = rng.choice([0, 2, 4, "dedent"])
        if k == "dedent":
            pad = min((len(x) - len(x.lstrip()) for x in seg if x.strip() and not is_marker(x)), default=0)
            out += [x if is_marker(x) else x[pad:] if x.strip() else x for x in seg]
        else:
            out += [x if is_marker(x) or not x.strip() else " " * k + x for x in seg]
    return "\n".join(out)


# ------------------------------------------------------------------------- synthetic edits

_JS_STMT = re.compile(r"^\s+(?:const|let|var|return|this\.|await|[\w.]+\()[^{}]*;\s*$")
_PY_STMT = re.compile(r"^\s+(?:[A-Za-z_][\w.]*\s*=[^=][^\\]*|return\b[^\\]*|[\w.]+\([^()]*\))\s*$")


def statement_lines(lines: list[str], ext: str) -> list[int]:
    pat = _PY_STMT if ext == ".py" else _JS_STMT
    out = []
    for i, x in enumerate(lines[1:-1], 1):
        if not pat.match(x) or x.rstrip().endswith((",", "(", "[", "{", ":", "\\")):
            continue
        prev = lines[i - 1].rstrip()
        if prev.endswith((",", "(", "[", "\\", "+", "and", "or")) or '"""' in x or "'''" in x:
            continue
        out.append(i)
    return out


def synthetic(name: str, text: str, rng: random.Random) -> list[tuple[str, str, str]]:
    ext = Path(name).suffix
    lines = text.split("\n")
    stmts = statement_lines(lines, ext)
    n = rng.randrange(1000)
    py = ext == ".py"
    out: list[tuple[str, str, str]] = []

    def indent_of(x: str) -> str:
        return x[: len(x) - len(x.lstrip())]

    if stmts:
        i = rng.choice(stmts)
        ind = indent_of(lines[i])
        new_stmt = f"{ind}probe_{n} = compute_{n}(probe_{n})" if py else f"{ind}const probe{n} = compute{n}();"
        out.append(("insert", text, "\n".join(lines[: i + 1] + [new_stmt] + lines[i + 1:])))
        # "x || fallback" needs an expression: not "let x;" (a declaration with no value)
        exprs = stmts if py else [j for j in stmts if not re.match(r"\s*(?:const|let|var)\s+[\w$]+\s*;", lines[j])]
        i = rng.choice(exprs or stmts)
        changed = lines[i].rstrip()
        changed = (changed + f"  # tuned {n}") if py else changed[:-1] + f" || fallback{n};"
        out.append(("modify", text, "\n".join(lines[:i] + [changed] + lines[i + 1:])))
        i = rng.choice(stmts)
        out.append(("delete", text, "\n".join(lines[:i] + lines[i + 1:])))
    # a new top-level function after an existing one
    tops = [i for i, x in enumerate(lines) if (x.startswith("def ") if py else
                                               re.match(r"(?:export )?(?:async )?function \w+", x))]
    if tops:
        i = rng.choice(tops)
        end = i + 1
        while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t", ")", "}")):
            if lines[end][:1] == "}":
                end += 1
                break
            end += 1
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        func = ([f"def helper_{n}(value):", f'    """Added helper {n}."""', f"    return value * {n}"]
                if py else [f"function helper{n}(value) {{", f"  return value * {n};", "}"])
        out.append(("add_function", text, "\n".join(lines[:end] + [""] + func + lines[end:])))
    first = next((i for i, x in enumerate(lines) if x.strip()), None)
    if first is not None:
        head = f"import extra_{n}" if py else f"import extra{n} from 'extra{n}';"
        out.append(("first_line", text, "\n".join(lines[:first] + [head] + lines[first:])))
    last = max((i for i, x in enumerate(lines) if x.strip()), default=None)
    if last is not None and not lines[last].startswith((" ", "\t")):
        tail = f"EXTRA_{n} = {n}" if py else f"export const extra{n} = {n};"
        out.append(("last_line", text, "\n".join(lines[: last + 1] + [tail] + lines[last + 1:])))
    return out


def ambiguous(name: str, text: str, rng: random.Random) -> tuple[str, str] | None:
    """(original, sketch) editing one of two identical blocks, shown only with its own lines."""
    ext = Path(name).suffix
    lines = text.split("\n")
    stmts = statement_lines(lines, ext)
    if not stmts:
        return None
    i = rng.choice(stmts)
    ind = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    lo = i
    while lo > 0 and lines[lo - 1].strip() and lines[lo - 1].startswith(ind) and i - lo < 2:
        lo -= 1
    hi = i + 1
    while hi < len(lines) and lines[hi].strip() and lines[hi].startswith(ind) and hi - i < 2:
        hi += 1
    block = lines[lo:hi]
    if len(block) < 2:
        return None
    # The file gets a second copy of the block right after the first (a repeated stanza),
    # and the edit goes into one copy chosen at random.
    dup = lines[:hi] + block + lines[hi:]
    which = rng.choice([0, 1])
    at = hi + (len(block) if which else 0)
    n = rng.randrange(1000)
    new_stmt = f"{ind}probe_{n} = {n}" if ext == ".py" else f"{ind}const probe{n} = {n};"
    edited = dup[:at] + [new_stmt] + dup[at:]
    m_top = marker(ext, rng.choice(WORDINGS), ind, rng)
    sketch = "\n".join([m_top] + block + [new_stmt, m_top])
    original = "\n".join(dup)
    expected = "\n".join(edited)
    return original, sketch, expected


# ------------------------------------------------------------------------- run


def classify(result: str | None, expected: str) -> str:
    if result is None:
        return "refused"
    if result == expected:
        return "correct"
    if [x.rstrip() for x in result.rstrip().split("\n")] == [x.rstrip() for x in expected.rstrip().split("\n")]:
        return "trailing_ws_only"
    return "silently_wrong"


def build(repo: Path, seed: int, limit: int, rev: str = "HEAD") -> list[dict]:
    rng = random.Random(seed)
    triples: list[dict] = []

    def add(kind: str, name: str, original: str, sketch: str | None, expected: str, how: str = "") -> None:
        if sketch is not None and sketch.strip():
            triples.append({"kind": kind, "name": name, "original": original, "sketch": sketch,
                            "expected": expected, **({"how": how} if how else {})})

    for name, old, new in history_pairs(repo, limit, rev):
        ext = Path(name.split(":", 1)[1]).suffix
        add("history", name, old, make_sketch(old, new, ext, rng.choice([1, 2, 3]), rng), new)
        add("history_wordings", name, old, make_sketch(old, new, ext, 2, rng, blank_noise=True), new)
        s = make_sketch(old, new, ext, 3, rng)
        if s and ext != ".md":
            add("reindent", name, old, reindent(s, rng.choice(["dedent", "tabs", "double"])), new)
        add("crlf", name, old.replace("\n", "\r\n"), make_sketch(old, new, ext, 2, rng),
            new.replace("\n", "\r\n"))
        s = make_sketch(old, new, ext, 2, rng)
        if s:
            s = "\n".join(x + (" " * rng.randrange(1, 4) if x.strip() and rng.random() < 0.3 else "")
                          for x in s.split("\n"))
            add("trailing_ws", name, old, s, new)
    # the reindent variants of issue 18 draw from their own generator, so the triples above
    # stay the ones earlier runs measured
    rng2 = random.Random(seed + 1)
    for name, old, new in history_pairs(repo, limit, rev):
        ext = Path(name.split(":", 1)[1]).suffix
        s = make_sketch(old, new, ext, rng2.choice([2, 3]), rng2)
        if s and ext != ".md":
            how = rng2.choice(["shift", "partial"])
            add("reindent", name, old, shifted(s, how, rng2), new, how)
    for path, text in sample_files(rng, limit):
        ext = Path(path).suffix
        for kind, old, new in synthetic(path, text, rng):
            add(kind, path, old, make_sketch(old, new, ext, rng.choice([2, 3]), rng), new)
            how = rng2.choice(["dedent", "shift", "partial", "tabs", "spaces"])
            if how == "spaces":
                u = unit_of(old)
                to, tn = to_tabs(old, u), to_tabs(new, u)
                s = make_sketch(to, tn, ext, rng2.choice([2, 3]), rng2)
                if s:
                    add("reindent", path, to, shifted(s, "spaces", rng2, u), tn, how)
                continue
            s = make_sketch(old, new, ext, rng2.choice([2, 3]), rng2)
            if s:
                add("reindent", path, old, reindent(s, how) if how in ("dedent", "tabs") else shifted(s, how, rng2), new,
                    how)
        amb = ambiguous(path, text, rng)
        if amb:
            add("ambiguous", path, amb[0], amb[1], amb[2])
    return triples


def run(triples: list[dict], show_wrong: bool = False) -> dict:
    by_kind: dict[str, Counter] = defaultdict(Counter)
    by_how: dict[str, Counter] = defaultdict(Counter)  # the reindent variants of the synthetic edits
    total: Counter = Counter()
    reasons: Counter = Counter()
    peer: Counter = Counter()
    seconds = []
    wrong = []
    for t in triples:
        path = t["name"].split(":", 1)[-1]
        t0 = time.perf_counter()
        r = apply_sketch(t["original"], t["sketch"], path=path)
        seconds.append(time.perf_counter() - t0)
        v = classify(r.result if r.applied else None, t["expected"])
        by_kind[t["kind"]][v] += 1
        if t.get("how"):
            by_how[t["how"]][v] += 1
        total[v] += 1
        peer[classify(naive_merge(t["original"], t["sketch"]), t["expected"])] += 1
        if not r.applied:
            reasons[re.sub(r"\d+|'.*'", "N", r.reason)[:70]] += 1
        if v == "silently_wrong":
            wrong.append(t["kind"] + " " + t["name"])
            if show_wrong:
                print("=" * 30, t["kind"], t["name"], "\n", t["sketch"][:1500], file=sys.stderr)
    n = len(triples)
    amb = by_kind.get("ambiguous", Counter())
    plain = Counter()
    for k, c in by_kind.items():
        if k != "ambiguous":
            plain.update(c)
    n_plain = sum(plain.values()) or 1
    seconds.sort()
    return {
        "triples": n,
        "outcomes": dict(total),
        "silent_misapply_rate": round(total["silently_wrong"] / max(n, 1), 4),
        "correct_rate_non_ambiguous": round((plain["correct"] + plain["trailing_ws_only"]) / n_plain, 4),
        "ambiguous": {"cases": sum(amb.values()), "refused_or_right": amb["refused"] + amb["correct"]
                      + amb["trailing_ws_only"], "silently_wrong": amb["silently_wrong"]},
        "peer_copy_until_next_line": dict(peer),
        "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "reindent_by_variant": {k: dict(v) for k, v in sorted(by_how.items())},
        "reindent_silently_wrong_rate": round(by_kind["reindent"]["silently_wrong"]
                                              / max(1, sum(by_kind["reindent"].values())), 4),
        "refusal_reasons": dict(reasons.most_common(8)),
        "median_ms": round(seconds[len(seconds) // 2] * 1000, 3) if seconds else None,
        "p99_ms": round(seconds[int(len(seconds) * 0.99)] * 1000, 3) if seconds else None,
        "silently_wrong_cases": wrong[:20],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", type=Path, default=ROOT)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--limit", type=int, default=80, help="history pairs and sampled files, each")
    ap.add_argument("--rev", default=DEFAULT_REV, help="history up to this commit (HEAD for all)")
    ap.add_argument("--show-wrong", action="store_true")
    ap.add_argument("--dump", type=Path, help="write the triples as JSON lines")
    args = ap.parse_args()
    rev = args.rev if args.repo == ROOT or args.rev != DEFAULT_REV else "HEAD"
    triples = build(args.repo, args.seed, args.limit, rev)
    if args.dump:
        args.dump.write_text("".join(json.dumps(t) + "\n" for t in triples))
    out = run(triples, args.show_wrong)
    out["history_rev"] = rev
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
