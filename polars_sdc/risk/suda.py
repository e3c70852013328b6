"""SUDA2 scores and DIS-SUDA (sdcMicro 5.8.1 ``suda2``, original scores).

Definitions (Elliot, Manning & Ford 2002; Manning, Haglin & Keane 2008; as sdcMicro's
``src/Suda2.h`` computes them):

- A **minimal sample unique** (MSU) of a record is a set S of keys on which its value
  combination occurs once in the sample while on every proper subset of S it occurs more than
  once. **Missing key values** (null, NaN) are ignored: a key the record misses is never part
  of its MSU; another record's missing value simply differs from every value.
- **SUDA score** of a record: sum over its MSUs of ``(M - |S|)!`` with M the number of keys
  (sdcMicro's "original scores"); with ``max_size`` < M only MSUs of up to ``max_size`` keys
  count (same weights). **With 1 or 2 keys we differ from sdcMicro by design**: sdcMicro's
  ``suda2`` warns and pads the keys with constant dummy keys up to 3, so its weights are
  ``(3 - |S|)!`` (2 keys: an MSU of one key scores 2, of both keys 1) and its DIS exponent
  uses ``M = 3``; the dummy keys are not data, so here M is always the number of keys given
  (2 keys: 1 and 1). With 3 or more keys the scores are sdcMicro's.
- **DIS-SUDA** with ``f = dis_fraction``: U = number of records unique on all keys (a missing
  value counts as a value here), P = 2 x number of key combinations with exactly two records,
  ``Dis = U f / (U f + P (1 - f))`` (computed in single precision, as sdcMicro does),
  ``Q = 1 + (8 - M) / 20``, and for a score ``s_i > 0``:
  ``DIS_i = 1 / (1 + (U / Dis - U) / (s_i^Q * sum_j s_j^-Q))`` (sum over records with
  ``s_j > 0``); ``DIS_i = 0`` when ``s_i = 0``.
- **Contribution** of key v to a record's score: the summed weights of the record's MSUs that
  contain v, divided by the score (sdcMicro ``contributionPercent``/100); per key over the
  file: ``100 * sum_i contrib_iv * s_i / sum_i s_i`` (``attribute_contributions``).
"""
from __future__ import annotations

from math import factorial

import numpy as np
import polars as pl

from .._columns import ColumnSpec
from .._errors import SDCError
from .._validation import check_int
from .frequencies import suppressed_as_missing, key_codes, key_columns

SUDA = "suda"
DIS = "dis_suda"
MAX_BITS_BYTES = 2 << 30


def check_suda_args(n_keys: int, max_size: int | None, dis_fraction: float) -> int:
    """Validate ``max_size`` (1..M, default M) and ``dis_fraction`` (0 < f < 1); returns max_size."""
    if max_size is None:
        max_size = n_keys
    max_size = check_int(max_size, f"max_size (at most {n_keys}, the number of keys)", minimum=1, maximum=n_keys)
    if not isinstance(dis_fraction, (int, float)) or not 0.0 < float(dis_fraction) < 1.0:
        raise SDCError(f"dis_fraction must be in (0, 1), got {dis_fraction!r}")
    if n_keys > 24:
        raise SDCError(f"SUDA2 on {n_keys} keys: at most 24 keys are supported")
    return int(max_size)


class SudaResult:
    """Per-record SUDA scores, DIS scores, per-key contributions, MSU counts by size."""

    def __init__(self, keys, score, dis, contribution, msu_counts, uniques, pairs):
        self.keys = list(keys)
        self.score = score
        self.dis = dis
        self.contribution = contribution  # (n, M): share of each key in the record's score
        self.msu_counts = msu_counts  # (n, M + 1): number of MSUs of each size
        self.uniques = uniques
        self.pairs = pairs

    def attribute_contributions(self) -> pl.DataFrame:
        """Per key: percent of the total SUDA score owed to MSUs containing it (sdcMicro)."""
        total = float(self.score.sum())
        share = (self.contribution * self.score[:, None]).sum(axis=0)
        pct = 100.0 * share / total if total > 0 else np.zeros(len(self.keys))
        return pl.DataFrame({"variable": self.keys, "contribution": pct})


