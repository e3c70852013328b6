"""Individual, global and household (hierarchical) re-identification risk.

Definitions (sdcMicro 5.8.1 ``indivRisk(method="approx")`` and ``measure_risk``; Franconi &
Polettini's individual risk, as in Templ, Kowarik & Meindl 2015), with ``fk``/``Fk`` from
:mod:`polars_sdc.risk.frequencies` and ``pk = fk / Fk``:

- ``fk == 1``: ``r = pk / (1 - pk) * ln(1 / pk)``
- ``fk == 2``: ``r = pk / (1 - pk) - (pk / (1 - pk))**2 * ln(1 / pk)``
- ``fk > 2``:  ``r = pk / (fk - (1 - pk))``
- ``fk == Fk`` (the whole population is in the sample; always so without weights): ``r = 1 / fk``.

Evaluated stably: with ``q = (Fk - fk) / Fk``, ``ln(1 / pk) = -log1p(-q)`` and, for ``fk == 2``,
``r = pk - pk^2 (ln(1/pk) - q) / q^2`` by its series ``pk - pk^2 sum_j q^j / (j + 2)`` when
``|q| < 1/2`` (the textbook form cancels catastrophically when ``Fk ~ fk``: ``fk = 2``,
``Fk = 2 + 1.5e-8`` gave -0.47 instead of 0.5). Every risk lies in [0, 1].

Two cases sdcMicro leaves unsafe, and ``alpha_rule`` (default ``"safe"``):

- **A fractional ``fk``** (missing keys with ``0 < alpha < 1``): sdcMicro's ``indivRisk`` gives
  a record with ``1 < fk < 2`` risk 0 (it falls in none of its three cases), so lowering alpha
  can drop the riskiest record's risk from 0.31 to 0 (issue 26.8). ``"safe"``: ``1 < fk < 2``
  takes the ``fk == 1`` formula (the record has one certain look-alike, itself), and a record's
  risk at ``alpha < 1`` is never below its risk at ``alpha = 1`` (the larger of the two is
  kept): a partial wildcard match makes a record less hidden, never safer.
  ``alpha_rule="sdcmicro"`` gives sdcMicro's numbers (0 there, no floor).
- **``Fk < fk``** (sampling weights below 1, e.g. calibrated weights: accepted, any weight
  > 0): the weight sum then under-estimates the population, which holds at least the sample's
  ``fk`` records; ``"safe"`` uses ``max(Fk, fk)`` (so ``r = 1 / fk``, as for ``Fk == fk``), where
  sdcMicro's formulas give ``pk > 1`` and values above 1. The ``Fk`` column itself is the weight
  sum, as sdcMicro's.

Global risk = mean of ``r`` over records; expected re-identifications = sum of ``r``.
Household risk (``household=`` column): ``1 - prod(1 - r_i)`` over the household's records
(evaluated as ``-expm1(sum(log1p(-r_i)))``, without cancellation: :func:`household_risk`),
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


ALPHA_RULES = ("safe", "sdcmicro")


def check_alpha_rule(rule: object) -> str:
    """``alpha_rule``: ``"safe"`` (default) or ``"sdcmicro"`` (module docstring)."""
    if rule not in ALPHA_RULES:
        raise SDCError(f"alpha_rule must be one of {', '.join(map(repr, ALPHA_RULES))}, got {rule!r}")
    return str(rule)


def _ln_inv_pk(q: np.ndarray, fk: np.ndarray, F: np.ndarray) -> np.ndarray:
    """``ln(1 / pk)``: ``-log1p(-q)`` for ``q < 1/2``, else ``ln(F) - ln(fk)`` (exact where ``q``
    rounds to 1: ``F`` beyond 2^53 read ``-log1p(-1) = inf``, risk 1 for a record with 1e17
    look-alikes; and to 1e-16 relative where ``q`` ~ 1 lost the digits of ``pk``)."""
    out = np.empty(q.shape)
    small = q < 0.5
    out[small] = -np.log1p(-q[small])
    out[~small] = np.log(F[~small]) - np.log(fk[~small])
    return out


def _log_ratio(q: np.ndarray, ln: np.ndarray) -> np.ndarray:
    """``ln / q`` (= ``ln(1/pk) / (1 - pk)``, ``ln`` from :func:`_ln_inv_pk`), 1 at ``q = 0``."""
    out = np.ones(q.shape)
    nz = q != 0
    out[nz] = ln[nz] / q[nz]
    return out


def _fk2_tail(q: np.ndarray, ln: np.ndarray) -> np.ndarray:
    """``S(q) = (ln(1/pk) - q) / q^2 = sum_{j>=0} q^j / (j + 2)``: the series for ``|q| < 1/2``
    (Horner, 64 terms: error below 2^-64), the closed form elsewhere (``ln`` from
    :func:`_ln_inv_pk`)."""
    out = np.empty(q.shape)
    small = np.abs(q) < 0.5
    qs = q[small]
    acc = np.zeros(qs.shape)
    for j in range(63, -1, -1):
        acc = acc * qs + 1.0 / (j + 2)
    out[small] = acc
    qb = q[~small]
    out[~small] = (ln[~small] - qb) / (qb * qb)
    return out


def individual_risk(fk: np.ndarray, Fk: np.ndarray, alpha_rule: str = "safe") -> np.ndarray:
    """The approximate individual risk of each record from its ``fk`` and ``Fk`` (module
    docstring; sdcMicro ``indivRisk``, method "approx"), evaluated stably; ``alpha_rule``
    ``"safe"`` (in [0, 1], ``1 < fk < 2`` as ``fk = 1``, ``Fk < fk`` as ``Fk = fk``) or
    ``"sdcmicro"`` (its numbers: 0 for ``1 < fk < 2``).

    >>> import numpy as np
    >>> individual_risk(np.array([2.0, 1.0, 3.0]), np.array([110.0, 5.0, 3.0])).round(8).tolist()
    [0.01714426, 0.40235948, 0.33333333]
    >>> individual_risk(np.array([2.0]), np.array([2.000000015])).round(8).tolist()   # Fk ~ fk: 1/2
    [0.5]
    """
    alpha_rule = check_alpha_rule(alpha_rule)
    fk = np.asarray(fk, dtype=np.float64)
    Fk = np.asarray(Fk, dtype=np.float64)
    safe = alpha_rule == "safe"
    F = np.maximum(Fk, fk) if safe else Fk
    r = np.zeros(fk.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        pk = fk / F
        q = (F - fk) / F                          # 1 - pk without cancellation
        one = (fk >= 1) & (fk < 2) if safe else fk == 1
        two = fk == 2
        more = fk > 2
        r[one] = pk[one] * _log_ratio(q[one], _ln_inv_pk(q[one], fk[one], F[one]))
        r[two] = pk[two] - pk[two] ** 2 * _fk2_tail(q[two], _ln_inv_pk(q[two], fk[two], F[two]))
        r[more] = (pk / (fk - q))[more]
        same = fk == F
        r[same] = 1.0 / fk[same]
    return np.clip(r, 0.0, 1.0) if safe else r


def frequencies_and_risk(
    df: pl.DataFrame, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0, alpha_rule: str = "safe",
    count: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``fk``, ``Fk`` (:func:`~polars_sdc.risk.frequencies.frequencies`) and the individual
    risk of every record (float64 arrays in row order). The risk is computed once per key
    combination (not once per record) when the keys allow a counting array, then gathered.
    With ``alpha < 1`` and ``alpha_rule="safe"`` a record's risk is at least its risk at
    ``alpha = 1`` (module docstring). ``count``: each row stands for that many records (a
    combination table: :func:`~polars_sdc.risk.frequencies.frequency_groups`; Spark's).

    >>> import polars as pl
    >>> fk, Fk, r = frequencies_and_risk(pl.DataFrame({"a": [1, 1, 2], "w": [10.0, 30.0, 4.0]}), "a", "w")
    >>> fk.tolist(), Fk.tolist(), r.round(6).tolist()
    ([2.0, 2.0, 1.0], [40.0, 40.0, 4.0], [0.044333, 0.044333, 0.462098])
    """
    cols = key_columns(df, on, weight)
    a = check_alpha(alpha)
    alpha_rule = check_alpha_rule(alpha_rule)
    if weight is not None:
        check_weights(df, weight)
    fk, Fk, r = _risk_at(df, cols, weight, a, alpha_rule, count)
    if a < 1.0 and alpha_rule == "safe":        # (the same frequencies when no key is missing)
        r = np.maximum(r, _risk_at(df, cols, weight, 1.0, alpha_rule, count)[2])
    return fk, Fk, r


