"""Rank swapping on every numeric dtype: the values are swapped exactly (Decimal included, never
through floats), nulls stay in place and the dtype is kept — with and without the sdcMicro preset."""
import math
from decimal import Decimal

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from conftest import assert_one_line_sdc_error


@pytest.mark.parametrize("lazy", [False, True])
def test_rank_swap_decimal_swaps_the_exact_values(lazy):
    vals = ["1.25", "-3.50", "2.00", None, "7.10", "0.01", "2.00", "123456789012.34"]
    df = pl.DataFrame({"x": vals}).with_columns(pl.col("x").str.to_decimal(scale=2))
    frame = df.lazy() if lazy else df
    out = frame.sdc.rank_swap("x", p=0.5, seed=1)
    out = out.collect() if lazy else out
    assert out.schema == df.schema
    assert out["x"][3] is None
    assert sorted(out["x"].drop_nulls().to_list()) == sorted(df["x"].drop_nulls().to_list())   # exact Decimals
    assert out["x"].to_list() != df["x"].to_list()
    # the same permutation as on the equivalent integers (value x 100)
    ints = df.select((pl.col("x") * 100).cast(pl.Int64))
    swapped = ints.sdc.rank_swap("x", p=0.5, seed=1)["x"].to_list()
    assert [None if v is None else int(v * 100) for v in out["x"].to_list()] == swapped
    coded = df.sdc.rank_swap("x", p=0.5, seed=1, top=0.3)     # 2 of the 7 values coded to their mean
    assert coded.schema["x"] == pl.Float64


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(dtype=st.sampled_from([pl.Float64, pl.Float32, pl.Int64, pl.Int32, pl.UInt16, pl.Decimal(12, 3)]),
       n=st.integers(1, 12), p=st.sampled_from([0.1, 0.5, 1.0]), nulls=st.booleans(),
       preset=st.sampled_from([None, "sdcmicro"]), seed=st.integers(0, 1000))
def test_rank_swap_every_dtype_is_a_permutation(dtype, n, p, nulls, preset, seed):
    """Every numeric dtype (Decimal included) keeps its values exactly (no coding), nulls in
    place, dtype kept — or a one-line error."""
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
        assert_one_line_sdc_error(exc)
        # a column none of whose values would move is refused (1 value, or a window of no rank)
        if isinstance(exc, SDCError) and (m == 1 or w <= 0):
            assert "column 'x': has" in str(exc) and "would be" in str(exc), str(exc)
            return
        raise
    assert m > 1 and w > 0, "a column none of whose values would move was released"
    assert out.schema == df.schema
    assert out["x"].is_null().equals(df["x"].is_null())
    assert sorted(out["x"].drop_nulls().to_list()) == sorted(df["x"].drop_nulls().to_list())
