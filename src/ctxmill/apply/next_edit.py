"""Next-edit suggestions: after one edit, the other edits the same change needs (the "Tab").

Given the unified diff of the edit just made (files under the root are in their state after
it), :func:`suggest` reads what the edit did and proposes the same change elsewhere:

- **rename**: the edit replaced identifier ``a`` by ``b`` (every token it changed is such a
  replacement, consistently): every other use of ``a`` becomes ``b``. Uses as code rank first;
  uses inside strings, comments and prose (tree-sitter says which is which, where a grammar
  exists) are proposed too, at a lower confidence, unless the name is a plain word (``left``)
  and the edit itself was in code; the lines of the edit itself are not touched again.

Suggestions on neighbouring lines are grouped the way a diff groups changes into hunks, so a
suggestion is one accept for one place. Each carries a reason and a confidence; the same file
as the edit ranks first, then files by how many uses they hold. Anything the edit does not
show clearly (a rewrite, several unrelated changes) gets no suggestion: a wrong Tab costs the
user more than a missing one.
"""

from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import asdict, dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

from ctxmill.errors import InputRefused

TOKEN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*|\d[\w.]*|\S")
# Ruby and Elixir names may end in ? or ! (`include?`, `save!`): one name, not a name and a sign
TOKEN_RB = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*[?!]?(?!=)|\d[\w.]*|\S")
BANG_SUFFIXES = (".rb", ".ex", ".exs", ".rake", ".gemspec")


def _tokens(path: str, text: str) -> list[str]:
    return (TOKEN_RB if path.endswith(BANG_SUFFIXES) else TOKEN).findall(text)
IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*[?!]?$")
HUNK_GAP = 1  # consecutive changed lines are one suggestion, as the targets of a real commit are
MAX_FILE_BYTES = 1_000_000
MAX_SUGGESTIONS = 50
PROSE_SUFFIXES = (".md", ".rst", ".txt", ".adoc")
_COMPOUND = re.compile(r"_|\d|[a-z][A-Z]|[A-Z]{2,}[a-z]")


# a statement's keyword is no type: `raise ValueError(`, `return build(` use the name, define nothing
_STMT = r"(?!(?:return|raise|throw|new|await|yield|else|case|assert|del|not|and|or|in|is|print|puts|echo|delete|typeof|sizeof|goto|import|from|use|require|include|if|elif|while|for|with|try|catch|except|when|then|do|go|defer)\b)"
_DEFINES = (r"(?:\b(?:def|defp|defmacro|defmodule|fn|func|fun|function|class|struct|enum|trait|interface|type|"
            r"let|var|val|const|mod|module)\s+(?:\([^)]*\)\s*)?(?:self\.|\w+[.:])?{0}\b)|(?:^[^\S\n]*" + _STMT + r"[\w<>\[\],.?]+\s+{0}\s*[(=;])")


# words a language reserves (keywords, literals, primitive types): replacing one by another is
# changing what the code says, not renaming a thing of the program
RESERVED = frozenset("""auto bool char class const double enum false float int long nil none null self short signed
static struct super this true typename undefined unsigned var void None True False""".split())


def clearly_identifier(name: str) -> bool:
    """A name no prose would use as a plain word: snake_case, camelCase, digits, ACRONYMWord."""
    return bool(_COMPOUND.search(name.strip("_$"))) or name.startswith(("_", "$"))


@dataclass
class Suggestion:
    path: str
    start_line: int  # 1-based, inclusive, in the current file
    end_line: int
    replacement: str  # the full new text of those lines
    reason: str
    confidence: float
    kind: str = field(default="", repr=False)  # which propagator made it
    features: dict = field(default_factory=dict, repr=False)  # what its confidence was computed from

    def to_dict(self) -> dict:
        d = asdict(self)
        del d["kind"], d["features"]
        return d


@dataclass
class Hunk:
    path: str
    new_start: int
    removed: list[str]
    added: list[str]
    new_lines: tuple[int, int]  # the lines of the current file the hunk wrote (1-based, inclusive)
    old: list[str] = field(default_factory=list)  # the hunk's text before (context and removed lines)
    new: list[str] = field(default_factory=list)  # and after (context and added lines)

    @property
    def old_text(self) -> str:
        return "\n".join(self.old)

    @property
    def new_text(self) -> str:
        return "\n".join(self.new)


def parse_patch(patch: str) -> list[Hunk]:
    """The hunks of a unified diff (``--- a/x`` / ``+++ b/x`` / ``@@ -a,b +c,d @@``)."""
    hunks: list[Hunk] = []
    path = None
    cur: Hunk | None = None
    line_no = 0
    header = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
    for raw in patch.splitlines():
        if raw.startswith("+++ "):
            target = raw[4:].split("\t")[0].strip()
            path = None if target == "/dev/null" else re.sub(r"^[ab]/", "", target)
            cur = None
            continue
        if raw.startswith("--- "):
            cur = None
            continue
        m = header.match(raw)
        if m:
            if path is None:
                raise InputRefused("the patch has a hunk before any '+++ FILE' line")
            line_no = int(m.group(1))
            cur = Hunk(path, line_no, [], [], (line_no, line_no - 1))
            hunks.append(cur)
            continue
        if cur is None:
            continue
        if raw.startswith("-"):
            cur.removed.append(raw[1:])
            cur.old.append(raw[1:])
        elif raw.startswith("+"):
            cur.added.append(raw[1:])
            cur.new.append(raw[1:])
            first = cur.new_lines[0] if cur.new_lines[1] >= cur.new_lines[0] else line_no
            cur.new_lines = (first, line_no)
            line_no += 1
        elif raw.startswith("\\"):
            continue  # "\ No newline at end of file"
        else:
            cur.old.append(raw[1:])
            cur.new.append(raw[1:])
            line_no += 1
    if not hunks:
        raise InputRefused("no hunk in the patch: give the unified diff of the edit just made")
    return hunks


def renames(hunks: list[Hunk]) -> dict[str, str]:
    """{old: new} when every token the edit changed is one identifier replaced by another,
    consistently; {} when the edit did anything else."""
    found: dict[str, str] = {}
    for h in hunks:
        if not h.removed or not h.added:
            return {}
        a = _tokens(h.path, "\n".join(h.removed))
        b = _tokens(h.path, "\n".join(h.added))
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            if tag != "replace" or i2 - i1 != j2 - j1:
                return {}
            for old, new in zip(a[i1:i2], b[j1:j2], strict=True):
                if not (IDENT.match(old) and IDENT.match(new)) or found.get(old, new) != new:
                    return {}
                found[old] = new
    if len(set(found.values())) != len(found):
        return {}  # two names merged into one: not a rename
    return found


def renames_within(hunks: list[Hunk]) -> dict[str, str]:
    """{old: new} for the identifiers an edit renamed while it also changed other things
    (``private final int indent`` -> ``private static final int INDENT``): one identifier put
    in another's place, where the old name is gone from the edit's new text and the new one
    was not in its old text. {} when none, or when the pairs disagree."""
    found: dict[str, str] = {}
    olds: set[str] = set()
    news: set[str] = set()
    for h in hunks:
        a = _tokens(h.path, "\n".join(h.removed))
        b = _tokens(h.path, "\n".join(h.added))
        olds.update(a)
        news.update(b)
        if not a or not b:
            continue
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag != "replace" or i2 - i1 != j2 - j1:
                continue
            for old, new in zip(a[i1:i2], b[j1:j2], strict=True):
                if not (IDENT.match(old) and IDENT.match(new)) or old in RESERVED or new in RESERVED:
                    continue
                if found.get(old, new) != new:
                    return {}
                found[old] = new
    found = {o: n for o, n in found.items() if o not in news and n not in olds}
    if len(set(found.values())) != len(found) or len(found) > 2:
        return {}
    return found


@functools.lru_cache(maxsize=8)
def _syntax_tree(path: str, data: bytes):
    """The tree-sitter tree of a file, or None where no grammar reads it (or parsing fails).
    Kept for the last few files: the edited file is read for its scopes, its uses and what the
    edit wrote, once each (trees are only read here, never edited)."""
    from ctxmill.grammars import language_for, parse_contained

    lang = language_for(path)
    if lang is None:
        return None
    try:  # (a grammar that crashes on this file does so in a child: GrammarCrashed, no tree)
        return parse_contained(lang, data)
    except Exception:
        return None


def _code_mask(path: str, data: bytes):
    """A function (row, column) -> True when that place is code (not a string or comment), or
    None where no grammar reads this file."""
    tree = _syntax_tree(path, data)
    return None if tree is None else _mask_of(tree)


