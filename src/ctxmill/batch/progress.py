"""Batch progress on stderr: documents/s, pages/s and ETA.

On a terminal: a tqdm bar when tqdm is installed, else one self-rewriting line. Into a file or
a pipe (a CI log, nohup): a plain line every 10 s and a last one at the end, never a bar.
"""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, skipped: int = 0, enabled: bool = True):
        self.total, self.done, self.pages, self.failed = total, 0, 0, 0
        self.skipped = skipped
        self.t0 = self._last = time.monotonic()
        self.enabled = enabled and total > 0
        self.tty = sys.stderr.isatty()
        self.bar = None
        if self.enabled and self.tty:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="doc", file=sys.stderr, dynamic_ncols=True,
                                desc="compile", smoothing=0.1)
            except ImportError:
                self.bar = None

    def update(self, rec: dict) -> None:
        self.done += 1
        self.pages += rec.get("pages") or 0
        self.failed += rec["status"] != "done"
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(f"{self._pps():.1f} pages/s, {self.failed} not done", refresh=False)
            self.bar.update(1)
            return
        now = time.monotonic()
        if self.tty and now - self._last >= 0.2 or not self.tty and now - self._last >= 10:
            self._last = now
            self._line(end="\r" if self.tty else "\n")

    def _pps(self) -> float:
        return self.pages / max(time.monotonic() - self.t0, 1e-9)

    def _line(self, end: str) -> None:
        el = max(time.monotonic() - self.t0, 1e-9)
        dps = self.done / el
        eta = (self.total - self.done) / dps if dps else 0.0
        sys.stderr.write(f"compile {self.done}/{self.total} documents, {dps:.2f} docs/s, {self._pps():.1f} "
                         f"pages/s, {self.failed} not done, ETA {eta:.0f}s{end}")
        sys.stderr.flush()

    def close(self) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.close()
        else:
            self._line(end="\n")
