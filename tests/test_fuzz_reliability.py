"""Property tests for the classes of input behind issue 26 (items 2, 4, 5, 6, 7, 8, 13 and the
rest of its reproducers; tests/test_reliability_risk_masking.py holds the reproducers): tiny n,
nearly constant and constant columns, NaN / inf, integers beyond 2^53, near-equal breaks,
weights near and below 1, missing keys with alpha < 1 — for every risk and masking method
where they apply. Each call returns a correct result or raises a one-line SDCError.
"""
from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from naive import sample_moments

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def _one_line_error(exc: BaseException) -> None:
    assert isinstance(exc, SDCError), f"{type(exc).__name__}: {exc}"
    assert "\n" not in str(exc).strip(), str(exc)


@st.composite
def noise_frames(draw):
    """1..9 rows, 1..3 columns: normal, nearly constant, constant at a value with no exact
    binary mean (0.1, 1/3), extreme magnitudes."""
    n = draw(st.integers(1, 9))
    p = draw(st.integers(1, 3))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cols = {}
    for j in range(p):
        style = draw(st.sampled_from(["normal", "nearly", "const", "huge", "tiny"]))
        if style == "normal":
            v = r.normal(size=n)
        elif style == "nearly":
            v = 0.1 + r.integers(0, 2, n) * 1e-12
        elif style == "const":
            v = np.full(n, draw(st.sampled_from([0.1, 1 / 3, -7.3, 0.0])))
        elif style == "huge":
            v = r.normal(size=n) * 1e150
        else:
            v = r.normal(size=n) * 1e-150
        cols[f"x{j}"] = v
    return pl.DataFrame(cols)


@FUZZ
@given(df=noise_frames(), method=st.sampled_from(["additive", "correlated", "correlated2", "moments"]))
def test_add_noise_tiny_and_constant(df, method):
    """26.2 / 26.5: "moments" refuses n <= p + 1; otherwise exact means and covariance, a
    constant column stays exactly constant; every method releases finite values."""
    n, p = df.height, df.width
    try:
        out = df.sdc.add_noise(method=method, seed=3)
    except Exception as exc:  # noqa: BLE001
        _one_line_error(exc)
        # moments refuses n <= p + 1; every method refuses one row (no sd: it was released unchanged)
        assert (method == "moments" and n <= p + 1) or n == 1, str(exc)
        return
    assert not (method == "moments" and n <= p + 1) and n != 1
    Y = out.to_numpy()
    assert np.isfinite(Y).all()
    if method != "moments":
        return
    X = df.to_numpy()
    for j, c in enumerate(df.columns):
        if df[c].n_unique() == 1:
            assert out[c].to_list() == df[c].to_list()
    mx, Sx = sample_moments(X)
    my, Sy = sample_moments(Y)
    # exact up to rounding: relative to the spread, plus the grid of float64 at the values'
    # magnitude (a nearly constant 0.1 + k 1e-12 is released on a grid of 1.4e-17)
    spread = np.sqrt(np.diag(Sx))
    u = np.spacing(np.abs(X).max(axis=0)) * 4
    assert (np.abs(my - mx) <= 1e-9 * spread + u).all()
    tol = 1e-8 * np.outer(spread, spread) + np.outer(u, spread) + np.outer(spread, u) + np.outer(u, u)
    assert (np.abs(Sy - Sx) <= tol).all()


@st.composite
def weighted_keys(draw):
    """Keys with missing values, weights near 1 (1 + tiny), below 1, calibrated, large."""
    n = draw(st.integers(1, 12))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = r.integers(0, 3, n).astype(float)
    b = r.integers(0, 2, n).astype(float)
    miss = draw(st.sampled_from(["none", "some", "all"]))
    if miss != "none":
        m = r.random(n) < (0.3 if miss == "some" else 1.0)
        a[m] = np.nan
    style = draw(st.sampled_from(["near1", "below1", "calibrated", "big"]))
    if style == "near1":
        w = 1.0 + r.integers(0, 3, n) * draw(st.sampled_from([1e-15, 1.5e-8, 1e-4]))
    elif style == "below1":
        w = r.uniform(0.05, 1.0, n)
    elif style == "calibrated":
        w = r.uniform(0.3, 3.0, n)
    else:
        w = r.uniform(1.0, 1e6, n)
    return pl.DataFrame({"a": a, "b": b, "w": w}).with_columns(pl.col("a").fill_nan(None))


