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
import sys
import threading
from array import array
from importlib import resources
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import pycrfsuite

if TYPE_CHECKING:
    import numpy as np

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
_FEATURE_DTYPE = [("type", "<u4"), ("src", "<u4"), ("dst", "<u4"), ("w", "<f8")]
_FEAT = struct.Struct("<IIId")
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
        import numpy as np

        at = np.arange(0, n * self.n, self.n) + got
        total = sum((self.alpha[at] * self.beta[at] / self.scale[:n]).tolist())
        return list(map(self.names.__getitem__, got)), total / n


def _view(p, size: int) -> np.ndarray:
    """A float64 array over CRFsuite's memory (np.ctypeslib costs an import at load)."""
    import numpy as np

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
    record's offset (id, size, bytes, NUL)."""
    bwd_offset = struct.unpack_from("<I", buf, at + 20)[0]
    offs = _uint32s(buf, at + bwd_offset, count)
    size = struct.Struct("<I").unpack_from
    return [buf[o + 8:o + 7 + size(buf, o + 4)[0]] for o in map(at.__add__, offs)]


def _uint32s(buf: bytes, at: int, count: int) -> array:
    a = array("I")
    if a.itemsize != 4:  # (an unsigned int of another size: read them one by one)
        return array("q", struct.unpack_from(f"<{count}I", buf, at))
    a.frombytes(buf[at:at + 4 * count])
    if sys.byteorder != "little":
        a.byteswap()
    return a


def _transitions(buf: bytes) -> list[tuple[int, int, float]]:
    """The model's transition features (source, destination, weight) in the file's order, found
    through the labels' feature references rather than by reading every feature."""
    _, _, _, _, _, n_labels, _, off_f, _, _, off_lrefs, _ = _HEADER.unpack_from(buf, 0)
    fids = []
    for at in _uint32s(buf, off_lrefs + 12, n_labels):
        k = struct.unpack_from("<I", buf, at)[0]
        fids += _uint32s(buf, at + 4, k)
    out = []
    for fid in sorted(fids):
        t, src, dst, w = _FEAT.unpack_from(buf, off_f + 12 + 20 * fid)
        if t == 1:
            out.append((src, dst, w))
    return out


def scores_model(buf: bytes) -> bytes:
    """A model with the labels and transitions of ``buf`` whose attributes are the labels,
    each a state feature of weight 1 for its own label: an item {label: score, ...} gives
    each label exactly that state score."""
    _, _, _, _, _, n_labels, _, off_f, off_l, off_a, _, _ = _HEADER.unpack_from(buf, 0)
    trans = _transitions(buf)
    labels_db = buf[off_l:off_l + struct.unpack_from("<I", buf, off_l + 4)[0]]
    out = bytearray(48)

    def align() -> None:
        out.extend(b"\0" * (-len(out) % 4))

    off_feat = len(out)
    body = b"".join(struct.pack("<IIId", 0, k, k, 1.0) for k in range(n_labels))
    body += b"".join(struct.pack("<IIId", 1, s, d, w) for s, d, w in trans)
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

    src = [s for s, _, _ in trans]
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
                import numpy as np

                buf = model_path().read_bytes()
                _, _, _, _, _, n_labels, n_attrs, off_f, off_l, off_a, _, _ = _HEADER.unpack_from(buf, 0)
                feats = np.frombuffer(buf, np.dtype(_FEATURE_DTYPE), struct.unpack_from("<I", buf, off_f + 8)[0], off_f + 12)
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
    import numpy as np

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
    rows = scores.tolist() if hasattr(scores, "tolist") else scores
    items = list(map(dict, map(zip, repeat(labels), rows)))  # {label: score} per token
    found = t.tag(items)
    return list(map(field_label, found)), sum(map(t.marginal, found, range(len(found)))) / len(found)


def load() -> None:
    """Everything the first parse in a process would load (the benchmark times it)."""
    from ctxmill.compile.refparse.lexicon import gazetteers

    if native() is None:  # (parsing takes the numpy road)
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


# --- parsing without numpy: CRFsuite sums the scores as well ------------------------------------
# numpy's import was ~0.09 of the ~0.16 CPU-s a compile with a bibliography paid before its first
# entry was labelled (issue 26). Parsing therefore hands CRFsuite, through the tagger interface
# pycrfsuite's extension exports (crfsuite_create_instance_from_memory, a model's get_tagger and
# its tagger's set), instances whose items it sums itself (crf1dt_state_score: a state score
# starts at 0 and each content adds weight x value, in the content's order). Twice, so that
# every sum is the one features.sequence_scores makes with numpy, in its order:
# - the groups (a token text's own features, the views its neighbours get, a stretch's, a
#   position's): one item per group, its features' attribute ids with value 1, in the shipped
#   model: each label's score is the group's weights added one after another;
# - a string: one item per token, in the scores model (``scores_model``: attribute k is label k
#   with weight 1), whose 7 x 18 contents are the token's group rows in the order
#   own, p1, n1, p2, n2, stretch, position: 0 + own + p1 + ... as numpy adds them.
# Viterbi and the marginals then run on that tagger's context as Lattice runs them.


