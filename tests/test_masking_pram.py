"""PRAM (sdcMicro 5.8.1 R/pram.R definitions): matrices, invariance, sampling, conventions."""
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc  # noqa: F401
from polars_sdc import SDCError, rng
from polars_sdc.masking.pram import pram_matrix
from conftest import assert_one_line_sdc_error
from naive import reference_pram_matrix


def test_matrix_is_sdcmicros_definition():
    df = pl.DataFrame({"c": ["x"] * 50 + ["y"] * 30 + ["z"] * 20})
    for alpha in (0.0, 0.5, 1.0):
        m = pram_matrix(df, "c", pd=0.7, alpha=alpha, seed=4)["c"][0]
        diag = 0.7 + 0.3 * rng.uniform(4, "pram/c/pd/0", rng.row_positions(3))
        assert (diag >= 0.7).all() and (diag <= 1).all()
        np.testing.assert_allclose(m.matrix, reference_pram_matrix([0.5, 0.3, 0.2], diag, alpha), atol=1e-12)
        np.testing.assert_allclose(m.matrix.sum(axis=1), 1.0, atol=1e-12)
        # invariant: the frequencies are a fixed point
        np.testing.assert_allclose(np.array([0.5, 0.3, 0.2]) @ m.matrix, [0.5, 0.3, 0.2], atol=1e-12)
    assert m.levels == ["x", "y", "z"]
    assert m.to_frame().columns == ["from", "x", "y", "z"]


@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical, pl.Enum(["b", "a", "c", "unused"]), "int"])
def test_identity_matrix_and_pd_1_give_the_input_back(dtype):
    vals = ["a", "b", None, "c", "a", "b"] * 50
    s = pl.Series("c", vals)
    s = s.replace_strict({"a": 1, "b": 2, "c": 3}, return_dtype=pl.Int32) if dtype == "int" else s.cast(dtype)
    df = pl.DataFrame({"id": range(len(vals)), "c": s})
    L = len(pram_matrix(df, "c", seed=0)["c"][0].levels)
    for out in (df.sdc.pram("c", matrix=np.eye(L), seed=1), df.sdc.pram("c", pd=1.0, seed=1),
                df.lazy().sdc.pram("c", matrix={"c": np.eye(L)}, seed=1).collect()):
        assert out.equals(df)


def test_a_million_rows_release_frequencies_within_sampling_error():
    n = 1_000_000
    p = np.array([0.5, 0.25, 0.15, 0.07, 0.03])
    codes = np.random.default_rng(0).choice(5, n, p=p)
    df = pl.DataFrame({"c": pl.Series(np.array(list("abcde"))[codes]).cast(pl.Enum(list("abcde")))})
    out = df.sdc.pram("c", pd=0.6, alpha=1.0, seed=3)
    m = df.sdc.pram_matrix("c", pd=0.6, alpha=1.0, seed=3)["c"][0].matrix
    before = np.bincount(codes, minlength=5)
    after = out["c"].to_physical().to_numpy()
    released = np.bincount(after, minlength=5)
    # E[released] = before @ M = before (invariance); sd <= sqrt(n p)
    assert (np.abs(released - before) < 5 * np.sqrt(before)).all()
    assert (after != codes).mean() > 0.05        # it did change records
    # each row follows its matrix row
    for i in range(5):
        got = np.bincount(after[codes == i], minlength=5) / before[i]
        assert np.abs(got - m[i]).max() < 5 * np.sqrt(0.25 / before[i]) + 1e-3


def test_strata_get_their_own_matrix_and_records_keep_their_stratum():
    n = 20_000
    r = np.random.default_rng(1)
    df = pl.DataFrame({"g": r.choice(["N", "S"], n), "c": r.choice(["a", "b", "c"], n),
                       "x": r.normal(size=n)})
    df = df.with_columns(pl.when(pl.col("g") == "S").then(pl.lit("a")).otherwise("c").alias("c2"))
    mats = df.sdc.pram_matrix("c", by="g", seed=2)["c"]
    assert [m.stratum for m in mats] == [("N",), ("S",)]
    assert not np.allclose(mats[0].matrix, mats[1].matrix)
    for m, g in zip(mats, ["N", "S"]):
        p = df.filter(pl.col("g") == g)["c"].value_counts().sort("c")["count"].to_numpy()
        p = p / p.sum()
        np.testing.assert_allclose(p @ (m.matrix - 0.5 * np.eye(3)) / 0.5, p, atol=1e-12)  # R invariant
    out = df.sdc.pram("c", by="g", seed=2)
    assert out.drop("c").equals(df.drop("c"))
    # a category absent from a stratum is never produced there by the invariant part
    out2 = df.sdc.pram("c2", by="g", alpha=1.0, seed=2)
    assert out2.filter(pl.col("g") == "S")["c2"].unique().to_list() == ["a"]


def test_eager_lazy_streaming_and_key_agree():
    n = 300_000
    r = np.random.default_rng(2)
    df = pl.DataFrame({"id": np.arange(n), "c": r.choice(["a", "b", "c"], n), "d": r.integers(0, 4, n)})
    eager = df.sdc.pram(["c", "d"], seed=5)
    chunked = pl.concat([df.slice(0, 100_000), df.slice(100_000)], rechunk=False)
    assert chunked.lazy().sdc.pram(["c", "d"], seed=5).collect(engine="streaming").equals(eager)
    assert not df.sdc.pram(["c", "d"], seed=6).equals(eager)
    # with key=, a row's draw follows its key, not its position (same frequencies -> same matrix)
    keyed = df.sdc.pram("c", seed=5, key="id")
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=0).sdc.pram("c", seed=5, key="id")
    assert shuffled.sort("id").equals(keyed)
    # the two columns use different streams
    assert (eager["c"] != df["c"]).arg_true().head(50).to_list() != (eager["d"] != df["d"]).arg_true().head(50).to_list()


