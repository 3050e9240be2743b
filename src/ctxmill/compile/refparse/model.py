"""The trained CRF (src/ctxmill/data/refparse.crfsuite), loaded once per process.

The file is written by scripts/train_refparse.py. Tagging is deterministic: the same string
always gets the same labels and the same confidence.

Parsing does not hand CRFsuite the ~30 feature strings of each token (turning them into its
items and looking each up in the model was two thirds of its time). The model's weights are
read from the file into a matrix (attribute x label), features.py sums the weights of each
token's features by groups it caches (a token text's own features, the views its neighbours
get of it, a stretch's features, the position features), and CRFsuite gets, per token, one
score per label: 18 attributes named after the labels, each with weight 1 for its own label,
in a model built in memory from the shipped one with the same labels and transitions
(``scores_model``). Viterbi and the marginals are then CRFsuite's, over the same scores up to
the order of a floating-point sum: every field and confidence of the 18,234 held-out and
training strings is the same as from the feature strings (tests/test_refparse_features.py
checks the two paths agree). Nor does it hand pycrfsuite those scores as {label: score}
dicts (converting them was 70% of tagging): ``Lattice`` copies the score matrix into the
context of CRFsuite's Viterbi and forward-backward functions, which pycrfsuite's extension
exports, and runs them there; it is used only where it tags a few sequences exactly as the
Tagger does.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from importlib import resources
from itertools import repeat
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pycrfsuite

_lock = threading.Lock()
_tagger: pycrfsuite.Tagger | None = None
_weights: Weights | None = None


def model_path() -> Path:
    return Path(str(resources.files("ctxmill") / "data" / "refparse.crfsuite"))


def tagger() -> pycrfsuite.Tagger:
    """The model as trained: takes feature strings (training and its checks use this)."""
    global _tagger
    if _tagger is None:
        with _lock:
            if _tagger is None:
                t = pycrfsuite.Tagger()
                t.open(str(model_path()))
                _tagger = t
    return _tagger


def tag(features: list[list[bytes]]) -> tuple[list[str], float]:
    """Best labels for one sequence of feature lists and its confidence: the mean marginal
    probability of the labels chosen (on the held-out sets it tells wrong parses from right
    ones better than the probability of the whole sequence or the least sure token)."""
    if not features:
        return [], 0.0
    t = tagger()
    with _lock:  # a Tagger holds the sequence it last tagged: one sequence at a time
        labels = t.tag(features)
        total = sum(map(t.marginal, labels, range(len(labels))))  # the same sum, without a generator
    return list(map(field_label, labels)), total / len(labels)


def field_label(label: str) -> str:
    """The field a model label is: a model may give a field's first or last token a label of
    its own ("B-title", "E-title": scripts/train_refparse.py --begin, --end), which is that
    field's token like the rest."""
    return label[2:] if label[1:2] == "-" else label


# --- the model's weights, and a model that takes scores -------------------------------------
# CRFsuite's file (lib/crf/src/crf1d_model.c, lib/cqdb/src/cqdb.c in CRFsuite's sources): a
# 48-byte header, features of 20 bytes (type: 0 state / 1 transition, source, destination,
# a float64 weight), two constant hash databases of strings (labels, attributes; each record
# id, size, bytes, NUL) and, per label and per attribute, the ids of its features.
_HEADER = struct.Struct("<4sI4sIIIIIIIII")
_FEATURE = np.dtype([("type", "<u4"), ("src", "<u4"), ("dst", "<u4"), ("w", "<f8")])
_CQDB_DATA = 24 + 256 * 8  # a database's header and its 256 hash-table references


