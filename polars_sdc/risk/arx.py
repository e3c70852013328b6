"""ARX's re-identification risk models: prosecutor, journalist and marketer risk (El Emam's
"Guide to the De-Identification of Personal Health Information", as ARX's
``RiskModelSampleSummary`` defines them) and population-uniqueness estimates (Zayatz 1991,
Pitman via Hoshino 2001, SNB via Chen & Keller-McNulty 1998) with Dankar et al.'s (2012)
decision rule (ARX ``RiskModelPopulationUniqueness``).

Equivalence classes: records with equal key values (a missing value is its own value, as in
ARX). ``f_k``: size of class k in the sample; ``F_k``: its size in the population, estimated
by the class's sum of sampling weights (``F_k = f_k`` without weights: the sample is the
population), and never below ``f_k`` (the population holds the sample, as ARX's population
table does; calibrated weights below 1 would give risks above 1); n records, u classes,
``threshold`` the acceptable re-identification probability.

- **Prosecutor** (the attacker knows the target is in the release): a record's risk is
  ``1 / f_k``; *highest* = ``1 / min f_k``; *average* (success rate) = ``u / n``; *records at
  risk* = share of records with ``1 / f_k > threshold``.
- **Journalist** (the target is somebody of the population): a record's risk is ``1 / F_k``;
  *highest* = ``1 / min F_k``; *records at risk* = share of records with
  ``1 / F_k > threshold``; *average* = ``max(u / sum_k F_k, (1/n) sum_k f_k / F_k)``.
- **Marketer** (re-identify as many as possible): ``(1/n) sum_k f_k / F_k``.
- **Population uniqueness** (needs a population size N: ``population_size=`` or the sum of
  weights; sampling fraction ``pi = n / N``; ``c_j`` = number of sample classes of size j):

  * Zayatz: ``P = (c_1 h_1) / sum_j c_j h_j`` with ``h_j`` the hypergeometric probability of
    drawing exactly one of j marked units in n draws from N; uniques = ``c_1 P / pi``.
  * Pitman: (theta, alpha) solve the likelihood equations of Pitman's sampling formula
    (Hoshino 2001) ``sum_{i<u} 1/(theta + i alpha) = sum_{i<n} 1/(theta + i)`` and
    ``sum_{i<u} i/(theta + i alpha) = sum_j c_j sum_{k<j} 1/(k - alpha)``;
    uniques = ``Gamma(theta + 1) / Gamma(theta + alpha) * N^alpha``.
  * SNB (shifted negative binomial class sizes ``F - 1 ~ NB(a, b)``, Bernoulli sampling with
    rate pi): K (number of non-empty population classes) by the Shlosser-type estimator
    ``K = u + c_1 [sum_j j pi^2 (1 - pi^2)^(j-1) c_j] / [sum_j c_j (1 - pi)^j ((1 + pi)^j - 1)]
    * ([sum_j (1 - pi)^j c_j] / [sum_j j pi (1 - pi)^(j-1) c_j])^2``; (a, b) solve
    ``E[c_1] = c_1``, ``E[c_2] = c_2`` with, for ``D = (1 - pi)(1 - b)``,
    ``E[c_1] = K pi (b / (1 - D))^a (1 + a D / (1 - D))`` and
    ``E[c_2] = K pi^2 a b^a (1 - b) (2 - (1 - a) D) / (2 (1 - D)^(a + 2))``; uniques = ``K b^a``.
  * Dankar et al.'s rule: ``pi <= 0.1``: Pitman (Zayatz if Pitman fails); otherwise the
    smaller of Zayatz and SNB (Zayatz if SNB fails). No sample unique: 0. An estimate that
    does not exist (solver failure, NaN, 0) is reported as NaN.

  The population-uniqueness *risk* is the estimated number of population uniques / N.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import polars as pl

from .._errors import SDCError
from .frequencies import check_weights, key_codes, key_columns


def class_sizes(df: pl.DataFrame, on, weight: str | None = None) -> pl.DataFrame:
    """One row per equivalence class (missing = own value): ``f`` (sample size) and ``F``
    (sum of weights, or ``f``), sorted by them (so every sum over the classes is the same in
    every run).

    >>> import polars as pl
    >>> class_sizes(pl.DataFrame({"a": [1, 1, None]}), "a").sort("f")["f"].to_list()
    [1, 2]
    """
    cols = key_columns(df, on, weight)
    codes = key_codes(df, cols)
    codes.columns = [f"_k{i}" for i in range(len(cols))]   # a key may be named f or F
    w = df.get_column(weight).cast(pl.Float64) if weight is not None else pl.repeat(1.0, df.height, eager=True)
    frame = codes.with_columns(w.alias("_w"))
    # sorted: the estimates sum over the classes, and a hash group_by's order varies between runs
    return frame.group_by(codes.columns).agg(f=pl.len(), F=pl.col("_w").sum()).select("f", "F").sort("f", "F")


def sample_models(f: np.ndarray, F: np.ndarray, threshold: float = 0.1) -> dict[str, float]:
    """Prosecutor, journalist and marketer risk from the class sizes (module docstring).

    >>> import numpy as np
    >>> r = sample_models(np.array([1, 2, 3]), np.array([1, 2, 3]), threshold=0.4)
    >>> r["prosecutor_highest"], r["prosecutor_average"], r["prosecutor_records_at_risk"]
    (1.0, 0.5, 0.5)
    """
    f = np.asarray(f, dtype=np.float64)
    # the population holds the sample (ARX: groupSizeInPopulation >= groupSizeInSample): a weight
    # sum below the class's sample size (calibrated weights < 1) gave risks above 1 (1 / 0.5)
    F = np.maximum(np.asarray(F, dtype=np.float64), f)
    n = f.sum()
    u = f.size
    if n == 0:
        nan = float("nan")
        return {k: nan for k in (
            "prosecutor_highest", "prosecutor_average", "prosecutor_records_at_risk",
            "journalist_highest", "journalist_average", "journalist_records_at_risk", "marketer_risk")}
    # exactly rounded sums (math.fsum): the same numbers in whatever order the classes come
    marketer = float(math.fsum((f / F).tolist()) / n)
    return {
        "prosecutor_highest": float(1.0 / f.min()),
        "prosecutor_average": float(u / n),
        "prosecutor_records_at_risk": float(f[1.0 / f > threshold].sum() / n),
        "journalist_highest": float(1.0 / F.min()),
        "journalist_average": float(max(u / math.fsum(F.tolist()), marketer)),
        "journalist_records_at_risk": float(f[1.0 / F > threshold].sum() / n),
        "marketer_risk": marketer,
    }


class _Classes(NamedTuple):
    """The sample's class-size histogram: ``counts[i]`` classes of size ``sizes[i]``; ``n``
    records in ``u`` classes, ``c1`` / ``c2`` classes of size 1 / 2 (the uniques' estimators' inputs)."""

    sizes: np.ndarray
    counts: np.ndarray
    n: float
    u: float
    c1: float
    c2: float


def _classes(f: np.ndarray) -> _Classes:
    sizes, counts = np.unique(np.asarray(f, dtype=np.int64), return_counts=True)
    sizes, counts = sizes.astype(np.float64), counts.astype(np.float64)
    return _Classes(sizes, counts, float(np.sum(f)), float(np.size(f)), counts[sizes == 1].sum(),
                    counts[sizes == 2].sum())


def zayatz_uniques(f: np.ndarray, N: float) -> float:
    """Zayatz's estimate of the number of population uniques (module docstring).

    >>> round(zayatz_uniques(np.array([1, 1, 2, 5]), 90.0), 4)
    5.5346
    """
    sizes, counts, n, _, c1, _ = _classes(f)
    if c1 == 0:
        return 0.0
    Nr = float(round(N))
    h = np.exp(_log_hypergeom_one(Nr, sizes, n))
    denom = float((counts * h).sum())
    if not denom > 0:
        return float("nan")
    p = c1 * float(np.exp(_log_hypergeom_one(Nr, np.array([1.0]), n))[0]) / denom
    return float(c1 * p / (n / N))


def _log_hypergeom_one(N: float, sizes: np.ndarray, n: float) -> np.ndarray:
    """``log P(X = 1)`` for ``X ~ Hypergeometric(N, j, n)``, each class size ``j`` of ``sizes``
    (one success among ``n`` draws from ``N`` holding ``j`` successes), in closed form:
    ``P = j n (N - n)! (N - j)! / (N! (N - n - j + 1)!)``, i.e.
    ``log P = log(j n / (N - j + 1)) + sum_{i=0}^{j-2} log1p(-n / (N - i))`` — ``j - 1`` terms
    per class size (at most ``n`` in all), exact in floating point at any ``N`` (scipy's
    ``hypergeom.pmf`` took minutes at ``N = 1e13``). 0 probability (``-inf``) where
    ``N - n < j - 1``.

    >>> from scipy.stats import hypergeom
    >>> got = np.exp(_log_hypergeom_one(90.0, np.array([1.0, 2.0, 5.0]), 9.0))
    >>> bool(np.allclose(got, hypergeom.pmf(1, 90, [1, 2, 5], 9)))
    True
    """
    out = np.empty(sizes.shape)
    for k, j in enumerate(sizes):
        if N - n < j - 1:
            out[k] = -np.inf
            continue
        i = np.arange(int(j) - 1, dtype=np.float64)
        with np.errstate(divide="ignore"):
            out[k] = math.log(j * n / (N - j + 1.0)) + float(np.log1p(-n / (N - i)).sum())
    return out


def pitman_uniques(f: np.ndarray, N: float) -> float:
    """Pitman-model estimate of the number of population uniques (Hoshino 2001; module
    docstring); NaN when the likelihood equations have no usable solution.

    >>> f = np.repeat([1, 2, 3, 8], [100, 30, 10, 5])
    >>> round(pitman_uniques(f, 4600.0), 1)
    347.6
    """
    from scipy.optimize import root
    from scipy.special import digamma, gammaln

    sizes, counts, n, u, c1, c2 = _classes(f)
    if c1 == 0:
        return 0.0
    c2 = c2 or 1.0
    big = sizes > 1

    def equations(x):
        t, a = x
        if not (0 < a < 1) or t <= -a:
            return [1e6, 1e6]
        s1 = (digamma(t / a + u) - digamma(t / a + 1)) / a
        s2 = digamma(t + n) - digamma(t + 1)
        s3 = ((u - 1) - t * s1) / a
        s4 = float((counts[big] * (digamma(sizes[big] - a) - digamma(1 - a))).sum())
        return [s1 - s2, s3 - s4]

    c = c1 * (c1 - 1) / c2
    den = 2 * c1 * u + c1 * c - n * c
    t0 = (n * u * c - c1 * (n - 1) * (2 * u + c)) / den if den != 0 else 1.0
    a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
    starts = [(t0, a0), (max(t0, 1.0), 0.5), (1.0, 0.5), (10.0, 0.1)]
    for t, a in starts:
        if not (np.isfinite(t) and np.isfinite(a) and 0 < a < 1 and t > -a):
            continue
        sol = root(equations, [t, a], method="hybr")
        t, a = sol.x
        if sol.success and 0 < a < 1 and t > -a and np.allclose(equations(sol.x), 0, atol=1e-6):
            val = math.exp(gammaln(t + 1) - gammaln(t + a) + a * math.log(N))
            if 0 <= val <= N:
                return float(val)
    return float("nan")


def snb_uniques(f: np.ndarray, N: float) -> float:
    """SNB-model estimate of the number of population uniques (Chen & Keller-McNulty 1998;
    module docstring); NaN when the moment equations have no solution.

    >>> f = np.repeat([1, 2, 3, 8], [100, 30, 10, 5])
    >>> round(snb_uniques(f, 690.0), 1)
    144.7
    """
    from scipy.optimize import root

    sizes, counts, n, u, c1, c2 = _classes(f)
    if c1 == 0:
        return 0.0
    p = n / N
    v1 = (sizes * p * p * (1 - p * p) ** (sizes - 1) * counts).sum()
    v2 = (counts * (1 - p) ** sizes * ((1 + p) ** sizes - 1)).sum()
    v3 = ((1 - p) ** sizes * counts).sum()
    v4 = (sizes * p * (1 - p) ** (sizes - 1) * counts).sum()
    if v2 == 0 or v4 == 0:
        return float("nan")
    K = u + c1 * (v1 / v2) * (v3 / v4) ** 2

    def equations(x):
        a, b = x
        if not (a > 0 and 0 < b < 1):
            return [1e6, 1e6]
        D = (1 - p) * (1 - b)
        e1 = K * p * (b / (1 - D)) ** a * (1 + a * D / (1 - D))
        e2 = K * p * p * a * b**a * (1 - b) * (2 - (1 - a) * D) / (2 * (1 - D) ** (a + 2))
        return [e1 / c1 - 1, (e2 - c2) / max(c2, 1.0)]

    for a, b in ((1.0, 0.5), (0.5, 0.1), (2.0, 0.9), (0.1, 0.01)):
        sol = root(equations, [a, b], method="hybr")
        a, b = sol.x
        if sol.success and a > 0 and 0 < b < 1 and np.allclose(equations(sol.x), 0, atol=1e-6):
            val = K * b**a
            if 0 <= val <= N:
                return float(val)
    return float("nan")


def _valid(v: float) -> bool:
    return not math.isnan(v) and v != 0.0


def population_uniqueness(f: np.ndarray, N: float) -> dict[str, object]:
    """Estimated population uniques by Zayatz, Pitman, SNB and Dankar et al.'s rule, and the
    rule's choice and risk (uniques / N). Module docstring.

    >>> f = np.repeat([1, 2, 3, 8], [100, 30, 10, 5])
    >>> population_uniqueness(f, 4600.0)["dankar_model"], population_uniqueness(f, 690.0)["dankar_model"]
    ('pitman', 'snb')
    """
    n = float(np.sum(f))
    if not N >= n or n == 0:
        raise SDCError(f"population size {N!r} must be at least the sample size {int(n)}")
    has_unique = bool((np.asarray(f) == 1).any())
    if not has_unique:
        return {"zayatz": 0.0, "pitman": 0.0, "snb": 0.0, "dankar": 0.0, "dankar_model": "none",
                "population_uniqueness": 0.0}
    z = zayatz_uniques(f, N)
    pi = n / N
    if pi <= 0.1:
        p = pitman_uniques(f, N)
        s = float("nan")
        d, model = (p, "pitman") if _valid(p) else (z, "zayatz")
    else:
        p = float("nan")
        s = snb_uniques(f, N)
        if _valid(s) and s <= z:
            d, model = s, "snb"
        else:
            d, model = z, "zayatz"
    return {"zayatz": z, "pitman": p, "snb": s, "dankar": d, "dankar_model": model,
            "population_uniqueness": float(d / N) if _valid(d) else float("nan")}


def check_population_size(N: object, n: float) -> float:
    """``population_size``: a finite real number at least the sample size ``n``.

    >>> check_population_size(3, 5.0)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: population_size 3 is below the sample size 5; the population holds the sample
    """
    if isinstance(N, (bool, np.bool_)) or not isinstance(N, (int, float, np.integer, np.floating)):
        raise SDCError(f"population_size must be a number (the population's record count), got {N!r}")
    if not math.isfinite(float(N)):
        raise SDCError(f"population_size must be finite, got {N!r}")
    if float(N) < n:
        raise SDCError(f"population_size {N!r} is below the sample size {int(n)}; the population holds the sample")
    return float(N)


def arx_risk(
    df: pl.DataFrame, on, weight: str | None = None, *, threshold: float = 0.1, population_size: float | None = None,
    suppressed_as: str | None = None,
) -> dict[str, object]:
    """Prosecutor, journalist, marketer risk and (with weights or ``population_size``) the
    population-uniqueness estimates of a frame (module docstring).

    ``suppressed_as``: on a generalised release, the label of its suppressed records (``"*"``).
    ARX 3.9.2's risk models leave out every record whose quasi-identifiers are all suppressed
    (``RiskModelHistogram`` and ``RiskModelSampleSummary`` skip the rows
    ``DataHandle.isOutlier(row, quasi-identifiers)`` flags; on ARX's output that is every QI
    suppressed or at its ``*`` top level), so the classes, n (and the sampling fraction n / N)
    are the other records'; N (the population: ``population_size``, or the sum of the weights)
    stays every record's. They are counted in ``suppressed_records``; with every record
    suppressed the risks are 0, as ARX's for an empty sample. None: every value as written.

    >>> import polars as pl
    >>> arx_risk(pl.DataFrame({"a": [1, 1, 2, 3]}), "a")["prosecutor_average"]
    0.75
    >>> r = arx_risk(pl.DataFrame({"a": ["x", "x", "y", "y", "*"]}), "a", suppressed_as="*")
    >>> r["prosecutor_highest"], r["prosecutor_average"], r["suppressed_records"]
    (0.5, 0.5, 1)
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
        raise SDCError(f"threshold must be in (0, 1], got {threshold!r}")
    cols = key_columns(df, on, weight)
    if weight is not None:
        check_weights(df, weight)
    if population_size is not None:
        population_size = check_population_size(population_size, float(df.height))
    if suppressed_as is not None:
        from .suppressed import suppressed_rows

        starred = suppressed_rows(df, cols, suppressed_as)
        n_starred = 0 if starred is None else int(starred.sum())
        if n_starred == df.height:
            return {**{k: 0.0 for k in ("prosecutor_highest", "prosecutor_average", "prosecutor_records_at_risk",
                                        "journalist_highest", "journalist_average", "journalist_records_at_risk",
                                        "marketer_risk")}, "suppressed_records": n_starred}
        # the population: every record's weight (the suppressed records' too)
        total = float(df.get_column(weight).cast(pl.Float64).sum()) if weight is not None else None
        out = _models(df if starred is None else df.filter(~starred), cols, weight, threshold, population_size, total)
        return {**out, "suppressed_records": n_starred}
    return _models(df, cols, weight, threshold, population_size, None)


def _models(df: pl.DataFrame, cols: list[str], weight: str | None, threshold: float, population_size: float | None,
            weights_total: float | None) -> dict[str, object]:
    """:func:`arx_risk` on checked arguments; ``weights_total``: N from the weights when it is
    not the sum over ``df`` (records left out)."""
    sizes = class_sizes(df, cols, weight)
    f = sizes.get_column("f").to_numpy()
    F = sizes.get_column("F").to_numpy()
    out: dict[str, object] = sample_models(f, F, threshold)
    N = population_size if population_size is not None else (
        (weights_total if weights_total is not None else float(F.sum())) if weight is not None else None)
    if N is not None and f.size and N > f.sum():
        out.update({f"population_{k}" if k in ("zayatz", "pitman", "snb", "dankar") else k: v
                    for k, v in population_uniqueness(f, float(N)).items()})
    return out
