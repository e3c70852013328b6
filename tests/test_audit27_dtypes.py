"""Microaggregation of Decimal and Boolean columns (session 27 audit, item 3): they were released
as Float64 means. Now, as integer columns (``integers="round"``, the default), they keep their
dtype: a Decimal column gets its group's exact mean rounded half to even to the column's scale,
a Boolean column its group's majority (a tie: False, the rounded mean 0.5 -> 0, as the most
frequent value of a categorical column with ties -> the smallest); ``integers="float"`` gives
the Float64 mean as before. Eager, lazy and streaming alike."""
from decimal import ROUND_HALF_EVEN, Decimal

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401

METHODS = ["mdav", "vmdav", "mhm", "univariate"]


def _frame(n: int = 23, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    cents = rng.integers(-50_000, 50_000, n)
    return pl.DataFrame({
        "d": [Decimal(int(c)).scaleb(-2) for c in cents],
        "b": rng.random(n) < 0.5,
        "x": rng.integers(0, 100, n),
    }, schema={"d": pl.Decimal(12, 2), "b": pl.Boolean, "x": pl.Int32})


def _call(frame, method, **kw):
    if method == "univariate":
        return frame.sdc.univariate(3, "d", group_column="g", **kw)
    return getattr(frame.sdc, method)(3, ["d", "b", "x"], group_column="g", **kw)


def _expected(df: pl.DataFrame, groups: pl.Series, on: list[str]) -> pl.DataFrame:
    """The exact representatives from the partition, in plain Python."""
    out = {c: list(df[c]) for c in df.columns}
    members: dict[int, list[int]] = {}
    for i, g in enumerate(groups.to_list()):
        members.setdefault(g, []).append(i)
    for rows in members.values():
        if "d" in on:
            mean = (sum(df["d"][i] for i in rows) / Decimal(len(rows))).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
            for i in rows:
                out["d"][i] = mean
        if "b" in on:
            trues = sum(bool(df["b"][i]) for i in rows)
            for i in rows:
                out["b"][i] = 2 * trues > len(rows)          # a tie: False
    return pl.DataFrame(out, schema=df.schema)


@pytest.mark.parametrize("method", METHODS)
def test_decimal_and_boolean_keep_their_dtype(method):
    df = _frame()
    out = _call(df, method)
    on = ["d"] if method == "univariate" else ["d", "b"]
    assert out.schema == {**df.schema, "g": out.schema["g"]}
    assert out.drop("g").select(on).equals(_expected(df, out["g"], on).select(on))
    rest = ["b", "x"] if method == "univariate" else []
    assert out.select(rest).equals(df.select(rest))                          # other columns untouched
    assert _call(df.lazy(), method).collect().equals(out)
    assert _call(df.lazy(), method).collect(engine="streaming").equals(out)
    assert _call(df.lazy(), method).collect_schema() == out.schema


@pytest.mark.parametrize("method", METHODS)
def test_integers_float_gives_float64_means(method):
    df = _frame(seed=1)
    out = _call(df, method, integers="float")
    on = ["d"] if method == "univariate" else ["d", "b", "x"]
    assert all(out.schema[c] == pl.Float64 for c in on)
    means = df.with_columns(out["g"]).select(pl.col(on).cast(pl.Float64).mean().over("g"))
    assert np.allclose(out.select(on).to_numpy(), means.to_numpy(), rtol=1e-12)


def test_ties_half_to_even_and_boolean_tie_false():
    df = pl.DataFrame({"g": [0, 0, 1, 1, 2, 2, 2, 2],
                       "d": [Decimal("0.01"), Decimal("0.02"), Decimal("0.03"), Decimal("0.04"),
                             Decimal("-1.00"), Decimal("-1.01"), Decimal("5.00"), Decimal("5.00")],
                       "b": [True, False, True, True, False, False, True, True]},
                      schema={"g": pl.Int64, "d": pl.Decimal(5, 2), "b": pl.Boolean})
    out = df.sdc.aggregate("g", ["d", "b"])
    # 0.015 -> 0.02 (to even), 0.035 -> 0.04, 7.99 / 4 = 1.9975 -> 2.00
    assert out["d"].to_list() == [Decimal("0.02")] * 2 + [Decimal("0.04")] * 2 + [Decimal("2.00")] * 4
    assert out["b"].to_list() == [False] * 2 + [True] * 2 + [False] * 4
    assert out.schema == df.schema
    assert df.lazy().sdc.aggregate("g", ["d", "b"]).collect().equals(out)


def test_decimal_scale_zero_and_large_values():
    big = 10**30
    df = pl.DataFrame({"g": [0, 0, 0], "d": [Decimal(big), Decimal(big + 1), Decimal(big + 1)]},
                      schema={"g": pl.Int64, "d": pl.Decimal(38, 0)})
    out = df.sdc.aggregate("g", ["d"])
    assert out["d"].to_list() == [Decimal(big + 1)] * 3          # (3 big + 2) / 3 = big + 0.67 -> big + 1
    assert out.schema == df.schema


from decimal import Context  # noqa: E402
from fractions import Fraction  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from polars_sdc.aggregate import rounded_mean_expr  # noqa: E402


def _half_even(f: Fraction) -> int:
    q, r = divmod(f.numerator, f.denominator)
    return q + (2 * r > f.denominator or (2 * r == f.denominator and q % 2 == 1))


@settings(max_examples=60, deadline=None)
@given(scale=st.integers(0, 6), data=st.data())
def test_decimal_group_mean_is_the_exact_mean_rounded_half_to_even(scale, data):
    # the whole class: magnitudes up to the Decimal(38) limit, negatives, ties, nulls, several groups,
    # eager and streaming; reference: Python's exact fractions
    top = 10 ** 38 - 1
    ints = data.draw(st.lists(st.one_of(st.none(), st.integers(-top, top), st.integers(-3, 3)), min_size=1, max_size=12))
    groups = data.draw(st.lists(st.integers(0, 2), min_size=len(ints), max_size=len(ints)))
    exact = Context(prec=100)  # Python's default context keeps 28 digits: 38-digit values would be rounded
    vals = [None if v is None else Decimal(v).scaleb(-scale, context=exact) for v in ints]
    df = pl.DataFrame({"g": groups, "x": pl.Series(vals, dtype=pl.Decimal(38, scale))})
    expr = rounded_mean_expr("x", pl.Decimal(38, scale), "g")
    eager = df.select(expr)["x"]
    streamed = df.lazy().select(expr).collect(engine="streaming")["x"]
    assert eager.dtype == pl.Decimal(38, scale) and eager.to_list() == streamed.to_list()
    for g, got in zip(groups, eager.to_list()):
        members = [v for v, h in zip(ints, groups) if h == g and v is not None]
        if not members:
            assert got is None
            continue
        want = _half_even(Fraction(sum(members), len(members)))
        assert got == Decimal(want).scaleb(-scale, context=exact)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.one_of(st.none(), st.booleans())), min_size=1, max_size=15))
def test_boolean_group_mean_is_the_majority_a_tie_false(rows):
    df = pl.DataFrame({"g": [g for g, _ in rows], "x": pl.Series([b for _, b in rows], dtype=pl.Boolean)})
    got = df.select(rounded_mean_expr("x", pl.Boolean, "g"))["x"].to_list()
    for (g, _), value in zip(rows, got):
        members = [b for h, b in rows if h == g and b is not None]
        if not members:
            assert value is None
        else:
            assert value == (2 * sum(members) > len(members))
