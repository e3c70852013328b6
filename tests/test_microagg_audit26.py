"""Adversarial audit (session 26) of the microaggregation face: the privacy guarantee read
independently on the release (every class of the released ``on`` values within its ``by``
stratum holds >= k records, or >= k households with ``household=``; every group id likewise),
eager == lazy == streaming, the caller's frame untouched, row order and other columns kept,
on every numeric dtype, ties, constants, extreme magnitudes and awkward column names."""

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc._errors import SDCError

GID = "gid__"


def _classes_ok(df: pl.DataFrame, out: pl.DataFrame, k: int, on, by=(), household=None) -> None:
    """The guarantee checked on the release alone, plus the invariants of the contract."""
    by = list(by)
    assert out.height == df.height
    for c in df.columns:
        if c not in on:
            assert out[c].equals(df[c]), c                  # untouched columns, row order kept
    count = pl.col(household).n_unique() if household else pl.len()
    for keys in ([*by, *on], [*by, GID]):
        least = out.group_by(keys).agg(count.alias("n"))["n"].min()
        assert least >= k, (keys, least)
    # a group id never spans two strata
    if by:
        assert out.group_by(GID).agg(pl.struct(by).n_unique().alias("s"))["s"].max() == 1


def _run(df, k, on, **kw):
    before = df.clone()
    out = df.sdc.microaggregate(k, on, group_column=GID, **kw)
    lazy = df.lazy().sdc.microaggregate(k, on, group_column=GID, **kw)
    assert lazy.collect_schema() == out.schema
    assert lazy.collect().equals(out)
    assert lazy.collect(engine="streaming").equals(out)
    assert df.equals(before)
    return out


METHODS = [dict(method="mdav"), dict(method="vmdav"), dict(method="mhm", order="npn"), dict(method="mhm", order="kd"),
           dict(method="mhm", order="grid"), dict(method="mdav", refine="mil")]
_ids = [" ".join(map(str, m.values())) for m in METHODS]

_rng = np.random.default_rng(26)
_N = 13
FRAMES = {
    "int8-uint64": pl.DataFrame({"a": pl.Series(_rng.integers(-128, 128, _N), dtype=pl.Int8),
                                 "b": pl.Series([2**64 - 1 - int(v) for v in _rng.integers(0, 3, _N)], dtype=pl.UInt64)}),
    "uint8-float32": pl.DataFrame({"a": pl.Series(_rng.integers(0, 256, _N), dtype=pl.UInt8),
                                   "b": pl.Series(_rng.normal(size=_N), dtype=pl.Float32)}),
    "bool-decimal": pl.DataFrame({"a": _rng.integers(0, 2, _N).astype(bool),
                                  "b": pl.Series([f"{v:.2f}" for v in _rng.normal(size=_N)]).cast(pl.Decimal(10, 2))}),
    "ties": pl.DataFrame({"a": [1.0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4], "b": [0] * _N}),
    "constant": pl.DataFrame({"a": [5.0] * _N, "b": [7] * _N}),
    "extreme": pl.DataFrame({"a": _rng.normal(size=_N) * 1e300, "b": _rng.normal(size=_N) * 1e-300}),
    "names": pl.DataFrame({"a b": _rng.normal(size=_N), "ü ñ": _rng.normal(size=_N), "__group": _rng.normal(size=_N)}),
}


@pytest.mark.parametrize("frame", sorted(FRAMES))
@pytest.mark.parametrize("m", METHODS, ids=_ids)
@pytest.mark.parametrize("k", [1, 2, 5, _N])
def test_every_released_class_holds_k_records(frame, m, k):
    df = FRAMES[frame].with_columns(keep=pl.int_range(pl.len()).cast(pl.Int16))
    on = [c for c in df.columns if c != "keep"]
    out = _run(df, k, on, **m)
    _classes_ok(df, out, k, on)


@pytest.mark.parametrize("m", METHODS, ids=_ids)
def test_k_above_n_refused(m):
    df = FRAMES["ties"]
    with pytest.raises(SDCError, match="k"):
        df.sdc.microaggregate(_N + 1, ["a", "b"], **m)


@pytest.mark.parametrize("m", METHODS, ids=_ids)
def test_single_row(m):
    df = pl.DataFrame({"a": [1.5], "b": [2]})
    out = _run(df, 1, ["a", "b"], **m)
    assert out.drop(GID).equals(df)


_HH = pl.DataFrame({"hh": np.repeat(np.arange(15), 2), "x": _rng.normal(size=30),
                    "y": _rng.integers(0, 50, 30).astype(np.int32)}).with_columns(s=pl.col("hh") % 3)


@pytest.mark.parametrize("m", METHODS, ids=_ids)
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("by", [(), ("s",)])
@pytest.mark.parametrize("household", [None, "hh"])
def test_strata_and_households_every_class_holds_k(m, k, by, household):
    kw = dict(m, household=household, household_columns=[] if household else None)
    if by:
        kw["by"] = list(by)
    out = _run(_HH, k, ["x", "y"], **kw)
    _classes_ok(_HH, out, k, ["x", "y"], by=by, household=household)


@pytest.mark.parametrize("k", [1, 2])
def test_univariate_with_strata_and_nulls(k):
    df = pl.DataFrame({"x": [None, 3.0, None, 2, 2, 2, 9, 8, 7, 1, 5, 4], "s": [0, 1] * 6})
    out = _run(df, k, ["x"], method="univariate", by="s")
    assert out["x"].is_null().to_list() == df["x"].is_null().to_list()   # a structural null stays null
    nonnull = out.filter(pl.col("x").is_not_null())
    _classes_ok(df.filter(pl.col("x").is_not_null()), nonnull, k, ["x"], by=["s"])


def test_a_null_pattern_smaller_than_k_refused_naming_the_stratum():
    df = pl.DataFrame({"x": [None, 3.0, None, 2, 2, 2, 9, 8, 7, 1, 5, 4], "s": [0, 1] * 6})
    with pytest.raises(SDCError, match="stratum 0 of `by`, null pattern \\('x' null\\): 2 row"):
        df.sdc.microaggregate(3, ["x"], method="univariate", by="s")
