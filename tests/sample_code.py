"""Small source files the agent-facing tests index, search and read (written for ctxmill)."""

CACHE_PY = '''"""A tiny LRU cache."""

from collections import OrderedDict


class LRUCache:
    """Keeps the most recently used items up to a capacity."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.items = OrderedDict()

    def get(self, key):
        if key not in self.items:
            return None
        self.items.move_to_end(key)
        return self.items[key]

    def put(self, key, value):
        self.items[key] = value
        self.items.move_to_end(key)
        if len(self.items) > self.capacity:
            self.items.popitem(last=False)  # evict the least recently used
'''


# fmt's layout in small: core.h only forwards to base.h (format.h only under a build option)
FMT_CORE_H = """#include "base.h"

// Using fmt::format via fmt/core.h has been deprecated since version 11
// and now requires an explicit opt in.
#ifdef FMT_DEPRECATED_HEAVY_CORE
#  include "format.h"
#endif
"""


def write_fmt_headers(root):
    """include/fmt/{core,base,format}.h under ``root``; returns the include/fmt folder."""
    inc = root / "include" / "fmt"
    inc.mkdir(parents=True)
    (inc / "core.h").write_text(FMT_CORE_H)
    (inc / "base.h").write_text(
        "namespace fmt {\n// Arguments of a formatting call, type-erased.\ntemplate <typename Context>\n"
        "class basic_format_args {\n public:\n  int size() const { return n_; }\n private:\n  int n_;\n};\n}\n")
    (inc / "format.h").write_text(
        '#include "base.h"\nnamespace fmt {\nclass format_error : public std::runtime_error {\n public:\n'
        "  using std::runtime_error::runtime_error;\n};\n}\n")
    return inc
