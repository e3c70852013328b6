"""Laplace perturbation of numeric columns and its calibration for Pk-anonymity (Hasegawa et al., 2.2.1).

Each released value is ``y = x + e`` with ``e ~ Laplace(0, phi)`` (eq. 1/2). ``phi`` is given
directly, per column, or calibrated for Pk-anonymity (Igarashi et al. [6] as used in Hasegawa et al.):
``phi = 2 m (b - a) / ln((N - 1)/(k - 1))`` for an attribute with observed range ``[a, b]``,
N records and m attributes released together (m = 1 per attribute, as in the paper's tables).

Noise comes from the shared per-row generator :mod:`polars_sdc.rng`: row ``i`` of column ``c``
gets ``rng.laplace(seed, f"laplace/{c}", keys, phi)[i]`` where ``keys`` are the row positions,
or the values of a ``key=`` column (:func:`polars_sdc.rng.row_keys`). The same seed and keys
give the same noise eagerly, lazily, in streaming collects, inside ``.over()`` groups (with a
key) and on Spark partitions; a column's noise does not depend on which other columns are
perturbed with it, and two columns never share a noise vector.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from ._columns import ColumnSpec, check_finite, resolve_columns
from . import rng
from ._errors import SDCError
from ._signature import check_keywords
from ._validation import check_int, check_seed


def check_pk(k: Any, m: Any) -> None:
    """The Pk-anonymity ``k`` (an integer >= 2) and ``m`` (attributes released together, >= 1)
    of a calibration, checked before any data is read.

    >>> check_pk(1, 1)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: k must be >= 2 for Pk-anonymity calibration, got 1
    """
    for name, v in (("k", k), ("m", m)):
        check_int(v, name)
    if m < 1:
        raise SDCError(f"m must be >= 1, got {m}")
    if k < 2:
        raise SDCError(f"k must be >= 2 for Pk-anonymity calibration, got {k}")


@check_keywords
def pk_phi(a: float, b: float, n: int, k: int, m: int = 1) -> float:
    """The Laplace scale giving Pk-anonymity ``k`` to an attribute with range ``[a, b]`` in a
    table of ``n`` records: ``2 m (b - a) / ln((n - 1)/(k - 1))`` (Hasegawa et al., section 5).

    >>> round(pk_phi(17, 90, 32561, 2), 4)      # UCI Adult age
    14.0508
    >>> round(pk_phi(1, 16, 32561, 2), 4)       # education-num
    2.8872
    >>> round(pk_phi(17, 90, 32561, 2, m=3), 4) # three attributes released together
    42.1525
    """
    check_int(n, "n")
    check_pk(k, m)
    if k >= n:
        from .household import row_unit

        unit = "records" if row_unit() == "row" else row_unit(True)   # the household rows: households
        raise SDCError(f"k = {k} must be smaller than the number of {unit} ({n})")
    if not (math.isfinite(a) and math.isfinite(b)) or b < a:
        raise SDCError(f"range [{a}, {b}] must be finite with a <= b")
    d = math.log((n - 1) / (k - 1))
    if isinstance(a, int) and isinstance(b, int):   # integers beyond 2^53: the exact range
        return 2.0 * m * float(b - a) / d
    phi = 2.0 * m * (float(b) - float(a)) / d
    if math.isinf(phi):   # b - a beyond 1.8e308 (data near -+1e308): in halves, inf only if phi is
        phi = (float(b) * 0.5 - float(a) * 0.5) / d * (4.0 * m)
    return phi


def calibrate_phi(df: pl.DataFrame, on: ColumnSpec, k: int, *, m: int = 1) -> dict[str, float]:
    """``{column: pk_phi(min, max, height, k, m)}`` for the numeric ``on`` columns.

    >>> calibrate_phi(pl.DataFrame({"x": [0.0, 1.0, 4.0]}), "x", 2)
    {'x': 11.541560327111707}
    """
    cols = resolve_columns(df, on, kind="numeric", default="numeric")
    check_finite(df, cols, nulls=True)
    row = df.select(*(pl.col(c).min().alias(f"lo{i}") for i, c in enumerate(cols)),
                    *(pl.col(c).max().alias(f"hi{i}") for i, c in enumerate(cols)),
                    *(pl.col(c).count().alias(f"n{i}") for i, c in enumerate(cols))).row(0)
    p = len(cols)
    return pk_phis({c: (row[i], row[p + i], row[2 * p + i]) for i, c in enumerate(cols)}, k, m)


def pk_phis(ranges: Mapping[str, tuple[Any, Any, int]], k: int, m: int = 1) -> dict[str, float]:
    """:func:`pk_phi` per column from its ``(min, max, non-null count)``: the calibration of
    :func:`calibrate_phi` from statistics computed elsewhere (Spark's aggregation). N is the
    column's non-null values (structural nulls are not records of this attribute).

    >>> pk_phis({"x": (0.0, 4.0, 3)}, 2)
    {'x': 11.541560327111707}
    """
    out = {}
    for c, (lo, hi, n) in ranges.items():
        if not n:
            raise SDCError(f"column {c!r}: every value is null; there is no range to calibrate phi from")
        exact = isinstance(lo, (int, np.integer)) and isinstance(hi, (int, np.integer))
        out[c] = pk_phi(int(lo), int(hi), int(n), k, m) if exact else pk_phi(float(lo), float(hi), int(n), k, m)
    return out


def _fresh_seed() -> int:
    return rng.fresh_seed()


def _as_phi(v: Any, where: str) -> float:
    """One Laplace scale: a finite real number > 0 (a bool is refused, like ``k`` and ``p``)."""
    if isinstance(v, (bool, np.bool_)):
        raise SDCError(f"{where}phi must be a number > 0, got the bool {v!r}")
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise SDCError(f"{where}phi must be a number > 0, got {v!r}") from None
    if not (math.isfinite(f) and f > 0):
        raise SDCError(f"{where}phi must be a finite number > 0, got {v!r}")
    return f


def phi_resolution_error(name: str, phi: float, top: float) -> SDCError | None:
    """The SDCError for Laplace noise of scale ``phi`` below float64's spacing at the column's
    largest ``|x|`` (``top``): the noise would round away, a release of (nearly) the data. One
    ``phi`` per column, so the whole column's ``top`` decides; :func:`laplace_values` and the
    Spark port (a max-abs aggregation on the driver) both call it.

    >>> print(phi_resolution_error("x", 1.0, 2.0**63))
    column 'x': Laplace noise of scale phi=1 is below float64's spacing (2048) at its values (|x| up to 9.22337e+18), so it would be rounded away; use a larger phi or subtract an offset from the column first
    """
    if phi < np.spacing(top):
        return SDCError(
            f"column {name!r}: Laplace noise of scale phi={phi:g} is below float64's spacing "
            f"({np.spacing(top):g}) at its values (|x| up to {top:g}), so it would be rounded away; "
            "use a larger phi or subtract an offset from the column first"
        )
    return None


def laplace_values(
    x: np.ndarray, phi: float, seed: int, name: str, *, clamp: bool = False, keys: np.ndarray | None = None,
    bounds: tuple[float, float] | None = None,
) -> np.ndarray:
    """``x + Laplace(0, phi)`` for one column (float64): the noise of row ``i`` is
    ``rng.laplace(seed, f"laplace/{name}", keys, phi)[i]``, ``keys`` the row positions by
    default; ``clamp`` clips the result to the observed ``[min(x), max(x)]``. A release that
    would overflow float64 (``phi`` near 1e308) is refused, never returned as inf (with
    ``clamp`` such a value is clipped to the bound it passed: the exact clipped release).
    ``bounds``: clip to these ``(min, max)`` instead (the whole frame's, when ``x`` is a part).

    >>> from polars_sdc import rng
    >>> x = np.array([1.0, 2.0, 3.0])
    >>> y = laplace_values(x, 2.0, 5, "x")
    >>> bool(np.allclose(y - x, rng.laplace(5, "laplace/x", rng.row_positions(3), 2.0)))
    True
    """
    if keys is None:
        keys = rng.row_positions(x.shape[0])
    err = phi_resolution_error(name, phi, float(np.max(np.abs(x))) if x.size else 0.0)
    if err is not None:
        raise err
    stream = rng.stream("laplace", column=name)
    with np.errstate(over="ignore", invalid="ignore"):
        if phi > 2.0**1000:
            # |noise| reaches ~37 phi: add at 2^-6 scale (exact, the same bits) so that a noise
            # beyond 1.8e308 whose sum with x is finite (x near -1e308) is not an inf
            y = np.ldexp(np.ldexp(x, -6) + rng.laplace(seed, stream, keys, np.ldexp(phi, -6)), 6)
        else:
            y = x + rng.laplace(seed, stream, keys, phi)
    if bounds is None and clamp and x.size:
        bounds = (x.min(), x.max())
    if bounds is not None and y.size:
        # a release clipped to [min, max]: a sum beyond float64 is clipped to the bound it passed
        np.clip(y, float(bounds[0]), float(bounds[1]), out=y)
    if not np.isfinite(y).all():
        raise SDCError(
            f"column {name!r}: Laplace noise of scale phi={phi:g} overflows float64 (the release would hold inf); "
            "use a smaller phi or rescale the column"
        )
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
        out[j] = _as_phi(v, f"column {c!r}: ")
    return out


def _phi_map(df: pl.DataFrame, cols: list[str], phi: Any, k: Any, m: int) -> dict[str, float]:
    check_phi_or_k(phi, k)
    if k is not None:
        phis = calibrate_phi(df, cols, k, m=m)
    else:
        phis = dict(zip(cols, phi_vector(phi, cols).tolist()))
    return check_phis(phis)


def check_phi_or_k(phi: Any, k: Any) -> None:
    """Exactly one of ``phi`` (the scale) and ``k`` (Pk-anonymity calibration) is given."""
    if phi is not None and k is not None:
        raise SDCError("give either phi or k (Pk-anonymity calibration), not both")
    if phi is None and k is None:
        raise SDCError("give phi (the Laplace scale) or k (to calibrate phi for Pk-anonymity)")


def check_phis(phis: dict[str, float]) -> dict[str, float]:
    """``phis`` after the checks of a calibrated scale (0: a constant column; inf: a range too wide)."""
    for c, v in phis.items():
        if not v > 0:
            raise SDCError(f"column {c!r}: constant column, the calibrated phi is 0; drop it from `on`")
        if not math.isfinite(v):
            raise SDCError(f"column {c!r}: the calibrated phi overflows float64 (range too wide); give phi")
    return phis


def check_phi_arg(phi: Any) -> None:
    """Early check of a directly given ``phi`` (number, sequence or mapping of numbers > 0)."""
    if phi is None:
        return
    values = phi.values() if isinstance(phi, Mapping) else (
        phi if isinstance(phi, Sequence) and not isinstance(phi, (str, bytes)) else [phi])
    for v in values:
        _as_phi(v, "")


def laplace_on(on: ColumnSpec, phi: Any) -> ColumnSpec:
    """``on`` defaults to the keys of a ``{column: phi}`` mapping."""
    if on is None and isinstance(phi, Mapping):
        return list(phi)
    return on


def laplace_columns(schema: pl.Schema, phi: Any, on: ColumnSpec, *, seed: Any, key: str | None,
                    household: str | None = None, household_columns: Any = None, k: Any = None,
                    m: Any = 1) -> list[str]:
    """The columns :func:`laplace_frame` perturbs, after the checks that need no data (a
    directly given ``phi``: one per column, a ``{column: phi}`` naming exactly the ``on``
    columns; or ``k`` / ``m``; ``seed``, the columns and ``key``): a lazy step runs them when
    planned.

    >>> laplace_columns(pl.Schema({"id": pl.Int64, "x": pl.Float64}), {"x": 1.0}, None, seed=1, key="id")
    ['x']
    """
    from .household import check_household_column, check_household_columns
    from .masking._common import resolve_on

    check_phi_arg(phi)
    check_seed(seed)
    on = laplace_on(on, phi)
    check_household_columns(schema, household, household_columns)
    if household is not None and on is None:
        check_household_column(schema, household)
        schema = pl.Schema({c: t for c, t in schema.items() if c != household})
    cols = resolve_on(schema, on, key, kind="numeric", default="numeric")
    check_household_column(schema, household, cols)
    check_phi_or_k(phi, k)
    if k is not None:
        check_pk(k, m)
    else:
        phi_vector(phi, cols)       # a column without its phi, a list of another length
        if isinstance(phi, Mapping):  # a phi for a column not masked (a typo) is no silent no-op
            extra = [c for c in phi if c not in cols]
            if extra:
                raise SDCError(f"phi: column {extra[0]!r} is not one of the `on` columns ({', '.join(cols)})")
    return cols


def laplace_frame(
    df: pl.DataFrame,
    phi: Any = None,
    on: ColumnSpec = None,
    *,
    k: int | None = None,
    seed: int | None = None,
    clamp: bool = False,
    m: int = 1,
    key: str | None = None,
    household: str | None = None,
    household_columns: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Add Laplace noise to the ``on`` columns (Float64 out); other columns and row order kept.
    Row ``i`` of column ``c`` gets ``rng.laplace(seed, f"laplace/{c}", keys, phi)[i]``, keys =
    row positions or the ``key`` column (never itself perturbed, nor in the default ``on``).

    Nulls (structural: a child's income) stay null; the non-null values get the noise of their
    rows, and ``k`` calibrates phi from the non-null values (their range and count).
    ``household``: the household id column; household-level ``on`` columns (constant within
    every household, :mod:`polars_sdc.household`) get one draw per household (keyed by its
    first-appearance position, or by the household id when ``key`` is given; ``k`` calibrated
    over the households), broadcast to every member. ``household_columns``: the household-level
    columns declared instead of detected (the others person-level;
    :func:`polars_sdc.household.check_household_columns`).

    >>> df = pl.DataFrame({"id": [1, 2], "x": [1.0, 2.0]})
    >>> out = laplace_frame(df, 1e-12, "x", seed=1)
    >>> out["x"].round(6).to_list(), out["id"].to_list()
    ([1.0, 2.0], [1, 2])
    >>> df = pl.DataFrame({"hh": [1, 1, 2], "inc": [10.0, 10.0, 20.0], "pay": [None, 1.0, 2.0]})
    >>> out = laplace_frame(df, 1.0, ["inc", "pay"], seed=1, household="hh")
    >>> out["inc"][0] == out["inc"][1], out["pay"].is_null().to_list()
    (True, [True, False, False])
    """
    from .household import check_household_columns, mask_by_household

    cols = laplace_columns(df.schema, phi, on, seed=seed, key=key, household=household, k=k, m=m)
    declared = check_household_columns(df.schema, household, household_columns)
    check_finite(df, cols, nulls=True)
    if phi is not None and k is None:
        phi = dict(zip(cols, phi_vector(phi, cols).tolist()))
    s = _fresh_seed() if seed is None else int(seed)

    def run(frame: pl.DataFrame, columns: list[str], kk: str | None) -> pl.DataFrame:
        phis = _phi_map(frame, columns, phi, k, m)
        bounds = None
        if clamp:
            bounds = {c: (frame.get_column(c).min(), frame.get_column(c).max()) for c in columns}
        return laplace_apply(frame, phis, s, key=kk, bounds=bounds)

    return mask_by_household(df, household, cols, run, method="laplace", key=key, household_columns=declared)


def laplace_apply(df: pl.DataFrame, phis: Mapping[str, float], seed: int, *, key: str | None = None,
                  bounds: Mapping[str, tuple[Any, Any]] | None = None) -> pl.DataFrame:
    """The noise step of :func:`laplace_frame` with everything whole-frame already decided:
    ``phis`` (``{column: scale}``), the ``seed``, and for ``clamp`` the ``bounds`` (``{column:
    (min, max)}`` of the non-null values) to clip to. Nulls stay null. Row ``i`` of column ``c``
    gets the noise of its key (``key`` column, else its position), so a chunk of rows with a
    ``key`` gets the numbers the whole frame gives them (Spark runs this per Arrow batch).

    >>> df = pl.DataFrame({"id": [1, 2, 3], "x": [1.0, None, 3.0]})
    >>> whole = laplace_apply(df, {"x": 2.0}, 7, key="id")
    >>> whole["x"][2] == laplace_apply(df[2:], {"x": 2.0}, 7, key="id")["x"][0], whole["x"][1]
    (True, None)
    """
    from .masking._common import frame_keys

    keys = frame_keys(df, key)
    new = []
    for c, phi in phis.items():
        col = df.get_column(c)
        x = col.cast(pl.Float64).to_numpy()
        ok = col.is_not_null().to_numpy() if col.null_count() else None
        y = np.zeros(df.height) if ok is not None else None
        got = laplace_values(x if ok is None else x[ok], phi, seed, c, keys=keys if ok is None else keys[ok],
                             bounds=bounds.get(c) if bounds is not None else None)
        if ok is None:
            new.append(pl.Series(c, got, dtype=pl.Float64))
        else:
            y[ok] = got
            new.append(pl.Series(c, y, dtype=pl.Float64).set(pl.Series(~ok), None))
    return df.with_columns(new)


def laplace_series(
    s: pl.Series,
    phi: Any = None,
    seed: int | None = None,
    *,
    k: int | None = None,
    clamp: bool = False,
    m: int = 1,
    keys: pl.Series | None = None,
    name: str | None = None,
) -> pl.Series:
    """One column's noisy values: the same numbers as :func:`laplace_frame` gives that column
    (stream ``f"laplace/{name}"``, ``name`` defaulting to the Series name; row keys = positions
    or the ``keys`` Series; Hasegawa et al. eq. 1/2).

    >>> s = pl.Series("x", [1.0, 2.0, 3.0])
    >>> laplace_series(s, 2.0, 7).equals(laplace_frame(s.to_frame(), 2.0, "x", seed=7)["x"])
    True
    """
    name = s.name if name is None else name
    if not name:
        raise SDCError("laplace: the column has no name, so it has no noise stream; alias it or use df.sdc.laplace")
    df = s.alias(name).to_frame()
    key = None
    if keys is not None:
        key = "__sdc_key__" if keys.name == name else keys.name or "__sdc_key__"
        df = df.with_columns(keys.alias(key))
    out = laplace_frame(df, phi, name, k=k, seed=seed, clamp=clamp, m=m, key=key)
    return out.get_column(name).alias(s.name)


def laplace_output_schema(schema: pl.Schema, cols: Sequence[str]) -> pl.Schema:
    """The frame schema after :func:`laplace_frame`: the perturbed columns become Float64."""
    return pl.Schema({c: (pl.Float64 if c in cols else t) for c, t in schema.items()})