class _Item(ctypes.Structure):  # crfsuite_item_t
    _fields_ = [("num_contents", ctypes.c_int), ("cap_contents", ctypes.c_int), ("contents", ctypes.c_void_p)]


class _Instance(ctypes.Structure):  # the head of crfsuite_instance_t (all that set() reads)
    _fields_ = [("num_items", ctypes.c_int), ("cap_items", ctypes.c_int), ("items", ctypes.c_void_p),
                ("labels", ctypes.c_void_p), ("weight", ctypes.c_double), ("group", ctypes.c_int)]


_GET_TAGGER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_SET = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_Instance))


class _ModelStruct(ctypes.Structure):  # crfsuite_model_t
    _fields_ = [("internal", ctypes.c_void_p), ("nref", ctypes.c_int), ("addref", ctypes.c_void_p),
                ("release", ctypes.c_void_p), ("get_tagger", _GET_TAGGER), ("get_labels", ctypes.c_void_p),
                ("get_attrs", ctypes.c_void_p), ("dump", ctypes.c_void_p)]


class _TaggerStruct(ctypes.Structure):  # crfsuite_tagger_t
    _fields_ = [("internal", ctypes.c_void_p), ("nref", ctypes.c_int), ("addref", ctypes.c_void_p),
                ("release", ctypes.c_void_p), ("set", _SET), ("length", ctypes.c_void_p), ("viterbi", ctypes.c_void_p),
                ("score", ctypes.c_void_p), ("lognorm", ctypes.c_void_p), ("marginal_point", ctypes.c_void_p),
                ("marginal_path", ctypes.c_void_p)]


class _Crf1dt(ctypes.Structure):  # crf1dt_t (lib/crf/src/crf1d_tag.c), the tagger's internal
    _fields_ = [("model", ctypes.c_void_p), ("ctx", ctypes.POINTER(_Context)), ("num_labels", ctypes.c_int),
                ("num_attributes", ctypes.c_int), ("level", ctypes.c_int)]


RECORD = struct.Struct("<i4xd")  # crfsuite_attribute_t: an attribute id and its value


class _Side:
    """One model opened by CRFsuite's C interface, its tagger and a buffer for instances."""

    def __init__(self, lib, data: bytes, n_labels: int, n_attrs: int) -> None:
        self.data = ctypes.create_string_buffer(data, len(data))  # CRFsuite reads the model in place
        p = ctypes.c_void_p()
        if lib.crfsuite_create_instance_from_memory(self.data, len(data), ctypes.byref(p)) or not p.value:
            raise RuntimeError("CRFsuite did not open the model")
        self.model = p
        t = ctypes.c_void_p()
        if ctypes.cast(p, ctypes.POINTER(_ModelStruct)).contents.get_tagger(p, ctypes.byref(t)) or not t.value:
            raise RuntimeError("CRFsuite gave no tagger")
        self.tagger = t
        tagger = ctypes.cast(t, ctypes.POINTER(_TaggerStruct)).contents
        self._set = tagger.set
        crf1dt = ctypes.cast(tagger.internal, ctypes.POINTER(_Crf1dt)).contents
        if (crf1dt.num_labels, crf1dt.num_attributes) != (n_labels, n_attrs):
            raise RuntimeError("CRFsuite's tagger is not laid out as expected")
        self.ctx = crf1dt.ctx
        self.c = self.ctx.contents
        if self.c.num_labels != n_labels:
            raise RuntimeError("CRFsuite's context is not laid out as expected")
        self.n = n_labels
        self.inst = _Instance()
        self.inst_ref = ctypes.byref(self.inst)
        self.room = 0
        self.base = 0
        self.items = None
        self.fixed = None  # (contents an item, items) the items array is laid out for
        self._cap = -1

    def _contents(self, size: int) -> None:
        if size > self.room:
            self.buf = ctypes.create_string_buffer(max(size, 2 * self.room, 1 << 16))
            self.room = len(self.buf)
            self.base = ctypes.addressof(self.buf)
            self.fixed = None

    def set_fixed(self, contents: bytes, n: int, k: int) -> None:
        """n items of k contents each, laid one after another in ``contents``."""
        self._contents(len(contents))
        if self.fixed is None or self.fixed[0] != k or self.fixed[1] < n:
            cap = max(n, 256)
            self.items = (_Item * cap)(*[(k, k, self.base + 16 * k * t) for t in range(cap)])
            self.inst.items = ctypes.addressof(self.items)
            self.fixed = (k, cap)
        ctypes.memmove(self.base, contents, len(contents))
        self.inst.num_items = n
        self._set(self.tagger, self.inst_ref)

    def set_groups(self, groups: list[bytes]) -> None:
        """One item per group of contents."""
        contents = b"".join(groups)
        self._contents(len(contents))
        at, base, items = 0, self.base, []
        for g in groups:
            items.append((len(g) >> 4, len(g) >> 4, base + at))
            at += len(g)
        self.items = (_Item * len(groups))(*items)
        self.inst.items = ctypes.addressof(self.items)
        self.fixed = None
        ctypes.memmove(base, contents, len(contents))
        self.inst.num_items = len(groups)
        self._set(self.tagger, self.inst_ref)

    def matrices(self) -> tuple:
        """Memoryviews (doubles) of the context's state, alpha, beta and scale factors, made again
        after set_num_items reallocated them."""
        c = self.c
        if c.cap_items != self._cap:
            size = c.cap_items * self.n
            self._views = tuple(_doubles(p, size) for p in (c.state, c.alpha_score, c.beta_score)) \
                + (_doubles(c.scale_factor, c.cap_items),)
            self.best = (ctypes.c_int * c.cap_items)()
            self._cap = c.cap_items
        return self._views


def _doubles(p, size: int) -> memoryview:
    return memoryview((ctypes.c_double * size).from_address(ctypes.addressof(p.contents))).cast("B").cast("d")


GROUP = 32  # contents of a group's item (a token's own features are ~12, a stretch's 14)


class _Records(dict):
    """A feature's content in an item of the shipped model (its attribute id, value 1), b"" for a
    feature the model lacks (it adds nothing, as numpy's zero row)."""

    def __init__(self, index: dict[bytes, int]) -> None:
        super().__init__()
        self.index = index

    def __missing__(self, name: bytes) -> bytes:
        aid = self.index.get(name)
        r = self[name] = b"" if aid is None else RECORD.pack(aid, 1.0)
        return r


class Native:
    """The shipped model for parsing without numpy (see above): attribute ids, group sums and
    tagging, each in CRFsuite."""

    def __init__(self, buf: bytes) -> None:
        lib = ctypes.CDLL(pycrfsuite._pycrfsuite.__file__)
        lib.crfsuite_create_instance_from_memory.restype = ctypes.c_int
        lib.crfsuite_create_instance_from_memory.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                                             ctypes.POINTER(ctypes.c_void_p)]
        ptr = ctypes.POINTER(_Context)
        lib.crf1dc_viterbi.restype, lib.crf1dc_viterbi.argtypes = ctypes.c_double, [ptr, ctypes.POINTER(ctypes.c_int)]
        for fn in ("crf1dc_exp_state", "crf1dc_alpha_score", "crf1dc_beta_score"):
            getattr(lib, fn).restype, getattr(lib, fn).argtypes = None, [ptr]
        _, _, _, _, _, n_labels, n_attrs, _, off_l, off_a, _, off_arefs = _HEADER.unpack_from(buf, 0)
        self.n = n_labels
        self.index = dict(zip(_records(buf, off_a, n_attrs), range(n_attrs), strict=True))
        labels = _records(buf, off_l, n_labels)
        self.names = [field_label(lab.decode()) for lab in labels]
        self.labels = labels
        self.groups = _Side(lib, buf, n_labels, n_attrs)
        self.scores_data = scores_model(buf)
        self.strings = _Side(lib, self.scores_data, n_labels, n_labels)
        self._viterbi = lib.crf1dc_viterbi
        self._forward_backward = (lib.crf1dc_exp_state, lib.crf1dc_alpha_score, lib.crf1dc_beta_score)
        # a row's contents: label k's attribute (k) and the row's value for it
        self.template = b"".join(RECORD.pack(k, 0.0) for k in range(n_labels))
        self.records = _Records(self.index)
        # Groups go to CRFsuite as items of GROUP contents each (one items array for every batch),
        # a shorter group padded with an attribute at value 0: weight x 0 adds 0 (a score starts
        # at +0, and +0 + -0 is +0, so no sum changes, not even a zero's sign); the attribute
        # with the fewest features among the first ones, so that padding costs least.
        counts = [struct.unpack_from("<I", buf, a)[0] for a in _uint32s(buf, off_arefs + 12, min(64, n_attrs))]
        self.pad = [RECORD.pack(counts.index(min(counts)), 0.0) * k for k in range(GROUP + 1)]

    def sums(self, groups: list[tuple[bytes, ...]]) -> list[bytes]:
        """Each group's features summed, as a row of the scores model's contents; the caller
        holds _lock."""
        recs = self.records
        if len(recs) > 200_000:  # (a hostile text's words the model lacks, each kept as b"")
            recs.clear()
        items = [b"".join(map(recs.__getitem__, g)) for g in groups]
        if max(map(len, items)) <= 16 * GROUP:
            pad = self.pad
            self.groups.set_fixed(b"".join([x for it in items for x in (it, pad[GROUP - (len(it) >> 4)])]),
                                  len(items), GROUP)
        else:
            self.groups.set_groups(items)
        state = self.groups.matrices()[0]
        return self.rows(state[: len(groups) * self.n], len(groups))

    def rows(self, values, count: int) -> list[bytes]:
        """``count`` rows of the scores model's contents from ``count`` x labels values."""
        out = bytearray(self.template * count)
        memoryview(out).cast("d")[1::2] = array("d", values) if isinstance(values, list) else values
        size = len(self.template)
        data = bytes(out)
        return [data[k:k + size] for k in range(0, count * size, size)]

    def tag(self, contents: bytes, n: int, k: int = 7) -> tuple[list[str], float]:
        """Labels and mean marginal of n tokens, each k rows of contents; the caller holds _lock."""
        side = self.strings
        side.set_fixed(contents, n, k * self.n)
        _, alpha, beta, scale = side.matrices()
        best = side.best
        ctx = side.ctx
        self._viterbi(ctx, best)
        for fn in self._forward_backward:  # as Lattice.tag: the marginals of the labels chosen
            fn(ctx)
        got = best[:n]
        L = self.n
        total = sum([alpha[t * L + b] * beta[t * L + b] / scale[t] for t, b in enumerate(got)])
        return list(map(self.names.__getitem__, got)), total / n


