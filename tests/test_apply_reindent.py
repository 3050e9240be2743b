"""Apply, re-indented sketches (issue 18): a sketch moved right as a whole, or stretch by
stretch, is re-based on the lines it matched; a blank line in the sketch (column 0 whatever
the depth) does not reset that, so the code after it keeps the file's depth."""

from __future__ import annotations

from ctxmill.apply import apply_sketch

FILE = '''class Pool:
    def __init__(self):
        self.jobs = {}
        self.closed = False

    def close(self):
        self.closed = True

    def run(self, job):
        if self.closed:
            return
        job.start()
'''


def _shift(text, k):
    return "\n".join(" " * k + x if x.strip() else x for x in text.split("\n"))


def test_a_sketch_shifted_right_lands_at_the_files_depth_across_blank_lines():
    sketch = _shift('''    # ... existing code ...
    def close(self):
        self.closed = True
        self.jobs.clear()

    def run(self, job):
        if self.closed:
            return
    # ... existing code ...''', 2)
    r = apply_sketch(FILE, sketch, path="pool.py")
    assert r.applied, r.reason
    assert r.result == FILE.replace("        self.closed = True\n", "        self.closed = True\n        self.jobs.clear()\n")


def test_each_stretch_between_markers_is_rebased_on_its_own_anchors():
    sketch = ('''# ... existing code ...
  def __init__(self):
      self.jobs = {}
      self.closed = False
      self.count = 0
  # ... existing code ...
        def run(self, job):
            if self.closed:
                return
            job.start()
            self.count += 1
''')
    r = apply_sketch(FILE, sketch, path="pool.py")
    assert r.applied, r.reason
    want = FILE.replace("        self.closed = False\n", "        self.closed = False\n        self.count = 0\n")
    assert r.result == want.replace("        job.start()\n", "        job.start()\n        self.count += 1\n")
