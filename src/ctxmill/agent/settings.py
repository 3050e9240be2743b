"""Settings: ``ROOT/.ctxmill/settings.toml`` and the user's ``settings.toml``, lists merged.

    [permissions]
    allow = ["run(pytest*)", "run(git diff*)", "edit(src/**)"]
    deny  = ["read(**/.env)"]
    ask   = ["run(git push*)"]

    [hooks]
    pre_tool  = ["python scripts/check_call.py"]
    post_tool = []
    stop      = ["pytest -q -x || (echo 'the tests still fail' >&2; exit 2)"]

The user's file is ``$CTXMILL_CONFIG_DIR/settings.toml`` (default: the platform's config
folder for ctxmill). Deny wins over allow wherever each rule comes from.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from ctxmill.errors import InputRefused

KEYS = {"permissions": ("allow", "deny", "ask"), "hooks": ("pre_tool", "post_tool", "stop")}


def user_settings_path() -> Path:
    base = os.environ.get("CTXMILL_CONFIG_DIR")
    if not base:
        import platformdirs

        base = platformdirs.user_config_dir("ctxmill")
    return Path(base) / "settings.toml"


def load(root: Path) -> dict[str, dict[str, list[str]]]:
    merged = {sec: {k: [] for k in keys} for sec, keys in KEYS.items()}
    for path in (user_settings_path(), root / ".ctxmill" / "settings.toml"):
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InputRefused(f"{path}: not valid TOML ({exc})") from None
        for sec, keys in KEYS.items():
            for k in keys:
                v = (data.get(sec) or {}).get(k, [])
                if isinstance(v, str):
                    v = [v]
                if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                    raise InputRefused(f"{path}: [{sec}] {k} must be a list of strings")
                merged[sec][k].extend(v)
    return merged


RULE_FILES = ("AGENTS.md", "CLAUDE.md")
RULES_MAX_CHARS = 8000


def project_rules(root: Path) -> str:
    """AGENTS.md, CLAUDE.md and .cursor/rules/* from ROOT up to the filesystem root (nearest first)."""
    parts, seen = [], 0
    for folder in [root, *root.parents]:
        found = [folder / n for n in RULE_FILES if (folder / n).is_file()]
        rules = folder / ".cursor" / "rules"
        if rules.is_dir():
            found += sorted(p for p in rules.iterdir() if p.is_file() and p.suffix in (".md", ".mdc", ".txt"))
        for p in found:
            try:
                text = p.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                continue
            text = text[: max(0, RULES_MAX_CHARS - seen)]
            if text:
                parts.append(f"## {p}\n{text}")
                seen += len(text)
        if seen >= RULES_MAX_CHARS:
            break
    return "\n\n".join(parts)
