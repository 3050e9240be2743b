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