@FUZZ
@given(df=weighted_keys(), alpha=st.sampled_from([0.0, 0.25, 0.5, 0.99, 1.0]))
def test_individual_risk_is_a_probability_and_alpha_never_lowers_it(df, alpha):
    """26.4 / 26.8 / 28.6: risk in [0, 1] for any weights > 0 (also near Fk = fk and below 1);
    the risk at alpha < 1 is never below the risk at alpha = 1; where sdcMicro's formula is
    defined (integer fk, Fk > fk) the default equals it."""
    out = df.sdc.individual_risk(["a", "b"], weight="w", alpha=alpha)
    r = out["risk"].to_numpy()
    assert ((r >= 0) & (r <= 1)).all()
    one = df.sdc.individual_risk(["a", "b"], weight="w")["risk"].to_numpy()
    assert (r >= one - 1e-12).all()
    if alpha == 1.0:
        sdc = df.sdc.individual_risk(["a", "b"], weight="w", alpha_rule="sdcmicro")["risk"].to_numpy()
        for (fk, Fk), x, y in zip(out.select("fk", "Fk").rows(), r, sdc):
            if Fk > fk and fk == int(fk) and (Fk - fk) / Fk > 1e-6:
                assert x == pytest.approx(y, rel=1e-9, abs=1e-12)
    g = df.sdc.global_risk(["a", "b"], weight="w", alpha=alpha)
    assert g["global_risk"] == pytest.approx(r.mean())


@FUZZ
@given(n=st.integers(1, 6), N=st.one_of(st.floats(0, 1e15), st.sampled_from([float("inf"), float("nan"), -1.0])),
       seed=st.integers(0, 1000))
def test_risk_population_size_any_value(n, N, seed):
    """26.12 / 26.16: a population size below n, infinite or NaN is a clear error; any other
    gives finite population estimates in [0, N], fast."""
    r = np.random.default_rng(seed)
    df = pl.DataFrame({"a": r.integers(0, 3, n)})
    try:
        res = df.sdc.risk(["a"], population_size=N, suda=False)
    except Exception as exc:  # noqa: BLE001
        _one_line_error(exc)
        assert not (math.isfinite(N) and N >= n)
        return
    assert math.isfinite(N) and N >= n
    z = res.as_dict().get("population_zayatz")
    if z is not None:
        assert 0.0 <= z <= N * (1 + 1e-9)


@st.composite
def interval_frames(draw):
    """Float columns with NaN / inf / near-equal values / huge finite values, or integer
    columns around 2^53 and beyond."""
    kind = draw(st.sampled_from(["float", "int"]))
    n = draw(st.integers(1, 10))
    r = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "int":
        base = draw(st.sampled_from([0, 2**53, -(2**53), 2**62]))
        v = [base + int(d) for d in r.integers(-3, 4, n)]
        return pl.DataFrame({"x": pl.Series(v, dtype=pl.Int64)}), base
    style = draw(st.sampled_from(["near", "huge", "bad", "plain"]))
    if style == "near":
        v = 1.0 + r.integers(0, 5, n) * 1e-10
    elif style == "huge":
        v = r.choice([-1.7e308, 1.7e308, 0.0, 1e308], n)
    elif style == "bad":
        v = r.normal(size=n)
        v[r.integers(0, n)] = draw(st.sampled_from([float("nan"), float("inf"), -float("inf")]))
    else:
        v = r.normal(size=n)
    return pl.DataFrame({"x": v}), 1.0


def _interval_of(label: str) -> tuple[float, float, bool, bool]:
    lo, hi = label[1:-1].split(", ")
    return float(lo), float(hi), label[0] == "[", label[-1] == "]"


@FUZZ
@given(fr=interval_frames(), data=st.data())
def test_recode_intervals_labels_unique_and_values_inside(fr, data):
    """26.6 / 26.7 / 26.13: NaN / inf are errors; labels are unique; each value lies in its
    interval (integers compared as integers); lazy equals eager."""
    df, base = fr
    how = data.draw(st.sampled_from(["n-equal", "n-quantile", "breaks"]))
    right = data.draw(st.booleans())
    if how == "breaks":
        if df.schema["x"].is_integer():
            kw = {"breaks": sorted({base + d for d in data.draw(st.lists(st.integers(-4, 4), min_size=1, max_size=4))})}
        else:
            pts = data.draw(st.lists(st.integers(0, 6), min_size=1, max_size=4, unique=True))
            kw = {"breaks": sorted(1.0 + p * 1e-10 for p in pts)}
    else:
        kw = {"n": data.draw(st.integers(1, 4)), "method": how.split("-")[1]}
    try:
        out = df.sdc.recode_intervals("x", right_closed=right, **kw)
    except Exception as exc:  # noqa: BLE001
        _one_line_error(exc)
        x = df["x"]
        assert x.dtype.is_float() and not x.is_finite().all(), str(exc)
        return
    assert df["x"].dtype.is_integer() or df["x"].is_finite().all()
    labels = out.schema["x"].categories.to_list()
    assert len(set(labels)) == len(labels)
    assert df.lazy().sdc.recode_intervals("x", right_closed=right, **kw).collect().equals(out)
    if "breaks" in kw and df.schema["x"].is_integer():
        b = kw["breaks"]
        for v, lab in zip(df["x"].to_list(), out["x"].to_list()):
            i = sum(v > t for t in b) if right else sum(v >= t for t in b)   # exact Python integers
            assert lab == labels[i]
    elif "breaks" in kw:
        for v, lab in zip(df["x"].to_list(), out["x"].to_list()):
            lo, hi, lo_in, hi_in = _interval_of(lab)
            assert (lo < v or (lo_in and lo == v)) and (v < hi or (hi_in and v == hi)), (v, lab)