def test_input_untouched_dtypes_kept():
    df = pl.DataFrame({"c": pl.Series(["a", "b", None] * 10).cast(pl.Categorical), "n": range(30)})
    before = df.clone()
    out = df.sdc.pram("c", seed=1)
    assert df.equals(before) and out.schema == df.schema and out["c"].null_count() == 10
    assert df.lazy().sdc.pram("c", seed=1).collect_schema() == df.schema


def test_tiny_inputs():
    assert pl.DataFrame({"c": ["a"]}).sdc.pram("c", seed=1)["c"].to_list() == ["a"]
    assert pl.DataFrame({"c": [None, None]}, schema={"c": pl.String}).sdc.pram("c", seed=1)["c"].to_list() == [None, None]
    assert pl.DataFrame({"c": []}, schema={"c": pl.String}).sdc.pram("c", seed=1).height == 0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(on="x"), "column 'x'.*not categorical"),
        (dict(on="c", alpha=1.5), "alpha must be"),
        (dict(on="c", alpha=True), "alpha must be"),
        (dict(on="c", pd=-0.1), "column 'c': pd must be"),
        (dict(on="c", matrix=np.eye(3)), "column 'c'.*2 x 2"),
        (dict(on="c", matrix=[[0.5, 0.6], [0, 1]]), "column 'c'.*rows summing to 1"),
        (dict(on="c", by="c"), "column 'c': in both"),
        (dict(on="c", seed=-1), "seed"),
        (dict(on="c", key="c"), "key column 'c'"),
    ],
)
def test_bad_input_raises_sdc_error(kwargs, match):
    df = pl.DataFrame({"c": ["a", "b", "a"], "x": [1.0, 2.0, 3.0]})
    with pytest.raises(SDCError, match=match):
        df.sdc.pram(**kwargs)


def test_a_one_row_stratum_is_released_unchanged():
    # the invariant matrix of a stratum holding one category maps every category to it (its
    # Bayes inverse Q sends everything back to the only observed category): a 1-row stratum,
    # or one where the column has a single category, keeps its values (as sdcMicro's pram)
    df = pl.DataFrame({"g": ["a"] * 6 + ["b"], "c": ["x", "y"] * 3 + ["y"]})
    m = df.sdc.pram_matrix("c", by="g", pd=0.5, alpha=1.0, seed=1)["c"][1]
    assert m.stratum == ("b",) and m.matrix.tolist() == [[0.0, 1.0], [0.0, 1.0]]
    for seed in range(5):
        assert df.sdc.pram("c", by="g", pd=0.5, alpha=1.0, seed=seed)["c"][6] == "y"


@pytest.mark.parametrize("kwargs, message", [
    ({"pd": {"other": 0.5}}, r"pd: column 'other' is not one of the PRAM columns \['c'\]"),
    ({"pd": {}}, r"pd: no value for column 'c'"),
    ({"pd": {"c": 2.0}}, r"column 'c': pd must be a number in"),
    ({"pd": "high"}, r"column 'c': pd must be a number in"),
    ({"matrix": "eye"}, r"column 'c': the PRAM matrix must be a square array of numbers.*got 'eye'"),
    ({"matrix": [[1.0, "x"], [0.0, 1.0]]}, r"column 'c': the PRAM matrix must be a square array of numbers"),
    ({"matrix": [1.0, 0.0]}, r"column 'c': the PRAM matrix must be a square array.*1 dimension"),
    ({"matrix": {"d": [[1.0]]}}, r"matrix: column 'd' is not one of the PRAM columns"),
    ({"matrix": [[1.0, 0.0, 0.0]] * 3}, r"column 'c': the PRAM matrix must be 2 x 2"),
])
@pytest.mark.parametrize("lazy", [False, True])
def test_bad_pd_and_matrix_name_the_column(kwargs, message, lazy):
    df = pl.DataFrame({"c": ["x", "y", "x"], "d": [1, 2, 3]})
    frame = df.lazy() if lazy else df
    with pytest.raises(SDCError, match=message):
        out = frame.sdc.pram("c", seed=1, **kwargs)
        if lazy:
            out.collect()
    # a per-column pd mapping covering the columns still works
    assert df.sdc.pram("c", pd={"c": 0.9}, seed=1).height == 3


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(pd=st.one_of(st.floats(-1, 2), st.just("x"), st.dictionaries(st.sampled_from(["c", "d", "e"]), st.floats(-1, 2), max_size=3)),
       matrix=st.sampled_from([None, "eye", [[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5], [0.2, 0.8]], [1.0], {"c": "x"}]),
       on=st.sampled_from([["c"], ["c", "d"]]))
def test_pram_any_pd_and_matrix(pd, matrix, on):
    """Any pd / matrix gives a PRAM release or a one-line SDCError, never a raw KeyError /
    ValueError."""
    df = pl.DataFrame({"c": ["u", "v", "u", "v"], "d": [1, 2, 1, 1]})
    try:
        out = df.sdc.pram(on, pd=pd, matrix=matrix, seed=1)
    except Exception as exc:  # noqa: BLE001
        assert_one_line_sdc_error(exc)
        return
    assert out.height == 4 and out.schema == df.schema
