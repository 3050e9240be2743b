"""Token counting that works offline.

Chunk budgets need a real subword tokenizer, not a word count: a URL or a table row costs
far more tokens than its words suggest. tiktoken fetches its encodings from the network the
first time it runs, so it fails on an offline machine. We use the Hugging Face ``tokenizers``
library (Apache-2.0, already a dependency) with a byte-level BPE vocabulary that ships inside
the package: ``data/tokenizer.json.gz`` is the 65k-token tokenizer that the ``anthropic`` Python
SDK 0.34 bundled as ``tokenizer.json`` (MIT licence, see ``data/tokenizer.LICENSE``),
gzipped to 0.7 MB. Its counts are close to those of current LLM tokenizers for English prose
and code, which is what a retrieval budget needs; exact parity with any one model is not the
point.
"""

from __future__ import annotations

import gzip
import threading
from pathlib import Path

TOKENIZER_NAME = "anthropic-sdk-0.34-bpe65k"

_lock = threading.Lock()
_tokenizer = None


def get_tokenizer():
    """The shared tokenizer, loaded once per process (about 0.1-0.2 s)."""
    global _tokenizer
    if _tokenizer is not None:
        return _tokenizer
    with _lock:
        if _tokenizer is None:
            from tokenizers import Tokenizer

            raw = (Path(__file__).parent / "data" / "tokenizer.json.gz").read_bytes()
            # the UTF-8 bytes as they are (from_str took a str: decoded here, encoded again
            # for Rust, ~0.03 G instructions of a command's ~0.5 G tokenizer load)
            tok = Tokenizer.from_buffer(gzip.decompress(raw))
            # Counting only: never truncate or pad.
            tok.no_truncation()
            tok.no_padding()
            _tokenizer = tok
    return _tokenizer


def preload() -> None:
    """Start loading the tokenizer in the background (a compile calls this while the source
    is parsed in its child process, so the load costs no wall time)."""
    if _tokenizer is None:
        threading.Thread(target=get_tokenizer, name="ctxmill-tokenizer", daemon=True).start()


def count_tokens(text: str) -> int:
    """Number of tokens in ``text``."""
    if not text:
        return 0
    return len(get_tokenizer().encode(text, add_special_tokens=False).ids)


def count_many(texts: list[str]) -> list[int]:
    """Token counts for many texts at once (batched in Rust, much faster than a loop)."""
    if not texts:
        return []
    tok = get_tokenizer()
    # encode_batch_fast (tokenizers >= 0.20) skips the character offsets we do not need here.
    encode = getattr(tok, "encode_batch_fast", tok.encode_batch)
    return [len(e.ids) for e in encode(list(texts), add_special_tokens=False)]


def token_offsets(text: str) -> list[tuple[int, int]]:
    """Character span of every token in ``text`` (for cutting text at a token budget)."""
    if not text:
        return []
    return list(get_tokenizer().encode(text, add_special_tokens=False).offsets)
