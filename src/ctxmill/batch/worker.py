"""A pool worker: ``python -m ctxmill.batch.worker``, one task line in, one record line out.

It lives as long as the batch (the interpreter start and the compiler's imports are paid once
per worker, not per document) and dies with the driver (a killed driver leaves no worker
running). Anything the compiler prints goes to stderr: stdout carries only records.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    from ctxmill.procs import die_with_parent

    die_with_parent()
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # a stray print() must not corrupt the record stream
    sys.stdout = sys.stderr
    from ctxmill.batch.job import compile_one
    from ctxmill.tokens import preload

    preload()  # the tokenizer loads while the driver hands out the first task
    for line in sys.stdin:
        if not line.strip():
            continue
        rec = compile_one(json.loads(line))
        proto.write(json.dumps(rec, ensure_ascii=False) + "\n")
        proto.flush()


if __name__ == "__main__":
    main()
