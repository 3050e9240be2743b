"""Deny-first permissions: a floor no mode or rule lifts, then rules, then the mode's default.

Order of a decision (the first that speaks wins):

1. **The floor.** Every path argument is resolved (``..``, ``~``, absolute paths, symlinks) and
   must stay inside ROOT; nothing is written, edited or deleted under a ``.git`` folder; a
   command naming a path outside ROOT (``~``, ``$HOME``, ``/etc``, ``..``), piping a download
   into a shell, or using ``sudo`` is refused. (Secrets are redacted from every tool result in
   :mod:`ctxmill.agent.tools`, also part of the floor.)
2. **The plan mode** is read-only: edits and commands are refused whatever the rules say.
3. **Rules**, ``tool(pattern)`` from ``.ctxmill/settings.toml`` and the user's settings:
   deny beats ask beats allow.
4. **The mode's default**: ``default`` asks before edits and commands, ``accept-edits`` asks
   before commands only, ``auto`` refuses what no allow rule names (nobody is asked).

The floor's command check is a guard against the obvious, not a sandbox: ``run`` executes a
shell in ROOT, which is why every mode but ``auto`` (with an allow rule) asks first.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MODES = ("plan", "default", "accept-edits", "auto")
READ_TOOLS = frozenset({"search", "grep", "read", "list", "task", "compile_document", "next_edits"})
EDIT_TOOLS = frozenset({"edit", "write", "delete"})
RUN_TOOLS = frozenset({"run"})
PATH_ARGS = ("path",)  # the argument of a tool that names a file or folder

_NETWORK = {"curl", "wget", "nc", "ncat", "netcat", "telnet", "ftp", "sftp", "scp", "ssh", "rsync"}
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node"}
_PRIVILEGE = {"sudo", "su", "doas", "pkexec"}
_SEPARATORS = {"|", "||", "&&", ";", "&", "|&"}
_SAFE_OUTSIDE = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin"}


@dataclass
class Decision:
    action: str  # "allow" | "deny" | "ask"
    reason: str
    floor: bool = False  # refused by the floor (no rule or mode lifts it)
    rule: str | None = None

    def to_dict(self) -> dict:
        out = {"decision": self.action, "reason": self.reason}
        if self.floor:
            out["floor"] = True
        if self.rule:
            out["rule"] = self.rule
        return out


class Confined(Exception):
    """A path argument leaves ROOT (the message says how)."""


def resolve_in_root(root: Path, path: str) -> Path:
    """``path`` (relative to ROOT, or absolute) resolved with symlinks, or :class:`Confined`."""
    if not isinstance(path, str) or not path or "\x00" in path:
        raise Confined("empty or invalid path")
    p = Path(os.path.expanduser(path))
    full = (p if p.is_absolute() else root / p).resolve()
    if full != root and not full.is_relative_to(root):
        raise Confined(f"{path!r} resolves to {full}, outside ROOT {root}")
    return full


def rel(root: Path, full: Path) -> str:
    r = full.relative_to(root).as_posix()
    return "." if r in ("", ".") else r


@lru_cache(maxsize=256)
def _glob_regex(pattern: str, path_like: bool) -> re.Pattern[str]:
    """gitignore-ish globs: ``**`` crosses folders, ``*`` does not (in paths); in commands ``*``
    is anything, so ``run(git diff*)`` names every git diff."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*" if path_like else ".*")
        elif c == "?":
            out.append("[^/]" if path_like else ".")
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.S)


_RULE = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\((.*)\))?\s*$", re.S)


def parse_rule(rule: str) -> tuple[str, str | None]:
    m = _RULE.match(rule)
    if not m:
        raise ValueError(f"permission rule {rule!r} is not tool or tool(pattern)")
    return m.group(1), m.group(2)


def rule_matches(rule: str, tool: str, subject: str | None) -> bool:
    name, pattern = parse_rule(rule)
    if name != tool and name != "*":
        return False
    if pattern is None or pattern in ("*", "**"):
        return True
    if subject is None:
        return False
    return bool(_glob_regex(pattern.strip(), tool != "run").match(subject))


