"""Laplace perturbation of numeric columns and its calibration for Pk-anonymity (seed 004, 2.2.1).

Each released value is ``y = x + e`` with ``e ~ Laplace(0, phi)`` (eq. 1/2). ``phi`` is given
directly, per column, or calibrated for Pk-anonymity (Igarashi et al. [6] as used in seed 004):
``phi = 2 m (b - a) / ln((N - 1)/(k - 1))`` for an attribute with observed range ``[a, b]``,
N records and m attributes released together (m = 1 per attribute, as in the paper's tables).

Noise is drawn for the whole column at once from a generator seeded by ``(seed, column
name)``: the same seed gives the same noise eagerly, lazily and in streaming collects, a
column's noise does not depend on which other columns are perturbed with it, and two columns
never share a noise vector.
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from ._columns import ColumnSpec, check_finite, resolve_columns
from ._errors import SDCError


def pk_phi(a: float, b: float, n: int, k: int, m: int = 1) -> float:
    """The Laplace scale giving Pk-anonymity ``k`` to an attribute with range ``[a, b]`` in a
    table of ``n`` records: ``2 m (b - a) / ln((n - 1)/(k - 1))`` (seed 004, section 5).

    >>> round(pk_phi(17, 90, 32561, 2), 4)      # UCI Adult age
    14.0508
    >>> round(pk_phi(1, 16, 32561, 2), 4)       # education-num
    2.8872
    >>> round(pk_phi(17, 90, 32561, 2, m=3), 4) # three attributes released together
    42.1525
    """
    for name, v in (("n", n), ("k", k), ("m", m)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise SDCError(f"{name} must be an integer, got {v!r}")
    if m < 1:
        raise SDCError(f"m must be >= 1, got {m}")
    if k < 2:
        raise SDCError(f"k must be >= 2 for Pk-anonymity calibration, got {k}")
    if k >= n:
        raise SDCError(f"k = {k} must be smaller than the number of records ({n})")
    if not (math.isfinite(a) and math.isfinite(b)) or b < a:
        raise SDCError(f"range [{a}, {b}] must be finite with a <= b")
    return 2.0 * m * (float(b) - float(a)) / math.log((n - 1) / (k - 1))


def calibrate_phi(df: pl.DataFrame, on: ColumnSpec, k: int, *, m: int = 1) -> dict[str, float]:
    """``{column: pk_phi(min, max, height, k, m)}`` for the numeric ``on`` columns.

    >>> calibrate_phi(pl.DataFrame({"x": [0.0, 1.0, 4.0]}), "x", 2)
    {'x': 11.541560327111707}
    """
    cols = resolve_columns(df, on, kind="numeric", default="numeric")
    check_finite(df, cols)
    row = df.select(*(pl.col(c).min().alias(f"lo{i}") for i, c in enumerate(cols)),
                    *(pl.col(c).max().alias(f"hi{i}") for i, c in enumerate(cols))).row(0)
    out = {}
    for i, c in enumerate(cols):
        out[c] = pk_phi(float(row[i]), float(row[len(cols) + i]), df.height, k, m)
    return out


def _check_seed(seed: Any) -> None:
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SDCError(f"seed must be a non-negative integer or None, got {seed!r}")


def _column_rng(seed: int, name: str) -> np.random.Generator:
    key = int.from_bytes(hashlib.blake2b(name.encode("utf-8"), digest_size=8).digest(), "little")
    return np.random.default_rng(np.random.SeedSequence([int(seed), key]))


def _fresh_seed() -> int:
    return int(np.random.SeedSequence().entropy) % (1 << 63)


def laplace_values(x: np.ndarray, phi: float, seed: int, name: str, *, clamp: bool = False) -> np.ndarray:
    """``x + Laplace(0, phi)`` for one column (float64), noise from ``(seed, name)``;
    ``clamp`` clips the result to the observed ``[min(x), max(x)]``."""
    y = x + _column_rng(seed, name).laplace(0.0, phi, x.shape[0])
    if clamp and x.size:
        np.clip(y, x.min(), x.max(), out=y)
    return y


def phi_vector(phi: Any, columns: Sequence[str]) -> np.ndarray:
    """``phi`` as one positive float per column: a number, a ``{column: phi}`` mapping or a
    sequence in the order of ``columns``."""
    if phi is None:
        raise SDCError("phi is required: the Laplace scale the data were perturbed with")
    if isinstance(phi, Mapping):
        missing = [c for c in columns if c not in phi]
        if missing:
            raise SDCError(f"column {missing[0]!r}: no phi given for it")
        values = [phi[c] for c in columns]
    elif isinstance(phi, (str, bytes)):
        raise SDCError(f"phi must be a number, a sequence or a mapping, got {phi!r}")
    elif isinstance(phi, Sequence) or (isinstance(phi, np.ndarray) and phi.ndim == 1):
        values = list(phi)
        if len(values) != len(columns):
            raise SDCError(f"phi: {len(values)} value(s) for {len(columns)} column(s)")
    else:
        values = [phi] * len(columns)
    out = np.empty(len(columns))
    for j, (c, v) in enumerate(zip(columns, values)):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise SDCError(f"column {c!r}: phi must be a number, got {v!r}") from None
        if not (math.isfinite(f) and f > 0):
            raise SDCError(f"column {c!r}: phi must be a finite number > 0, got {v!r}")
        out[j] = f
    return out


def _phi_map(df: pl.DataFrame, cols: list[str], phi: Any, k: Any, m: int) -> dict[str, float]:
    if phi is not None and k is not None:
        raise SDCError("give either phi or k (Pk-anonymity calibration), not both")
    if phi is None and k is None:
        raise SDCError("give phi (the Laplace scale) or k (to calibrate phi for Pk-anonymity)")
    if k is not None:
        phis = calibrate_phi(df, cols, k, m=m)
    else:
        phis = dict(zip(cols, phi_vector(phi, cols).tolist()))
    for c, v in phis.items():
        if not v > 0:
            raise SDCError(f"column {c!r}: constant column, the calibrated phi is 0; drop it from `on`")
    return phis


def check_phi_arg(phi: Any) -> None:
    """Early check of a directly given ``phi`` (number, sequence or mapping of numbers > 0)."""
    if phi is None:
        return
    values = phi.values() if isinstance(phi, Mapping) else (
        phi if isinstance(phi, Sequence) and not isinstance(phi, (str, bytes)) else [phi])
    for v in values:
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise SDCError(f"phi must be a number > 0, got {v!r}") from None
        if not (math.isfinite(f) and f > 0):
            raise SDCError(f"phi must be a finite number > 0, got {v!r}")


def laplace_on(on: ColumnSpec, phi: Any) -> ColumnSpec:
    """``on`` defaults to the keys of a ``{column: phi}`` mapping."""
    if on is None and isinstance(phi, Mapping):
        return list(phi)
    return on


def laplace_frame(
    df: pl.DataFrame,
    phi: Any = None,
    on: ColumnSpec = None,
    *,
    k: int | None = None,
    seed: int | None = None,
    clamp: bool = False,
    m: int = 1,
) -> pl.DataFrame:
    """Add Laplace noise to the ``on`` columns (Float64 out); other columns and row order kept.

    >>> df = pl.DataFrame({"id": [1, 2], "x": [1.0, 2.0]})
    >>> out = laplace_frame(df, 1e-12, "x", seed=1)
    >>> out["x"].round(6).to_list(), out["id"].to_list()
    ([1.0, 2.0], [1, 2])
    """
    _check_seed(seed)
    cols = resolve_columns(df, laplace_on(on, phi), kind="numeric", default="numeric")
    check_finite(df, cols)
    phis = _phi_map(df, cols, phi, k, m)
    s = _fresh_seed() if seed is None else int(seed)
    new = []
    for c in cols:
        x = df.get_column(c).cast(pl.Float64).to_numpy()
        new.append(pl.Series(c, laplace_values(x, phis[c], s, c, clamp=clamp), dtype=pl.Float64))
    return df.with_columns(new)


def laplace_series(
    s: pl.Series, phi: Any = None, seed: int | None = None, *, k: int | None = None, clamp: bool = False, m: int = 1
) -> pl.Series:
    """One column's noisy values: the same numbers as :func:`laplace_frame` gives that column
    (the stream is keyed by the Series name; seed 004 eq. 1/2).

    >>> s = pl.Series("x", [1.0, 2.0, 3.0])
    >>> laplace_series(s, 2.0, 7).equals(laplace_frame(s.to_frame(), 2.0, "x", seed=7)["x"])
    True
    """
    df = s.to_frame()
    return laplace_frame(df, phi, s.name, k=k, seed=seed, clamp=clamp, m=m).to_series()


def laplace_output_schema(schema: pl.Schema, cols: Sequence[str]) -> pl.Schema:
    """The frame schema after :func:`laplace_frame`: the perturbed columns become Float64."""
    return pl.Schema({c: (pl.Float64 if c in cols else t) for c, t in schema.items()})
