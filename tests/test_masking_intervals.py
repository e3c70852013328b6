"""Interval recoding (sdcMicro 5.8.1 globalRecode with breaks / equidistant / equalAmount)."""
import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.masking.intervals import equal_breaks, interval_labels


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