def command_floor(root: Path, command: str) -> str | None:
    """Why the floor refuses ``command``, or None. A guard, not a sandbox (see the module doc)."""
    if not isinstance(command, str) or not command.strip():
        return "empty command"
    if re.search(r"\$\{?HOME\b|\$\{?USER\b|\$\(|`", command):
        return "the command expands $HOME, $USER or a command substitution (it could leave ROOT)"
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError as exc:
        return f"the command cannot be parsed ({exc})"
    segments: list[list[str]] = [[]]
    for t in tokens:
        if t in _SEPARATORS:
            segments.append([])
        elif t in {">", ">>", "<", ">&", "<<", "2>", "&>"}:
            continue  # the redirect's target is the next token, checked as a path below
        else:
            segments[-1].append(t)
    downloads = False
    for k, seg in enumerate(s for s in segments if s):
        words = [w for w in seg if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)] or seg
        prog = os.path.basename(words[0])
        if prog in _PRIVILEGE:
            return f"{prog}: commands that raise privileges are refused"
        if prog in _NETWORK:
            downloads = True
        elif downloads and prog in _SHELLS and k > 0:
            return "the command pipes a download into a shell"
        if prog == "cd" and len(words) == 1:
            return "cd without a folder goes to the home folder, outside ROOT"
        for w in words[1:] if prog != "env" else words:
            for part in [w, *(w.split("=", 1)[1:] if "=" in w else [])]:
                part = re.sub(r"^\d?[<>]+&?", "", part)  # 2>/dev/null written as one token
                if not part or part in _SAFE_OUTSIDE or re.match(r"^[a-z][a-z0-9+.-]*://", part):
                    continue
                # an outward-looking path, or a name in ROOT that is a symlink out of it
                if (part.startswith(("/", "~")) or ".." in Path(part).parts
                        or (not part.startswith("-") and _links_somewhere(root, part))):
                    try:
                        resolve_in_root(root, part)
                    except Confined:
                        return f"the command names {part!r}, outside ROOT"
    return None


def _links_somewhere(root: Path, part: str) -> bool:
    """Whether ``part`` names something in ROOT with a symlink on its way (cheap: lstat only)."""
    p = root
    for piece in Path(part).parts[:8]:
        p = p / piece
        try:
            if p.is_symlink():
                return True
        except (OSError, ValueError):
            return False
    return False


class Permissions:
    """One session's gate: ``decide(tool, args)``; ``always()`` adds an allow for the session."""

    def __init__(self, root: Path, mode: str = "default", allow=(), deny=(), ask=()) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.root = Path(root).resolve()
        self.mode = mode
        self.allow, self.deny, self.ask = list(allow), list(deny), list(ask)
        for r in (*self.allow, *self.deny, *self.ask):
            parse_rule(r)  # a malformed rule is refused up front, not ignored

    def subject(self, tool: str, args: dict) -> str | None:
        """What a rule's pattern is matched against: a path relative to ROOT, the command, the query."""
        if tool == "run":
            return args.get("command")
        if isinstance(args.get("path"), str):
            try:
                return rel(self.root, resolve_in_root(self.root, args["path"]))
            except Confined:
                return None
        for key in ("query", "pattern", "goal"):
            if isinstance(args.get(key), str):
                return args[key]
        return None

    def floor(self, tool: str, args: dict) -> str | None:
        for key in PATH_ARGS:
            if key in args and args[key] is not None:
                try:
                    full = resolve_in_root(self.root, args[key])
                except Confined as exc:
                    return str(exc)
                if tool in EDIT_TOOLS and ".git" in full.relative_to(self.root).parts:
                    return f"{args[key]!r} is inside a .git folder: the agent never writes there"
        if tool in EDIT_TOOLS and "path" not in args:
            return "no path given"
        if tool == "run":
            return command_floor(self.root, args.get("command"))
        return None

    def decide(self, tool: str, args: dict) -> Decision:
        why = self.floor(tool, args)
        if why:
            return Decision("deny", why, floor=True)
        acts = tool in EDIT_TOOLS or tool in RUN_TOOLS
        if self.mode == "plan" and acts:
            return Decision("deny", "plan mode is read-only: no edits or commands")
        subject = self.subject(tool, args)
        for action, rules in (("deny", self.deny), ("ask", self.ask), ("allow", self.allow)):
            for r in rules:
                if rule_matches(r, tool, subject):
                    return Decision(action, f"rule {r}", rule=r)
        if not acts:
            return Decision("allow", "read-only tool")
        if self.mode == "auto":
            return Decision("deny", f"auto mode runs only what an allow rule names; none names {tool}")
        if self.mode == "accept-edits" and tool in EDIT_TOOLS:
            return Decision("allow", "accept-edits mode")
        return Decision("ask", f"{self.mode} mode asks before {'commands' if tool == 'run' else 'edits'}")

    def always(self, tool: str, args: dict) -> str:
        """The rule an 'always' answer adds for the rest of the session."""
        subject = self.subject(tool, args)
        rule = f"{tool}({subject})" if subject and tool != "run" else (
            f"run({subject.split()[0]}*)" if subject else tool)
        self.allow.append(rule)
        return rule
