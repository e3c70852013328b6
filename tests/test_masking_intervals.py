"""Interval recoding (sdcMicro 5.8.1 globalRecode with breaks / equidistant / equalAmount)."""
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.masking.intervals import equal_breaks, interval_labels
from conftest import assert_one_line_sdc_error


def _frame(n=1000):
    r = np.random.default_rng(0)
    return pl.DataFrame({"x": r.normal(50, 15, n), "i": r.integers(0, 100, n), "s": ["a"] * n})


@pytest.mark.parametrize("right_closed", [True, False])
def test_breaks_match_a_numpy_reference(right_closed):
    df = _frame().with_columns(pl.Series("i", np.resize([0, 10, 20, 30, 35, 99], 1000)))
    b = [10, 20, 30]
    out = df.sdc.recode_intervals(["x", "i"], breaks=b, right_closed=right_closed)
    labels = interval_labels(b, right_closed)
    for c in ("x", "i"):
        idx = np.searchsorted(b, df[c].to_numpy(), side="left" if right_closed else "right")
        assert out[c].cast(pl.String).to_list() == [labels[k] for k in idx]
        assert out.schema[c] == pl.Enum(labels)
    assert out["s"].equals(df["s"])
    assert labels == (["(-inf, 10]", "(10, 20]", "(20, 30]", "(30, inf)"] if right_closed
                      else ["(-inf, 10)", "[10, 20)", "[20, 30)", "[30, inf)"])


def test_equal_is_sdcmicros_equidistant():
    df = pl.DataFrame({"age": np.arange(17, 91)})
    pts = equal_breaks(17, 90, 5)
    assert pts == [16.0, 31.0, 46.0, 61.0, 76.0, 91.0]          # R: round(seq(16, 91, length.out = 6))
    out = df.sdc.recode_intervals("age", n=5)["age"]
    idx = np.searchsorted(pts[1:-1], np.arange(17, 91), side="left")
    labels = ["[16, 31]", "(31, 46]", "(46, 61]", "(61, 76]", "(76, 91]"]
    assert out.cast(pl.String).to_list() == [labels[k] for k in idx]
    # rounding that would create duplicates is skipped
    assert equal_breaks(0.0, 0.5, 4) == pytest.approx(np.linspace(-1, 1.5, 5).tolist())


def test_quantile_gives_equal_counts_and_merges_tied_quantiles():
    df = _frame(1000)
    counts = df.sdc.recode_intervals("x", n=4, method="quantile")["x"].value_counts()["count"].to_list()
    assert sorted(counts) == [250, 250, 250, 250]
    q = np.quantile(df["x"].to_numpy(), [0.25, 0.5, 0.75])
    got = df.sdc.recode_intervals("x", n=4, method="quantile")["x"].to_physical().to_numpy()
    np.testing.assert_array_equal(got, np.searchsorted(q, df["x"].to_numpy(), side="left"))
    ties = pl.DataFrame({"x": [1] * 90 + [2] * 10})            # quantiles 1, 1, 1, 1, 2: one interval
    assert ties.sdc.recode_intervals("x", n=4, method="quantile")["x"].unique().to_list() == ["[1, 2]"]
    x = [1.0] * 60 + list(range(2, 42))
    qs = sorted(set(np.quantile(x, [0, 0.25, 0.5, 0.75, 1]).tolist()))
    out = pl.DataFrame({"x": x}).sdc.recode_intervals("x", n=4, method="quantile")["x"]
    assert out.dtype == pl.Enum(out.dtype.categories) and len(out.dtype.categories) == len(qs) - 1 == 2


def test_nulls_lazy_streaming_and_edge_cases():
    df = pl.DataFrame({"x": [1.0, None, 3.0, 7.0, None, 12.0] * 20_000})
    eager = df.sdc.recode_intervals("x", n=3)
    assert eager["x"].null_count() == 40_000
    chunked = pl.concat([df.slice(0, 50_000), df.slice(50_000)], rechunk=False)
    for kw in (dict(n=3), dict(n=3, method="quantile"), dict(breaks=[2, 5])):
        want = df.sdc.recode_intervals("x", **kw)
        assert chunked.lazy().sdc.recode_intervals("x", **kw).collect(engine="streaming").equals(want)
    assert pl.DataFrame({"x": [5, 5, 5]}).sdc.recode_intervals("x", n=1)["x"].to_list() == ["[4, 6]"] * 3
    const = pl.DataFrame({"x": [5, 5, 5]}).sdc.recode_intervals("x", n=3, method="quantile")["x"]
    assert const.to_list() == ["[5, 5]"] * 3
    empty = pl.DataFrame({"x": [None, None]}, schema={"x": pl.Float64}).sdc.recode_intervals("x", n=2)
    assert empty["x"].to_list() == [None, None]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(on="s", n=2), "column 's'.*not numeric"),
        (dict(on="x"), "either breaks"),
        (dict(on="x", n=2, breaks=[1]), "either breaks"),
        (dict(on="x", n=0), "n must be"),
        (dict(on="x", n=True), "n must be"),
        (dict(on="x", n=2, method="log"), "method must be"),
        (dict(on="x", breaks=[3, 1]), "column 'x': breaks must be finite and strictly increasing"),
        (dict(on="x", breaks=[True]), "column 'x': breaks must be numbers"),
        (dict(on="x", breaks=[]), "column 'x': breaks is empty"),
        (dict(on=["x", "i"], breaks={"x": [1]}), "column 'i': no breaks"),
    ],
)
def test_bad_input_raises_sdc_error(kwargs, match):
    with pytest.raises(SDCError, match=match):
        _frame(10).sdc.recode_intervals(**kwargs)


