"""The edit half: apply a sketched edit (:mod:`ctxmill.apply.sketch`) and, beside it, next-edit
suggestions (``next_*.py``).

    >>> from ctxmill.apply import apply_sketch
    >>> r = apply_sketch(original, sketch, path="calc.js")

The names below are loaded on first use, so ``ctxmill next-edit`` does not pay for the merge
code at start.
"""

from __future__ import annotations

__all__ = ["ApplyResult", "apply_sketch", "apply_file", "is_marker"]

_FROM_SKETCH = frozenset(__all__) | {"MAX_BYTES"}


def __getattr__(name: str):
    if name in _FROM_SKETCH:
        from ctxmill.apply import sketch

        return getattr(sketch, name)
    raise AttributeError(f"module 'ctxmill.apply' has no attribute {name!r}")
