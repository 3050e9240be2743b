"""``json.dumps(obj, indent=N, ensure_ascii=False)``, the same text, about three times faster.

With an indent the standard library leaves its C encoder and walks the object with Python
generators; sections.json and graph.json of a document with tens of thousands of sections spent
most of their write there. This walks it with plain recursion and lets the C string encoder do
each string. Anything but dict, list, tuple, str, int, float, bool and None goes to json.dumps
itself, so the output (and any error) is always the standard library's.
"""

from __future__ import annotations

import json
from itertools import repeat
from json.encoder import encode_basestring

_INF = float("inf")


class _Other(Exception):
    """A value this module does not write: json.dumps takes over."""


def _float(o: float) -> str:
    if o != o:
        return "NaN"
    if o == _INF:
        return "Infinity"
    if o == -_INF:
        return "-Infinity"
    return float.__repr__(o)


# str key -> its JSON text and ": " (bounded: keys are few, but a dict may be keyed by data)
_KEYS: dict[str, str] = {}


def _key(k) -> str:
    if isinstance(k, str):
        return encode_basestring(k)
    if isinstance(k, float):
        return '"' + _float(k) + '"'
    if k is True:
        return '"true"'
    if k is False:
        return '"false"'
    if k is None:
        return '"null"'
    if isinstance(k, int):
        return '"' + int.__repr__(k) + '"'
    raise _Other


def _value(o, step: str, ind: str) -> str:
    t = type(o)
    if t is str:
        return encode_basestring(o)
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if t is int:
        return int.__repr__(o)
    if t is float:
        return _float(o)
    if t is dict:
        if not o:
            return "{}"
        inner = ind + step
        sep = ",\n" + inner
        # (strings, None and empty lists written inline, without a call: most values of
        # references.json's entries, 25 keys each for 16,000 entries of a long list)
        parts = []
        add = parts.append
        keys = _KEYS
        for k, v in o.items():
            # (a key's text with its ": " from a table: the same few keys in every entry)
            kt = keys.get(k) if type(k) is str else None
            if kt is None:
                kt = _key(k) + ": "
                if type(k) is str and len(keys) < 4096:
                    keys[k] = kt
            tv = type(v)
            if tv is str:
                add(kt + encode_basestring(v))
            elif v is None:
                add(kt + "null")
            elif (tv is list or tv is tuple) and not v:
                add(kt + "[]")
            else:
                add(kt + _value(v, step, inner))
        return "{\n" + inner + sep.join(parts) + "\n" + ind + "}"
    if t is list or t is tuple:
        if not o:
            return "[]"
        inner = ind + step
        sep = ",\n" + inner
        return "[\n" + inner + sep.join([encode_basestring(v) if type(v) is str else _value(v, step, inner)
                                          for v in o]) + "\n" + ind + "]"
    raise _Other  # subclasses and other types: the standard library decides


def columns_segments(keys: tuple[str, ...], columns: list[list], step: str, ind: str) -> list:
    """``_value([dict(zip(keys, v)) for v in zip(*columns)], step, ind)`` as render.textfile
    segments (the rows' texts, not joined), without a dict per row: a list of records that all
    have the same keys (citations.json's 240,000 unresolved cross-references of 4 MB of text),
    given as one list per key. Written a column at a time: a column of strings (or of ints) is
    encoded by one ``map`` of the C encoder, and each row is one join of the keys' texts and its
    values, all rows by one more ``map`` (no Python step a value or a row)."""
    if not columns or not columns[0]:
        return ["[]"]
    inner = ind + step
    inner2 = inner + step
    enc = []
    for col in columns:
        kinds = set(map(type, col))
        if kinds == {str}:
            enc.append(map(encode_basestring, col))
        elif kinds == {int}:
            enc.append(map(int.__repr__, col))
        elif kinds == {type(None)}:
            enc.append(["null"] * len(col))
        else:
            enc.append([encode_basestring(v) if type(v) is str else "null" if v is None else _value(v, step, inner2)
                        for v in col])
    # each row the join of its pieces: the texts between the values (the keys' texts) from
    # repeat(), the values from their columns, all zipped and joined in C
    between = ["{\n" + inner2 + encode_basestring(keys[0]) + ": ",
               *[",\n" + inner2 + encode_basestring(k) + ": " for k in keys[1:]]]
    pieces = [x for b, col in zip(between, enc, strict=True) for x in (repeat(b), col)]
    pieces.append(repeat("\n" + inner + "}"))
    out = list(map("".join, zip(*pieces, strict=False)))  # (the repeat()s never end: the columns do)
    return ["[\n" + inner, (out, ",\n" + inner), "\n" + ind + "]"]


def dumps(obj, indent: int = 2) -> str:
    """``json.dumps(obj, indent=indent, ensure_ascii=False)``."""
    try:
        return _value(obj, " " * indent, "")
    except _Other:
        return json.dumps(obj, indent=indent, ensure_ascii=False)