def _mask_of(tree):
    """_code_mask over a tree already parsed."""
    root = tree.root_node

    def is_code(row: int, col_bytes: int) -> bool:
        node = root.descendant_for_point_range((row, col_bytes), (row, col_bytes))
        while node is not None:
            t = node.type
            if "comment" in t or "string" in t or t in ("char_literal", "heredoc_body", "raw_string_literal"):
                return False
            node = node.parent
        return True

    return is_code


SKIP_DIRS = {"node_modules", "__pycache__", "target", "vendor", "venv", "site-packages"}
MAX_FILES = 20_000


def _files(root: Path) -> list[str]:
    """The tree's files, relative paths: what git tracks (and untracked, not ignored) in a
    checkout, else a walk that skips hidden and dependency folders. Not the index's walk: its
    ignore machinery costs more to import than a whole suggestion takes here."""
    out: list[str] = []
    if (root / ".git").exists():
        import subprocess  # only here: its import is a few ms of a command that answers in tens

        try:
            r = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "-co", "--exclude-standard"],
                               capture_output=True, timeout=30)
            if r.returncode == 0:
                out = [p for p in r.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
        except (OSError, subprocess.SubprocessError):
            out = []
    if not out:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS)
            rel = os.path.relpath(dirpath, root)
            for f in sorted(filenames):
                out.append(f if rel == "." else f"{rel}/{f}".replace(os.sep, "/"))
            if len(out) > MAX_FILES:
                break
    # patches lying in the folder (the edit's own diff among them) are not code to edit
    return [p for p in out[:MAX_FILES] if not p.endswith((".diff", ".patch", ".rej", ".orig"))]


# A confident silence beats a wrong suggestion. The best suggestion is shown from THRESHOLD up,
# every further one from THRESHOLD_MORE up: calibrated on half a of the dev repositories
# (`benchmarks/next_edit.py --half a`), where this pair beat the single 0.3 of before on
# precision@1, wrong suggestions and suggestions per negative case alike (half b is the check)
THRESHOLD = 0.25
THRESHOLD_MORE = 0.4
RENAME_USES_SHOWN = 3  # where the edit renamed no definition (see _ranked)
IMPORTS_SHOWN = 2  # import lines for one edit (see _ranked)
HELD_REPEATED = 0.2  # a repeated edit held below the threshold: another token in a hole, a caller lacking a value (see candidates)
RESIGNED_REPEATED = 0.2  # the repeated edit's confidence after an edit that re-signed a function
RESIGNED_RENAME = 0.41  # a use renamed after a re-signing edit: after the calls, above THRESHOLD_MORE
RESIGNED_COMMON = 20  # ... held when the old name has this many uses (see candidates)
SHAPE_SAME = 0.45  # lines of the edit's shape with the same names: shown (see _shape_confidence)
SHAPE_ONE = 0.3  # with one name or literal of their own: the top only when nothing else is
SHAPE_SITES = 3  # past this many sites of one shape, none is shown


def _read(root: Path) -> dict[str, str]:
    """path -> text of every text file under root (the patch files excepted)."""
    out = {}
    for rel in _files(root):
        try:
            if (root / rel).stat().st_size > MAX_FILE_BYTES:
                continue
            data = (root / rel).read_bytes()
        except OSError:
            continue
        if b"\x00" not in data[:8192]:
            out[rel] = data.decode("utf-8", "replace")
    return out


# Confidence is a logistic model per propagator over the features each one reports; the weights
# are fitted by `benchmarks/next_edit.py --fit --half a` on half of the dev repositories (the
# other half is the check), so they say how often such a suggestion was right there.
MODELS: dict[str, dict[str, float]] = {
    # too few dev cases to fit these two (28 and 13 on half a): set by hand near their hit rates
    # (a definition proposed because a call changed: right 2 times in 8 as the top suggestion,
    # over both halves, so 0.3: shown when nothing else is, never after another)
    "signature": {"bias": 0.0, "sites_log": -0.15, "no_args": 0.5, "unbound": -2.0, "definition": -0.85},
    "import": {"bias": -0.3, "from_other_file": 0.9, "merged": 0.2, "sorted": 0.3, "stdlib": -0.2},
    "repeated": {"bias": -0.63, "both_sides": -1.14, "evidence": 0.143, "evidence_sum": -0.094, "holes": -0.757,
                 "insertion": -2.454, "left": 0.675, "lines": 0.353, "right": 0.56, "rule_weight": -0.429,
                 "rules_share": 2.053, "same_file": -1.449, "sites_log": -0.609},
    # (no "repeated_promote": the promotion of a rule's most-alike site, see promoted, is not shipped)
}
# the order of a case's repeated sites (resemblance_order): the "repeated" weights and, fitted on
# top of them over the training cases, how each site stands against the example
# (benchmarks/next_edit_repeated_fit.py --variant site --offset --permute; the bias orders nothing)
MODELS["repeated_order"] = {**MODELS["repeated"], "bias": 1.6916, "context_share": -0.5986, "done_log": -0.0614,
                            "done_share": -0.0748, "ex_dist_log": -0.2939, "holes_id": -0.2505, "holes_lit": 0.4785,
                            "same_scope": -0.2045, "site_done": -0.5018}


def confidence(kind: str, feats: dict) -> float:
    if kind == "rename":
        return _rename_confidence(feats)
    if kind == "shape":
        return _shape_confidence(feats)
    m = MODELS.get(kind, {})
    z = m.get("bias", 0.0) + sum(w * feats.get(k, 0.0) for k, w in m.items() if k != "bias")
    return round(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))), 3)


def candidates(root: str | os.PathLike, patch: str, *, overlay: dict[str, str] | None = None,
               files: dict[str, str] | None = None,
               learn_inputs: bool = True) -> tuple[list[Suggestion], list[Hunk]]:
    """Every suggestion of every propagator, confidence and features attached, not yet ranked.

    ``overlay`` holds texts newer than the disk (an editor's unsaved buffers, by relative path);
    ``files`` replaces the walk of the root altogether (a server that keeps the tree read);
    ``learn_inputs``: with the edit's own features and the hand rules' places (edit_features,
    _hold_features), which only a model fitted with them reads (the training dumps keep them;
    suggest asks for them only when its model reads them)."""
    from ctxmill.apply.next_import import suggest_import
    from ctxmill.apply.next_repeated import suggest_repeated
    from ctxmill.apply.next_shape import suggest_shape
    from ctxmill.apply.next_signature import redefined, suggest_signature

    root = Path(root)
    if not root.is_dir():
        raise InputRefused(f"{root}: not a folder")
    hunks = parse_patch(patch)
    edited = {(h.path, n) for h in hunks for n in range(h.new_lines[0], h.new_lines[1] + 1)}
    files = dict(_read(root) if files is None else files)
    files.update(overlay or {})
    # the definitions the edit rewrote: read once, asked by the rename and signature steps and below
    redone = redefined(hunks)
    found = _renamed(files, hunks, edited, redone.changes)
    # (how each repeated site stands against the example: read by the order, resemblance_order;
    # how much it resembles the example's place, the sim_* features: only by the training dumps
    # and the promotion, not shipped)
    promote = MODELS.get("repeated_promote")
    resemble = learn_inputs or bool(MODELS.get("repeated_order")) or bool(promote)
    for path, first, last, text, feats, n in suggest_repeated(files, hunks, edited, resemble=resemble,
                                                              similar=learn_inputs or bool(promote)):
        found.append(Suggestion(path, first, last, text, "the same edit as the one just made"
                                + (f" ({n} changes)" if n > 1 else ""), 0.0, "repeated", feats))
    for path, first, last, text, feats, reason in suggest_signature(files, hunks, edited, redone):
        found.append(Suggestion(path, first, last, text, reason, 0.0, "signature", feats))
    for path, first, last, text, feats, reason in suggest_import(files, hunks, edited):
        found.append(Suggestion(path, first, last, text, reason, 0.0, "import", feats))
    if not renames(hunks):  # (a rename's other uses are the rename propagator's, scope-aware)
        for path, first, last, text, feats in suggest_shape(files, hunks, edited):
            found.append(Suggestion(path, first, last, text, "the same lines, rewritten as the edit rewrote them",
                                    0.0, "shape", feats))
    # an edit that re-signed a function (its parameter names changed) is that function's own:
    # definitions elsewhere that read alike are other functions, and its calls are the signature
    # propagator's. The same edit proposed by look-alike was right 1 time in 20 after such edits
    # on the dev cases (both halves), so it waits below the threshold
    resigned = bool(redone.changes)
    # a call the signature propagator rewrote but found no value for (the caller holds no such
    # name) is the same call when the repeated propagator copies the edited call's argument there
    unbound_calls = {(s.path, s.start_line, s.end_line, s.replacement) for s in found
                     if s.kind == "signature" and s.features.get("unbound")}
    for s in found:
        if s.kind in ("repeated", "shape") and (s.path, s.start_line, s.end_line, s.replacement) in unbound_calls:
            s.features["unbound"] = 1.0
        s.confidence = confidence(s.kind, s.features)
        if s.kind == "repeated" and s.features.get("other_holes"):
            # the site fills a hole with another token than the example had (`FALSE singleton`
            # for the rule `FALSE TRUE` -> `TRUE singleton` gave `singleton singleton`): such
            # generalised sites were right 0 times in 4 shown on half a of the dev cases (none on
            # half b), while the literal ones beside them were the commit's
            s.confidence = min(s.confidence, HELD_REPEATED)
        if s.kind in ("repeated", "shape") and s.features.get("unbound"):
            s.confidence = min(s.confidence, HELD_REPEATED)
        if resigned and s.kind == "rename":
            s.features["resigned"] = 1.0  # (read by _ranked: a parameter renamed with its signature)
            if not s.features.get("defines"):
                # a use renamed after an edit that re-signed a function: its parameter's old name
                # elsewhere was the commit's change 4 times in 17 over both halves of the dev
                # cases, the calls the signature propagator rewrote more often, so the uses come
                # after them (still shown); where the old name has RESIGNED_COMMON uses or more in
                # the tree (`application`, `socket`), they are other bindings: 0 right in 6 shown
                s.confidence = min(s.confidence, RESIGNED_RENAME)
                if s.features.get("sites_log", 0.0) >= math.log1p(RESIGNED_COMMON):
                    s.confidence = min(s.confidence, 0.2)
        if resigned and s.kind in ("repeated", "shape"):
            s.features["resigned"] = 1.0
            s.confidence = min(s.confidence, RESIGNED_REPEATED)
        if promote and s.kind == "repeated" and s.features.get("sim_rank") == 0.0 and not s.features.get("name_swap"):
            s.confidence = max(s.confidence, promoted(promote, s.features))
    found = [s for s in found if _trimmed(s, files.get(s.path))]
    found = _plausible(found, files, hunks)
    _context_features(found, hunks, learn_inputs)
    # after the features: the learned gate reads each site's hand-set confidence and rank as the
    # propagator gave them, so the order moves only the ranking, never a probability or the
    # candidate the gate's fill shows (ordered before them, it lost a dev case through the fill)
    resemblance_order([s for s in found if s.kind == "repeated"])
    return found, hunks


