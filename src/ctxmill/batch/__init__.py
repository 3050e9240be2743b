"""Batch compile: a folder, glob or list of documents into one output folder each, with a
manifest that lets a killed batch resume, a Parquet export of the corpus, and the same batch
on a Ray cluster (docs/batch.md).

    from ctxmill.batch import run_batch
    summary = run_batch("papers/", Path("out"), jobs=4, resume=True)
"""

from ctxmill.batch.inputs import expand, is_batch

__all__ = ["run_batch", "expand", "is_batch"]


def __getattr__(name: str):
    # the driver (manifest, pool, statistics, decimal) loads only for a batch: every one-document
    # compile asks is_batch first, and would pay its imports
    if name == "run_batch":
        from ctxmill.batch.driver import run_batch

        return run_batch
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
