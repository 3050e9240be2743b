"""Why the signature cases miss: each positive signature case of a case file, run in process
with the learned default, classified by what became of its targets (the scorer's own matching).

    PYTHONHASHSEED=0 .venv/bin/python benchmarks/next_edit_sigmiss.py [--cases train|dev] [--half a|b]
        [--examples CATEGORY --n 5] [--seed 2] [--trigger 'changes a call']

Per target, the first thing that went wrong, in the order the propagator works:

- ``definition not read``: no re-signed definition in the edit (next_signature.changes) and no
  changed call either (call_changes);
- ``target is a definition``: the target rewrites a definition of the function (an override,
  an interface's declaration, or the definition itself when the trigger was a call above it);
- ``no call in target``: the target does not call the function by its name (docstring,
  comment, a test's expected text, a caller's own code changed for the new value);
- ``multi-line call``: the call's arguments span lines (left to the author today);
- ``several calls in one hunk`` / ``hunk changes more``: the target holds other calls or
  other changes beside the call's arguments, which one suggestion per call cannot write;
- ``call not fitted``: a one-line call that rewrite_args did not fit (argument count or keyword);
- ``value differs``: a candidate for the call whose arguments differ from the commit's
  (sub-classified: the new argument's value, the order, a keyword, a removed argument);
- ``right candidate``: a candidate matches (then the ranking decides).

Prints JSON (counts, per language) and, with ``--examples``, a few targets of one category.

``--imports`` does the same for the import cases: per case, the top right, a right import line
not on top, only wrong import lines (the right text at another place, or another text), or no
import line at all; per language, with ``--examples CATEGORY`` a few of them:

    PYTHONHASHSEED=0 .venv/bin/python benchmarks/next_edit_sigmiss.py --imports [--examples 'no import line']

``--repeated`` does it for the repeated cases, per target not among the top five: a right
candidate not shown (its propagator, and whether its hand-set confidence held it under the
threshold or the learned gate or the ranking did), a candidate at the target with another text
(its propagator), or none at the target; for the last, where the repeated propagator lost it
(the edit taught no rule, a rule's tokens are not at the target, the rule found the site but its
suggestion was dropped):

    PYTHONHASHSEED=0 .venv/bin/python benchmarks/next_edit_sigmiss.py --repeated [--examples 'no candidate']

``--wrong-tops DUMP`` classifies the wrong suggestions shown in the top five of the signature
cases as ``next_edit_train_fit.py --oof`` ranks them over the dump in the folder DUMP (the
shipped model refitted per fold), and the silences where a right candidate existed: (a) the
right site, another text (which part differs), (b) a site the commit left alone (which kind),
(c) another propagator's suggestion, (d) nothing shown though a right candidate was there:

    PYTHONHASHSEED=0 .venv/bin/python benchmarks/next_edit_sigmiss.py --wrong-tops /tmp/s24-18/base [--examples '(b)']
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TAB = REPO.parent / "shared" / "tab"
TRAIN = REPO / "benchmarks" / ".cache" / "next_edit_train.jsonl"


def _scorer():
    spec = importlib.util.spec_from_file_location("score_next_edits", TAB / "score_next_edits.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _cases(which: str, half: str | None, klass: str = "signature") -> list[dict]:
    path = TRAIN if which == "train" else TAB / "dev.jsonl"
    out = []
    with path.open() as f:
        for line in f:
            if f'"class": "{klass}"' not in line:
                continue
            c = json.loads(line)
            if c["class"] == klass:
                out.append(c)
    if half:
        repos = sorted({json.loads(x)["repo"] for x in (TAB / "dev.jsonl").open()}) if which == "dev" else \
            sorted({c["repo"] for c in out})
        keep = set(repos[0::2] if half == "a" else repos[1::2])
        out = [c for c in out if c["repo"] in keep]
    return out


def _args_of(text: str, name: str):
    """[(inner text, multi-line?)] for the calls of ``name`` in ``text``."""
    from ctxmill.apply.next_signature import balanced

    out = []
    for m in re.finditer(r"(?<![\w$])" + re.escape(name) + r"\s*(?:!\s*)?\(", text):
        close = balanced(text, m.end() - 1)
        inner = text[m.end():close] if close is not None else text[m.end():]
        out.append((inner, close is None or "\n" in inner))
    return out


def _split(inner: str) -> list[str]:
    from ctxmill.apply.next_signature import split_top

    return [re.sub(r"\s+", " ", inner[a:b]).strip() for a, b in split_top(inner)]


def _value_kind(new_args: list[str], want_args: list[str]) -> str:
    """How a candidate's arguments differ from the commit's."""
    if len(new_args) != len(want_args):
        return "value differs: argument count"
    if sorted(new_args) == sorted(want_args):
        return "value differs: order"
    diff = [(a, b) for a, b in zip(new_args, want_args, strict=True) if a != b]
    if len(diff) > 1:
        return "value differs: several arguments"
    a, b = diff[0]
    if re.fullmatch(r"\w+\s*[:=]\s*.*", a) != re.fullmatch(r"\w+\s*[:=]\s*.*", b) or ":" in a + b and "=" in a + b:
        return "value differs: keyword vs positional"
    if re.fullmatch(r"-?\d[\w.]*|\"[^\"]*\"|'[^']*'|true|false|nil|null|None|True|False|\[\]|\{\}|%\{\}", b):
        return "value differs: the commit passes a literal"
    if re.fullmatch(r"[A-Za-z_$][\w$]*[?!]?", b):
        return "value differs: the commit passes another name"
    return "value differs: the commit passes an expression"


def classify_target(t: dict, name: str, cands: list, files: dict, targets: list, sc, read: bool, i: int,
                    trig: str = "") -> str:
    from ctxmill.apply.next_signature import EXT_LANG, _ext, defs_in

    lang = EXT_LANG.get(_ext(t["path"]))
    right = [s for s in cands if i in s.hits]
    if right:
        return "right candidate (" + right[0].kind + ")"
    if lang and (name in defs_in(t["after"], lang) or name in defs_in(t["before"], lang)):
        # which trigger left it: a re-signed definition (another clause, an override) or a call
        return "target is a definition" + {"trigger re-signs the definition": " (after a re-signing)",
                                           "trigger changes a call": " (after a call changed)"}.get(trig, "")
    if not read:
        return "definition not read"
    before, after = _args_of(t["before"], name), _args_of(t["after"], name)
    if not before:
        return "no call in target"
    # the call's own extent in the file (a target line may open a call that continues below)
    text = files[t["path"]]
    lines = text.split("\n")
    around = "\n".join(lines[t["start_line"] - 1:t["end_line"] + 12])
    whole = _args_of(around, name)
    if any(ml for _, ml in whole[:len(before)]) or any(ml for _, ml in before):
        return "multi-line call"
    if len(before) > 1 or len(after) > 1:
        return "several calls in one hunk"
    rest_b = t["before"].replace(before[0][0], "", 1)
    rest_a = t["after"].replace(after[0][0], "", 1) if after else t["after"]
    if re.sub(r"\s+", "", rest_b) != re.sub(r"\s+", "", rest_a):
        return "hunk changes more"
    over = [s for s in cands if s.kind == "signature" and s.path == t["path"]
            and s.start_line <= t["end_line"] and t["start_line"] <= s.end_line]
    if not over:
        return "call not fitted"
    got = _args_of(over[0].replacement, name)
    if not got:
        return "value differs: other"
    return _value_kind(_split(got[0][0]), _split(after[0][0]))


def _hit_targets(sc, s, targets: list, files) -> list[int]:
    """The targets suggestion ``s`` matches by the scorer's own matching (each target asked with
    the others still open, as the scorer asks it)."""
    d = s.to_dict()
    return [i for i in range(len(targets)) if sc.match(d, targets, files, set(range(len(targets))) - {i}, {}) == i]


def _report(out: dict, by_lang: dict, shown: list, examples: str | None, n_examples: int, seed: int) -> dict:
    """``out`` with the counts per language and, where examples were asked for, a seeded sample."""
    out["by_language"] = {k: dict(v.most_common()) for k, v in sorted(by_lang.items())}
    if examples:
        random.Random(seed).shuffle(shown)
        out["examples"] = shown[:n_examples]
    return out


def _replayed(sc, cases: list[dict], prefix: str):
    """Each case written to a folder of its own and its candidates found, each marked with the
    targets it hits: (case, files, targets, candidates, hunks); the folder is removed after."""
    from ctxmill.apply.next_edit import candidates

    for case in cases:
        tmp = tempfile.mkdtemp(prefix=prefix)
        try:
            files, targets = sc.write_case_dir(case, tmp)
            patch = Path(tmp, "trigger.diff").read_text(encoding="utf-8")
            try:
                found, hunks = candidates(tmp, patch)
            except Exception:  # noqa: BLE001 - a refused case has no candidate
                found, hunks = [], []
            for s in found:
                s.hits = _hit_targets(sc, s, targets, files)
            yield case, files, targets, found, hunks
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def run(cases: list[dict], examples: str | None, n_examples: int, seed: int, trigger: str | None = None,
        states: dict | None = None) -> dict:
    from ctxmill.apply.next_edit import _changed_at, _learned
    from ctxmill.apply.next_model import load
    from ctxmill.apply.next_signature import call_changes, changes

    sc = _scorer()
    model = load()
    per_target: Counter = Counter()
    per_case: Counter = Counter()
    top_wrong: Counter = Counter()
    by_lang: dict[str, Counter] = defaultdict(Counter)
    by_trigger: dict[str, Counter] = defaultdict(Counter)
    shown: list = []
    for case, files, targets, found, hunks in _replayed(sc, cases, "sigmiss-"):
        name = case["pattern"]["function"]
        resigned = {c.name for c in changes(hunks)} if hunks else set()
        by_call = {c.name for c in call_changes(hunks, files)[0]} if hunks else set()
        read = name in resigned or name in by_call
        ranked = _learned(list(found), {h.path: _changed_at(h) for h in hunks}, 0.25, model, model["mode"],
                          model["level"], model["gate_top"], model["gate_more"]) if model else []
        top = ranked[0] if ranked else None
        if top is not None and top.hits:
            state = "top right"
        elif top is None:
            state = "nothing shown" if any(s.hits for s in found) else "nothing shown, none right"
        else:
            state = "top wrong" + (" (a right one exists)" if any(s.hits for s in found) else "")
        per_case[state] += 1
        if states is not None:
            states[case["id"]] = state
        trig = "trigger re-signs the definition" if name in resigned else \
            "trigger changes a call" if name in by_call else "trigger not read"
        by_trigger[trig][state] += 1
        if top is not None and not top.hits:
            kind = top.kind
            if kind == "signature":
                ov = next((t for t in targets if t["path"] == top.path and top.start_line <= t["end_line"]
                           and t["start_line"] <= top.end_line), None)
                if top.features.get("definition"):
                    kind += ": the definition from a call"
                elif ov is None:
                    kind += ": a call the commit left alone"
                else:
                    kind += ": at a target, " + classify_target(ov, name, [], files, targets, sc, True, -1)
            else:
                kind += (": at a target" if any(t["path"] == top.path and top.start_line <= t["end_line"]
                                                and t["start_line"] <= top.end_line for t in targets)
                         else ": elsewhere")
            top_wrong[kind] += 1
        if state == "top right" or trigger and trigger not in trig:
            continue
        for i, t in enumerate(targets):
            what = classify_target(t, name, found, files, targets, sc, read, i, trig)
            per_target[what] += 1
            by_lang[case["language"]][what] += 1
            if examples and what.startswith(examples):
                shown.append({"id": case["id"], "pattern": case["pattern"], "target": t, "what": what,
                              "cands": [(s.kind, s.path, s.start_line, s.end_line, s.replacement, s.confidence)
                                        for s in found if s.kind == "signature"][:4]})
    out = {"cases": len(cases), "case_state": dict(per_case.most_common()),
           "case_state_by_trigger": {k: dict(v.most_common()) for k, v in sorted(by_trigger.items())},
           "top_wrong": dict(top_wrong.most_common()),
           "missed_targets": dict(per_target.most_common())}
    return _report(out, by_lang, shown, examples, n_examples, seed)


def imports(cases: list[dict], examples: str | None, n_examples: int, seed: int,
            states: dict | None = None) -> dict:
    """What became of each import case (suggest() as shipped, the scorer's matching)."""
    from ctxmill.apply.next_edit import candidates, suggest

    sc = _scorer()
    per_case: Counter = Counter()
    by_lang: dict[str, Counter] = defaultdict(Counter)
    shown: list = []
    for case in cases:
        tmp = tempfile.mkdtemp(prefix="impmiss-")
        try:
            files, targets = sc.write_case_dir(case, tmp)
            patch = Path(tmp, "trigger.diff").read_text(encoding="utf-8")
            try:
                found, _ = candidates(tmp, patch)
                ranked = suggest(tmp, patch)
            except Exception:  # noqa: BLE001 - a refused case has no candidate
                found, ranked = [], []

            def hits(s, targets=targets, files=files):
                return bool(_hit_targets(sc, s, targets, files))

            lines = [s for s in found if s.kind == "import"]
            added = {x.strip() for t in targets for x in t["after"].splitlines()} - \
                {x.strip() for t in targets for x in t["before"].splitlines()}
            if ranked and hits(ranked[0]):
                what = "top right"
            elif any(hits(s) for s in lines):
                what = "right import line, not on top"
            elif any({x.strip() for x in s.replacement.splitlines()} & added for s in lines):
                what = "wrong import lines: the right text at another place"
            elif lines:
                what = "wrong import lines: another text"
            else:
                what = "no import line"
            per_case[what] += 1
            by_lang[case["language"]][what] += 1
            if states is not None:
                states[case["id"]] = what
            if examples and what.startswith(examples):
                shown.append({"id": case["id"], "name": case["pattern"].get("name"), "what": what,
                              "targets": [(t["path"], t["start_line"], t["before"][:200], t["after"][:300]) for t in targets],
                              "lines": [(s.path, s.start_line, s.end_line, s.replacement[:200], s.reason) for s in lines][:3]})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    out = {"cases": len(cases), "case_state": dict(per_case.most_common())}
    return _report(out, by_lang, shown, examples, n_examples, seed)


def _lost_where(t: dict, files: dict, hunks: list) -> str:
    """Where the repeated propagator lost a target it made no candidate for: the edit taught no
    rule; no rule's tokens are at the target's lines; or a rule matched there and the match was
    dropped later (an edited line, brackets, a merged group, the trimmed result)."""
    from bisect import bisect_right

    from ctxmill.apply.next_repeated import _IMPORT_LINE, find, line_starts, rules_for, tokens

    rules = []
    for h in hunks:
        if h.old_text == h.new_text or not h.removed and h.added and all(
                _IMPORT_LINE.match(x) or not x.strip() for x in h.added):
            continue
        rules += [r for r in rules_for(h.old_text, h.new_text) if r.weight >= 1.0]
    if not rules:
        return "no rule taught"
    sigs = {(tuple(r.before), tuple(sorted(r.holes.items())), tuple(map(str, r.after))) for r in rules}
    if len(sigs) > 12:
        return "more than 12 rules (a rewrite)"
    text = files.get(t["path"], "")
    toks = tokens(text)
    index: dict[str, list[int]] = {}
    for k, (x, _, _) in enumerate(toks):
        index.setdefault(x, []).append(k)
    starts = line_starts(text)
    lo, hi = t["start_line"] - 1, max(t["start_line"], t["end_line"]) - 1
    for r in rules:
        for m in find(r, text, toks, index):
            first = bisect_right(starts, m.start) - 1
            last = bisect_right(starts, max(m.start, m.end - 1)) - 1
            if first <= hi + 1 and lo - 1 <= last:
                return "a rule matched there, dropped later"
    # the target's own change, taught as rules: the same changed tokens with other tokens around
    # them (context), or other changed tokens (the anti-unification would need more holes)
    own = {(tuple(r.before), tuple(map(str, r.after))) for r in rules_for(t["before"], t["after"])}
    mine = {(tuple(r.before), tuple(map(str, r.after))) for r in rules}
    if own & mine:
        return "no match: the same region, other context"
    if {b for b, _ in own} & {b for b, _ in mine}:
        return "no match: the same removed tokens, another new text"
    if {a for _, a in own} & {a for _, a in mine}:
        return "no match: another region, the same new text"
    return "no match: another change"


def repeated(cases: list[dict], examples: str | None, n_examples: int, seed: int, states: dict | None = None) -> dict:
    """What became of each repeated case's targets (suggest() as shipped, the scorer's matching)."""
    from ctxmill.apply.next_edit import THRESHOLD, _changed_at, _learned
    from ctxmill.apply.next_model import load

    sc = _scorer()
    model = load()
    per_case: Counter = Counter()
    per_target: Counter = Counter()
    by_lang: dict[str, Counter] = defaultdict(Counter)
    shown: list = []
    for case, files, targets, found, hunks in _replayed(sc, cases, "repmiss-"):
        ranked = _learned(list(found), {h.path: _changed_at(h) for h in hunks}, THRESHOLD, model, model["mode"],
                          model["level"], model["gate_top"], model["gate_more"])[:5]
        top = ranked[0] if ranked else None
        state = "top right" if top is not None and top.hits else \
            ("nothing shown" if top is None else "top wrong (" + top.kind + ")") + \
            (", a right one exists" if any(s.hits for s in found) else "")
        per_case[state] += 1
        if states is not None:
            states[case["id"]] = state
        shown_hits = {i for s in ranked for i in s.hits}
        for i, t in enumerate(targets):
            if i in shown_hits:
                per_target["shown"] += 1
                continue
            right = [s for s in found if i in s.hits]
            at = [s for s in found if s.path == t["path"] and s.start_line <= max(t["end_line"], t["start_line"]) + 1
                  and t["start_line"] - 1 <= max(s.end_line, s.start_line)]
            if right:
                best = max(right, key=lambda s: s.confidence)
                why = "held by its confidence" if best.confidence < THRESHOLD else \
                    "gated or ranked out" if best not in ranked else "shown for another target"
                what = f"right candidate ({best.kind}), {why}"
            elif at:
                what = "a candidate at the target, another text (" + ", ".join(sorted({s.kind for s in at})) + ")"
            else:
                what = "no candidate at the target: " + _lost_where(t, files, hunks)
            per_target[what] += 1
            by_lang[case["language"]][what] += 1
            if examples and what.startswith(examples):
                shown.append({"id": case["id"], "what": what, "pattern": case["pattern"],
                              "trigger": case["trigger"]["hunk"][-600:],
                              "target": (t["path"], t["start_line"], t["before"][:300], t["after"][:300]),
                              "at": [(s.kind, s.start_line, s.end_line, s.replacement[:300], s.confidence)
                                     for s in at][:3]})
    out = {"cases": len(cases), "case_state": dict(per_case.most_common()),
           "targets": dict(per_target.most_common())}
    return _report(out, by_lang, shown, examples, n_examples, seed)


_TEST_PATH = re.compile(r"(^|/)(tests?|spec|__tests__|testing)/|(_test|_spec|\.test|\.spec|Test|Tests|Spec)\.\w+$|(^|/)test_")


def _overlapping(s, targets: list) -> dict | None:
    return next((t for t in targets if t["path"] == s.path and s.start_line <= max(t["end_line"], t["start_line"])
                 and t["start_line"] <= max(s.end_line, s.start_line)), None)


def _at_target(s, t: dict, name: str) -> str:
    """(a): what differs between a signature suggestion and the commit's change of its lines."""
    if (t["start_line"], t["end_line"]) != (s.start_line, s.end_line):
        return "line span (the commit changes other lines too)"
    if re.sub(r"\s+", "", s.replacement) == re.sub(r"\s+", "", t["after"]):
        return "whitespace or wrapping"
    got, want = _args_of(s.replacement, name), _args_of(t["after"], name)
    if not got or not want:
        return "the commit's lines hold no call of it" if not want else "other"
    if len(want) != len(got):
        return "line span (the commit changes other calls too)"
    a, b = _split(got[0][0]), _split(want[0][0])
    if a == b:
        return "the call's arguments right, the rest of the lines differ"
    kind = _value_kind(a, b).replace("value differs: ", "")
    if kind == "argument count":
        return "a removed argument left" if len(a) > len(b) else "an argument missing"
    if kind == "order":
        return "an argument's position"
    if kind == "keyword vs positional":
        return kind
    return "a new argument's value" if kind != "several arguments" else "several arguments"


def _elsewhere(s, name: str, files: dict, targets: list, resigned: list) -> str:
    """(b): which kind of site the commit left alone."""
    from ctxmill.apply.next_signature import EXT_LANG, _ext, defs_in

    if "definition" in s.reason:
        return "a definition or declaration"
    here = "\n".join(files.get(s.path, "").split("\n")[s.start_line - 1:s.end_line])
    calls = _args_of(here, name)
    ch = next((c for c in resigned if c.name == name), None)
    if calls and ch is not None and len(ch.old) != len(ch.new) and not calls[0][1] \
            and len(_split(calls[0][0])) == len(ch.new):
        return "a call already in the new form (as many arguments as the new list)"
    if calls and re.search(r"[\w)\]]\s*(?:\.|->|::)\s*" + re.escape(name) + r"\s*\(", here):
        lang = EXT_LANG.get(_ext(s.path))
        defs = sum(1 for text in files.values() if lang and name in defs_in(text, lang))
        if defs != 1:
            return f"a method call, {'no' if not defs else 'several'} definitions of the name in the tree"
    if _TEST_PATH.search(s.path):
        return "a call in a test the commit left alone"
    if any(t["path"] == s.path for t in targets):
        return "another call in a file the commit changed"
    return "a call in a file the commit left alone"


def wrong_tops(cases: list[dict], dump: str, examples: str | None, n_examples: int, seed: int) -> dict:
    """The four buckets of ``--wrong-tops`` over ``cases`` (the signature training cases), their
    shown suggestions ranked as --oof ranks them and their texts found again (_replayed)."""
    os.environ["NEXT_EDIT_CANDS"] = dump
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import next_edit_train_fit as tf
    from ctxmill.apply import next_edit
    from ctxmill.apply.next_signature import changes

    shipped = json.loads(tf.MODEL.read_text())
    train = tf.load("train")
    tf.out_of_fold(train, shipped.get("l2", 1.0), 3, set(shipped["weights"]) | {"bias"})
    ids = {c["id"] for c in cases}
    ranked = tf.ranked_cases([c for c in train if c["id"] in ids], lambda case, c: c.get("confidence", c["features"]["hand"]),
                             next_edit.THRESHOLD, next_edit.THRESHOLD_MORE,
                             learned=(shipped, shipped["mode"], shipped["level"], shipped["gate_top"], shipped["gate_more"]))
    shown_wrong: dict[str, list[tuple]] = {}  # case -> [(rank, candidate index, its place)]
    silent: dict[str, list[int]] = {}
    for case, top5, sugs in ranked:
        used: set[int] = set()
        for rank, s in enumerate(top5[:5]):
            i = next((i for i in s.hits if i not in used), None)
            if i is None:
                shown_wrong.setdefault(case["id"], []).append((rank, sugs.index(s), (s.kind, s.path, s.start_line, s.end_line)))
            else:
                used.add(i)
        if not top5 and case["n_targets"] and any(s.hits for s in sugs):
            silent[case["id"]] = [k for k, s in enumerate(sugs) if s.hits]
    del train
    sc = _scorer()
    buckets: Counter = Counter()
    tops: Counter = Counter()  # the same, the first suggestion only
    how_top: Counter = Counter()  # the first suggestion's bucket by how it was shown and what the trigger was
    shown: list = []
    mismatched = 0
    todo = [c for c in cases if c["id"] in shown_wrong or c["id"] in silent]
    for case, files, targets, found, hunks in _replayed(sc, todo, "sigtops-"):
        name = case["pattern"]["function"]
        resigned = changes(hunks) if hunks else []
        for k in silent.get(case["id"], []):
            buckets[f"(d) silent, a right candidate ({found[k].kind}) held"] += 1
        for rank, k, key in shown_wrong.get(case["id"], []):
            s = found[k] if k < len(found) else None
            if s is None or (s.kind, s.path, s.start_line, s.end_line) != key:
                mismatched += 1  # the tree no longer makes the dumped candidate
                continue
            t = _overlapping(s, targets)
            if s.kind != "signature":
                what = f"(c) {s.kind}, " + ("at a target" if t else "elsewhere")
            elif s.hits:
                what = "(a) the right text, its target taken by a suggestion above"
            elif t is not None:
                what = "(a) " + _at_target(s, t, name)
            else:
                what = "(b) " + _elsewhere(s, name, files, targets, resigned)
            how = "shown by the fill" if s.features["hand"] < next_edit.THRESHOLD else "ranked"
            trig = "the trigger re-signs it" if any(c.name == name for c in resigned) else "the trigger does not re-sign it"
            buckets[what] += 1
            how_top[f"{what[:3]} {s.kind}, {how}, {trig}"] += rank == 0
            if rank == 0:
                tops[what] += 1
            if examples and what.startswith(examples):
                shown.append({"id": case["id"], "what": what, "name": name, "rank": rank, "how": how, "trigger": trig,
                              "hand": s.features["hand"],
                              "suggestion": (s.path, s.start_line, s.end_line, s.replacement[:300], s.reason),
                              "target": t and (t["start_line"], t["end_line"], t["before"][:300], t["after"][:300])})
    out = {"cases": len(cases), "cases_with_a_wrong_shown": len(shown_wrong), "silent_with_a_right_candidate": len(silent),
           "not_found_again": mismatched, "wrong_shown": sum(v for k, v in buckets.items() if not k.startswith("(d)")),
           "buckets": dict(sorted(buckets.items())), "buckets_top1": dict(sorted(tops.items())),
           "top1_how": dict(sorted((k, v) for k, v in how_top.items() if v)),
           "by_letter": dict(sorted(Counter(k[:3] for k in buckets.elements()).items())),
           "by_letter_top1": dict(sorted(Counter(k[:3] for k in tops.elements()).items()))}
    return _report(out, {}, shown, examples, n_examples, seed)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", choices=["train", "dev"], default="train")
    ap.add_argument("--half", choices=["a", "b"])
    ap.add_argument("--examples")
    ap.add_argument("--n", type=int, default=5)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--states", help="write each case's state here (JSON), to compare two trees case by case")
    ap.add_argument("--trigger", help="count the missed targets of these cases only: 're-signs', 'changes a call', 'not read'")
    ap.add_argument("--imports", action="store_true", help="the import cases instead: what became of each")
    ap.add_argument("--repeated", action="store_true", help="the repeated cases instead: what became of each target")
    ap.add_argument("--wrong-tops", metavar="DUMP", help="the wrong shown suggestions of the signature training cases, "
                    "ranked as --oof ranks the dump in DUMP, in four buckets")
    args = ap.parse_args()
    if not (TAB / "dev.jsonl").exists():
        print(json.dumps({"skipped": f"{TAB} not present"}))
        return
    states: dict | None = {} if args.states else None
    if args.wrong_tops:
        print(json.dumps(wrong_tops(_cases("train", args.half), args.wrong_tops, args.examples, args.n, args.seed), indent=1))
    elif args.repeated:
        print(json.dumps(repeated(_cases(args.cases, args.half, "repeated"), args.examples, args.n, args.seed, states),
                         indent=1))
    elif args.imports:
        print(json.dumps(imports(_cases(args.cases, args.half, "import"), args.examples, args.n, args.seed, states), indent=1))
    else:
        print(json.dumps(run(_cases(args.cases, args.half), args.examples, args.n, args.seed, args.trigger, states), indent=1))
    if args.states:
        Path(args.states).write_text(json.dumps(states, indent=0, sort_keys=True))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.setrecursionlimit(10000)
    main()
