"""Secret redaction: the last step before text leaves for an embedder, an LLM or an MCP client.

A curated rule set, not a general scanner: provider tokens with a recognisable shape (AWS
access key ids, GitHub/Slack/Google/OpenAI/Anthropic/Stripe keys, PEM private keys, JWTs) plus
high-entropy values assigned to names that say key/secret/token/password. Each match becomes
``[REDACTED:<rule>]``; multi-line matches keep their line breaks so that line numbers of code
chunks (and of every finding) stay true. Findings record only the line and the rule — never the
secret itself — so they can be listed in the index status and the QA report.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Finding:
    line: int  # 1-based line of the text the secret started on
    rule: str
    path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line, "rule": self.rule}
        if self.path is not None:
            out["path"] = self.path
        return out

    def __str__(self) -> str:
        return f"{self.path or '<text>'}:{self.line}: {self.rule}"


@dataclass
class Redacted:
    text: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.findings)


def marker(rule: str) -> str:
    return f"[REDACTED:{rule}]"


# (rule name, literal hints, pattern). Order matters: earlier rules win where matches overlap,
# so the specific provider shapes come before the generic "assigned to a secret-sounding name"
# rule. A rule's regex runs only when one of its hints occurs in the text: `in` is a fast C
# scan, and most text holds none of them, which keeps redaction cheap on a whole codebase.
_RULES: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    ("private-key", ("PRIVATE KEY",), re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("aws-access-key-id", ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA"),
     re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z2-7]{16}(?![A-Z0-9])")),
    ("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     re.compile(r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})(?![A-Za-z0-9_])")),
    ("slack-token", ("xox",), re.compile(r"(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{10,}")),
    ("slack-webhook", ("hooks.slack.com",), re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]{20,}")),
    ("google-api-key", ("AIza",), re.compile(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])")),
    ("jwt", ("eyJ",), re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("anthropic-api-key", ("sk-ant-",), re.compile(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{32,}")),
    ("openai-api-key", ("sk-",), re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}")),
    ("stripe-key", ("_live_",), re.compile(r"(?<![A-Za-z0-9_])(?:sk|rk)_live_[A-Za-z0-9]{20,}")),
]

# A secret-sounding word inside a name (DB_PASSWORD, aws_secret_access_key, "apiKey"), then an
# assignment operator and a value right after the name. The keyword is found first; the name
# around it is widened by hand and only then is the assignment matched, anchored — a single
# unanchored regex with a greedy name prefix backtracks at every position of every file.
_KEYWORD = re.compile(r"secret|token|passw|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
                      r"|credential|auth[_-]?key")  # over lower-cased text

# One pass over the lower-cased text finds every keyword and every provider hint at once
# (branches grouped by first letter, which Python's re scans much faster than a flat list).
_TRIGGER = re.compile(
    r"s(?:ecret|k-)|token|p(?:assw|wd|rivate[_ -]?key)|credential|xox|hooks\.slack\.com|eyj|_live_"
    r"|a(?:pi[_-]?key|pikey|ccess[_-]?key|uth[_-]?key|kia|sia|bia|cca|gpa|ida|roa|ipa|npa|nva|iza)"
    r"|g(?:h[pousr]_|ithub_pat_)"
)
# The trigger text each provider hint produces ("sk-ant-" -> "sk-"), to pick the rules to run.
_RULE_TRIGGERS = {rule: {_TRIGGER.match(h.lower()).group(0) for h in hints} for rule, hints, _ in _RULES}
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_AFTER = re.compile(
    r"[\"']?[ \t]*(?P<op>:=|=>|==|=|:)[ \t]*"
    r"(?:(?P<q>[\"'`])(?P<qval>[^\"'`\s]{8,200})(?P=q)|(?P<val>[^\s\"'`,;)\]}{(\[<>]{8,200}))"
)

# Values that only look like secrets: placeholders, references to other variables, paths.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:x{4,}|\*{3,}|<[^>]*>|\$\{?[A-Za-z_]|%\(|\{\{|your[_-]|changeme|example|dummy|placeholder"
    r"|redacted|none|null|true|false|os\.environ|process\.env|env\.|settings\.|config\.)"
)


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def _looks_secret(name: str, op: str, value: str, quoted: bool) -> bool:
    if op == "==" or _PLACEHOLDER.match(value) or value.startswith("[REDACTED:"):
        return False  # a comparison, a placeholder, or already done
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if not has_alpha:
        return False
    is_password = re.search(r"(?i)passw|pwd", name) is not None
    if not quoted and is_password and not _IDENTIFIER.fullmatch(value):
        # DB_PASSWORD=s3cr3tP4ss! in a .env file
        return len(value) >= 8 and has_digit and entropy(value) >= 2.5
    if not quoted:
        # Unquoted values are usually code (token = make_token(user), api_key = cfg.API_KEY):
        # require the look of generated material — digits and letters, high entropy.
        if not has_digit or "." in value and not re.search(r"[A-Za-z0-9+/_-]{16,}", value):
            return False
        return len(value) >= 16 and entropy(value) >= 3.5
    if is_password:
        # People pick passwords; they are shorter and less random than generated keys.
        return len(value) >= 8 and entropy(value) >= 2.5 and (has_digit or not value.isalpha())
    return len(value) >= 12 and entropy(value) >= 3.0 and (has_digit or len(value) >= 20)


def _lower(text: str) -> str:
    """``text`` lower-cased with every character kept at its offset."""
    lower = text.lower()
    if len(lower) != len(text):  # a few Unicode letters change length when lower-cased
        lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return lower


def trigger_lines(text: str) -> list[int]:
    """The 1-based numbers of the lines of ``text`` that hold a trigger (a keyword or a provider
    hint), ascending: :func:`redact` changes nothing in a text made of other lines of ``text``.

    Why that holds: no trigger spans a line break, so a scan of the whole text tries every
    position of every line just as a scan of those lines alone would, and a line where no
    position starts a trigger gives none in a part of it either (a part of a line, as in a
    chunk cut into pieces, only drops characters at the end). Lower-casing maps each character
    on its own except a final sigma, which is not ASCII either way. The indexer scans a file
    once with this and runs :func:`redact` only on the chunks whose lines have a trigger.
    """
    lines: list[int] = []
    line, pos = 1, 0
    for m in _TRIGGER.finditer(_lower(text)):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def redact(text: str, path: str | None = None) -> Redacted:
    """Return ``text`` with secrets replaced and the list of what was replaced where."""
    if not text:
        return Redacted(text or "")
    spans: list[tuple[int, int, str]] = []  # (start, end, rule) of the secret itself

    def free(s: int, e: int) -> bool:
        return all(e <= a or s >= b for a, b, _ in spans)

    lower = _lower(text)
    triggers = list(_TRIGGER.finditer(lower))
    if not triggers:
        return Redacted(text)
    seen = {m.group(0) for m in triggers}
    for rule, hints, pattern in _RULES:
        if seen.isdisjoint(_RULE_TRIGGERS[rule]) or not any(h in text for h in hints):
            continue
        for m in pattern.finditer(text):
            if free(m.start(), m.end()):
                spans.append((m.start(), m.end(), rule))
    name_end = -1
    for k in triggers:
        if k.start() < name_end or not _KEYWORD.fullmatch(k.group(0)):
            continue  # a provider hint, or a second keyword in a name already looked at
        start, end = k.start(), k.end()
        while start > 0 and text[start - 1] in _NAME_CHARS:
            start -= 1
        while end < len(text) and text[end] in _NAME_CHARS:
            end += 1
        name_end = end
        m = _AFTER.match(text, end)
        if m is None:
            continue
        group = "qval" if m.group("qval") is not None else "val"
        value = m.group(group)
        if value is None or not _looks_secret(text[start:end], m.group("op"), value, group == "qval"):
            continue
        s, e = m.span(group)
        if free(s, e):
            spans.append((s, e, "secret-assignment"))
    if not spans:
        return Redacted(text)
    spans.sort()
    out: list[str] = []
    findings: list[Finding] = []
    pos = 0
    line = 1
    for s, e, rule in spans:
        line += text.count("\n", pos, s)
        out.append(text[pos:s])
        # Keep the line breaks of a multi-line secret (PEM blocks) so line numbers stay exact.
        out.append(marker(rule) + "\n" * text.count("\n", s, e))
        findings.append(Finding(line=line, rule=rule, path=path))
        line += text.count("\n", s, e)
        pos = e
    out.append(text[pos:])
    return Redacted("".join(out), findings)


def redact_text(text: str) -> str:
    """Just the redacted text."""
    return redact(text).text


def redact_obj(obj: Any, findings: list[Finding] | None = None) -> Any:
    """Redact every string inside a JSON-like value (dicts, lists); keys are left alone."""
    if isinstance(obj, str):
        r = redact(obj)
        if findings is not None:
            findings.extend(r.findings)
        return r.text
    if isinstance(obj, dict):
        return {k: redact_obj(v, findings) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [redact_obj(v, findings) for v in obj]
    return obj


_MARKER = re.compile(r"\[REDACTED:([a-z0-9-]+)\]")


def markers(text: str, path: str | None = None, first_line: int = 1) -> list[Finding]:
    """Findings recovered from redaction markers already in a text (e.g. stored chunks)."""
    return [Finding(line=first_line + text.count("\n", 0, m.start()), rule=m.group(1), path=path)
            for m in _MARKER.finditer(text)]


def summarize(findings: list[Finding]) -> dict[str, Any]:
    """``{count, by_rule, items:[{path, line, rule}]}`` for status output and QA reports."""
    return {
        "count": len(findings),
        "by_rule": dict(Counter(f.rule for f in findings)),
        "items": [f.to_dict() for f in findings],
    }
