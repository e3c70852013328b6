"""Sample and population frequencies of key combinations: ``fk`` and ``Fk``.

Definitions (as sdcMicro 5.8.1 ``freqCalc`` computes them, Templ, Kowarik & Meindl 2015):

- ``fk`` of a record: the number of records of the sample that share its combination of
  key (quasi-identifier) values; ``Fk``: the sum of the sampling weights over those records,
  an estimate of the population frequency (``Fk = fk`` without weights).
- **Missing key values** (null, and NaN in a float key) are wildcards. Two records are
  *compatible* when they agree on every key where both have a value. With ``alpha`` in
  [0, 1]:

  * a record without missing keys: ``fk`` = number of identical records + ``alpha`` x the
    number of compatible records that have missing keys (but not all keys missing);
  * a record with some missing keys: ``fk`` = number of identical records (same values and
    same missing positions) + the number of compatible records without missing keys +
    ``alpha`` x the number of compatible records with a different missing pattern or values;
  * a record with every key missing: ``fk = n`` (it matches everybody), but with two or more
    keys it does not raise the frequency of complete records (sdcMicro's
    ``addAllNAtoKeys = FALSE``);
  * **one key**: sdcMicro's single-key branch adds ``alpha`` x the number of records whose key
    is missing to every complete record (``A = [2, 3, NA, 2, 1, NA, 1, 2]`` gives
    ``fk = 5 3 8 5 4 8 4 5``); there every missing record is an all-missing one.

  In a generalised release (``suppressed_as="*"``, the label its suppressed records carry in
  every key; :func:`suppressed_as_missing`) such a record counts as a record with every key
  missing and, with one key too, raises no complete record's frequency (the generalisation
  suppressed whole classes: :func:`polars_sdc.risk.suppressed.frequency_keys`); by default
  every value is read as written.

  :func:`all_missing_is_wildcard` states that last distinction; every user of the rule
  (``frequencies``, ``k_anonymity``, ``risk``, ``suppress``, Spark's ``frequencies``) goes
  through it.

  ``Fk`` is the same sum with each record counted by its weight. ``alpha = 1`` (default)
  counts every wildcard match; ``alpha = 0`` stops records with missing keys from raising
  the frequencies of other records (they still see the complete records they match).
- Weights must be finite, non-null and > 0 (a weight is the number of population units a
  sample record stands for; calibrated weights below 1 are accepted, as in sdcMicro, and ``Fk``
  is then the weight sum, which can fall below ``fk``: see :mod:`polars_sdc.risk.individual`).

How: without missing keys, a counting array over the key combinations (``np.bincount``)
when the key space is small, else one ``over()`` pass. With missing keys, records are counted
per cell of an array with one extra *missing* slot per key; compatibility is a product over
the keys, so the sums over compatible records are one pass per key axis over that array (a
value slot gains the missing slot, the missing slot gains all value slots), O(cells x keys),
then gathered back to the rows. Key spaces too large for that array fall back to distinct
combinations compared pairwise (few of them) or joined pattern by pattern.

The public entry points are :func:`frequencies` (numpy arrays ``fk, Fk`` in row order) and
:func:`frequencies_frame` (the frame with ``fk`` and ``Fk`` columns appended).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from .._columns import ColumnSpec, is_categorical, is_numeric, resolve_columns
from .._errors import SDCError
from .suppressed import SUPPRESSED_LABEL, suppressed_as_missing  # noqa: F401 - re-exported
from .weights import all_missing_is_wildcard, check_weights, weight_error  # noqa: F401 - re-exported

FK = "fk"
FK_POP = "Fk"
PAIRWISE_LIMIT = 20_000  # partial-missing combinations compared pairwise (Numba) up to this many
CROSS_LIMIT = 50_000_000  # complete x partial-missing combination pairs compared pairwise (Numba) up to this many
# missing-value rule on a counting array of at most max(4 n, lo) and at most hi cells (memory:
# about four float64 arrays of that many cells at once)
DENSE_CELLS = (1 << 21, 1 << 24)


def check_alpha(alpha: float) -> float:
    """Validate the wildcard weight ``alpha`` (a number in [0, 1])."""
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise SDCError(f"alpha must be a number in [0, 1], got {alpha!r}") from None
    if not (0.0 <= a <= 1.0):
        raise SDCError(f"alpha must be in [0, 1], got {alpha!r}")
    return a


def key_columns(frame: pl.DataFrame | pl.LazyFrame | pl.Schema, on: ColumnSpec, weight: str | None = None) -> list[str]:
    """Resolve the key columns ``on`` (required; numeric, Boolean, String, Categorical, Enum,
    or temporal: Date, Datetime, Time, Duration)."""
    cols = resolve_columns(frame, on, kind="any", default="error")
    schema = frame if isinstance(frame, pl.Schema) else frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    for c in cols:
        dtype = schema[c]
        if not (is_numeric(dtype) or is_categorical(dtype) or dtype.is_temporal()):
            raise SDCError(f"column {c!r}: dtype {dtype} cannot be a key; use numeric, String, Categorical, Enum or temporal columns")
    if weight is not None:
        if not isinstance(weight, str):
            raise SDCError(f"`weight`: expected one column name, got {weight!r}")
        resolve_columns(frame, [weight], kind="numeric", what="weight")
        if weight in cols:
            raise SDCError(f"column {weight!r}: is both a key (`on`) and the sampling weight")
    return cols


def key_codes(df: pl.DataFrame, on: Sequence[str]) -> pl.DataFrame:
    """The key columns as UInt32 codes (equal values share a code), nulls (and NaN) kept as null."""
    exprs = []
    for c in on:
        dtype = df.schema[c]
        e = pl.col(c)
        if dtype.is_float():
            e = e.fill_nan(None)
        if isinstance(dtype, (pl.Categorical, pl.Enum)):
            e = e.to_physical().cast(pl.UInt32)
        else:
            e = e.rank("dense").cast(pl.UInt32)
        exprs.append(e.alias(c))
    return df.select(exprs)


def _packed_ids(df: pl.DataFrame, on: Sequence[str]) -> tuple[np.ndarray, int] | None:
    """One int64 id per row (mixed radix over the keys' value ranges) and the number of ids,
    when every key is integer-like (integers, Boolean, Categorical/Enum codes) without missing
    values and the product of the ranges is small enough for a counting array; else None.
    Built in place from the columns' own buffers (no Int64 copy of every key)."""
    phys = []
    for c in on:
        dtype = df.schema[c]
        if isinstance(dtype, (pl.Categorical, pl.Enum)):
            phys.append(df.get_column(c).to_physical())
        elif dtype == pl.Boolean:
            phys.append(df.get_column(c).cast(pl.UInt8))
        elif dtype.is_integer() and (_int_max(dtype) != -1 or dtype == pl.UInt64):  # not 128-bit
            phys.append(df.get_column(c))
        else:
            return None
    limit = max(4 * df.height, 1 << 22)
    frame = pl.DataFrame([s.alias(f"_{i}") for i, s in enumerate(phys)])
    bounds = frame.select([pl.all().min().name.suffix("_lo"), pl.all().max().name.suffix("_hi")]).row(0)
    m = len(on)
    span = 1
    for lo, hi in zip(bounds[:m], bounds[m:]):
        span *= hi - lo + 1
        if span > limit:
            return None
    g = None
    for s, lo, hi in zip(phys, bounds[:m], bounds[m:]):
        if s.dtype == pl.UInt64:  # numpy cannot add uint64 to int64 in place: shift in Polars
            s, lo, hi = (s - lo).cast(pl.Int64), 0, hi - lo
        v = s.to_numpy()
        if g is None:
            g = np.subtract(v, lo, dtype=np.int64)
        else:
            g *= hi - lo + 1
            g += v
            g -= lo
    return g, span


def frequency_groups(
    df: pl.DataFrame, on: Sequence[str], weight: str | None, alpha: float, count: str | None = None
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """``(index, fk, Fk)`` for checked arguments (:func:`frequencies` checks them): with
    ``index`` an int64 array, ``fk[index]`` / ``Fk[index]`` are the records' frequencies and
    ``fk``/``Fk`` hold one entry per possible key combination (with missing keys: each key
    also missing; 0 where none occurs); with
    ``index`` None they are already per record. Lets callers compute per-combination values
    (individual risk, class sizes) once per combination instead of once per record.
    ``count``: a column of record multiplicities (each row stands for that many records with
    its key values, and its ``weight`` is their summed weight): a combination table, as the
    Spark back end passes it (:mod:`polars_sdc.spark.frequencies`), counted by the same rule.

    >>> import polars as pl
    >>> idx, fk, Fk = frequency_groups(pl.DataFrame({"a": [3, 3, 5]}), ["a"], None, 1.0)
    >>> idx.tolist(), fk.tolist()
    ([0, 0, 2], [2.0, 0.0, 1.0])
    >>> frequency_groups(pl.DataFrame({"a": [3, 5], "n": [2, 1]}), ["a"], None, 1.0, count="n")[1].tolist()
    [2.0, 0.0, 1.0]
    """
    n = df.height
    if n == 0:
        return None, np.zeros(0), np.zeros(0)
    floats = [c for c in on if df.schema[c].is_float()]
    has_missing = any(df.get_column(c).null_count() for c in on) or (
        bool(floats) and any(df.select(pl.col(c).is_nan().any().alias(f"_{i}") for i, c in enumerate(floats)).row(0))
    )
    if not has_missing:
        packed = _packed_ids(df, on)
        if packed is not None:  # small integer-like key space: counting by bincount
            g, span = packed
            fk = np.bincount(g, weights=_counts(df, count), minlength=span).astype(np.float64)
            if weight is None:
                return g, fk, fk
            wv = df.get_column(weight).cast(pl.Float64).to_numpy()
            return g, fk, np.bincount(g, weights=wv, minlength=span)
    if has_missing:
        from .weights import check_missing_keys

        check_missing_keys(on)
        dense = _wildcard_dense(df, on, weight, alpha, floats, count)
        if dense is not None:  # key space small enough for a counting array with a missing slot
            return dense
    return None, *_frequencies_rows(df, on, weight, alpha, has_missing, floats, count)


def _counts(df: pl.DataFrame, count: str | None) -> np.ndarray | None:
    """The record multiplicity of every row (float64), or None: one record per row."""
    return None if count is None else df.get_column(count).cast(pl.Float64).to_numpy()


def _cell_codes(df: pl.DataFrame, on: Sequence[str], floats: list[str]) -> tuple[list[pl.Expr], list[int], int] | None:
    """Per key an expression giving its code in ``0..L-1`` with the missing value (null, and
    NaN in a float key) as code ``L``, the level counts ``L`` and the number of cells
    ``prod(L + 1)``, or None when that exceeds the counting-array limit. Integer-like keys use
    their own values minus the minimum, in their own dtype where the missing code fits (the
    caller shifts in numpy); others (and too wide ranges) dense ranks. Each expression comes
    with the offset still to subtract."""
    limit = min(max(4 * df.height, DENSE_CELLS[0]), DENSE_CELLS[1])

    def raw(c: str) -> pl.Expr:
        dtype = df.schema[c]
        e = pl.col(c)
        if isinstance(dtype, (pl.Categorical, pl.Enum)) or dtype.is_temporal():
            return e.to_physical()
        if dtype == pl.Boolean:
            return e.cast(pl.UInt8)
        if dtype.is_integer() and (_int_max(dtype) != -1 or dtype == pl.UInt64):  # not 128-bit
            return e
        return ranked(c)

    def ranked(c: str) -> pl.Expr:
        e = pl.col(c).fill_nan(None) if c in floats else pl.col(c)
        return e.rank("dense")

    m = len(on)
    for attempt in (raw, ranked):
        exprs = [attempt(c) for c in on]
        bounds = df.select(
            [e.min().alias(f"_lo{i}") for i, e in enumerate(exprs)] + [e.max().alias(f"_hi{i}") for i, e in enumerate(exprs)]
        ).row(0)
        levels = [0 if bounds[i] is None else int(bounds[m + i]) - int(bounds[i]) + 1 for i in range(m)]
        cells = 1
        for L in levels:
            cells *= L + 1
        if cells <= limit:
            break
    else:
        return None
    dtypes = df.select(e.head(0).alias(f"_{i}") for i, e in enumerate(exprs)).dtypes
    codes = []
    for e, dtype, L, lo in zip(exprs, dtypes, levels, bounds[:m]):
        if L == 0:  # key entirely missing
            codes.append((e.is_not_null().cast(pl.UInt8), 0))
        elif dtype != pl.UInt64 and int(lo) + L <= _int_max(dtype):  # missing code lo + L fits
            codes.append((e.fill_null(int(lo) + L), int(lo)))
        elif dtype.is_unsigned_integer():
            codes.append(((e - pl.lit(lo, dtype=dtype)).cast(pl.Int64).fill_null(L), 0))
        else:
            codes.append(((e.cast(pl.Int64) - int(lo)).fill_null(L), 0))
    return codes, levels, cells


def _int_max(dtype: pl.DataType) -> int:
    """The largest value of an integer dtype up to Int64 (UInt64 excluded: numpy cannot add
    it to int64 in place), else -1."""
    bits = {pl.Int8: 7, pl.Int16: 15, pl.Int32: 31, pl.Int64: 63, pl.UInt8: 8, pl.UInt16: 16, pl.UInt32: 32}
    b = bits.get(dtype.base_type())
    return -1 if b is None else (1 << b) - 1


def _wildcard_transform(a: np.ndarray) -> np.ndarray:
    """In place, for every cell x: the sum of ``a`` over the cells compatible with x (equal
    on every key where both have a value; the last slot of each axis is the missing value).
    Compatibility is a product over the keys, so it is applied one axis at a time: a value
    slot gains the missing slot, the missing slot gains every value slot."""
    for k in range(a.ndim):
        ax = np.moveaxis(a, k, 0)
        n_levels = ax.shape[0] - 1
        if n_levels == 0:
            continue
        miss = ax[n_levels].copy()
        ax[n_levels] += ax[:n_levels].sum(axis=0)
        ax[:n_levels] += miss
    return a


def _wildcard_dense(
    df: pl.DataFrame, on: Sequence[str], weight: str | None, alpha: float, floats: list[str],
    count: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The freqCalc wildcard rule on a counting array over every key combination with a
    missing slot per key (``frequency_groups``'s ``(index, fk, Fk)``), or None when that
    array would be too large. Per cell x with ``own`` records: ``Tc`` / ``Tp`` = the records
    without missing keys / with some (not all) missing keys compatible with x
    (:func:`_wildcard_transform`, O(cells x keys)); then x complete: ``own + alpha Tp``
    (with one key, Tp holds the all-missing records); x partial: ``own + Tc + alpha (Tp - own + all-missing)``; x all missing: ``n``."""
    coded = _cell_codes(df, on, floats)
    if coded is None:
        return None
    codes, levels, cells = coded
    dims = [L + 1 for L in levels]
    index = None  # mixed radix, built in place key by key (as in _packed_ids)
    for (e, lo), dim in zip(codes, dims):
        v = df.select(e.alias("_c")).to_series().to_numpy()
        if index is None:
            index = np.subtract(v, lo, dtype=np.int64)
        else:
            index *= dim
            index += v
            if lo:
                index -= lo
    complete = np.ones(dims, dtype=bool)
    for k, L in enumerate(levels):
        shape = [1] * len(dims)
        shape[k] = dims[k]
        complete &= (np.arange(dims[k]) < L).reshape(shape)
    complete = complete.ravel()
    n = df.height

    def rule(own: np.ndarray, total: float) -> np.ndarray:
        # in place where possible: at most four arrays of ``cells`` at once; the sums are added
        # in the order of the pattern-by-pattern rule, so counts are bitwise the same
        tc = np.where(complete, own, 0.0)
        tp = own - tc
        na = float(own[-1])
        if not all_missing_is_wildcard(len(dims)):
            tp[-1] = 0.0
        _wildcard_transform(tc.reshape(dims))
        _wildcard_transform(tp.reshape(dims))
        out = tp - own  # partial cells: own + tc + alpha (other compatible partial + all missing)
        out += na
        out *= alpha
        tc += own
        out += tc
        np.multiply(tp, alpha, out=tc)  # complete cells: own + alpha tp
        tc += own
        np.copyto(out, tc, where=complete)
        out[-1] = total
        out[own == 0] = 0.0
        return out

    counts = _counts(df, count)
    own_c = np.bincount(index, weights=counts, minlength=cells).astype(np.float64)
    fk = rule(own_c, float(n) if counts is None else float(counts.sum()))
    if weight is None:
        return index, fk, fk
    own_w = np.bincount(index, weights=df.get_column(weight).cast(pl.Float64).to_numpy(), minlength=cells)
    return index, fk, rule(own_w, float(own_w.sum()))  # not the Series' sum: that depends on its chunks


def _agg(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    if not by:
        return frame.select(pl.col("_c").sum(), pl.col("_w").sum())
    return frame.group_by(by).agg(pl.col("_c").sum(), pl.col("_w").sum())


def _matched(target: pl.DataFrame, source: pl.DataFrame, by: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``target``: total count and weight of ``source`` rows equal on ``by``."""
    if target.height == 0 or source.height == 0:
        return np.zeros(target.height), np.zeros(target.height)
    s = _agg(source, by)
    if not by:
        c, w = s.row(0)
        return np.full(target.height, float(c)), np.full(target.height, float(w))
    j = target.select(by).join(s, on=by, how="left", maintain_order="left")
    return (
        j.get_column("_c").fill_null(0).cast(pl.Float64).to_numpy(),
        j.get_column("_w").fill_null(0).cast(pl.Float64).to_numpy(),
    )


def frequencies(
    df: pl.DataFrame, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """``fk`` and ``Fk`` of every record (float64 arrays in row order); see the module
    docstring for the definition and the missing-value rule (sdcMicro ``freqCalc``).

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 1, None], "b": ["x", "y", "y"], "w": [10, 20, 30]})
    >>> fk, Fk = frequencies(df, ["a", "b"], "w")
    >>> fk.tolist(), Fk.tolist()
    ([1.0, 2.0, 2.0], [10.0, 50.0, 50.0])
    """
    on = key_columns(df, on, weight)
    a = check_alpha(alpha)
    if weight is not None:
        check_weights(df, weight)
    index, fk, Fk = frequency_groups(df, on, weight, a)
    if index is None:
        return fk, Fk
    return np.take(fk, index), np.take(Fk, index)


def _frequencies_rows(
    df: pl.DataFrame, on: list[str], weight: str | None, a: float, has_missing: bool, floats: list[str],
    count: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """fk / Fk per record by Polars: one ``over()`` pass without missing keys, else the
    wildcard rule by combinations and joins (module docstring)."""
    n = df.height
    # the keys under positional names: a user key called "_w", "_c" or "_p" must not meet the
    # helper columns added below
    keys = [f"__sdc_k{j}" for j in range(len(on))]
    cols = [pl.col(c).alias(k) for c, k in zip(on, keys)]
    df = df.select(cols + ([pl.col(weight).alias("__sdc_wt")] if weight is not None else [])
                   + ([pl.col(count).alias("__sdc_count")] if count is not None else []))
    count = None if count is None else "__sdc_count"
    floats = [keys[on.index(c)] for c in floats]
    on, weight = keys, ("__sdc_wt" if weight is not None else None)
    w = (
        df.get_column(weight).cast(pl.Float64)
        if weight is not None
        else pl.Series("_w", np.ones(n))
    )
    c = pl.Series("_n", np.ones(n)) if count is None else df.get_column(count).cast(pl.Float64).alias("_n")
    if not has_missing:
        own = pl.len().cast(pl.Float64) if count is None else pl.col("_n").sum()
        out = df.select(on).with_columns(w.alias("_w"), c).select(
            own.over(on).alias("fk"), pl.col("_w").sum().over(on).alias("Fk")
        )
        return out.get_column("fk").to_numpy(), out.get_column("Fk").to_numpy()
    # keys as they are (equality is all that matters); NaN in a float key is missing too
    codes = df.select([pl.col(c).fill_nan(None) if c in floats else pl.col(c) for c in on])
    m = len(on)
    pattern = pl.sum_horizontal(
        [pl.col(c).is_null().cast(pl.UInt32) * (1 << j) for j, c in enumerate(on)]
    ).cast(pl.UInt32 if m < 32 else pl.UInt64)
    frame = codes.with_columns(_w=w.alias("_w").cast(pl.Float64), _n=c, _p=pattern)

    full = (1 << m) - 1
    own = pl.len().cast(pl.Float64) if count is None else pl.col("_n").sum()
    combos = frame.group_by([*on, "_p"]).agg(_c=own, _w=pl.col("_w").sum())
    complete = combos.filter(pl.col("_p") == 0)
    partial = combos.filter((pl.col("_p") != 0) & (pl.col("_p") != full))
    all_na = combos.filter(pl.col("_p") == full)
    patterns = sorted(partial.get_column("_p").unique().to_list())
    by_pattern = {p: partial.filter(pl.col("_p") == p) for p in patterns}
    present = {p: [c for j, c in enumerate(on) if not (p >> j) & 1] for p in patterns}

    na_c = float(all_na.get_column("_c").sum()) if all_na.height else 0.0
    na_w = float(all_na.get_column("_w").sum()) if all_na.height else 0.0
    # complete combinations: + alpha x compatible partial-missing records (and, with one key,
    # the all-missing records: all_missing_is_wildcard)
    wild = all_missing_is_wildcard(m)
    add_c = np.full(complete.height, na_c if wild else 0.0)
    add_w = np.full(complete.height, na_w if wild else 0.0)
    cross = None
    if patterns and complete.height * sum(by_pattern[p].height for p in patterns) <= CROSS_LIMIT:
        # few combinations: complete against partial pairwise (Numba), not one join per pattern
        from ..kernels.wildcard import cross_compatible_sums

        both = key_codes(pl.concat([complete, *(by_pattern[p] for p in patterns)], how="vertical"), on)
        both = np.ascontiguousarray(both.select(pl.col(col).cast(pl.Int64).fill_null(-1) for col in on).to_numpy(),
                                    dtype=np.int64)
        cx, px = both[:complete.height], both[complete.height:]
        pc = np.concatenate([by_pattern[p].get_column("_c").to_numpy() for p in patterns]).astype(np.float64)
        pw = np.concatenate([by_pattern[p].get_column("_w").to_numpy() for p in patterns]).astype(np.float64)
        c, w_ = cross_compatible_sums(cx, px, pc, pw)
        add_c += c
        add_w += w_
        cross = cross_compatible_sums(px, cx, complete.get_column("_c").to_numpy().astype(np.float64),
                                      complete.get_column("_w").to_numpy().astype(np.float64))
    else:
        for p in patterns:
            c, w_ = _matched(complete, by_pattern[p], present[p])
            add_c += c
            add_w += w_
    complete_raw = complete
    complete = complete.with_columns(_c=pl.col("_c") + a * add_c, _w=pl.col("_w") + a * add_w)

    # partial-missing combinations: + compatible complete records + alpha x other compatible
    # records with missing keys (every other partial pattern and the all-missing records)
    partial = pl.concat([by_pattern[p] for p in patterns], how="vertical") if patterns else partial
    if 0 < partial.height <= PAIRWISE_LIMIT:
        # few partial combinations: all pairs at once (Numba), instead of one join per pattern pair
        from ..kernels.wildcard import compatible_sums

        pcodes = key_codes(partial, on).select(pl.col(col).cast(pl.Int64).fill_null(-1) for col in on)
        oc_all, ow_all = compatible_sums(
            np.ascontiguousarray(pcodes.to_numpy(), dtype=np.int64),
            partial.get_column("_c").to_numpy().astype(np.float64),
            partial.get_column("_w").to_numpy().astype(np.float64),
        )
    else:
        oc_all = ow_all = None
    parts = []
    start = 0
    for p in patterns:
        target = by_pattern[p]
        if cross is not None:
            c, w_ = cross[0][start : start + target.height], cross[1][start : start + target.height]
        else:
            c, w_ = _matched(target, complete_raw, present[p])
        if oc_all is not None:
            oc = oc_all[start : start + target.height] + na_c
            ow = ow_all[start : start + target.height] + na_w
        else:
            oc = np.full(target.height, na_c)
            ow = np.full(target.height, na_w)
            # other partial patterns, pooled by the key columns they share with p (one join each)
            pools: dict[tuple[str, ...], list[pl.DataFrame]] = {}
            for q in patterns:
                if q != p:
                    shared = tuple(col for col in present[p] if col in present[q])
                    pools.setdefault(shared, []).append(by_pattern[q].select([*shared, "_c", "_w"]))
            for shared, frames in pools.items():
                c2, w2 = _matched(target, pl.concat(frames, how="vertical"), list(shared))
                oc += c2
                ow += w2
        start += target.height
        parts.append(target.with_columns(_c=pl.col("_c") + c + a * oc, _w=pl.col("_w") + w_ + a * ow))
    total_w = float(frame.get_column("_w").sum())
    total_c = float(n) if count is None else float(frame.get_column("_n").sum())
    all_na = all_na.with_columns(_c=pl.lit(total_c), _w=pl.lit(total_w))
    result = pl.concat([complete, *parts, all_na], how="vertical")
    j = frame.select([*on, "_p"]).join(
        result, on=[*on, "_p"], how="left", nulls_equal=True, maintain_order="left"
    )
    return j.get_column("_c").to_numpy(), j.get_column("_w").to_numpy()


def frequencies_output_schema(schema: pl.Schema) -> pl.Schema:
    """Schema of :func:`frequencies_frame`: the input's, plus Float64 ``fk`` and ``Fk``."""
    out = dict(schema)
    out[FK] = pl.Float64
    out[FK_POP] = pl.Float64
    return pl.Schema(out)


def frequencies_frame(
    df: pl.DataFrame, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0, household: str | None = None,
    suppressed_as: str | None = None,
) -> pl.DataFrame:
    """``df`` with two Float64 columns appended: ``fk`` (sample frequency of the record's key
    combination) and ``Fk`` (sum of sampling weights over it; ``fk`` without ``weight``).

    Missing key values follow sdcMicro's ``freqCalc`` rule with weight ``alpha`` (module
    docstring). Existing columns named ``fk``/``Fk`` are replaced unless they are keys or the
    weight (then :class:`SDCError`). Row order and every other column are kept. With
    ``household``, ``fk`` / ``Fk`` count distinct households, not records
    (:mod:`polars_sdc.risk.household_frequencies`). ``suppressed_as``: the label of a
    generalised release's suppressed records (``"*"``), read as every key missing.

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 1, 2], "w": [10.0, 5.0, 3.0]})
    >>> frequencies_frame(df, "a", "w").select("fk", "Fk").rows()
    [(2.0, 15.0), (2.0, 15.0), (1.0, 3.0)]
    """
    cols = key_columns(df, on, weight)
    for name in (FK, FK_POP):
        if name in cols or name == weight:
            raise SDCError(f"column {name!r}: is a key or the weight; rename it before computing frequencies")
    if household is not None:
        from .household_frequencies import household_frequencies

        check_alpha(alpha)
        fk, Fk = household_frequencies(df, cols, household, weight, alpha, suppressed_as)
    else:
        from .suppressed import frequency_keys

        fk, Fk = frequencies(*frequency_keys(df, cols, suppressed_as), weight, alpha)
    return df.with_columns(pl.Series(FK, fk, dtype=pl.Float64), pl.Series(FK_POP, Fk, dtype=pl.Float64))
