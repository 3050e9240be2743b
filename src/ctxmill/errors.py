"""Errors every surface maps the same way (see the exit codes in DESIGN.md)."""


class CtxmillError(Exception):
    """Unexpected failure inside ctxmill (exit 1)."""

    exit_code = 1


class InputRefused(CtxmillError):
    """Input that ctxmill will not process: bad, ambiguous or too large (exit 3).

    The message is one line a user can act on.
    """

    exit_code = 3


class UsageError(CtxmillError):
    """Wrong arguments or options (exit 2)."""

    exit_code = 2
