"""Spies for the tests of work not done: a stage that must not read every line, or a pattern
that must not be tried at every block, is tested by counting what it asked, never by timing it."""

from __future__ import annotations

from collections import Counter

_TEXT_METHODS = frozenset({"match", "fullmatch", "search", "findall", "finditer", "split", "sub", "subn"})


class Counted:
    """A compiled pattern whose text methods (match, search, findall, finditer, split, sub ...)
    are counted; every other attribute passes through (``spy.pattern`` is the pattern's text).

    ``calls``: the calls, ``by_method`` the calls by method name, ``chars`` the characters they
    were given to read (``pos`` to ``endpos``), ``matches`` the matches handed out (a match or a
    search that found one, each of finditer's). ``log``, a list several spies may share, gets the
    pattern's text at each call; ``methods`` limits the counting to those methods."""

    def __init__(self, real, log: list | None = None, methods: tuple[str, ...] | None = None):
        self.real, self.log = real, log
        self.methods = frozenset(methods) if methods else _TEXT_METHODS
        self.calls = self.chars = self.matches = 0
        self.by_method: Counter = Counter()

    def __getattr__(self, name):
        attr = getattr(self.real, name)
        if name not in self.methods:
            return attr

        def counted(*args, **kwargs):
            self.calls += 1
            self.by_method[name] += 1
            if self.log is not None:
                self.log.append(self.real.pattern)
            self.chars += _span(name, args, kwargs)
            got = attr(*args, **kwargs)
            if name == "finditer":
                return self._handed_out(got)
            if name in ("match", "fullmatch", "search") and got is not None:
                self.matches += 1
            return got

        return counted

    def _handed_out(self, matches):
        for m in matches:
            self.matches += 1
            yield m


def _span(name: str, args: tuple, kwargs: dict) -> int:
    """The characters a call of ``name`` reads: its text from ``pos`` to ``endpos``."""
    if name in ("sub", "subn"):
        text = args[1] if len(args) > 1 else kwargs.get("string", "")
        return len(text)
    text = args[0] if args else kwargs.get("string", "")
    if name == "split":
        return len(text)
    pos = args[1] if len(args) > 1 else kwargs.get("pos", 0)
    end = args[2] if len(args) > 2 else kwargs.get("endpos", len(text))
    return max(0, min(end, len(text)) - pos)


class CountedCall:
    """A function whose calls are counted."""

    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


def recorded(monkeypatch, owner, name: str) -> list:
    """Replace the one-argument function ``owner.name`` for the test with one that puts each
    argument it is given in the returned list, then answers as the real one did."""
    real, calls = getattr(owner, name), []

    def spy(arg):
        calls.append(arg)
        return real(arg)

    monkeypatch.setattr(owner, name, spy)
    return calls
