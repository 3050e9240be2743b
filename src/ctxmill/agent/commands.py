"""The ``ctxmill agent`` subcommands (loaded by :mod:`ctxmill.agent.cli` when one is used)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click


def _handle(func):
    from ctxmill.cli import handle_errors

    return handle_errors(func)


@click.group("agent")
def agent_group() -> None:
    """Hand a goal to an agent (see ctxmill.agent.cli)."""


def _root_opt(f):
    return click.option("--root", type=click.Path(path_type=Path, file_okay=False), default=Path("."),
                        show_default=True, help="The project folder; nothing outside it is read or changed.")(f)


def _asker():
    """y/n/always on a terminal; None (every ask is a denial) where no one can answer."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(tool: str, args: dict, why: str) -> str:
        shown = args.get("command") if tool == "run" else json.dumps(args, ensure_ascii=False)[:400]
        click.echo(f"\n? {tool}: {shown}\n  ({why})", err=True)
        got = click.prompt("  allow? [y]es / [n]o / [a]lways", default="n", err=True, show_default=False)
        got = got.strip().lower()
        return "always" if got in ("a", "always") else "y" if got in ("y", "yes") else "n"
    return ask


@agent_group.command("run")
@click.argument("goal", required=False)
@_root_opt
@click.option("--mode", type=click.Choice(["plan", "default", "accept-edits", "auto"]), default=None,
              help="plan: read-only; default: ask before edits and commands; accept-edits: ask before "
                   "commands; auto: only what the allow list names. [default: default]")
@click.option("--llm", "llm_url", metavar="URL", help="OpenAI-compatible endpoint (or CTXMILL_LLM_URL / OPENAI_BASE_URL).")
@click.option("--llm-model", metavar="NAME", help="Model name (or CTXMILL_LLM_MODEL; default: the endpoint's first).")
@click.option("--max-turns", type=click.IntRange(1, 1000), default=30, show_default=True)
@click.option("--max-context", type=click.IntRange(2000, 2_000_000), default=32000, show_default=True,
              help="Tokens one request may hold (estimated); older results shrink, then old turns are summarised.")
@click.option("--max-tokens", "token_budget", type=click.IntRange(1), default=None,
              help="Stop once the session has used this many tokens.")
@click.option("--continue", "continue_last", is_flag=True, help="Go on with the latest session of ROOT.")
@click.option("--resume", metavar="ID", help="Go on with session ID (a unique prefix is enough).")
@click.option("--json", "as_json", is_flag=True, help="One JSON event per line on stdout (asks are denials).")
@_handle
def run_cmd(goal, root, mode, llm_url, llm_model, max_turns, max_context, token_budget, continue_last, resume,
            as_json):
    """Work on GOAL in ROOT until done (also: `ctxmill agent GOAL`)."""
    from ctxmill.agent import events, run_agent
    from ctxmill.errors import InputRefused, UsageError
    from ctxmill.llm import LLMClient, LLMConfig

    if continue_last and resume:
        raise UsageError("give --continue or --resume, not both")
    if not goal and not (continue_last or resume):
        raise UsageError("give a GOAL (or --continue / --resume ID)")
    if not root.is_dir():
        raise InputRefused(f"{root}: not a folder")
    config = LLMConfig.resolve(url=llm_url, model=llm_model)
    if config is None:
        raise UsageError("no model endpoint: pass --llm URL or set CTXMILL_LLM_URL")
    on_text = None if as_json else (lambda piece: (sys.stdout.write(piece), sys.stdout.flush()))
    kwargs = {"mode": mode} if mode else {}
    with LLMClient(config) as llm:
        out = run_agent(goal, root, llm, resume=resume, continue_last=continue_last,
                        asker=None if as_json else _asker(),
                        emit=events.json_lines(sys.stdout) if as_json else events.terminal(sys.stderr),
                        on_text=on_text, max_turns=max_turns, max_context=max_context, max_tokens=token_budget,
                        **kwargs)
    if not as_json:
        click.echo("")
    if out.reason == "interrupted":
        sys.exit(130)  # as every command on Ctrl-C; other stops are clean (the done event says which)


@agent_group.command("rewind")
@click.argument("session", required=False)
@_root_opt
@click.option("--to", "to_turn", type=int, default=1, show_default=True,
              help="Put things back as they were before this turn.")
@click.option("--dry-run", is_flag=True, help="Only list what would be restored.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--force", is_flag=True, help="Also overwrite files changed outside the agent since.")
@click.option("--files-only", is_flag=True, help="Restore the files, keep the conversation.")
@click.option("--conversation-only", is_flag=True, help="Rewind the conversation, keep the files.")
@click.option("--json", "as_json", is_flag=True)
@_handle
def rewind_cmd(session, root, to_turn, dry_run, yes, force, files_only, conversation_only, as_json):
    """Put back the files SESSION changed (latest by default) and its conversation, as at --to."""
    from ctxmill.agent import rewind
    from ctxmill.errors import UsageError

    if files_only and conversation_only:
        raise UsageError("--files-only and --conversation-only exclude each other")
    kw = dict(to_turn=to_turn, force=force, files=not conversation_only, conversation=not files_only)
    plan = rewind(root, session, dry_run=True, **kw)
    if not as_json or dry_run:
        _show_plan(plan, as_json)
    if dry_run:
        return
    if not yes:
        if not sys.stdin.isatty():
            raise UsageError("rewind changes files: confirm with --yes (or look first with --dry-run)")
        click.confirm("rewind?", abort=True, err=True)
    done = rewind(root, plan["session"], **kw)
    if as_json:
        click.echo(json.dumps(done, indent=2))
    else:
        click.echo(f"restored {len(done.get('restored', []))} files; kept {len(done['conflicts'])} conflicts; "
                   f"dropped {done['messages_dropped']} messages")


def _show_plan(plan: dict, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(plan, indent=2))
        return
    click.echo(f"session {plan['session']}: back to before turn {plan['to_turn']}")
    for f in plan["files"]:
        click.echo(f"  {f['action']:<9} {f['path']}" + (f"  ({f['reason']})" if f.get("reason") else ""))
    click.echo(f"  conversation: {plan['messages_dropped']} messages dropped")


@agent_group.command("sessions")
@_root_opt
@click.option("--json", "as_json", is_flag=True)
@_handle
def sessions_cmd(root, as_json):
    """List ROOT's agent sessions, oldest first."""
    from ctxmill.agent import sessions

    found = sessions(root)
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    for s in found:
        click.echo(f"{s['id']}  {s['mode'] or '-':<12} turns {s['turns']:<3} edits {s['edits']:<3} "
                   f"{s['stopped']:<12} {s['goal'][:60]}")