def suda(df: pl.DataFrame, on: ColumnSpec, max_size: int | None = None, dis_fraction: float = 0.01,
         suppressed_as: str | None = None) -> SudaResult:
    """SUDA2 scores and DIS-SUDA scores of every record (module docstring for definitions).

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 1, 2, 2], "b": [1, 2, 1, 1], "c": [0, 0, 0, 1]})
    >>> suda(df, ["a", "b", "c"]).score.tolist()
    [1.0, 2.0, 1.0, 2.0]
    """
    cols = key_columns(df, on)
    df = suppressed_as_missing(df, cols, suppressed_as)  # a generalised release's suppressed records: keys missing
    M = len(cols)
    max_size = check_suda_args(M, max_size, dis_fraction)
    n = df.height
    if n == 0:
        z = np.zeros(0)
        return SudaResult(cols, z, z, np.zeros((0, M)), np.zeros((0, M + 1), dtype=np.int64), 0, 0)
    codes = key_codes(df, cols)
    full = codes.select(pl.len().over(cols).alias("n")).to_series().to_numpy()
    uniques = int((full == 1).sum())
    pairs = int((full == 2).sum())  # = 2 x combinations with exactly two records
    cand = np.flatnonzero(full == 1).astype(np.int64)
    nwords = ((1 << M) + 63) >> 6
    if cand.size * nwords * 8 > MAX_BITS_BYTES:
        raise SDCError(
            f"SUDA2 on {M} keys and {cand.size} sample-unique records needs more than 2 GiB; "
            "use fewer keys"
        )
    mat = np.empty((M, n), dtype=np.int64)
    miss = np.zeros(n, dtype=np.int64)
    for j, c in enumerate(cols):
        s = codes.get_column(c)
        isnull = s.is_null().to_numpy()
        mat[j] = s.fill_null(0).cast(pl.Int64).to_numpy() + 1
        mat[j][isnull] = 0
        miss |= isnull.astype(np.int64) << j
    from ..kernels.suda import msu_scores, unique_bits

    weight_of_size = np.array([0.0] + [float(factorial(M - s)) for s in range(1, M + 1)])
    score = np.zeros(n)
    contribution = np.zeros((n, M))
    msu_counts = np.zeros((n, M + 1), dtype=np.int64)
    if cand.size:
        bits = unique_bits(mat, miss, cand, max_size)
        sc, contrib, nmsu = msu_scores(bits, M, max_size, weight_of_size)
        score[cand] = sc
        with np.errstate(invalid="ignore", divide="ignore"):
            contribution[cand] = np.where(sc[:, None] > 0, contrib / sc[:, None], 0.0)
        msu_counts[cand] = nmsu
    dis = dis_scores(score, uniques, pairs, M, dis_fraction)
    return SudaResult(cols, score, dis, contribution, msu_counts, uniques, pairs)


def dis_scores(score: np.ndarray, uniques: int, pairs: int, n_keys: int, dis_fraction: float) -> np.ndarray:
    """DIS-SUDA scores from SUDA scores (module docstring; sdcMicro ``Suda2.h``).

    >>> dis_scores(np.array([0.0, 8.0, 6.0]), 2, 2, 4, 0.01).round(6).tolist()
    [0.0, 0.012037, 0.008553]
    """
    out = np.zeros(score.shape)
    pos = score > 0
    if not pos.any():
        return out
    f = np.float32(dis_fraction)
    U = np.float32(uniques)
    dis_rate = float(U * f / (U * f + np.float32(pairs) * (np.float32(1.0) - f)))
    Q = float(np.float32(1.0) + (np.float32(8.0) - np.float32(n_keys)) / np.float32(20.0))
    adj = float(np.sum(score[pos] ** -Q))
    out[pos] = 1.0 / (1.0 + (uniques / dis_rate - uniques) / (score[pos] ** Q * adj))
    return out


def suda_output_schema(schema: pl.Schema) -> pl.Schema:
    """Schema of :func:`suda_frame`: the input's plus Float64 ``suda`` and ``dis_suda``."""
    out = dict(schema)
    out[SUDA] = pl.Float64
    out[DIS] = pl.Float64
    return pl.Schema(out)


def suda_frame(df: pl.DataFrame, on: ColumnSpec, max_size: int | None = None, dis_fraction: float = 0.01,
               suppressed_as: str | None = None) -> pl.DataFrame:
    """``df`` with Float64 columns ``suda`` (SUDA2 score) and ``dis_suda`` (DIS-SUDA score);
    ``suppressed_as``: a generalised release's label of suppressed records (:mod:`.suppressed`).

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 1, 2, 2], "b": [1, 2, 1, 1], "c": [0, 0, 0, 1]})
    >>> suda_frame(df, ["a", "b", "c"])["suda"].to_list()
    [1.0, 2.0, 1.0, 2.0]
    """
    cols = key_columns(df, on)
    for name in (SUDA, DIS):
        if name in cols:
            raise SDCError(f"column {name!r}: is a key; rename it before computing SUDA scores")
    res = suda(df, cols, max_size, dis_fraction, suppressed_as)
    return df.with_columns(pl.Series(SUDA, res.score), pl.Series(DIS, res.dis))
