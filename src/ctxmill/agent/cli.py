"""``ctxmill agent``: the command group (a thin shell over :mod:`ctxmill.agent`).

    ctxmill agent GOAL [options]        run a session (same as ``ctxmill agent run GOAL``)
    ctxmill agent rewind [SESSION]      put files and conversation back
    ctxmill agent sessions              list this ROOT's sessions

The subcommands live in :mod:`ctxmill.agent.commands` and are imported only when the agent
group is used, so registering it costs other commands' start-up next to nothing.
"""

from __future__ import annotations

import click

SUBCOMMANDS = ("rewind", "run", "sessions")


class _AgentGroup(click.Group):
    """``ctxmill agent "GOAL"`` is ``ctxmill agent run "GOAL"``: a first word that is not a
    subcommand (or an option before the goal) goes to ``run``."""

    def parse_args(self, ctx, args):
        if args and args[0] not in SUBCOMMANDS and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)

    def list_commands(self, ctx):
        return list(SUBCOMMANDS)

    def get_command(self, ctx, name):
        if name not in SUBCOMMANDS:
            return None
        from ctxmill.agent import commands

        return commands.agent_group.commands[name]


@click.group("agent", cls=_AgentGroup)
def agent_group() -> None:
    """Hand a goal to an agent that searches, reads, edits, runs and checks in a loop (docs/agent.md)."""