def promoted(weights: dict[str, float], feats: dict) -> float:
    """The confidence of a repeated site under ``weights`` (logistic, over the propagator's
    features and next_repeated.resemblance's), held by the same caps as candidates() holds the
    shipped one (another token in a hole, a caller without a value, a re-signed function).
    candidates() gives it only to the site of a rule most like the example's place (``sim_rank``
    0), and only where it is above the shipped confidence: a rule that matches at many sites
    (18 to 800 in the training cases) keeps the others where they were. A rule that only puts
    one name in another's place (next_repeated.name_swap) is a rename, whose uses the rename
    propagator finds scope by scope: its sites keep theirs (a parameter renamed in one function
    is another function's own parameter elsewhere).

    Not shipped (no MODELS["repeated_promote"], so candidates() computes no resemblance and
    promotes nothing): with weights fitted on the training cases (benchmarks/next_edit_repeated_fit.py
    --promote --keep-gate) it raised the training cases' precision@1 out of fold (0.4251 -> 0.4297)
    but lowered it on the dev cases (0.4621 -> 0.4550, repeated 0.552 -> 0.534; docs/apply.md)."""
    z = weights.get("bias", 0.0) + sum(w * feats.get(k, 0.0) for k, w in weights.items() if k != "bias")
    c = round(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))), 3)
    if feats.get("other_holes") or feats.get("unbound"):
        c = min(c, HELD_REPEATED)
    if feats.get("resigned"):
        c = min(c, RESIGNED_REPEATED)
    return c


def resemblance_order(sites: list[Suggestion], weights: dict[str, float] | None = None) -> None:
    """The repeated edit's confidences handed out again in the order of resemblance: the
    suggestions (``sites``, each with its confidence already set from MODELS["repeated"]) keep the
    same confidences as a set, so as many are shown as before, but the highest go to the sites
    most like the example's place (``weights``, else ``MODELS["repeated_order"]``: linear weights
    over the repeated features and next_repeated.resemblance's). Held sites (another token in a
    hole, a caller without a value, a re-signed function) keep theirs.

    The top confidence stays with the sites that hold it unless each site the order would put
    there matched with strictly better evidence (_better_evidence). candidates() runs this after
    the features the learned gate reads, so it moves the ranking only, never a probability or the
    candidate the gate's fill shows (docs/apply.md, round of 2026-12-06 morning: ordered before
    them, it lost a dev case through the fill)."""
    w = weights if weights is not None else MODELS.get("repeated_order")
    free = [s for s in sites if not (s.features.get("other_holes") or s.features.get("unbound")
                                     or s.features.get("resigned"))]
    if not w or len(free) < 2:
        return
    score = lambda s: w.get("bias", 0.0) + sum(v * s.features.get(k, 0.0) for k, v in w.items() if k != "bias")  # noqa: E731
    ordered = sorted(free, key=score, reverse=True)  # (stable: the propagator's order among equals)
    # the sites at the top confidence keep it unless each site the order would give it instead
    # matched with strictly better evidence than every one of them: on the training cases the
    # order handed the top on to a site whose context agreed less (a test's line below the one
    # the commit changed, the same line in another file) in 7 of the 8 right tops it lost, and
    # to one whose context agreed more in 16 of the 28 it won
    best = max(s.confidence for s in free)
    held = [s for s in free if s.confidence == best]
    ids = {id(s) for s in held}
    if not all(_better_evidence(a, b) for a in ordered[:len(held)] if id(a) not in ids for b in held):
        free = [s for s in free if id(s) not in ids]
        ordered = [s for s in ordered if id(s) not in ids]
    levels = sorted((s.confidence for s in free), reverse=True)
    for s, conf in zip(ordered, levels, strict=True):
        s.confidence = conf


def _better_evidence(a: Suggestion, b: Suggestion) -> bool:
    """Whether repeated site ``a`` matched its rule with strictly better evidence than ``b``: no
    less context agreeing (next_repeated's ``evidence``, and its share of the rule's context,
    ``context_share``) and more of one of them."""
    fa, fb = a.features, b.features
    ea, eb = (fa.get("evidence", 0.0), fa.get("context_share", 0.0)), (fb.get("evidence", 0.0), fb.get("context_share", 0.0))
    return ea != eb and all(x >= y for x, y in zip(ea, eb, strict=True))


def _context_features(found: list[Suggestion], hunks: list[Hunk], learn_inputs: bool = True) -> None:
    """What any suggestion has beside its propagator's own features, for the learned confidence
    (apply/next_model.py): its hand-set confidence, where it sits against the edit, its rank among
    its propagator's suggestions and how many each propagator made."""
    nearest = {h.path: _changed_at(h) for h in hunks}
    _place_features(found, nearest)
    if learn_inputs:
        edit = edit_features(hunks)
        for s in found:
            s.features.update(edit)
    _cross_features(found)
    if learn_inputs:
        _hold_features(found, nearest)


def _place_features(found: list[Suggestion], nearest: dict[str, int]) -> None:
    """_context_features' per-suggestion part: its hand-set confidence, where it sits against the
    edit (``nearest``: the edit's first changed line per file), its rank among its propagator's
    suggestions (benchmarks/next_edit_repeated_fit.py recomputes them after changing confidences)."""
    by_kind: dict[str, list[Suggestion]] = {}
    for s in found:
        by_kind.setdefault(s.kind, []).append(s)
    shown = {s.kind for s in found if s.confidence >= THRESHOLD}
    for kind, group in by_kind.items():
        group.sort(key=lambda s: -s.confidence)  # stable: the propagator's own order among equals
        for rank, s in enumerate(group):
            f = s.features
            f["hand"] = s.confidence
            f["ctx_same_file"] = float(s.path in nearest)
            line = nearest.get(s.path)
            f["ctx_below"] = float(line is not None and s.start_line >= line)
            f["ctx_dist_log"] = math.log1p(abs(s.start_line - line)) if line is not None else 0.0
            f["ctx_rank"] = float(min(rank, 5))
            f["ctx_kind_log"] = math.log1p(len(group))
            f["ctx_all_log"] = math.log1p(len(found))
            f["ctx_other_kinds"] = float(len(shown - {kind}))
            f["ctx_lines_log"] = math.log1p(max(0, s.end_line - s.start_line + 1))
            f["ctx_insertion"] = float(s.end_line < s.start_line)


