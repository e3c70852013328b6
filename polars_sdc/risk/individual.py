"""Individual, global and household (hierarchical) re-identification risk.

Definitions (sdcMicro 5.8.1 ``indivRisk(method="approx")`` and ``measure_risk``; Franconi &
Polettini's individual risk, as in Templ, Kowarik & Meindl 2015), with ``fk``/``Fk`` from
:mod:`polars_sdc.risk.frequencies` and ``pk = fk / Fk``:

- ``fk == 1``: ``r = pk / (1 - pk) * ln(1 / pk)``
- ``fk == 2``: ``r = pk / (1 - pk) - (pk / (1 - pk))**2 * ln(1 / pk)``
- ``fk > 2``:  ``r = pk / (fk - (1 - pk))``
- ``fk == Fk`` (the whole population is in the sample; always so without weights): ``r = 1 / fk``.

A fractional ``fk`` strictly between 1 and 2 (possible with missing keys and ``0 < alpha < 1``)
falls in none of the three cases and gets risk 0, exactly as in sdcMicro.

Global risk = mean of ``r`` over records; expected re-identifications = sum of ``r``.
Household risk (``household=`` column): ``1 - prod(1 - r_i)`` over the household's records,
given to each of them; its mean and sum are the hierarchical global risk and expected
re-identifications.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError
from .frequencies import check_alpha, check_weights, frequency_groups, key_columns

RISK = "risk"
HOUSEHOLD_RISK = "household_risk"


def individual_risk(fk: np.ndarray, Fk: np.ndarray) -> np.ndarray:
    """The approximate individual risk of each record from its ``fk`` and ``Fk`` (module
    docstring; sdcMicro ``indivRisk``, method "approx").

    >>> import numpy as np
    >>> individual_risk(np.array([2.0, 1.0, 3.0]), np.array([110.0, 5.0, 3.0])).round(8).tolist()
    [0.01714426, 0.40235948, 0.33333333]
    """
    fk = np.asarray(fk, dtype=np.float64)
    Fk = np.asarray(Fk, dtype=np.float64)
    r = np.zeros(fk.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        pk = fk / Fk
        odds = pk / (1.0 - pk)
        log_inv = np.log(1.0 / pk)
        one = fk == 1
        two = fk == 2
        more = fk > 2
        r[one] = (odds * log_inv)[one]
        r[two] = (odds - odds**2 * log_inv)[two]
        r[more] = (pk / (fk - (1.0 - pk)))[more]
        same = fk == Fk
        r[same] = 1.0 / fk[same]
    return r


def frequencies_and_risk(
    df: pl.DataFrame, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``fk``, ``Fk`` (:func:`~polars_sdc.risk.frequencies.frequencies`) and the individual
    risk of every record (float64 arrays in row order). The risk is computed once per key
    combination (not once per record) when the keys allow a counting array, then gathered.

    >>> import polars as pl
    >>> fk, Fk, r = frequencies_and_risk(pl.DataFrame({"a": [1, 1, 2], "w": [10.0, 30.0, 4.0]}), "a", "w")
    >>> fk.tolist(), Fk.tolist(), r.round(6).tolist()
    ([2.0, 2.0, 1.0], [40.0, 40.0, 4.0], [0.044333, 0.044333, 0.462098])
    """
    cols = key_columns(df, on, weight)
    a = check_alpha(alpha)
    if weight is not None:
        check_weights(df, weight)
    index, fk, Fk = frequency_groups(df, cols, weight, a)
    if index is None:
        return fk, Fk, individual_risk(fk, Fk)
    present = np.flatnonzero(fk)
    r = np.zeros(fk.size)
    r[present] = individual_risk(fk[present], Fk[present])
    return np.take(fk, index), np.take(Fk, index), np.take(r, index)


def household_risk(risk: np.ndarray, household: pl.Series) -> np.ndarray:
    """``1 - prod(1 - r_i)`` over each record's household, per record (module docstring).

    >>> import numpy as np, polars as pl
    >>> household_risk(np.array([0.5, 0.5, 0.1]), pl.Series([1, 1, 2])).round(6).tolist()
    [0.75, 0.75, 0.1]
    """
    frame = pl.DataFrame({"h": household, "r": risk})
    out = frame.select(1.0 - (1.0 - pl.col("r")).product().over("h"))
    return out.to_series().to_numpy()


def _risk_arrays(
    df: pl.DataFrame, on: ColumnSpec, weight: str | None, alpha: float, household: str | None
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    cols = key_columns(df, on, weight)
    if household is not None:
        resolve_columns(df, [household], kind="supported", what="household")
        if household in cols or household == weight:
            raise SDCError(f"column {household!r}: is a key or the weight; the household id must be another column")
        nulls = df.get_column(household).null_count()
        if nulls:
            raise SDCError(f"column {household!r}: {nulls} null household id(s)")
    fk, Fk, r = frequencies_and_risk(df, cols, weight, alpha)
    h = household_risk(r, df.get_column(household)) if household is not None else None
    return cols, fk, Fk, r, h


def individual_risk_output_schema(schema: pl.Schema, household: str | None = None) -> pl.Schema:
    """Schema of :func:`individual_risk_frame`: the input's plus ``fk``, ``Fk``, ``risk``
    (and ``household_risk``), all Float64."""
    out = dict(schema)
    for name in ("fk", "Fk", RISK) + ((HOUSEHOLD_RISK,) if household is not None else ()):
        out[name] = pl.Float64
    return pl.Schema(out)


def individual_risk_frame(
    df: pl.DataFrame,
    on: ColumnSpec,
    weight: str | None = None,
    alpha: float = 1.0,
    household: str | None = None,
) -> pl.DataFrame:
    """``df`` with ``fk``, ``Fk``, ``risk`` (individual risk) and, with ``household=``,
    ``household_risk`` appended (Float64; module docstring for the definitions).

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 1, 2], "w": [10.0, 30.0, 4.0]})
    >>> individual_risk_frame(df, "a", "w")["risk"].round(6).to_list()
    [0.044333, 0.044333, 0.462098]
    """
    for name in ("fk", "Fk", RISK, HOUSEHOLD_RISK):
        if name in ([*key_columns(df, on, weight)] + [weight, household]):
            raise SDCError(f"column {name!r}: is a key, the weight or the household id; rename it first")
    _, fk, Fk, r, h = _risk_arrays(df, on, weight, alpha, household)
    new = [pl.Series("fk", fk), pl.Series("Fk", Fk), pl.Series(RISK, r)]
    if h is not None:
        new.append(pl.Series(HOUSEHOLD_RISK, h))
    return df.with_columns(new)


def global_risk(
    df: pl.DataFrame,
    on: ColumnSpec,
    weight: str | None = None,
    alpha: float = 1.0,
    household: str | None = None,
) -> dict[str, float]:
    """Global risk (mean individual risk), expected re-identifications (sum) and, with
    ``household=``, the same two for household risk (sdcMicro ``measure_risk``).

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 1, 2, 3]})
    >>> global_risk(df, "a")
    {'global_risk': 0.75, 'expected_reidentifications': 3.0}
    """
    _, _, _, r, h = _risk_arrays(df, on, weight, alpha, household)
    n = r.size
    out = {
        "global_risk": float(r.mean()) if n else 0.0,
        "expected_reidentifications": float(r.sum()),
    }
    if h is not None:
        out["household_risk"] = float(h.mean()) if n else 0.0
        out["household_expected_reidentifications"] = float(h.sum())
    return out
