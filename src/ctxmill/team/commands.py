"""``ctxmill store start|stop|status``: the command line of the local team-store server
(ctxmill.team.local). Imports only click here; the server code loads when a command runs."""

from __future__ import annotations

import json
from pathlib import Path

import click

_data = click.option("--data", "data", type=click.Path(path_type=Path),
                     help="The server's folder (default: the platform's data folder, or $CTXMILL_STORE_DIR).")
_json = click.option("--json", "as_json", is_flag=True, help="Print the state as JSON.")


def _handle(fn):
    from ctxmill.cli import handle_errors

    return handle_errors(fn)


@click.group("store")
def store_group():
    """A local PostgreSQL + pgvector server for a team index (needs the 'team' extra)."""


@store_group.command("start")
@_data
@click.option("--port", type=click.IntRange(1, 65535), help="TCP port on 127.0.0.1 (default: a free one, kept).")
@_json
@_handle
def start_cmd(data, port, as_json):
    """Start the server (initialised on first use); the last line printed is the store's URL."""
    from ctxmill.team import keys, local

    st = local.start(data, port)
    keys.load_key(create=True)  # the team key this machine writes with (shared with the team)
    if as_json:
        click.echo(json.dumps({k: st[k] for k in ("data", "host", "port", "url")}))
        return
    click.echo(f"store: {st['data']} (PostgreSQL on {st['host']}:{st['port']})")
    click.echo(f"team key: {keys.key_path() if not _key_from_env() else '$' + keys.KEY_ENV} (give it to your team)")
    click.echo(st["url"])


def _key_from_env() -> bool:
    import os

    from ctxmill.team import keys

    return bool(os.environ.get(keys.KEY_ENV, "").strip())


@store_group.command("stop")
@_data
@_handle
def stop_cmd(data):
    """Stop the server."""
    from ctxmill.team import local

    click.echo("stopped" if local.stop(data) else "not running")


@store_group.command("status")
@_data
@_json
@_handle
def status_cmd(data, as_json):
    """Whether the server runs, and its URL (last line)."""
    from ctxmill.team import local

    st = local.status(data)
    if as_json:
        click.echo(json.dumps(st))
        return
    if not st["initialised"]:
        click.echo(f"no store at {st['data']} (`ctxmill store start` makes one)")
        raise SystemExit(1)
    click.echo(f"store: {st['data']} ({'running' if st['running'] else 'stopped'})")
    click.echo(st["url"])
    if not st["running"]:
        raise SystemExit(1)