def edit_features(hunks: list[Hunk]) -> dict[str, float]:
    """What the edit itself was, the same for all its candidates (read by the learned model and
    its case-level abstain, next_model.case_features): how many lines it added and removed, how
    many tokens it changed and how many of those were names, whether it only inserted or only
    deleted, whether it reads as a rename. A large rewrite or a pure insertion of new code
    rarely has a next edit that can be computed; a one-token rename nearly always has."""
    added = sum(len(h.added) for h in hunks)
    removed = sum(len(h.removed) for h in hunks)
    changed = idents = 0
    for h in hunks:
        a = _tokens(h.path, "\n".join(h.removed))
        b = _tokens(h.path, "\n".join(h.added))
        if len(a) + len(b) > 4000:  # (a huge hunk: counted, not diffed)
            changed += len(a) + len(b)
            continue
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag != "equal":
                changed += (i2 - i1) + (j2 - j1)
                idents += sum(1 for t in a[i1:i2] + b[j1:j2] if IDENT.match(t))
    return {"ctx_edit_added_log": math.log1p(added), "ctx_edit_removed_log": math.log1p(removed),
            "ctx_edit_tokens_log": math.log1p(changed), "ctx_edit_ident_share": idents / changed if changed else 0.0,
            "ctx_edit_insert": float(not removed), "ctx_edit_delete": float(not added),
            "ctx_edit_rename": float(bool(renames(hunks))), "ctx_edit_hunks_log": math.log1p(len(hunks))}


def _hold_features(found: list[Suggestion], nearest: dict[str, int]) -> None:
    """The quantities the hand rules cut on (_order: the first RENAME_USES_SHOWN uses of a
    pointed-at name, one use in the edited function, one where the new name exists already, the
    first IMPORTS_SHOWN import lines), kept as numbers for the learned model instead of cuts:
    each candidate's place (0, 1, 2, ...) among its kind of candidate in the hand-set order, and
    the hand-set confidence before the caps of ``candidates`` (confidence() of its features)."""
    order = sorted(found, key=lambda s: (-s.features.get("hand", s.confidence), s.path not in nearest,
                                         s.start_line < nearest.get(s.path, 0),
                                         abs(s.start_line - nearest.get(s.path, 0)), s.path, s.start_line))
    seen = {"use": 0, "fn": 0, "exists": 0, "import": 0}
    for s in order:
        f = s.features
        use = s.kind == "rename" and not f.get("defines")
        groups = (("use", use), ("fn", use and bool(f.get("edit_function"))),
                  ("exists", use and bool(f.get("new_exists")) and bool(f.get("compound")) and not f.get("resigned")),
                  ("import", s.kind == "import"))
        for name, member in groups:
            f["hold_" + name + "_rank"] = float(min(seen[name], 5)) if member else 0.0
            if member:
                seen[name] += 1
        f["hold_raw"] = confidence(s.kind, f)


def _cross_features(found: list[Suggestion]) -> None:
    """What a suggestion's standing among all the edit's candidates says (read by the learned
    model): how many other propagators proposed a change on its lines (two ways of reading the
    edit that agree on a place), how far its hand-set confidence is below the best candidate's and
    its own propagator's best, and over how many files its propagator spread. Under the shipped
    gate's settings, a refit with them cut the training cases' wrong rate 0.443 -> 0.437 (out of
    fold over their repositories, precision@1 0.404 -> 0.405), short of the rule a refit must
    meet, so the shipped model has no weight for them yet (docs/apply.md, round of 2026-12-04
    evening); benchmarks/next_edit_train_fit.py recomputes them over cached candidates through
    this same function."""
    if not found:
        return
    top = max(s.features["hand"] for s in found)
    best: dict[str, float] = {}
    files: dict[str, set[str]] = {}
    spans: dict[str, list[tuple[int, int, str]]] = {}
    for s in found:
        best[s.kind] = max(best.get(s.kind, 0.0), s.features["hand"])
        files.setdefault(s.kind, set()).add(s.path)
        spans.setdefault(s.path, []).append((s.start_line, max(s.start_line, s.end_line), s.kind))
    for s in found:
        f = s.features
        a, b = s.start_line, max(s.start_line, s.end_line)
        f["ctx_agree"] = float(len({k for x, y, k in spans[s.path] if k != s.kind and x <= b and a <= y}))
        f["ctx_gap_all"] = f["hand"] - top
        f["ctx_gap_kind"] = f["hand"] - best[s.kind]
        f["ctx_top_hand"] = float(f["hand"] >= top)
        f["ctx_files_log"] = math.log1p(len(files[s.kind]))


