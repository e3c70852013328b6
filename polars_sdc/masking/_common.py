"""Shared argument handling of the randomised masking methods: the ``key=`` column, seeds."""
from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .. import rng
from .._columns import ColumnSpec, resolve_columns, unknown_column
from .._errors import SDCError
from .._validation import check_seed  # noqa: F401  (re-exported for the masking modules)


def seed_or_fresh(seed: int | None) -> int:
    """The user's seed, or one from the OS entropy when None."""
    return rng.fresh_seed() if seed is None else int(seed)


def check_key(schema: pl.Schema, key: str | None, on: list[str] | None = None) -> None:
    """``key``: None or the name of an existing column that is not perturbed itself."""
    if key is None:
        return
    if not isinstance(key, str):
        raise SDCError(f"key must be a column name, got {key!r}")
    if key not in schema:
        raise unknown_column(key, schema.names(), label="key column", list_them=False)
    if on is not None and key in on:
        raise SDCError(f"key column {key!r}: is also in `on`; the key identifies rows and is not masked")
    rng.check_key_dtype(key, schema[key])


def resolve_on(schema: pl.Schema, on: ColumnSpec, key: str | None, *, kind: str, default: str) -> list[str]:
    """``on`` resolved; when ``on`` is None the ``key`` column is left out of the default."""
    cols = resolve_columns(schema, on, kind=kind, default=default)
    if on is None and key is not None:
        cols = [c for c in cols if c != key]
        if not cols:
            raise SDCError("`on`: no column left besides the key column")
    check_key(schema, key, cols)
    return cols


def on_and_by(schema: pl.Schema, on: ColumnSpec, by: ColumnSpec, key: str | None) -> tuple[list[str], list[str]]:
    """Numeric ``on`` columns (by default every numeric column except the ``by`` and ``key``
    columns) and the ``by`` strata columns: existing, disjoint from ``on`` and from ``key``.

    >>> on_and_by(pl.Schema({"x": pl.Float64, "g": pl.Int64}), None, "g", None)
    (['x'], ['g'])
    """
    by_cols = [] if by is None else resolve_columns(schema, by, what="by")
    if key is not None and key in by_cols:
        raise SDCError(f"column {key!r}: both the key and a `by` column")
    cols = resolve_on(schema, on, key, kind="numeric", default="numeric")
    if on is None and by_cols:
        cols = [c for c in cols if c not in by_cols]
        if not cols:
            raise SDCError("`on`: no numeric column left besides the `by` columns")
    for b in by_cols:
        if b in cols:
            raise SDCError(f"column {b!r}: in both `on` and `by`; a stratum column cannot be masked")
    return cols, by_cols


def frame_keys(df: pl.DataFrame, key: str | None) -> np.ndarray:
    """The per-row keys of ``df``: row positions, or :func:`polars_sdc.rng.row_keys` of ``key``."""
    if key is None:
        return rng.row_positions(df.height)
    return rng.row_keys(df.get_column(key))


def strata(df: pl.DataFrame, by: list[str] | None) -> tuple[np.ndarray, list[tuple]]:
    """Stratum index per row (int64, 0..S-1, strata sorted by value -- an Enum by its labels, as
    Spark sees them -- nulls last) and the strata values; one stratum ``()`` when ``by`` is empty.

    >>> strata(pl.DataFrame({"r": ["b", "a", "b"]}), ["r"])
    (array([1, 0, 1]), [('a',), ('b',)])
    """
    if not by:
        return np.zeros(df.height, dtype=np.int64), [()]
    keys = [f"b{i}" for i in range(len(by))]   # positional: a `by` column may be called anything
    frame = df.select(pl.col(b).alias(k) for b, k in zip(by, keys))
    # an Enum stratum sorts by its label, not its category order: Spark (no Enum) numbers the
    # strata by label too, and PRAM's drawn diagonals follow the stratum number
    order = [pl.col(k).cast(pl.String) if isinstance(frame.schema[k], pl.Enum) else pl.col(k) for k in keys]
    u = frame.unique().sort(order, nulls_last=True).with_row_index("__sdc_stratum__")
    idx = frame.join(u, on=keys, how="left", nulls_equal=True, maintain_order="left")
    return idx.get_column("__sdc_stratum__").to_numpy().astype(np.int64), u.drop("__sdc_stratum__").rows()


