"""Rank swapping (Moore 1996), with sdcMicro 5.8.1's ``rankSwap`` options.

Per column, independently: sort the values; walking up the ranks, swap each value not yet
swapped with one chosen uniformly among the not yet swapped values whose rank is at most
``w = floor(p * n)`` above it (``n``: the values taking part); each value is swapped at most
once, so the released column is a permutation of the original and no value moves more than
``p * n`` ranks.

Instead of ``p``: ``r0`` (sdcMicro ``R0``, the correlation kept between two swapped columns,
R1/R2): ``p = sqrt(2 var (1 - r0)) / (max - min)``; or ``k0`` (``K0``, subset-mean
preservation): ``p = sqrt(8/3) k0 |mean| / (max - min)`` (population variance, mean and range
of the values taking part).

``top`` / ``bottom`` (sdcMicro ``TopPercent`` / ``BottomPercent``, here fractions, default 0):
the largest / smallest ``floor(top * n)`` values are replaced by their mean and not swapped
(then the column is no longer a permutation; integer columns become Float64); a share that codes
a single value is refused (:func:`check_coded`: the mean of one value is the value). Nulls stay
null and are not swapped. Ties are ordered by row key. The random choice for the value at
rank ``j`` comes from :mod:`polars_sdc.rng`, stream ``f"rank_swap/{column}"``, keyed by that
row's position or ``key`` value.

**What sdcMicro does, exactly** (``R/rankSwap.R`` and ``src/RankSwapping.h``, read for this):

- ``P`` is documented as a percentage, but the C++ uses it as a *fraction*: the partner of the
  value at rank ``j`` is drawn among the free ranks ``k`` with ``j < k < (int)(j + n * P)``. So
  ``P = 5`` (meant as 5 %) lets a value swap with any value up the whole range; sdcMicro's
  ``P = 0.05`` is the 5 % window. ``TopPercent`` / ``BottomPercent`` *are* percentages
  (multiplied by 0.01).
- Its window is ``k - j < floor(n P)`` ranks (strictly below), ours ``k - j <= floor(n p)``: the
  same window as sdcMicro's ``P`` is our ``p = (floor(n P) - 1) / n``. We keep ``<=`` so that
  ``p`` is what it says (the largest rank distance a value moves: ``p = 0.05`` lets a value
  move 5 % of the ranks, and ``p * n = 1`` still swaps neighbours, where sdcMicro's ``n P < 2``
  swaps nothing); ``preset="sdcmicro"`` gives sdcMicro's window exactly.
- Its defaults: ``R0 = 0.95`` (when none of P, R0, K0 is given) with ``TopPercent = 5`` and
  ``BottomPercent = 5``; ``r0`` / ``k0`` take the range ``|BottomValue - TopValue|`` between the
  innermost top- and bottom-coded values (the extremes when nothing is coded) and the
  population variance of the uncoded values. Ours: ``p = 0.05``, no coding, the range of the
  uncoded values. ``preset="sdcmicro"``: ``r0 = 0.95`` (unless ``p``, ``r0`` or ``k0`` is
  given), ``top = bottom = 0.05`` (unless given), its window and its range.
- It walks the ranks from the largest value down with R's generator; we walk up with the keyed
  per-row generator, so single draws differ while the window, the once-only rule and the
  coding are the same.

``by``: the same within each stratum: ``n`` is the stratum's number of values, ranks, the
window ``p * n``, ``r0``/``k0`` and ``top``/``bottom`` are the stratum's, and no value leaves
its stratum (each released column is a permutation of the original within every stratum). A
stratum with a single value (it could only be released unchanged), or with a window of no rank
(``p * n < 1``; ``< 2`` with ``preset="sdcmicro"``), is an error naming the column and the
stratum; without ``by`` the same holds for the whole column (sdcMicro returns such a column
unchanged without a word; here a release that looks swapped but is not is refused). A constant
column whose window is empty because its range is 0 (``r0`` / ``k0``) is released as it is (every
swap would give the same values), and so is a column under ``r0 = 1`` or ``k0 = 0``, which ask
that nothing change; a window of 0 from the data (``k0`` on values with mean 0) is refused. The draws
stay per row (the same stream and keys), so a stratum swapped on its own with ``key=`` gives
the same values.

Decimal columns are swapped on their exact integer representation (the scale is kept), as
Int128 by value order; no float rounding.

Sorting, the bulk of the time, is a stable LSD radix sort (Numba) on order-preserving 64-bit
keys: the order of ``np.lexsort((keys, x, stratum))``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import rng
from .._columns import ColumnSpec, check_finite
from .._errors import SDCError
from ._common import check_fraction, check_seed, frame_keys, on_by_household, seed_or_fresh, strata


PRESETS = ("sdcmicro",)


def _window_p(x: np.ndarray, p: float | None, r0: float | None, k0: float | None,
              span: tuple[float, float] | None = None) -> float:
    """The window fraction: ``p``, or from ``r0`` / ``k0`` on the uncoded values ``x`` (range
    ``span`` if given: sdcMicro's innermost coded values)."""
    if p is not None:
        return p
    # the window is scale-free (sqrt(var) / range, |mean| / range): the values brought to
    # magnitude ~1 by a power of two (exact), so that a range near 1e308 does not overflow nor
    # a variance of subnormals (1e-320) underflow to a window of 0 (a spurious refusal)
    from .add_noise import scale_exponents

    top = max([float(np.max(np.abs(x))) if x.size else 0.0] + ([abs(v) for v in span] if span is not None else []))
    e = int(scale_exponents(np.array([top]))[0])
    x = np.ldexp(x, e)
    if span is not None:
        span = (math.ldexp(span[0], e), math.ldexp(span[1], e))
        delta = abs(span[1] - span[0])
    else:
        delta = float(x.max() - x.min()) if x.size else 0.0
    if not delta > 0 or not math.isfinite(delta):
        return 0.0
    return window_from_moments(delta, float(x.var()) if r0 is not None else 0.0,
                               float(x.mean()) if r0 is None else 0.0, r0, k0)


def window_from_moments(delta: float, var: float, mean: float, r0: float | None, k0: float | None) -> float:
    """The window fraction from ``r0`` (population variance ``var``) or ``k0`` (``mean``) over
    the range ``delta`` of the values (sdcMicro ``rankSwap``'s R0 / K0 rules; 0 for a range of
    0 or an infinite one); used on the values locally and on Spark's aggregates."""
    if not delta > 0 or not math.isfinite(delta):
        return 0.0
    if r0 is not None:
        return math.sqrt(2.0 * var * (1.0 - r0)) / delta
    return math.sqrt(8.0 / 3.0) * k0 * abs(mean) / delta


def rank_swap_values(
    x: np.ndarray, keys: np.ndarray, seed: int, column: str, *, p: float | None = 0.05,
    r0: float | None = None, k0: float | None = None, top: float = 0.0, bottom: float = 0.0,
    positional: bool = False, sidx: np.ndarray | None = None, strata_names: list[str] | None = None,
    keys_are_positions: bool = False, sdcmicro: bool = False,
) -> np.ndarray:
    """Rank-swapped copy of the non-null values ``x`` (float64 or int64), rows keyed by ``keys``
    (``positional``: the keys are increasing, so a stable sort orders ties by key;
    ``keys_are_positions``: ``keys`` is ``0 .. n-1``), within the strata ``sidx`` (0..S-1 per
    value; ``strata_names[s]`` names stratum ``s`` in errors). Stable LSD radix sorts (by key,
    value, stratum) give the order of ``np.lexsort((keys, x, sidx))``. ``sdcmicro``: sdcMicro's
    window (``k - j < floor(n p)``) and ``r0`` / ``k0`` range (module docstring).

    >>> x = np.array([5.0, 1.0, 4.0, 2.0, 3.0])
    >>> y = rank_swap_values(x, rng.row_positions(5), 1, "x", p=0.4)
    >>> sorted(y.tolist()) == sorted(x.tolist()), bool(np.all(np.abs(y - x) <= 2))
    (True, True)
    """
    from ..kernels.masking import apply_swap, radix_sort_by, rank_swap_partners

    n = x.shape[0]
    order = np.arange(n)
    if not positional:                                  # ties by key: sort by key first (stable)
        order = radix_sort_by(np.ascontiguousarray(keys, dtype=np.uint64), order)
    order = radix_sort_by(sort_keys(x), order)
    if sidx is None:
        bounds = np.array([0, n])
    else:
        order = radix_sort_by(np.ascontiguousarray(sidx).view(np.uint64), order)
        bounds = np.r_[0, np.cumsum(np.bincount(sidx, minlength=len(strata_names)))]
    coded = top > 0 or bottom > 0
    seg_lo, seg_hi, seg_w, means = [], [], [], []
    for si in range(bounds.size - 1):
        a, b = int(bounds[si]), int(bounds[si + 1])
        n_bot, n_top, pw, varies = middle_window(x[order[a:b]], column, p=p, r0=r0, k0=k0, top=top,
                                                 bottom=bottom, sdcmicro=sdcmicro)
        lo, hi = a + n_bot, b - n_top
        w = int(math.floor(pw * (hi - lo) + 1e-9)) - (1 if sdcmicro else 0)
        check_some_swapped(column, None if sidx is None else strata_names[si], hi - lo, pw, varies, sdcmicro,
                           p, r0, k0)
        check_coded(column, None if sidx is None else strata_names[si], b - a, n_bot, n_top, bottom, top)
        if w > 0 and hi - lo > 1:
            seg_lo.append(lo)
            seg_hi.append(hi)
            seg_w.append(w)
        if n_top:
            means.append((order[hi:b], x[order[hi:b]].astype(np.float64).mean()))
        if n_bot:
            means.append((order[a:lo], x[order[a:lo]].astype(np.float64).mean()))
    if seg_lo:
        ks = order.view(np.uint64) if keys_are_positions else np.ascontiguousarray(keys[order], dtype=np.uint64)
        partner = rank_swap_partners(ks, rng.stream_hash(seed, rng.stream("rank_swap", column=column)), np.array(seg_lo, dtype=np.int64),
                                     np.array(seg_hi, dtype=np.int64), np.array(seg_w, dtype=np.int64), 64)
        out = apply_swap(x, order, partner, np.empty_like(x))
    else:
        out = x.copy()
    if coded:
        out = out.astype(np.float64)
        for rows, v in means:
            out[rows] = v
    return out


def middle_window(v: np.ndarray, column: str, *, p: float | None, r0: float | None, k0: float | None,
                  top: float, bottom: float, sdcmicro: bool) -> tuple[int, int, float, bool]:
    """For one stratum's values ``v`` in increasing order: the numbers of values ``top`` /
    ``bottom`` code (``n_bot``, ``n_top``), the window fraction of the values left between them
    (``p``, or from ``r0`` / ``k0`` over their range, sdcMicro's range of the innermost coded
    values with ``sdcmicro``) and whether those values vary. :func:`rank_swap_values` and the
    Spark driver's check with top / bottom coding.

    >>> middle_window(np.array([1.0, 2.0, 3.0, 4.0, 10.0]), "x", p=None, r0=0.9, k0=None, top=0.2,
    ...               bottom=0.0, sdcmicro=False)
    (0, 1, 0.16666666666666666, True)
    """
    m = v.shape[0]
    n_top = int(math.floor(m * top + 1e-12))
    n_bot = int(math.floor(m * bottom + 1e-12))
    if n_top + n_bot > m:
        raise SDCError(f"column {column!r}: top + bottom cover more than every value")
    lo, hi = n_bot, m - n_top
    span = None
    if sdcmicro and p is None and hi > lo:
        span = (float(v[lo - 1 if n_bot else 0]), float(v[hi if n_top else m - 1]))
    pw = p if p is not None else _window_p(v[lo:hi].astype(np.float64), p, r0, k0, span)
    return n_bot, n_top, pw, hi > lo and bool(v[lo] != v[hi - 1])


def check_some_swapped(column: str, stratum: str | None, m: int, pw: float, varies: bool, sdcmicro: bool,
                       p: float | None, r0: float | None, k0: float | None) -> None:
    """Refuse a column (or a ``by`` stratum) whose ``m`` values to swap (those left between the
    top / bottom codings; ``varies``: not all equal) would all be released unchanged: a single
    value, or a window ``pw`` of no rank (``p * n < 1``; ``< 2`` with sdcMicro's window), with or
    without ``by`` alike (a release that looks rank-swapped but is not). A constant column, or an
    explicit ``r0 = 1`` / ``k0 = 0`` (asking for no change), passes. The Spark back end runs the
    same check on the driver."""
    w = int(math.floor(pw * m + 1e-9)) - (1 if sdcmicro else 0)
    if not (m == 1 or (m > 1 and w <= 0 and (pw > 0 or (varies and r0 != 1.0 and k0 != 0.0)))):
        return
    where = "" if stratum is None else f"stratum {stratum} of `by` "
    if m == 1:
        raise SDCError(f"column {column!r}: {where}has 1 value to swap; it would be released unchanged "
                       f"({'use coarser strata' if stratum else 'rank swapping needs 2 values'})")
    need = 2 if sdcmicro else 1
    via, fix = ("", "raise p") if p is not None else (
        (" (p from r0)", "lower r0") if r0 is not None else (" (p from k0)", "raise k0"))
    raise SDCError(f"column {column!r}: {where}has {m} values and p * n = {pw * m:.3g} < {need}{via}, so none "
                   f"would be swapped ({fix}{' or use coarser strata' if stratum else ''})")


def check_coded(column: str, stratum: str | None, m: int, n_bot: int, n_top: int, bottom: float,
                top: float) -> None:
    """Refuse a ``top`` / ``bottom`` coding of a single value (of the ``m`` values of the column
    or ``by`` stratum): its mean is the value itself, so the extreme would be released exactly as
    it is, and it is not swapped either (sdcMicro ``rankSwap`` does that without a word). The
    Spark back end runs the same check on the driver.

    >>> check_coded("x", None, 11, 0, 1, 0.0, 0.1)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: column 'x': top = 0.1 codes 1 of its 11 values: the mean of one value is the value, released unchanged and not swapped; use top = 0 (it is swapped then) or a top that codes at least 2 values
    """
    for name, share, coded in (("top", top, n_top), ("bottom", bottom, n_bot)):
        if coded == 1:
            where = "" if stratum is None else f"stratum {stratum} of `by` "
            raise SDCError(f"column {column!r}: {where}{name} = {share:g} codes 1 of its {m} values: the mean of one "
                           f"value is the value, released unchanged and not swapped; use {name} = 0 (it is swapped "
                           f"then) or a {name} that codes at least 2 values")


def _decimal_units(s: pl.Series) -> np.ndarray:
    """A Decimal column's exact integer representation (value x 10^scale) as int64: order,
    ranks and the window fraction (scale-free) are those of the values."""
    phys = s.to_physical()
    lo, hi = phys.min(), phys.max()
    if lo is not None and (lo < -(2**63) or hi >= 2**63):
        raise SDCError(f"column {s.name!r}: Decimal values beyond 18 digits cannot be rank-swapped exactly; "
                       "cast the column to Float64 first")
    return phys.cast(pl.Int64).to_numpy()


def _wide_units(s: pl.Series) -> np.ndarray:
    """An Int128 / UInt128 column's values as int64 (numpy has no 128-bit integers), or an
    SDCError naming it when one is beyond Int64."""
    lo, hi = s.min(), s.max()
    if lo is not None and (lo < -(2**63) or hi >= 2**63):
        raise SDCError(f"column {s.name!r}: {s.dtype} values beyond Int64 cannot be rank-swapped (numpy has no "
                       "128-bit integers); cast the column to Float64 or Decimal first")
    return s.cast(pl.Int64).to_numpy()


def _from_decimal_units(s: pl.Series, units: np.ndarray, y: np.ndarray) -> Any:
    """The swapped Decimal values from the swapped units ``y``: the same Decimals permuted
    (exact), or Float64 means where ``top`` / ``bottom`` coded them."""
    if y.dtype.kind == "f":
        return y / 10.0 ** s.dtype.scale
    order = np.argsort(units, kind="stable")
    pos = np.searchsorted(units[order], y)
    return s.gather(pl.Series(order[pos]))


def sort_keys(x: np.ndarray) -> np.ndarray:
    """Order-preserving uint64 keys of int64 or finite float64 values (``-0.0`` as ``0.0``).

    >>> np.argsort(sort_keys(np.array([2.5, -1.0, 0.0, -0.0, -3.0])), kind="stable").tolist()
    [4, 1, 2, 3, 0]
    """
    top = np.uint64(1 << 63)
    if x.dtype.kind == "f":
        b = (x.astype(np.float64) + 0.0).view(np.uint64)
        return np.where(b >= top, ~b, b | top)
    if x.dtype.kind == "u":
        return x.astype(np.uint64)
    return np.ascontiguousarray(x, dtype=np.int64).view(np.uint64) ^ top


def _check_args(p: Any, r0: Any, k0: Any, top: Any, bottom: Any, preset: Any = None) -> tuple:
    """The checked ``(p, r0, k0, top, bottom)`` with the defaults filled in: ``p = 0.05`` and no
    coding, or with ``preset="sdcmicro"`` sdcMicro's ``R0 = 0.95`` and 5 % top / bottom coding
    (module docstring)."""
    if preset is not None and preset not in PRESETS:
        raise SDCError(f"preset must be None or one of {', '.join(map(repr, PRESETS))}, got {preset!r}")
    given = [name for name, v in (("p", p), ("r0", r0), ("k0", k0)) if v is not None]
    if len(given) > 1:
        raise SDCError(f"give one of p, r0 and k0, not {' and '.join(given)}")
    if not given:
        p, r0 = (None, 0.95) if preset == "sdcmicro" else (0.05, None)
    default_code = 0.05 if preset == "sdcmicro" else 0.0
    top = default_code if top is None else top
    bottom = default_code if bottom is None else bottom
    p = None if p is None else check_fraction("p", p)
    r0 = None if r0 is None else check_fraction("r0", r0)
    if k0 is not None:
        if isinstance(k0, bool) or not isinstance(k0, (int, float)) or not (math.isfinite(k0) and k0 >= 0):
            raise SDCError(f"k0 must be a number >= 0, got {k0!r}")
        k0 = float(k0)
    top = check_fraction("top", top)
    bottom = check_fraction("bottom", bottom)
    if top + bottom >= 1:
        raise SDCError(f"top + bottom must be < 1, got {top} + {bottom}")
    return p, r0, k0, top, bottom


def rank_swap_frame(
    df: pl.DataFrame, on: ColumnSpec = None, *, p: float | None = None, r0: float | None = None,
    k0: float | None = None, top: float | None = None, bottom: float | None = None, by: ColumnSpec = None,
    seed: int | None = None, key: str | None = None, preset: str | None = None, household: str | None = None,
    household_columns: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Rank swapping of the numeric ``on`` columns (see the module docstring), within each
    ``by`` stratum if given; other columns, row order and (without ``top``/``bottom``) dtypes
    kept; nulls stay where they are and are not swapped.

    ``household``: the household id column; household-level ``on`` columns (constant within
    every household, :mod:`polars_sdc.household`) are swapped between households (one value per
    household, ``n`` the households) and the swapped value broadcast to every member, so a
    household keeps one value; person-level columns as without it. Without it, an evidently
    household-level column gets a :class:`polars_sdc.household.HouseholdWarning`.
    ``household_columns``: the household-level columns declared instead of detected (the others
    person-level; :func:`polars_sdc.household.check_household_columns`).

    >>> df = pl.DataFrame({"x": [10, 20, 30, 40, 50, 60]})
    >>> out = rank_swap_frame(df, "x", p=0.5, seed=3)
    >>> sorted(out["x"].to_list()), out["x"].to_list() != df["x"].to_list()
    ([10, 20, 30, 40, 50, 60], True)
    >>> df = pl.DataFrame({"g": ["a", "b"] * 4, "x": [1, 10, 2, 20, 3, 30, 4, 40]})
    >>> rank_swap_frame(df, "x", p=0.5, by="g", seed=1)["x"].to_list()    # swaps stay in their stratum
    [3, 30, 4, 40, 1, 10, 2, 20]
    >>> df = pl.DataFrame({"hh": [1, 1, 2, 3, 3, 4], "inc": [10, 10, 20, 30, 30, 40]})
    >>> rank_swap_frame(df, "inc", p=0.5, seed=1, household="hh")["inc"].to_list()   # whole households
    [30, 30, 40, 10, 10, 20]
    """
    from ..household import check_household_columns, mask_by_household

    p, r0, k0, top, bottom = _check_args(p, r0, k0, top, bottom, preset)
    check_seed(seed)
    cols, by_cols = rank_swap_columns(df.schema, on, by, key, household)
    declared = check_household_columns(df.schema, household, household_columns)
    s = seed_or_fresh(seed)

    def run(frame: pl.DataFrame, columns: list[str], k: str | None) -> pl.DataFrame:
        return _rank_swap(frame, columns, p, r0, k0, top, bottom, by_cols, s, k, preset)

    return mask_by_household(df, household, cols, run, method="rank_swap", by=by_cols, key=key,
                             household_columns=declared)


def _rank_swap(df: pl.DataFrame, cols: list[str], p: float | None, r0: float | None, k0: float | None, top: float,
               bottom: float, by_cols: list[str], s: int, key: str | None, preset: str | None) -> pl.DataFrame:
    check_finite(df, [c for c in cols if df.schema[c].is_float()], nulls=True)
    keys = frame_keys(df, key)
    sidx, names = None, None
    if by_cols:
        sidx, vals = strata(df, by_cols)
        names = [repr(dict(zip(by_cols, v))) for v in vals]
    schema = rank_swap_output_schema(df.schema, cols, top, bottom)
    new = []
    for c in cols:
        col = df.get_column(c)
        ok = col.is_not_null().to_numpy() if col.null_count() else None
        decimal = isinstance(col.dtype, pl.Decimal)
        x = _decimal_units(col.drop_nulls()) if decimal else _wide_units(col.drop_nulls()) \
            if col.dtype in (pl.Int128, pl.UInt128) else col.drop_nulls().to_numpy()
        k = keys if ok is None else keys[ok]
        si = None if sidx is None else (sidx if ok is None else sidx[ok])
        y = rank_swap_values(x, k, s, c, p=p, r0=r0, k0=k0, top=top, bottom=bottom, positional=key is None,
                             sidx=si, strata_names=names, keys_are_positions=key is None and ok is None,
                             sdcmicro=preset == "sdcmicro")
        if decimal:
            y = _from_decimal_units(col.drop_nulls(), x, y)
        if isinstance(y, pl.Series):                    # Decimal: the values themselves
            if ok is None:
                out = y.alias(c)
            else:
                idx = np.full(df.height, -1, dtype=np.int64)
                idx[ok] = np.arange(y.len())
                out = y.gather(pl.Series(idx).set(pl.Series(~ok), None)).alias(c)
        elif ok is None:
            out = pl.Series(c, y)
        else:
            full = np.zeros(df.height, dtype=y.dtype)
            full[ok] = y
            out = pl.Series(c, full).set(pl.Series(~ok), None)
        new.append(out.cast(schema[c]))
    return df.with_columns(new)


def rank_swap_columns(schema: pl.Schema, on: ColumnSpec, by: ColumnSpec, key: str | None,
                      household: str | None = None) -> tuple[list, list]:
    """``on`` (numeric; by default every numeric column but the ``by``, ``key`` and
    ``household`` columns) and ``by``, checked."""
    return on_by_household(schema, on, by, key, household)


def rank_swap_output_schema(schema: pl.Schema, cols: list[str], top: float = 0.0, bottom: float = 0.0) -> pl.Schema:
    """Dtypes kept; with ``top``/``bottom`` coding an integer column becomes Float64."""
    coded = top > 0 or bottom > 0
    return pl.Schema({c: (pl.Float64 if c in cols and coded and not t.is_float() else t) for c, t in schema.items()})


# public names of the helpers the Spark back end shares (polars_sdc.spark.masking)
check_rank_swap_args = _check_args
window_p = _window_p