def _trimmed(s: Suggestion, text: str | None) -> bool:
    """Narrow ``s`` to the lines it changes: lines it rewrites as they were are dropped from
    either end, so a line inserted before `_marker: _,` is an insertion (``end_line =
    start_line - 1``), not a rewrite of that line: an editor shows the change itself, and a
    diff of the result puts it in the same place. False when nothing is left to change."""
    if text is None:
        return True
    old = text.split("\n")[s.start_line - 1:s.end_line]
    new = s.replacement.split("\n") if s.replacement else []
    nl = s.replacement.endswith("\n")
    if nl:
        new = new[:-1]
    start, end = s.start_line, s.end_line
    while old and new and old[0].rstrip() == new[0].rstrip():
        old, new, start = old[1:], new[1:], start + 1
    while old and new and old[-1].rstrip() == new[-1].rstrip():
        old, new, end = old[:-1], new[:-1], end - 1
    if not old and not new:
        return False
    if (start, end) != (s.start_line, s.end_line):
        # a line kept below the change ends in a newline even where the file's last one did not
        s.replacement = "\n".join(new) + ("\n" if new and (nl or end < s.end_line) else "")
        s.start_line, s.end_line = start, end
    return True


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`[^`]*`')


def _balance(text: str) -> tuple[int, int, int]:
    """How many (, [ and { the text leaves open (negative: closes), string literals blanked."""
    text = _STRING.sub('""', text)
    return text.count("(") - text.count(")"), text.count("[") - text.count("]"), text.count("{") - text.count("}")


def _plausible(found: list[Suggestion], files: dict[str, str], hunks: list[Hunk]) -> list[Suggestion]:
    """Drop a suggestion whose result the case itself shows to be no edit anyone makes:
    - an insertion whose lines stand already directly above or below it (blank lines between
      skipped): the site reads as the result already. A repeated match that rewrites a token
      beside the edit (`  | ZodFunctionDef` -> `  | ZodSetDef\n  | ZodFunctionDef`) passes
      next_repeated's "lines already there" check, which reads pure insertions only, and _trimmed
      then narrows it to an insertion of the line the edit just wrote, under itself: 51 wrong
      suggestions shown on the training cases, none right (round31_next_edit_rule.md);
    - a line of only spaces or tabs where neither the site nor the edit's added lines have one
      (a re-indented copy's leftover indentation);
    - a change of its lines' bracket balance that no hunk of the edit made to its own (a closing
      bracket lost or doubled by a copy: `request.stream))`)."""
    moves = {tuple(a - b for a, b in zip(_balance("\n".join(h.added)), _balance("\n".join(h.removed)), strict=True))
             for h in hunks}
    blank_added = any(x.strip() == "" and x for h in hunks for x in h.added)
    raw_of: dict[str, list[str]] = {}
    lines_of: dict[str, list[str]] = {}
    kept = []
    for s in found:
        text = files.get(s.path)
        if text is None:
            kept.append(s)
            continue
        if s.path not in lines_of:
            raw_of[s.path] = text.split("\n")
            lines_of[s.path] = [x.rstrip() for x in raw_of[s.path]]
        lines = lines_of[s.path]
        new = (s.replacement[:-1] if s.replacement.endswith("\n") else s.replacement).split("\n")
        old = lines[s.start_line - 1:s.end_line] if s.end_line >= s.start_line else []
        if s.end_line < s.start_line:
            block = [x.rstrip() for x in new]
            while block and not block[-1].strip():
                block.pop()
            while block and not block[0].strip():
                block.pop(0)
            up = s.start_line - 1
            while up > 0 and not lines[up - 1].strip():
                up -= 1
            down = s.start_line - 1
            while down < len(lines) and not lines[down].strip():
                down += 1
            if block and (lines[max(0, up - len(block)):up] == block or lines[down:down + len(block)] == block):
                continue
        raw_old = raw_of[s.path][s.start_line - 1:s.end_line] if s.end_line >= s.start_line else []
        if not blank_added and any(x and not x.strip() for x in new) and not any(x and not x.strip() for x in raw_old):
            continue
        move = tuple(a - b for a, b in zip(_balance("\n".join(new)), _balance("\n".join(old)), strict=True))
        if move != (0, 0, 0) and move not in moves:
            continue
        kept.append(s)
    return kept


def suggest(root: str | os.PathLike, patch: str, *, limit: int = MAX_SUGGESTIONS,
            threshold: float = THRESHOLD, overlay: dict[str, str] | None = None,
            files: dict[str, str] | None = None, learned: bool = True) -> list[Suggestion]:
    """Suggestions best first for the edit ``patch`` under ``root`` (files as they are now).

    ``learned``: the learned model (apply/next_model.py, fitted on training cases from 33 other
    repositories) also decides: a ranked suggestion it finds unlikely is dropped (the import
    propagator's stay as the hand rules rank them), and where nothing is left, its most likely
    candidate is shown if likely enough (the model's "mode" ``fill``; ``promote`` instead raises
    every likely candidate to its probability; ``rank`` orders and thresholds by the probability
    itself; ``learn``, built in the round of 2026-12-04 night and not shipped (it fell on dev), as
    ``rank`` with no hand rule's cut past the ranking and a case-level abstain, see _learned). On
    by default (docs/apply.md); ``learned=False`` is the hand-set ranking alone."""
    model = None
    if learned:
        from ctxmill.apply.next_model import load, reads_learn_inputs

        model = load()
    found, hunks = candidates(root, patch, overlay=overlay, files=files,
                              learn_inputs=model is not None and reads_learn_inputs(model))
    if model is None:
        return _ranked(found, hunks, threshold)[:limit]
    nearest = {h.path: _changed_at(h) for h in hunks}
    return _learned(found, nearest, threshold, model, model["mode"], model["level"], model["gate_top"],
                    model["gate_more"])[:limit]


def _learned(found: list[Suggestion], nearest: dict[str, int], threshold: float, model: dict,
             mode: str, level: float, top: float, more: float) -> list[Suggestion]:
    """The ranking with the learned model (see suggest), ``nearest`` the edit's first changed line
    per file (benchmarks/next_edit_train_fit.py replays cached candidates through this)."""
    from ctxmill.apply.next_model import probability

    keep = model.get("keep") or ()
    for s in found:
        if "p" not in s.features:
            s.features["p"] = probability(model, s.kind, s.features)
        if mode == "promote" and s.features["p"] >= level and s.features["p"] > s.confidence:
            s.confidence = s.features["p"]
        elif mode in ("rank", "learn") and s.kind not in keep:
            s.confidence = s.features["p"]
    if mode == "learn":
        # the probability is the confidence and nothing is cut by a hand rule (_hold_features
        # gives the model what those cut on): the two gates are the thresholds of the top
        # suggestion and of every further one; then the case as a whole may abstain, where the
        # case model (next_model.case_probability) finds its top suggestion unlikely
        ranked = _order(found, nearest, top, more, drops=False)
        if ranked and model.get("case_weights") is not None:
            from ctxmill.apply.next_model import case_probability

            if case_probability(model, ranked, found) < model.get("gate_case", 0.0):
                return []
        return ranked
    if mode == "rank":
        # the probability is the confidence (the propagators under "keep" excepted: the hand
        # rules rank theirs), and the two gates are the thresholds of the top suggestion and of
        # every further one: a right candidate the hand rules held below a wrong one comes first
        return _order(found, nearest, top, more)
    ranked = _gated(_order(found, nearest, threshold, THRESHOLD_MORE), model, top, more)
    if mode == "fill" and not ranked and found:
        best = max(found, key=lambda s: s.features["p"])  # the first of equals: the propagators' order
        if best.features["p"] >= level:
            best.confidence = best.features["p"]
            ranked = [best]
    return ranked


def _gated(ranked: list[Suggestion], model: dict, top: float, more: float) -> list[Suggestion]:
    """The ranked suggestions whose learned probability reaches ``top`` (the first one) or
    ``more`` (every further one); the order stays as it was. The propagators the model names
    under "keep" are left to the hand rules (their suggestions pass the gate as ranked); those
    under "gate_kind" have gates of their own."""
    from ctxmill.apply.next_model import probability

    keep = model.get("keep") or ()
    # a propagator may have gates of its own (model "gate_kind": {kind: [top, more]})
    own = model.get("gate_kind") or {}

    def p(s: Suggestion) -> float:
        return s.features["p"] if "p" in s.features else probability(model, s.kind, s.features)

    def gate(s: Suggestion, i: int) -> float:
        g = own.get(s.kind)
        return (g[0] if i == 0 else g[1]) if g else (top if i == 0 else more)

    return [s for i, s in enumerate(ranked) if s.kind in keep or p(s) >= gate(s, i)]


def _ranked(found: list[Suggestion], hunks: list[Hunk], threshold: float) -> list[Suggestion]:
    """Most confident first; where two suggestions touch the same lines the more confident one
    stays; the same file as the edit first, below the edit before above it, then nearness.

    A listwise model over what any suggestion has (propagator, its confidence, same file,
    distance, below the edit, how many each propagator made) was fitted on half a of the dev
    repositories in this round: +0.021 precision@1 there, but -0.017 on the held-out half b, so
    this order stays (see docs/apply.md)."""
    return _order(found, {h.path: _changed_at(h) for h in hunks}, threshold, THRESHOLD_MORE)


def _order(found: list[Suggestion], nearest: dict[str, int], threshold: float, more: float,
           drops: bool = True) -> list[Suggestion]:
    """_ranked with the edit's first changed line per file (``nearest``) and the two thresholds
    given; ``drops=False``: without the hand rules' cuts past the first few uses and imports (the
    learned mode "learn" reads those places as features instead, _hold_features)."""
    found = [s for s in found if s.confidence >= threshold]
    found.sort(key=lambda s: -s.confidence)
    # past the best one, only those sure enough to be worth a look
    found = found[:1] + [s for s in found[1:] if s.confidence >= max(threshold, more)]
    kept: list[Suggestion] = []
    taken: dict[str, list[tuple[int, int]]] = {}
    for s in found:
        spans = taken.setdefault(s.path, [])
        if any(s.start_line <= b and a <= s.end_line for a, b in spans):
            continue
        spans.append((s.start_line, s.end_line))
        kept.append(s)
    # at one confidence: the edited file first, and in it the next place below the edit before
    # those above it (Tab moves on down the file; on the dev cases this put the right one first
    # more often: P@1 0.327 -> 0.346, both halves); other files in path and line order
    kept.sort(key=lambda s: (-s.confidence, s.path not in nearest, s.start_line < nearest.get(s.path, 0),
                             abs(s.start_line - nearest.get(s.path, 0)), s.path, s.start_line))
    if not drops:
        return kept
    # an edit that points one use at another name (no definition renamed) says less about the
    # other uses than a renamed definition does (whose uses must all follow): past the first
    # RENAME_USES_SHOWN of them the commit had left the use alone 3 times in 4 on both halves
    # of the dev cases, so the rest wait for the next edit
    uses = [s for s in kept if s.kind == "rename" and not s.features.get("defines")]
    drop = {id(s) for s in uses[RENAME_USES_SHOWN:]}
    drop |= {id(s) for s in [s for s in uses if s.features.get("edit_function")][1:]}
    # where the name the edit pointed the use at is another compound name the tree has already
    # (`sleep(MILLIS_550)` -> `sleep(TWO_MILLISECOND)`, `replaceAll` -> `replaceFirst`), the edit
    # chose another existing thing for that place: past the next use, the commits had left such
    # uses alone 8 times in 8 on half a of the dev cases (a parameter renamed with its
    # signature aside: its uses in the function follow it)
    drop |= {id(s) for s in [s for s in uses if s.features.get("new_exists") and s.features.get("compound")
                             and not s.features.get("resigned")][1:]}
    # past two import lines for one edit (a pasted block using many names), the next guesses were
    # right 0 times in 7 over both halves of the dev cases: the file's imports were reorganised
    drop |= {id(s) for s in [s for s in kept if s.kind == "import"][IMPORTS_SHOWN:]}
    return [s for s in kept if id(s) not in drop]


def _function_span(path: str, text: str, line: int) -> tuple[int, int] | None:
    """(first, last) lines of the function around ``line``, or None (top level, no grammar)."""
    tree = _syntax_tree(path, text.encode("utf-8"))
    if tree is None:
        return None
    lines = text.split("\n")
    col = len(lines[line - 1]) - len(lines[line - 1].lstrip()) if 0 < line <= len(lines) else 0
    node = tree.root_node.descendant_for_point_range((line - 1, col), (line - 1, col))
    while node is not None and not (_FUNC_NODE.search(node.type) and node.type != "block"
                                    and node.end_point[0] > node.start_point[0]):
        node = node.parent
    if node is None or node.parent is None:
        return None
    return node.start_point[0] + 1, node.end_point[0] + 1


def _changed_at(h: Hunk) -> int:
    """The first line the hunk changed in the current file (its first added line, or where its
    first removed line was), not the first line of context the diff shows above it."""
    if h.added:
        return h.new_lines[0]
    lead = 0
    while lead < min(len(h.old), len(h.new)) and h.old[lead] == h.new[lead]:
        lead += 1  # the context above the deletion
    return h.new_start + lead


_FUNC_NODE = re.compile(r"function|method|func_literal|lambda|closure|constructor|^do_block$|^block$")


def _local_scope(path: str, text: str, line: int, names: list[str]) -> tuple[int, int] | None:
    """(first, last) 1-based lines of the function around ``line`` when one of ``names`` (the
    old name, or the new one where the edit renamed the binding itself) is bound there (a
    parameter, or declared or assigned inside it): a local's rename stays in its function.
    None when it is not local, or no grammar reads the file."""
    tree = _syntax_tree(path, text.encode("utf-8"))
    if tree is None:
        return None
    return _bound_in_function(tree.root_node, text.split("\n"), line, names)


def _bound_in_function(root, lines: list[str], line: int, names: list[str],
                       go: bool | None = None) -> tuple[int, int] | None:
    """_local_scope over a tree already parsed (``lines``: the file's lines). With ``go`` given
    (whether the file is Go), a name in the parameter list counts only where it stands as a
    parameter's name, not as its type or default value (`final Object lhs`, `err=STDERR`)."""
    col = len(lines[line - 1]) - len(lines[line - 1].lstrip()) if line - 1 < len(lines) else 0
    node = root.descendant_for_point_range((line - 1, col), (line - 1, col))
    while node is not None and not (_FUNC_NODE.search(node.type) and node.type != "block"
                                    and node.end_point[0] > node.start_point[0]):
        node = node.parent
    if node is None or node.parent is None:
        return None
    first, last = node.start_point[0] + 1, node.end_point[0] + 1
    body = "\n".join(lines[first - 1:last])
    # the parameters: after the first "(" of the function's first line (its own name is not local)
    head = lines[first - 1]
    head = head[head.find("(") + 1:] if "(" in head else ""
    n = "(?:" + "|".join(re.escape(x) for x in names) + ")"
    if go is None:
        param = rf"(?<![\w$.]){n}(?![\w$])"
    else:  # Go writes the name before its type (`x int`), the others after it or alone
        after = r"[,)=:]|[ ][*\[\w]" if go else r"[,)=:]"
        param = rf"(?<![\w$.=:]\s)(?<![\w$.=:]){n}\s*(?:{after})"
    bound = re.search(param, head) or re.search(
        rf"(?:\b(?:let|var|val|const|my|local)\s+(?:mut\s+)?{n}\b)|(?:^[^\S\n]*{n}\s*(?::=|=(?!=)))|"
        rf"(?:^[^\S\n]*(?:final\s+)?[\w<>\[\],.?]+\s+{n}\s*[=;])", body, re.M)
    return (first, last) if bound else None


# a doc comment's parameter tag: `@param name`, `@param {Type} name` (Javadoc, JSDoc, KDoc, YARD)
_PARAM_DOC = re.compile(r"@param\s+(?:\{[^}]*\}\s*)?\[?[\w$]+")


def _names_code(line: str, name: str) -> bool:
    """Whether ``line`` (a comment or string the edit changed) writes ``name`` as code rather
    than as a word: called or reached through a path (`.join_one()`, `Cookie::named(`), an atom
    or symbol (`:local_server`), a documented parameter (`@param th`), in backticks or
    `{@code ...}`, or the first word of a comment naming what it documents (`// Foo wraps`)."""
    n = re.escape(name)
    return bool(re.search(
        rf"(?:[.:]|::|@param\s+(?:\{{[^}}]*\}}\s*)?|`[^`]*|\{{@\w+\s+[^}}]*){n}(?![\w$])"
        rf"|(?<![\w$]){n}\s*\("
        rf"|^\s*(?://+|#+|\*+|/\*+|--|%+)\s*{n}(?![\w$])\s+[a-z]", line))


def _documented_function(path: str, text: str, comment_line: int) -> tuple[int, int] | None:
    """(first, last) lines from the doc comment around ``comment_line`` to the end of the
    function it documents (the first function node starting below it), or None."""
    tree = _syntax_tree(path, text.encode("utf-8"))
    if tree is None:
        return None
    lines = text.split("\n")
    row = comment_line  # 0-based: the line after the edit
    while row < len(lines) and (not lines[row].strip() or re.match(r"\s*(?:\*|/\*|//|#|@|--)", lines[row])):
        row += 1  # the rest of the comment and the annotations (`@Override`)
    if row >= len(lines) or row - comment_line > 40:
        return None
    col = len(lines[row]) - len(lines[row].lstrip())
    node = tree.root_node.descendant_for_point_range((row, col), (row, col))
    while node is not None and not (_FUNC_NODE.search(node.type) and node.type != "block"):
        node = node.parent
    if node is None or node.end_point[0] < row:
        return None
    first = comment_line
    while first > 1 and re.match(r"\s*(?:\*|/\*\*?|//|#)", lines[first - 2]):
        first -= 1
    return first, node.end_point[0] + 1


def _shape_confidence(f: dict) -> float:
    """Set by hand on half a of the dev cases (``next_shape``; half b the check). Lines that read
    as the edit's old lines with the same names were right 13 times in 13 there, where one shape
    had at most SHAPE_SITES sites (9 in 14 on half b); past that, a shape common in the file
    (`.end(function (err, res) {`, `tracing_subscriber::fmt::init();` in 16 examples) was
    rewritten at few of its sites (7 of 7 right on half a, 1 of 80 on half b: held). With one name
    or literal of the site's own in the example's place: 9 right in 22 on half a, 0 in 8 on b, so
    such a site is the top only when nothing else is (below THRESHOLD_MORE)."""
    if f.get("dropped"):
        # the edit drops the site's own name or literal (`get_uint::<LittleEndian>` would become
        # the example's `get_uint_be`): the new line would say the example's thing, not the site's
        return 0.2
    if f["sites"] > SHAPE_SITES:
        return 0.2
    if f["moved"] == 0:
        return SHAPE_SAME
    if f["moved"] == 1:
        return SHAPE_ONE
    return 0.2  # two names of its own: right 3 times in 19 (half a), 7 in 36 (half b)


def _rename_confidence(f: dict) -> float:
    """Set by hand (a fit on the dev cases put prose above code: commits often leave some uses
    alone, which is not what a user renaming wants): code before text, the edited file first."""
    if f.get("reserved"):
        return 0.2  # below the threshold: `auto -> int` is an edit of one place
    if f.get("def_clash"):
        # a definition of the old name while the new one is defined already: renaming it would
        # define the new name twice (the edit pointed a use at the existing one); right 4 times
        # in 39 on half a, 0 in 13 on half b
        return 0.2
    if f.get("other_binding") or f.get("collides"):
        # another binding of the old name (a parameter or local of the site's own function, the
        # edit outside it), or a rename that would assign the new name to itself: on the dev
        # cases such uses were right 2 times in 64 (half a), 1 in 78 (half b)
        return 0.2
    if f.get("sibling"):
        # a line holding only a sibling (`mLocale` after `mPattern` -> `pattern`): the commit's own
        # change 17 times in 84 on half a, 0 in 6 on half b, so it waits; a line holding the
        # renamed name and a sibling is rewritten whole (as the commits did: 2 cases on half a)
        return 0.2
    if f["code"] and not f.get("edit_code", 1.0) and not f.get("edit_names_code", 1.0):
        # the edit reworded a comment or string where the name stood as a word (`Sets the middle
        # element` -> `the left element`, `build Runtime` -> `build runtime`): the code's own
        # `middle` is another thing. On half a of the dev cases such code uses were right 0 times
        # in 15 shown (where the comment wrote the name as code, `@param th`, `.join_one()`,
        # `// WithBaseContext wraps`, 4 in 20)
        return 0.2
    conf = (0.9 if f["same_file"] else 0.75) if f["code"] else (0.5 if f["same_file"] else 0.4)
    if not f["code"] and f.get("edit_code", 1.0) and not f.get("prose"):
        # the edit renamed code, this is a comment or string: on half a of the dev cases such
        # mentions were the commit's own change 2 times in 163 (after an edit in a comment itself,
        # 19 in 84), so they are not shown (when one was the only suggestion, at 0.3 before this
        # round, it was wrong 5 times in 5 over both halves)
        return 0.2
    if not f["code"] and not f["same_file"] and not f.get("prose"):
        # a comment or string of another source file: the commit's own change 7% of the time on
        # half a of the dev cases (in the edited file 22%, a use as code 38%): under the
        # threshold (below)
        conf = 0.35
    if not f["code"] and not f["compound"]:
        conf -= 0.2  # a plain word in prose may be meant as the word
        if not f.get("any_code", 1.0):
            conf -= 0.1  # and a plain word no code uses is a rewording (We -> You), not a rename
    if not f["code"] and conf < 0.4:
        # a mention in a comment or string below 0.4 (another source file's comment, a plain word
        # in the edited file's) was shown only when nothing else was: wrong 5 times in 5 over both
        # halves of the dev cases, so it waits under the threshold
        conf = 0.2
    if f.get("within"):
        # the edit did more than rename: only a compound name it defines anew was renamed
        # (on the dev cases such uses were right 57% of the time, any other 2-11%)
        if not (f.get("defines") and f.get("compound")):
            return 0.1
        return 0.45 if f["code"] else 0.1  # after what the other propagators are sure of
    return round(conf, 2)


def _renamed(files: dict[str, str], hunks: list[Hunk], edited: set, resigned: list | None = None) -> list[Suggestion]:
    """The rename propagator (``resigned``: next_signature.changes(hunks), where the caller has it)."""
    mapping = renames(hunks)
    within = 0.0
    if not mapping:
        mapping = renames_within(hunks)
        within = 1.0
    if not mapping:
        return []
    trigger_files = {h.path for h in hunks}
    # the edit renamed a definition (not just one use): every use follows it
    added = "\n".join(line for h in hunks for line in h.added)
    # (modifiers and a return type before the name count: `public static Field[] getAllFields(`)
    defines = float(any(re.search(_SIBLING_DEFINES.format(re.escape(b)), added, re.M) for b in mapping.values()))
    alts = "|".join(re.escape(a) for a in sorted(mapping, key=len, reverse=True))
    words_any = re.compile(r"(?<![\w$])(" + alts + r")(?![\w$])")
    words_rb = re.compile(r"(?<![\w$])(" + alts + r")(?![\w$]|[?!](?!=))")  # `include` is not `include?`
    plain = not any(clearly_identifier(a) for a in mapping)
    # the edit changed a path segment only (`mio::tcp::X` -> `mio::net::X`): a bare `tcp` elsewhere
    # is another thing (a local of that name), so only uses in paths follow
    new_names = "|".join(re.escape(b) for b in mapping.values())
    shapes = [(added[max(0, m.start() - 2):m.start()] == "::" or added[m.end():m.end() + 2] == "::")
              for m in re.finditer(r"(?<![\w$])(?:" + new_names + r")(?![\w$])", added)]
    path_only = bool(shapes) and all(shapes) and not defines
    out: list[Suggestion] = []
    sibling_only: set[tuple[str, int]] = set()
    other_binding: set[tuple[str, int]] = set()
    collides: set[tuple[str, int]] = set()
    defines_old: set[tuple[str, int]] = set()
    pairs = ", ".join(f"{a} -> {b}" for a, b in mapping.items())
    # Ruby's and Elixir's `@env` (an instance variable, a module attribute) is another name than
    # the local `env`: a rename follows the names written as the edit wrote them (with or without @)
    # (read off the new names in the added lines: `@opts = opts` -> `@options = opts` renamed @opts)
    sigils: dict[str, set[bool]] = {}
    back = {b: a for a, b in mapping.items()}
    new_rb = re.compile(r"(?<![\w$])(" + "|".join(re.escape(b) for b in back) + r")(?![\w$]|[?!](?!=))")
    for h in hunks:
        if h.path.endswith(BANG_SUFFIXES):
            for line in h.added:
                for m in new_rb.finditer(line):
                    sigils.setdefault(back[m.group(1)], set()).add(line[m.start() - 1:m.start()] == "@")
    scope = None
    if len(mapping) == 1 and len(hunks) == 1 and hunks[0].path in files and sigils.get(next(iter(mapping))) != {True}:
        h = hunks[0]
        scope = _local_scope(h.path, files[h.path], max(h.new_lines[0], 1), [*mapping, *mapping.values()])
        if scope is None and _PARAM_DOC.search("\n".join(h.removed)):
            # `@param th` -> `@param throwable` documents the function below the comment: its
            # parameter is renamed there, not the namesakes of other functions
            scope = _documented_function(h.path, files[h.path], h.new_lines[1])
    # an edit that renamed a function and its parameter at once (`get_session(env, sid)` ->
    # `find_session(req, sid)`): each local name's rename stays in that function, while the
    # function's own name goes everywhere
    local_of: dict[str, tuple[int, int]] = {}
    if len(mapping) > 1 and len(hunks) == 1 and hunks[0].path in files:
        h = hunks[0]
        for a, b in mapping.items():
            if sigils.get(a) == {True}:
                continue  # `@name` is the object's, not the function's
            span = _local_scope(h.path, files[h.path], max(h.new_lines[0], 1), [a, b])
            if span is not None:
                local_of[a] = span
    # a parameter the edit renamed in a function's parameter list (its signature re-written:
    # `install(application: Application)` -> `install(pipeline: A)`) is bound by that function
    # alone: a use outside it (another function's own `application`) is another binding, and a
    # declaration without a body (an interface's, an abstract one) binds it nowhere else
    param_span: dict[str, tuple[int, int] | None] = {}
    if len(hunks) == 1 and hunks[0].path in files:
        from ctxmill.apply.next_signature import changes

        h = hunks[0]
        for ch in changes(hunks) if resigned is None else resigned:
            olds, news_ = {p.name for p in ch.old}, {p.name for p in ch.new}
            for a, b in mapping.items():
                if a in olds and b in news_ and a not in news_ and _syntax_tree(h.path, files[h.path].encode("utf-8")):
                    param_span[a] = _function_span(h.path, files[h.path], _changed_at(h))
    # names of the same family as the renamed one follow its new form (see _siblings)
    siblings = _siblings(mapping, files, hunks) if not within and scope is None else {}
    site_map = {**mapping, **siblings}
    if siblings:
        alts = "|".join(re.escape(a) for a in sorted(site_map, key=len, reverse=True))
        words_any = re.compile(r"(?<![\w$])(" + alts + r")(?![\w$])")
        words_rb = re.compile(r"(?<![\w$])(" + alts + r")(?![\w$]|[?!](?!=))")
    for rel, text in files.items():
        if scope is not None and rel != hunks[0].path:
            continue  # a local's rename does not leave its function
        prose = rel.endswith(PROSE_SUFFIXES)
        if not any(a in text for a in site_map):
            continue
        data = text.encode("utf-8")
        lines = text.split("\n")
        mask = None
        words = words_rb if rel.endswith(BANG_SUFFIXES) else words_any
        changed: list[tuple[int, str, bool]] = []  # (line, new text, a use as code)
        tree = None
        edited_here = [n for p, n in edited if p == rel]
        for i, line in enumerate(lines):
            if (rel, i + 1) in edited or not words.search(line):
                continue
            if scope is not None and not scope[0] <= i + 1 <= scope[1]:
                continue
            if mask is None:
                tree = None if prose else _syntax_tree(rel, data)
                mask = (lambda row, col: False) if prose else (_mask_of(tree) if tree else (lambda row, col: True))
            found = [(m, mask(i, len(line[:m.start()].encode("utf-8")))) for m in words.finditer(line)]
            if local_of:
                found = [(m, c) for m, c in found if m.group(1) not in local_of
                         or (rel == hunks[0].path and local_of[m.group(1)][0] <= i + 1 <= local_of[m.group(1)][1])]
            if sigils and rel.endswith(BANG_SUFFIXES):
                found = [(m, c) for m, c in found if (line[m.start() - 1:m.start()] == "@") in sigils.get(m.group(1), (False, True))]
            if path_only:
                found = [(m, c) for m, c in found if line[max(0, m.start() - 2):m.start()] == "::"
                         or line[m.end():m.end() + 2] == "::" or not c]
            code = any(c for _, c in found)
            if plain and code:
                # a plain word (`format`) beside its use as code is prose: `'undefined format'` stays
                found = [(m, c) for m, c in found if c]
            if not found:
                continue
            olds = sorted({m.group(1) for m, c in found if c})
            # a parameter or local binds the bare name, never an `@name`
            bare = sorted({m.group(1) for m, c in found if c and line[m.start() - 1:m.start()] != "@"}) \
                if rel.endswith(BANG_SUFFIXES) else olds
            if param_span and bare and all(o in param_span for o in bare):
                spans = [param_span[o] for o in bare]
                if rel != hunks[0].path or any(sp is None or not sp[0] <= i + 1 <= sp[1] for sp in spans):
                    other_binding.add((rel, i + 1))  # outside the re-signed function (see param_span)
            if bare and scope is None and tree is not None:
                # the site's function binds the old name itself (a parameter or a local) and the
                # edit is not in that function: the name there is another binding
                span = _bound_in_function(tree.root_node, lines, i + 1, bare, go=rel.endswith(".go"))
                if span and not any(span[0] <= n <= span[1] for n in edited_here):
                    other_binding.add((rel, i + 1))
            if any(re.search(_DEFINES.format(re.escape(o)), line) or re.match(rf"\s*{re.escape(o)}\s*(?::=|=(?!=))", line)
                   for o in olds):
                defines_old.add((rel, i + 1))  # the site defines the old name (`RELEASE = "3.1.0"`)
            if all(m.group(1) in siblings for m, _ in found):
                sibling_only.add((rel, i + 1))
            new, pos = [], 0
            for m, _ in found:
                name = site_map[m.group(1)]
                new.append(line[pos:m.start()] + name)
                pos = m.end()
                # columns aligned after the name (gofmt's `Version:    "v3"`) stay aligned
                pad = re.match(r"(:?)( {2,})(?=\S)", line[pos:])
                if pad:
                    width = len(pad.group(2)) - (len(name) - len(m.group(1)))
                    new.append(pad.group(1) + " " * max(1, width))
                    pos += pad.end()
            text_new = "".join(new) + line[pos:]
            if any(re.search(rf"(?<![\w$.@]){re.escape(b)}\s*=\s*{re.escape(b)}(?![\w$(.\[])", text_new)
                   for b in site_map.values()):
                # the rename would assign a name to itself (`mPattern = pattern` -> `pattern =
                # pattern`): the field and the parameter were two things; the edit meant `this.`
                collides.add((rel, i + 1))
            changed.append((i + 1, text_new, code))
        same = rel in trigger_files
        for group in _grouped(changed, apart=plain):
            first, last = group[0][0], group[-1][0]
            texts = {n: t for n, t, _ in group}
            body = [texts.get(n, lines[n - 1]) for n in range(first, last + 1)]
            keep_nl = "\n" if last < len(lines) else ""
            code = any(c for _, _, c in group)
            where = "a use" if code else "a mention in a comment, string or prose"
            feats = {"code": float(code), "same_file": float(same), "prose": float(prose),
                     "compound": float(any(clearly_identifier(a) for a in mapping)),
                     "short": float(min(len(a) for a in mapping) <= 3), "pairs": float(len(mapping) - 1),
                     "defines": defines, "lines": float(min(last - first + 1, 5)),
                     "other_binding": float(any((rel, n) in other_binding for n, _, _ in group)),
                     "sibling": float(all((rel, n) in sibling_only for n, _, _ in group)),
                     "collides": float(any((rel, n) in collides for n, _, _ in group)),
                     "defines_old": float(any((rel, n) in defines_old for n, _, _ in group))}
            out.append(Suggestion(rel, first, last, "\n".join(body) + keep_nl,
                                  f"rename {pairs}: {where}{' in the edited file' if same else ''}", 0.0,
                                  "rename", feats))
    # the new name already used elsewhere: the edit points one use at another existing thing
    # (a constant swapped for another, a type changed), not a rename of the thing itself
    exists = re.compile(r"(?<![\w$])(" + "|".join(re.escape(b) for b in mapping.values()) + r")(?![\w$])")
    new_exists = float(any(exists.search(line) for rel, text in files.items()
                           for n, line in enumerate(text.split("\n"), 1) if (rel, n) not in edited))
    # the new name defined already (outside the edit): a definition of the old name renamed to it
    # would define it twice (`defaultThrottleTimeout = ...` after a use was pointed at the
    # existing `defaultBacklogTimeout`)
    new_defined = 0.0
    if defines_old:
        new_def = re.compile("|".join([_DEFINES.format(re.escape(b)) for b in site_map.values()]
                                      + [rf"^[^\S\n]*{re.escape(b)}\s*(?::=|=(?!=))" for b in site_map.values()]), re.M)
        new_defined = float(any(new_def.search(line) for rel, text in files.items() if new_def.search(text)
                                for n, line in enumerate(text.split("\n"), 1) if (rel, n) not in edited))
    # where the edit wrote the new names: in code, or only in comments and strings (`// build
    # Runtime` -> `// build runtime` fixes a word of a comment; the type Runtime stays)
    edit_code = 0.0
    news = re.compile(r"(?<![\w$])(?:" + new_names + r")(?![\w$])")
    for h in hunks:
        text = files.get(h.path)
        if text is None:
            continue
        lines = text.split("\n")
        is_code = None
        for n in range(h.new_lines[0], h.new_lines[1] + 1):
            line = lines[n - 1] if 0 < n <= len(lines) else ""
            for m in news.finditer(line):
                if is_code is None:
                    is_code = (lambda row, col: False) if h.path.endswith(PROSE_SUFFIXES) else (
                        _code_mask(h.path, text.encode("utf-8")) or (lambda row, col: True))
                if is_code(n - 1, len(line[:m.start()].encode("utf-8"))):
                    edit_code = 1.0
    named = float(any(_names_code(line, a) for h in hunks for line in h.removed for a in mapping))
    # an edit that pointed one use at a name its function already uses (two values in scope, the
    # edit chose the other one here): the function's other uses of the old name were chosen too
    span = _function_span(hunks[0].path, files[hunks[0].path], _changed_at(hunks[0])) \
        if len(hunks) == 1 and hunks[0].path in files and out else None
    if span is not None:
        fn_lines = files[hunks[0].path].split("\n")[span[0] - 1:span[1]]
        if not any(news.search(x) for n, x in enumerate(fn_lines, span[0]) if (hunks[0].path, n) not in edited):
            span = None  # the new name is the edit's own (a parameter renamed): every use follows
    sites = len(out)
    for s in out:
        s.features["edit_code"] = edit_code
        s.features["edit_names_code"] = named
        s.features["sites_log"] = math.log1p(sites)
        s.features["new_exists"] = new_exists
        s.features["def_clash"] = s.features["defines_old"] * new_defined
        s.features["reserved"] = float(any(x in RESERVED for pair in mapping.items() for x in pair))
        s.features["any_code"] = float(any(o.features["code"] for o in out))
        s.features["within"] = within
        s.features["edit_function"] = float(span is not None and s.path == hunks[0].path and span[0] <= s.start_line <= span[1])
    return out


# a definition with any modifiers before it (`private final TimeZone mTimeZone;`)
_SIBLING_DEFINES = _DEFINES.replace(r"(?:^[^\S\n]*" + _STMT + r"[\w<>\[\],.?]+\s+{0}\s*[(=;])",
                                    r"(?:^[^\S\n]*" + _STMT + r"(?:[\w<>\[\],.?]+\s+)+{0}\s*[(=;])")


def _siblings(mapping: dict[str, str], files: dict[str, str], hunks: list[Hunk]) -> dict[str, str]:
    """{old: new} for the siblings of a name whose prefix the edit dropped, defined in the edited
    files: `UdpSocketSendHalf` -> `SendHalf` makes `UdpSocketRecvHalf` -> `RecvHalf`, and
    `mPattern` -> `pattern` makes `mLocale` -> `locale` (a commit drops a family's prefix at once).
    {} when the rename is not such a prefix drop."""
    if len(mapping) != 1:
        return {}
    (a, b), = mapping.items()
    if len(b) < 2 or not b[0].isalpha():
        return {}
    if a.endswith(b) and b[0].isupper():
        prefix, lower = a[:-len(b)], False
    elif a.endswith(b[0].upper() + b[1:]) and b[0].islower():
        prefix, lower = a[:-len(b)], True
    else:
        return {}
    if not prefix or not re.fullmatch(r"[A-Za-z_]\w*", prefix):
        return {}
    edited_text = "\n".join(files.get(p, "") for p in {h.path for h in hunks})
    out = {}
    for m in re.finditer(rf"(?<![\w$]){re.escape(prefix)}([A-Z]\w*)", edited_text):
        rest = m.group(1)
        new = rest[0].lower() + rest[1:] if lower else rest
        if new != b and prefix + rest not in out and re.search(_SIBLING_DEFINES.format(re.escape(prefix + rest)), edited_text, re.M):
            out[prefix + rest] = new
    return out


def _grouped(changed: list[tuple[int, str, bool]], apart: bool = False) -> list[list[tuple[int, str, bool]]]:
    """Neighbouring lines as one suggestion (``apart``: uses as code apart from mentions in text)."""
    groups: list[list[tuple[int, str, bool]]] = []
    for item in changed:
        if groups and item[0] - groups[-1][-1][0] <= HUNK_GAP and (not apart or item[2] == groups[-1][-1][2]):
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups
