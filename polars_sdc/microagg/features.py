"""Quasi-identifier columns -> the float matrix every partition kernel works on.

Mixed data use the product distance of thesis 3.1.3, ``d^2 = sum_c w_c d_c^2``, embedded so
that plain Euclidean distance on the matrix equals it and group centroids stay meaningful:
- numeric column: z-score (unless ``standardize=False``) times sqrt(w);
- nominal String / Categorical / Enum column (discrete distance, d = 0 or 1): the one-hot of
  its category codes times sqrt(w / 2), so two different categories are exactly sqrt(w) apart.
  The kernels never build that matrix: they take the codes (:class:`Features`) and compute
  the one-hot distances from them and from per-level counts, in O(n + sum U) memory with any
  number of categories U;
- ordinal categorical column (Sano & Hattori eq. 2, d = rank difference / number of categories):
  rank / |D(V)| times sqrt(w), the rank being the Enum order or else the sorted order.

Extreme magnitudes (raw values or weights up to 1.8e308, or down to 1e-300): the whole matrix
is multiplied by one power of two so that its largest |entry| is O(1). That is exact, keeps
every ratio of distances, hence the partition, and keeps squared distances finite and nonzero.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from .._columns import check_finite, check_no_nulls, is_numeric
from .._errors import SDCError

#: Largest one-hot matrix (bytes) built for the one step that still needs it: MHM order
#: "vgrid" with nominal columns (1 GiB).
ONEHOT_CAP_BYTES = 1 << 30


def category_codes(s: pl.Series) -> tuple[np.ndarray, int]:
    """Dense codes 0..U-1 of a String/Categorical/Enum Series and U, the size of its domain
    (all Enum categories; the distinct values otherwise). Enum codes follow the Enum order,
    other codes the sorted order of the values."""
    if isinstance(s.dtype, pl.Enum):
        return s.to_physical().to_numpy().astype(np.int64), len(s.dtype.categories)
    codes = s.cast(pl.String).rank("dense").cast(pl.Int64).to_numpy() - 1
    return codes, int(codes.max()) + 1 if codes.size else 0


@dataclass(frozen=True)
class Features:
    """The quasi-identifiers as the partition kernels take them, in O(n (p + m) + sum U) memory:
    ``numeric`` (n, p) float64 (z-scored / ordinal / weighted columns) and, for the m nominal
    columns, ``codes`` (n, m) int32 (0 .. levels[c] - 1, the used categories in sorted / Enum
    order) with ``scale[c]`` = a_c, the value a one-hot embedding of column c would hold
    (sqrt(w / 2), times the common power of two): two different categories are sqrt(2) a_c
    apart, and a row of category u is at squared distance a_c^2 (1 - 2 f_u + sum_v f_v^2)
    from a centroid whose category frequencies are f (thesis 3.1.3, the discrete distance).
    :meth:`dense` builds that one-hot matrix (the embedding of :func:`feature_matrix`).

    >>> f = features(pl.DataFrame({"x": [1.0, 2.0, 3.0], "c": ["b", "a", "b"]}), ["x", "c"])
    >>> f.codes.ravel().tolist(), f.levels.tolist(), round(float(f.scale[0]), 4)
    ([1, 0, 1], [2], 0.7071)
    >>> f.dense().round(4).tolist()[1]
    [0.0, 0.7071, 0.0]
    """

    numeric: np.ndarray
    codes: np.ndarray
    levels: np.ndarray
    scale: np.ndarray
    layout: tuple[tuple[str, int], ...] = ()
    names: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        """Number of rows."""
        return self.numeric.shape[0]

    @property
    def has_codes(self) -> bool:
        """True when some quasi-identifier is nominal."""
        return self.codes.shape[1] > 0

    def dense_bytes(self) -> int:
        """Size of :meth:`dense` in bytes."""
        return 8 * self.n * (self.numeric.shape[1] + int(self.levels.sum()))

    def dense(self, *, cap: float | None = None, purpose: str = "this step") -> np.ndarray:
        """The C-contiguous float64 one-hot embedding (n, p + sum U), numeric and one-hot
        blocks in the order of the ``on`` columns; :class:`SDCError` when it would take more
        than ``cap`` bytes (default :data:`ONEHOT_CAP_BYTES`; ``math.inf``: no cap)."""
        if not self.has_codes:
            return self.numeric
        size = self.dense_bytes()
        cap = ONEHOT_CAP_BYTES if cap is None else cap
        if size > cap:
            worst = int(np.argmax(self.levels))
            raise SDCError(
                f"column {self.names[worst]!r}: {int(self.levels[worst])} categories; {purpose} needs the one-hot "
                f"matrix of the nominal columns ({size / 2**30:.2f} GiB for {self.n} rows, more than the "
                f"{cap / 2**30:.2f} GiB cap) — recode it first (df.sdc.recode) or leave out {purpose}"
            )
        blocks = []
        for kind, j in self.layout:
            if kind == "num":
                blocks.append(self.numeric[:, j : j + 1])
            else:
                block = np.zeros((self.n, int(self.levels[j])))
                block[np.arange(self.n), self.codes[:, j]] = self.scale[j]
                blocks.append(block)
        return np.ascontiguousarray(np.hstack(blocks)) if blocks else np.empty((self.n, 0))

    def unit_scaled(self) -> Features:
        """:func:`polars_sdc.standardize.unit_scale` of the embedding (numeric values and
        one-hot values a_c divided by one power of two when the largest is outside
        [2^-100, 2^100]); exact, as for a dense matrix."""
        from ..standardize import SAFE_EXP, pow2_exponent, unit_scale

        if not self.has_codes:
            return replace(self, numeric=unit_scale(self.numeric))
        if not np.all(np.isfinite(self.numeric)):
            unit_scale(self.numeric)  # raises the one error message
        top = max(float(np.max(np.abs(self.numeric))) if self.numeric.size else 0.0,
                  float(np.max(np.abs(self.scale))) if self.n else 0.0)
        e = pow2_exponent(np.array([top]))
        if -SAFE_EXP <= e <= SAFE_EXP:
            return self
        return replace(self, numeric=np.ascontiguousarray(np.ldexp(self.numeric, -e)), scale=np.ldexp(self.scale, -e))

    def kernel_codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(codes (n, m) int32, offsets (m + 1,) of each column's levels in a length-sum(U)
        count array, weight group of each column, a^2 of each group): columns with the same
        a_c share a group so their integer numerators add exactly (ties stay ties)."""
        off = np.zeros(self.levels.size + 1, dtype=np.int64)
        np.cumsum(self.levels, out=off[1:])
        a2 = self.scale * self.scale
        gw, gid = np.unique(a2, return_inverse=True)
        return (np.ascontiguousarray(self.codes, dtype=np.int32), off,
                np.ascontiguousarray(gid.ravel(), dtype=np.int64), np.ascontiguousarray(gw, dtype=np.float64))


def as_features(X: np.ndarray | Features) -> Features:
    """A :class:`Features` for a plain float matrix (no nominal column) or X itself."""
    if isinstance(X, Features):
        return X
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    return Features(X, np.empty((X.shape[0], 0), dtype=np.int32), np.empty(0, dtype=np.int64), np.empty(0),
                    tuple(("num", j) for j in range(X.shape[1])))


def feature_matrix(
    df: pl.DataFrame,
    on: Sequence[str],
    *,
    standardize: bool = True,
    ordinal: Sequence[str] = (),
    weights: Mapping[str, float] | None = None,
    cap: float | None = None,
) -> np.ndarray:
    """The C-contiguous float64 matrix whose Euclidean distance is the product distance of
    the ``on`` columns (see the module docstring): :func:`features` with nominal columns
    one-hot encoded (:class:`SDCError` beyond ``cap`` bytes, default :data:`ONEHOT_CAP_BYTES`).

    >>> import polars as pl
    >>> feature_matrix(pl.DataFrame({"c": ["a", "b", "a"]}), ["c"]).round(4).tolist()
    [[0.7071, 0.0], [0.0, 0.7071], [0.7071, 0.0]]
    """
    return features(df, on, standardize=standardize, ordinal=ordinal, weights=weights).dense(
        cap=cap, purpose="a dense feature matrix"
    )


def features(
    df: pl.DataFrame,
    on: Sequence[str],
    *,
    standardize: bool = True,
    ordinal: Sequence[str] = (),
    weights: Mapping[str, float] | None = None,
) -> Features:
    """The :class:`Features` of the ``on`` columns: the product distance (module docstring)
    with nominal columns kept as codes, so any number of categories fits in O(n) memory.

    >>> features(pl.DataFrame({"c": ["a", "b", "a"]}), ["c"]).codes.ravel().tolist()
    [0, 1, 0]
    """
    from ..standardize import SAFE_EXP, pow2_exponent, zscore

    weights = dict(weights or {})
    for c, w in weights.items():
        if c not in on:
            raise SDCError(f"column {c!r}: has a weight but is not a quasi-identifier")
        if isinstance(w, bool) or not (isinstance(w, (int, float, np.integer, np.floating)) and np.isfinite(w) and w >= 0):
            raise SDCError(f"column {c!r}: weight must be a finite number >= 0, got {w!r}")
    # each block is (values, e): the true features are values * 2^e, so neither a huge value
    # (|x| ~ 1e308 with standardize=False) nor a huge weight (w ~ 1e308) overflows here; a
    # nominal block is its one-hot value a as a (1, 1) array (every one-hot entry is 0 or a)
    blocks: list[tuple[np.ndarray, int]] = []
    kinds: list[str] = []
    codes_list: list[np.ndarray] = []
    levels: list[int] = []
    names: list[str] = []
    for c in on:
        s = df.get_column(c)
        w = float(weights.get(c, 1.0))
        if is_numeric(s.dtype):
            check_finite(df, [c])
            x = s.cast(pl.Float64).to_numpy().reshape(-1, 1)
            v = zscore(x) if standardize else x
            blocks.append(_weighted(v, w))
            kinds.append("num")
            continue
        check_no_nulls(df, [c])
        codes, size = category_codes(s)
        if c in ordinal:
            blocks.append(_weighted((codes / max(size, 1)).reshape(-1, 1), w))
            kinds.append("num")
            continue
        used, dense = np.unique(codes, return_inverse=True)
        blocks.append(_weighted(np.ones((1, 1)) if used.size else np.zeros((1, 1)), w / 2.0))
        kinds.append("nom")
        codes_list.append(np.asarray(dense, dtype=np.int32).ravel())
        levels.append(int(used.size))
        names.append(c)
    n = df.height
    if blocks:
        live = [(b, e + pow2_exponent(b)) for b, e in blocks if b.size and np.any(b != 0)]
        top = max((t for _, t in live), default=0)
        if not (all(e == 0 for _, e in blocks) and -SAFE_EXP <= top <= SAFE_EXP):
            # one common power of two for every block: the largest |feature| becomes O(1)
            blocks = [(np.ldexp(b, e - top), 0) for b, e in blocks]
    num = [b for (b, _), kind in zip(blocks, kinds) if kind == "num"]
    scale = np.array([float(b[0, 0]) for (b, _), kind in zip(blocks, kinds) if kind == "nom"], dtype=np.float64)
    layout, jn, jc = [], 0, 0
    for kind in kinds:
        layout.append((kind, jn if kind == "num" else jc))
        jn, jc = jn + (kind == "num"), jc + (kind == "nom")
    numeric = np.ascontiguousarray(np.hstack(num)) if num else np.empty((n, 0))
    codes_arr = np.ascontiguousarray(np.column_stack(codes_list), dtype=np.int32) if codes_list else np.empty((n, 0), np.int32)
    return Features(numeric, codes_arr, np.array(levels, dtype=np.int64), scale, tuple(layout), tuple(names))


def _sqrt_pow2(w: float) -> tuple[float, int]:
    """(m, e) with sqrt(w) = m * 2^e exactly up to the rounding of one sqrt; m in [0.5, 2)."""
    if w == 0.0:
        return 0.0, 0
    f, ew = np.frexp(w)
    if ew % 2:
        f, ew = f * 2.0, ew - 1
    return float(np.sqrt(f)), int(ew // 2)


def _weighted(v: np.ndarray, w: float) -> tuple[np.ndarray, int]:
    """The block v * sqrt(w) as (values, e): plainly when that is safe, else with v and
    sqrt(w) split into mantissa and power of two so nothing overflows or underflows."""
    from ..standardize import SAFE_EXP, pow2_exponent

    with np.errstate(over="ignore", under="ignore"):
        out = v * np.sqrt(w)
    if np.all(np.isfinite(out)) and -SAFE_EXP <= pow2_exponent(out) <= SAFE_EXP:
        if w == 0.0 or not np.any(v != 0) or np.any(out != 0):
            return out, 0
    m, ew = _sqrt_pow2(w)
    ev = pow2_exponent(v)
    return np.ldexp(v, -ev) * m, ev + ew