def check_fraction(name: str, v: Any, *, lo: float = 0.0, hi: float = 1.0, lo_open: bool = False) -> float:
    """A real number in [lo, hi] (or (lo, hi]); bools refused."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise SDCError(f"{name} must be a number in [{lo}, {hi}], got {v!r}")
    f = float(v)
    if not (np.isfinite(f) and (f > lo if lo_open else f >= lo) and f <= hi):
        raise SDCError(f"{name} must be a number in {'(' if lo_open else '['}{lo}, {hi}], got {v!r}")
    return f


_FAST = 200_000   # from this many rows the Numba pass of the generator pays for its load time


def uniform(seed: int, stream: str, keys: np.ndarray) -> np.ndarray:
    """:func:`polars_sdc.rng.uniform`, bit for bit, in one Numba pass on large inputs."""
    if keys.shape[0] < _FAST:
        return rng.uniform(seed, stream, keys)
    from ..kernels.masking import uniform as kernel

    return kernel(np.ascontiguousarray(keys, dtype=np.uint64), rng.stream_hash(seed, stream))


def normal(seed: int, stream: str, keys: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """:func:`polars_sdc.rng.normal` (Box-Muller on the same two uniforms; on large inputs in
    one Numba pass, equal up to the last bit of ``log``/``cos``), into ``out`` if given."""
    if out is None:
        out = np.empty(keys.shape[0])
    if keys.shape[0] >= _FAST:
        from ..kernels.masking import normal as kernel

        k = np.ascontiguousarray(keys, dtype=np.uint64)
        return kernel(k, *(rng.stream_hash(seed, s) for s in rng.normal_streams(stream)), out)
    s1, s2 = rng.normal_streams(stream)
    u1 = uniform(seed, s1, keys)
    u2 = uniform(seed, s2, keys)
    out[:] = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
    return out


def on_by_household(schema: pl.Schema, on: ColumnSpec, by: ColumnSpec, key: str | None,
                    household: str | None) -> tuple[list[str], list[str]]:
    """:func:`on_and_by`, with the ``household`` id column checked (existing, not masked, not a
    ``by`` column) and left out of the default ``on``."""
    from ..household import check_household_column

    if household is not None and on is None:
        check_household_column(schema, household)
        rest = {c: t for c, t in schema.items() if c != household}
        cols, by_cols = on_and_by(pl.Schema(rest), on, by, key)
    else:
        cols, by_cols = on_and_by(schema, on, by, key)
    check_household_column(schema, household, cols)
    if household is not None and household in by_cols:
        raise SDCError(f"column {household!r}: both the household id and a `by` column")
    return cols, by_cols


def null_patterns(M: np.ndarray) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """For a boolean (n, p) matrix ``M`` of present (non-null) values: each row's pattern index
    and the patterns (tuples of the present column positions), in first-appearance order.

    >>> null_patterns(np.array([[True, False], [True, True], [True, False]]))
    (array([0, 1, 0]), [(0,), (0, 1)])
    """
    p = M.shape[1]
    code = (M.astype(np.int64) << np.arange(p, dtype=np.int64)).sum(axis=1) if p < 63 else \
        np.unique(M, axis=0, return_inverse=True)[1].ravel()
    u, first, inv = np.unique(code, return_index=True, return_inverse=True)
    rank = np.empty(u.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(u.size)
    pats = [tuple(np.flatnonzero(M[i]).tolist()) for i in np.sort(first)]
    return rank[inv.ravel()], pats