_native: Native | None = None
_native_tried = False


def native() -> Native | None:
    """The model for parsing without numpy, where this pycrfsuite's CRFsuite is the one it was
    written for: it must sum and tag a few made-up sequences exactly as pycrfsuite's Tagger and
    the model's own weights say, else None (parsing then takes the numpy road)."""
    global _native, _native_tried
    if not _native_tried:
        with _lock:
            if not _native_tried:
                buf = model_path().read_bytes()
                try:
                    n = Native(buf)
                    ok = _check(n, buf)
                except (OSError, AttributeError, RuntimeError, ValueError, TypeError):
                    n, ok = None, False
                _native = n if ok else None
                _native_tried = True
    return _native


def _check(n: Native, buf: bytes) -> bool:
    import math

    t = pycrfsuite.Tagger()
    t.open_inmemory(n.scores_data)
    L = n.n
    # each longer than the last, so that the context's matrices move at each (set_num_items grows
    # them to the length asked), then a shorter one in the moved ones
    for length in (1, 2, 7, 12, 5):
        scores = [[math.sin((i * L + k) * 1.7) * 3.0 for k in range(L)] for i in range(length)]
        rows = n.rows([x for r in scores for x in r], length)
        if n.tag(b"".join(rows), length, 1) != _tag_items(t, n.labels, scores):
            return False
    # group sums: a few attributes' weights added one after another, read from the file
    _, _, _, _, _, _, n_attrs, off_f, _, _, _, off_arefs = _HEADER.unpack_from(buf, 0)
    names = sorted(n.index, key=n.index.__getitem__)
    groups = [tuple(names[i] for i in range(a, min(a + 9, n_attrs), 3)) for a in range(0, n_attrs, n_attrs // 7)]
    got = n.sums(groups + [(b"\x01 no such feature",)])
    for g, row in zip(groups, got, strict=False):
        expect = [0.0] * L
        for name in g:
            at = _uint32s(buf, off_arefs + 12 + 4 * n.index[name], 1)[0]
            k = struct.unpack_from("<I", buf, at)[0]
            for fid in _uint32s(buf, at + 4, k):
                kind, _, dst, w = _FEAT.unpack_from(buf, off_f + 12 + 20 * fid)
                if kind == 0:
                    expect[dst] += w
        if list(memoryview(row).cast("d")[1::2]) != expect:
            return False
    return list(memoryview(got[-1]).cast("d")[1::2]) == [0.0] * L
