"""Placeholder: the owner of this stage replaces it (see the issue). Does nothing yet."""

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document


def run(doc: Document, options: CompileOptions) -> None:
    return None


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    return []