@FUZZ
@given(dtype=st.sampled_from([pl.Float64, pl.Float32, pl.Int64, pl.Int32, pl.UInt16, pl.Decimal(12, 3)]),
       n=st.integers(1, 12), p=st.sampled_from([0.1, 0.5, 1.0]), nulls=st.booleans(),
       preset=st.sampled_from([None, "sdcmicro"]), seed=st.integers(0, 1000))
def test_rank_swap_every_dtype_is_a_permutation(dtype, n, p, nulls, preset, seed):
    """26.14 / 28.4: every numeric dtype (Decimal included) keeps its values exactly (no
    coding), nulls in place, dtype kept — or a one-line error."""
    r = np.random.default_rng(seed)
    v = r.integers(0, 50, n)
    s = pl.Series("x", [Decimal(int(x)) / 8 for x in v]) if isinstance(dtype, pl.Decimal) else pl.Series("x", v)
    s = s.cast(dtype)
    df = pl.DataFrame({"x": s})
    if nulls and n > 1:
        df = df.with_columns(x=pl.when(pl.int_range(n) == 0).then(None).otherwise(pl.col("x")))
    m = df["x"].count()
    w = math.floor(p * m + 1e-9) - (1 if preset == "sdcmicro" else 0)
    try:
        out = df.sdc.rank_swap("x", p=p, seed=seed, preset=preset, top=0.0, bottom=0.0)
    except Exception as exc:  # noqa: BLE001
        _one_line_error(exc)
        # a column none of whose values would move is refused (1 value, or a window of no rank)
        if isinstance(exc, SDCError) and (m == 1 or w <= 0):
            assert "column 'x': has" in str(exc) and "would be" in str(exc), str(exc)
            return
        raise
    assert m > 1 and w > 0, "a column none of whose values would move was released"
    assert out.schema == df.schema
    assert out["x"].is_null().equals(df["x"].is_null())
    assert sorted(out["x"].drop_nulls().to_list()) == sorted(df["x"].drop_nulls().to_list())


@FUZZ
@given(pd=st.one_of(st.floats(-1, 2), st.just("x"), st.dictionaries(st.sampled_from(["c", "d", "e"]), st.floats(-1, 2), max_size=3)),
       matrix=st.sampled_from([None, "eye", [[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5], [0.2, 0.8]], [1.0], {"c": "x"}]),
       on=st.sampled_from([["c"], ["c", "d"]]))
def test_pram_any_pd_and_matrix(pd, matrix, on):
    """26.17: any pd / matrix gives a PRAM release or a one-line SDCError, never a raw
    KeyError / ValueError."""
    df = pl.DataFrame({"c": ["u", "v", "u", "v"], "d": [1, 2, 1, 1]})
    try:
        out = df.sdc.pram(on, pd=pd, matrix=matrix, seed=1)
    except Exception as exc:  # noqa: BLE001
        _one_line_error(exc)
        return
    assert out.height == 4 and out.schema == df.schema


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("missing", ["none", "all"])
def test_every_risk_method_on_tiny_and_all_missing_frames(n, missing):
    """Tiny n and keys all missing, on every risk measure: a result of the right length with
    risks in [0, 1], or a one-line SDCError."""
    a = [None] * n if missing == "all" else list(range(n))
    df = pl.DataFrame({"a": pl.Series(a, dtype=pl.Int64), "b": ["x"] * n, "s": ["p", "q", "p"][:n],
                       "w": [0.5, 2.0, 1.0][:n]})
    calls = {
        "frequencies": lambda: df.sdc.frequencies(["a", "b"], weight="w"),
        "individual_risk": lambda: df.sdc.individual_risk(["a", "b"], weight="w", alpha=0.5),
        "global_risk": lambda: df.sdc.global_risk(["a", "b"], weight="w"),
        "k_anonymity": lambda: df.sdc.k_anonymity(["a", "b"]),
        "l_diversity": lambda: df.sdc.l_diversity(["a", "b"], "s"),
        "t_closeness": lambda: df.sdc.t_closeness(["a", "b"], "s"),
        "suda": lambda: df.sdc.suda(["a", "b"]),
        "risk": lambda: df.sdc.risk(["a", "b"], weight="w", population_size=10 * n),
    }
    for name, call in calls.items():
        try:
            out = call()
        except Exception as exc:  # noqa: BLE001
            _one_line_error(exc)
            continue
        if isinstance(out, pl.DataFrame):
            assert out.height == n, name
        if name == "individual_risk":
            r = out["risk"].to_numpy()
            assert ((r >= 0) & (r <= 1)).all()