class _Context(ctypes.Structure):
    """The head of CRFsuite's crf1d_context_t (lib/crf/src/crf1d.h): sizes, then the matrices
    Viterbi and the forward-backward pass read and write, each T x L (L x L for trans)."""
    _fields_ = [("flag", ctypes.c_int), ("num_labels", ctypes.c_int), ("num_items", ctypes.c_int),
                ("cap_items", ctypes.c_int), ("log_norm", ctypes.c_double),
                ("state", ctypes.POINTER(ctypes.c_double)), ("trans", ctypes.POINTER(ctypes.c_double)),
                ("alpha_score", ctypes.POINTER(ctypes.c_double)), ("beta_score", ctypes.POINTER(ctypes.c_double)),
                ("scale_factor", ctypes.POINTER(ctypes.c_double))]


class Lattice:
    """CRFsuite's own Viterbi and forward-backward (the crf1dc_* functions, which pycrfsuite's
    extension module exports) over a matrix of state scores, without pycrfsuite's items.

    Handing a token's 18 scores to ``Tagger.set`` as a {label: score} dict cost 140 us a
    string (Python dicts built, then each pair converted to a C++ attribute, its name looked
    up), where Viterbi and the marginals take 20. Here the scores are copied into the
    context's state matrix as they are, and the functions ``Tagger.tag`` and ``marginal``
    call run on it: the state scores CRFsuite would have summed are these (weight 1 x the
    score, added to 0), so labels and confidence are the same to the bit."""

    def __init__(self, n_labels: int, trans: np.ndarray, names: list[str]) -> None:
        lib = ctypes.CDLL(pycrfsuite._pycrfsuite.__file__)
        ptr = ctypes.POINTER(_Context)
        lib.crf1dc_new.restype, lib.crf1dc_new.argtypes = ptr, [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.crf1dc_set_num_items.restype, lib.crf1dc_set_num_items.argtypes = ctypes.c_int, [ptr, ctypes.c_int]
        lib.crf1dc_reset.restype, lib.crf1dc_reset.argtypes = None, [ptr, ctypes.c_int]
        lib.crf1dc_viterbi.restype, lib.crf1dc_viterbi.argtypes = ctypes.c_double, [ptr, ctypes.POINTER(ctypes.c_int)]
        for fn in ("crf1dc_exp_state", "crf1dc_exp_transition", "crf1dc_alpha_score", "crf1dc_beta_score"):
            getattr(lib, fn).restype, getattr(lib, fn).argtypes = None, [ptr]
        self.lib, self.names, self.n = lib, names, n_labels
        self.ctx = lib.crf1dc_new(0x03, n_labels, 0)  # CTXF_VITERBI | CTXF_MARGINALS
        self.c = self.ctx.contents
        if self.c.num_labels != n_labels:
            raise RuntimeError("CRFsuite's context is not laid out as expected")
        lib.crf1dc_reset(self.ctx, 0x02)  # RF_TRANS
        lib.crf1dc_set_num_items(self.ctx, 256)  # room for most strings: the matrices move only beyond
        _view(self.c.trans, n_labels * n_labels)[:] = trans.ravel()
        lib.crf1dc_exp_transition(self.ctx)
        # the functions a string calls, bound once (an attribute of the CDLL is looked up per call)
        self._set_num, self._viterbi = lib.crf1dc_set_num_items, lib.crf1dc_viterbi
        self._forward_backward = (lib.crf1dc_exp_state, lib.crf1dc_alpha_score, lib.crf1dc_beta_score)
        self._cap = -1
        self._arrays()

    def _arrays(self) -> None:
        # views of the context's matrices, made again when set_num_items has reallocated them
        # (it does so only to grow past cap_items), and an array for Viterbi's labels
        c = self.c
        size = c.cap_items * self.n
        self.state, self.alpha, self.beta = (_view(p, size) for p in (c.state, c.alpha_score, c.beta_score))
        self.scale = _view(c.scale_factor, c.cap_items)
        self.best = (ctypes.c_int * c.cap_items)()
        self._cap = c.cap_items

    def tag(self, scores: np.ndarray) -> tuple[list[str], float]:
        """Labels and mean marginal of a (tokens x labels) score matrix; the caller holds _lock."""
        n, ctx = len(scores), self.ctx
        if self._set_num(ctx, n):
            raise MemoryError("CRFsuite could not allocate its lattice")
        if self.c.cap_items != self._cap:
            self._arrays()
        self.state[: n * self.n] = scores.ravel()
        best = self.best
        self._viterbi(ctx, best)
        # what Tagger.marginal computes at its first call: crf1dc_marginal_point is
        # fwd[l] * bwd[l] / scale_factor[t], summed here in the same order
        for fn in self._forward_backward:
            fn(ctx)
        got = best[:n]
        at = np.arange(0, n * self.n, self.n) + got
        total = sum((self.alpha[at] * self.beta[at] / self.scale[:n]).tolist())
        return list(map(self.names.__getitem__, got)), total / n


def _view(p, size: int) -> np.ndarray:
    """A float64 array over CRFsuite's memory (np.ctypeslib costs an import at load)."""
    return np.frombuffer((ctypes.c_double * size).from_address(ctypes.addressof(p.contents)), np.float64)


class Weights(NamedTuple):
    index: dict[bytes, int]     # attribute -> row of ``matrix`` (a feature the model lacks: ``absent``)
    matrix: np.ndarray          # (attributes + 1, labels) float64, the last row zeros
    absent: int
    labels: list[bytes]         # label names by id: the attribute names of ``scores``
    scores: pycrfsuite.Tagger   # the model that takes one score per label (see the module doc)
    data: bytes                 # ``scores``'s file in memory: CRFsuite reads it in place
    lattice: Lattice | None     # what tags the scores (None: pycrfsuite's Tagger does)


def _records(buf: bytes, at: int, count: int) -> list[bytes]:
    """The strings of a constant hash database at ``at``, by id: its back-link array gives each
    record's offset (id, size, bytes, NUL), read as arrays rather than record by record."""
    bwd_offset = struct.unpack_from("<I", buf, at + 20)[0]
    offs = np.frombuffer(buf, "<u4", count, at + bwd_offset).astype(np.int64) + at
    raw = np.frombuffer(buf, np.uint8)
    sizes = raw[offs + 4].astype(np.int64) | raw[offs + 5].astype(np.int64) << 8 \
        | raw[offs + 6].astype(np.int64) << 16 | raw[offs + 7].astype(np.int64) << 24
    return [buf[s:s + k - 1] for s, k in zip((offs + 8).tolist(), sizes.tolist(), strict=True)]


def scores_model(buf: bytes) -> bytes:
    """A model with the labels and transitions of ``buf`` whose attributes are the labels,
    each a state feature of weight 1 for its own label: an item {label: score, ...} gives
    each label exactly that state score."""
    _, _, _, _, _, n_labels, _, off_f, off_l, off_a, _, _ = _HEADER.unpack_from(buf, 0)
    feats = np.frombuffer(buf, _FEATURE, struct.unpack_from("<I", buf, off_f + 8)[0], off_f + 12)
    trans = feats[feats["type"] == 1]
    labels_db = buf[off_l:off_l + struct.unpack_from("<I", buf, off_l + 4)[0]]
    out = bytearray(48)

    def align() -> None:
        out.extend(b"\0" * (-len(out) % 4))

    off_feat = len(out)
    body = b"".join(struct.pack("<IIId", 0, k, k, 1.0) for k in range(n_labels))
    body += b"".join(struct.pack("<IIId", 1, s, d, w) for s, d, w in
                     zip(trans["src"].tolist(), trans["dst"].tolist(), trans["w"].tolist(), strict=True))
    out += struct.pack("<4sII", b"FEAT", 12 + len(body), n_labels + len(trans)) + body
    align()
    off_labels = len(out)
    out += labels_db
    align()
    off_attrs = len(out)
    out += labels_db  # the attributes are the labels, with the same ids
    align()

    def refs(chunk: bytes, lists: list[list[int]]) -> int:
        at = len(out)
        head = 12 + 4 * len(lists)
        offsets, data = [], b""
        for fids in lists:
            offsets.append(at + head + len(data))
            data += struct.pack(f"<I{len(fids)}I", len(fids), *fids)
        out.extend(struct.pack(f"<4sII{len(lists)}I", chunk, head + len(data), len(lists), *offsets) + data)
        align()
        return at

    src = trans["src"].tolist()
    off_lrefs = refs(b"LFRF", [[n_labels + j for j, s in enumerate(src) if s == k] for k in range(n_labels)])
    off_arefs = refs(b"AFRF", [[k] for k in range(n_labels)])
    _HEADER.pack_into(out, 0, b"lCRF", len(out), b"FOMC", 100, 0, n_labels, n_labels, off_feat, off_labels,
                      off_attrs, off_lrefs, off_arefs)
    return bytes(out)


def weights() -> Weights:
    """The shipped model's state weights as a matrix, and the model that takes scores."""
    global _weights
    if _weights is None:
        with _lock:
            if _weights is None:
                buf = model_path().read_bytes()
                _, _, _, _, _, n_labels, n_attrs, off_f, off_l, off_a, _, _ = _HEADER.unpack_from(buf, 0)
                feats = np.frombuffer(buf, _FEATURE, struct.unpack_from("<I", buf, off_f + 8)[0], off_f + 12)
                state = feats[feats["type"] == 0]
                matrix = np.zeros((n_attrs + 1, n_labels))
                matrix[state["src"], state["dst"]] = state["w"]
                names = _records(buf, off_a, n_attrs)
                labels = _records(buf, off_l, n_labels)
                data = scores_model(buf)
                t = pycrfsuite.Tagger()
                t.open_inmemory(data)
                _weights = Weights(dict(zip(names, range(n_attrs), strict=True)), matrix, n_attrs, labels, t, data,
                                   _lattice(feats[feats["type"] == 1], labels, t))
    return _weights


def _lattice(trans: np.ndarray, labels: list[bytes], tagger: pycrfsuite.Tagger) -> Lattice | None:
    """The Lattice, where this pycrfsuite's CRFsuite is the one it was written for: it must
    tag a few made-up sequences exactly as the Tagger does, else the Tagger is used."""
    n = len(labels)
    matrix = np.zeros((n, n))
    matrix[trans["src"], trans["dst"]] = trans["w"]
    try:
        lat = Lattice(n, matrix, [field_label(lab.decode()) for lab in labels])
    except (OSError, AttributeError, RuntimeError, ValueError):
        return None
    for length in (1, 2, 7, 300):  # (numpy.random would cost 28 ms of imports at load)
        scores = np.sin(np.arange(length * n) * 1.7).reshape(length, n) * 3.0
        if lat.tag(scores) != _tag_items(tagger, labels, scores):
            return None
    return lat


def _tag_items(t: pycrfsuite.Tagger, labels: list[bytes], scores: np.ndarray) -> tuple[list[str], float]:
    items = list(map(dict, map(zip, repeat(labels), scores.tolist())))  # {label: score} per token
    found = t.tag(items)
    return list(map(field_label, found)), sum(map(t.marginal, found, range(len(found)))) / len(found)


def load() -> None:
    """Everything the first parse in a process would load (the benchmark times it)."""
    from ctxmill.compile.refparse.lexicon import gazetteers

    weights()
    gazetteers()


def tag_scores(scores: np.ndarray) -> tuple[list[str], float]:
    """``tag`` for a matrix of state scores (tokens x labels), as features.sequence_scores
    gives: the same labels and confidence as ``tag`` of the feature lists they sum."""
    if not len(scores):
        return [], 0.0
    w = weights()
    with _lock:  # one lattice (or Tagger) per process: one sequence at a time
        if w.lattice is not None:
            return w.lattice.tag(scores)
        return _tag_items(w.scores, w.labels, scores)