# -- NaN / inf, huge values, integers beyond 2^53, near-equal breaks ------------------------------
@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("kwargs", [{"n": 3}, {"n": 3, "method": "quantile"}, {"breaks": [2.0]}])
def test_nan_and_inf_are_errors(lazy, bad, kwargs):
    df = pl.DataFrame({"x": [1.0, bad, 3.0, 4.0]})
    frame = df.lazy() if lazy else df
    with pytest.raises(SDCError, match=r"column 'x'.*(NaN|infinite).*an interval cannot hold them"):
        out = frame.sdc.recode_intervals("x", **kwargs)
        if lazy:
            out.collect()


def test_huge_finite_values_get_finite_intervals():
    df = pl.DataFrame({"x": [-1.7e308, 0.0, 1.7e308]})
    for method in ("equal", "quantile"):
        out = df.sdc.recode_intervals("x", n=2, method=method)["x"].to_list()
        assert out == ["[-1.7e+308, 0]", "[-1.7e+308, 0]", "(0, 1.7e+308]"], method


@pytest.mark.parametrize("lazy", [False, True])
def test_integers_beyond_2_53_compared_as_integers(lazy):
    df = pl.DataFrame({"x": [2**53, 2**53 + 1, None, -(2**62)]})
    frame = df.lazy() if lazy else df
    out = frame.sdc.recode_intervals("x", breaks=[2**53])
    out = out.collect() if lazy else out
    assert out["x"].to_list() == ["(-inf, 9007199254740992]", "(9007199254740992, inf)", None,
                                  "(-inf, 9007199254740992]"]
    left = df.sdc.recode_intervals("x", breaks=[2**53 + 1], right_closed=False)["x"].to_list()
    assert left == ["(-inf, 9007199254740993)", "[9007199254740993, inf)", None, "(-inf, 9007199254740993)"]
    # a fractional break on an integer column: x > 2.5 is x > 2
    assert pl.DataFrame({"x": [2, 3]}).sdc.recode_intervals("x", breaks=[2.5])["x"].to_list() == \
        ["(-inf, 2.5]", "(2.5, inf)"]


def test_equal_intervals_of_huge_integers_and_constant_columns():
    big = pl.DataFrame({"x": [2**60, 2**60 + 5, 2**60 + 9]}).sdc.recode_intervals("x", n=3)["x"].to_list()
    assert big == ["[1152921504606846975, 1152921504606846979]", "(1152921504606846979, 1152921504606846982]",
                   "(1152921504606846982, 1152921504606846986]"]
    for v in ([1e300, 1e300], [2**60, 2**60], [5.0, 5.0]):      # one value: one interval, no error
        out = pl.DataFrame({"x": v}).sdc.recode_intervals("x", n=3)["x"]
        assert out.n_unique() == 1 and out.null_count() == 0


def test_labels_unique_at_any_precision():
    x = [1.0, 1.00000000015, 1.00000000025, 1.0000000004]
    out = pl.DataFrame({"x": x}).sdc.recode_intervals("x", breaks=[1.0000000001, 1.0000000002, 1.0000000003])
    assert out["x"].to_list() == ["(-inf, 1.0000000001]", "(1.0000000001, 1.0000000002]",
                                  "(1.0000000002, 1.0000000003]", "(1.0000000003, inf)"]
    q = pl.DataFrame({"x": x}).sdc.recode_intervals("x", n=3, method="quantile")["x"]
    assert q.dtype.categories.n_unique() == q.dtype.categories.len() == 3
    # 8 digits where they suffice, as R's dig.lab = 8
    assert pl.DataFrame({"x": [1.0]}).sdc.recode_intervals("x", breaks=[0.1, 123456.78])["x"].to_list() == ["(0.1, 123456.78]"]


# -- property: the same classes of input ---------------------------------------------------------
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


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(fr=interval_frames(), data=st.data())
def test_recode_intervals_labels_unique_and_values_inside(fr, data):
    """NaN / inf are errors; labels are unique; each value lies in its interval (integers
    compared as integers); lazy equals eager."""
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
        assert_one_line_sdc_error(exc)
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