def _risk_at(df: pl.DataFrame, cols: list[str], weight: str | None, a: float,
             alpha_rule: str, count: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    index, fk, Fk = frequency_groups(df, cols, weight, a, count)
    if index is None:
        return fk, Fk, individual_risk(fk, Fk, alpha_rule)
    present = np.flatnonzero(fk)
    r = np.zeros(fk.size)
    r[present] = individual_risk(fk[present], Fk[present], alpha_rule)
    return np.take(fk, index), np.take(Fk, index), np.take(r, index)


def household_risk(risk: np.ndarray, household: pl.Series) -> np.ndarray:
    """``1 - prod(1 - r_i)`` over each record's household, per record (module docstring),
    evaluated as ``-expm1(sum(log1p(-r_i)))``: the product form cancels (at ``r ~ 1e-5`` it
    keeps only ~11 significant digits), this one keeps full precision. A household with a risk
    of 1 (risk 1 exactly) or outside [0, 1] (sdcMicro's own numbers, ``alpha_rule="sdcmicro"``)
    takes the product as written. Spark: the same rule (``polars_sdc.spark.frequencies``).

    >>> import numpy as np, polars as pl
    >>> household_risk(np.array([0.5, 0.5, 0.1]), pl.Series([1, 1, 2])).round(6).tolist()
    [0.75, 0.75, 0.1]
    >>> float(household_risk(np.array([1e-5, 2e-5]), pl.Series([1, 1]))[0])   # the exact value, rounded
    2.9999800000000004e-05
    >>> 1 - (1 - 1e-5) * (1 - 2e-5)                                              # the product form
    2.9999799999957943e-05
    """
    r = pl.col("r")
    frame = pl.DataFrame({"h": household, "r": np.asarray(risk, dtype=np.float64)})
    plain = ((r >= 1) | (r < 0)).any().over("h")
    out = frame.select(
        plain.alias("plain"),
        pl.when(plain).then(1.0 - (1.0 - r).product().over("h"))
        .otherwise(r.neg().log1p().sum().over("h")).alias("v"),
    )
    v = out.get_column("v").to_numpy().copy()
    exact = ~out.get_column("plain").to_numpy()
    v[exact] = -np.expm1(v[exact])
    return v


def check_household_for_risk(schema: pl.Schema, household: str, cols: list[str], weight: str | None) -> None:
    """The household id of a household risk (local and Spark): a supported column, neither a key
    nor the weight (:class:`SDCError` naming it); its null / NaN ids are counted by the caller
    (:func:`polars_sdc.household.check_ids`, Spark in its metadata pass).

    >>> check_household_for_risk(pl.Schema({"a": pl.Int64, "w": pl.Float64}), "w", ["a"], "w")
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: column 'w': is a key or the weight; the household id must be another column
    """
    resolve_columns(schema, [household], kind="supported", what="household")
    if household in cols or household == weight:
        raise SDCError(f"column {household!r}: is a key or the weight; the household id must be another column")


def _risk_arrays(
    df: pl.DataFrame, on: ColumnSpec, weight: str | None, alpha: float, household: str | None,
    alpha_rule: str = "safe", suppressed_as: str | None = None,
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    from .suppressed import frequency_keys

    cols = key_columns(df, on, weight)
    df, counted = frequency_keys(df, cols, suppressed_as)   # a generalised release's suppressed records
    if household is not None:
        from ..household import check_ids

        check_household_for_risk(df.schema, household, cols, weight)
        check_ids(df.get_column(household), household)
    fk, Fk, r = frequencies_and_risk(df, counted, weight, alpha, alpha_rule)
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
    alpha_rule: str = "safe",
    suppressed_as: str | None = None,
) -> pl.DataFrame:
    """``df`` with ``fk``, ``Fk``, ``risk`` (individual risk) and, with ``household=``,
    ``household_risk`` appended (Float64; module docstring for the definitions).
    ``suppressed_as``: the label of a generalised release's suppressed records (``"*"``),
    read as every key missing (:mod:`polars_sdc.risk.suppressed`).

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 1, 2], "w": [10.0, 30.0, 4.0]})
    >>> individual_risk_frame(df, "a", "w")["risk"].round(6).to_list()
    [0.044333, 0.044333, 0.462098]
    """
    for name in ("fk", "Fk", RISK, HOUSEHOLD_RISK):
        if name in ([*key_columns(df, on, weight)] + [weight, household]):
            raise SDCError(f"column {name!r}: is a key, the weight or the household id; rename it first")
    _, fk, Fk, r, h = _risk_arrays(df, on, weight, alpha, household, alpha_rule, suppressed_as)
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
    alpha_rule: str = "safe",
    suppressed_as: str | None = None,
) -> dict[str, float]:
    """Global risk (mean individual risk), expected re-identifications (sum) and, with
    ``household=``, the same two for household risk (sdcMicro ``measure_risk``);
    ``suppressed_as`` as in :func:`individual_risk_frame`.

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 1, 2, 3]})
    >>> global_risk(df, "a")
    {'global_risk': 0.75, 'expected_reidentifications': 3.0}
    """
    _, _, _, r, h = _risk_arrays(df, on, weight, alpha, household, alpha_rule, suppressed_as)
    n = r.size
    out = {
        "global_risk": float(r.mean()) if n else 0.0,
        "expected_reidentifications": float(r.sum()),
    }
    if h is not None:
        out["household_risk"] = float(h.mean()) if n else 0.0
        out["household_expected_reidentifications"] = float(h.sum())
    return out
