"""Structural nulls in the information-loss measures (issue 24 item 2): a null kept by the
release at the same row is skipped (and counted), a changed null pattern is an error naming
the column and the row, and the value equals a plain reference over the non-null values."""
from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_sdc
from polars_sdc import SDCError
from polars_sdc.loss.classic import ctbil, discernibility, ebil, entropy_loss, ncp
from naive import reference_ild_nulls, reference_ilssdm_nulls


@st.composite
def with_nulls(draw, max_cols=3):
    """Numeric columns with nulls, a release that keeps them (noise on the rest) and groups."""
    n = draw(st.integers(2, 14))
    p = draw(st.integers(1, max_cols))
    value = st.one_of(st.none(), st.integers(-50, 50).map(float), st.floats(-1e3, 1e3, allow_subnormal=False))
    cols = [draw(st.lists(value, min_size=n, max_size=n)) for _ in range(p)]
    for c in cols:  # at least one value per column
        if all(v is None for v in c):
            c[0] = 1.0
    noise = [draw(st.lists(st.floats(-5, 5, allow_subnormal=False), min_size=n, max_size=n)) for _ in range(p)]
    masked = [[None if v is None else v + e for v, e in zip(c, z)] for c, z in zip(cols, noise)]
    groups = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return cols, masked, groups


def frame(cols):
    return pl.DataFrame({f"x{j}": c for j, c in enumerate(cols)}, schema={f"x{j}": pl.Float64 for j in range(len(cols))})


@settings(max_examples=60, deadline=None)
@given(with_nulls(), st.booleans())
def test_ilssdm_with_nulls_equals_the_reference(data, standardize):
    cols, masked, groups = data
    df, rel = frame(cols), frame(masked)
    nulls = sum(v is None for c in cols for v in c)
    got = df.sdc.ilssdm(masked=rel, standardize=standardize)
    assert got == pytest.approx(reference_ilssdm_nulls(cols, masked, standardize=standardize), rel=1e-7, abs=1e-9)
    assert got.skipped == nulls
    g = pl.Series("g", groups)
    got_g = df.sdc.ilssdm(groups=g, standardize=standardize)
    assert got_g == pytest.approx(reference_ilssdm_nulls(cols, groups=groups, standardize=standardize),
                                  rel=1e-7, abs=1e-9)
    assert got_g.skipped == nulls
    assert df.lazy().sdc.ilssdm(masked=rel.lazy(), standardize=standardize) == got  # eager == lazy


@settings(max_examples=40, deadline=None)
@given(with_nulls())
def test_ild_with_nulls_equals_the_reference(data):
    cols, masked, _ = data
    df, rel = frame(cols), frame(masked)
    euclid = [lambda a, b: abs(a - b)] * len(cols)
    a, m, loss = reference_ild_nulls(cols, masked, euclid)
    rep = df.sdc.ild_report(rel)
    assert rep.total == pytest.approx(a, rel=1e-9, abs=1e-6)
    assert rep.total_masked == pytest.approx(m, rel=1e-9, abs=1e-6)
    assert rep.ild == pytest.approx(loss, rel=1e-7, abs=1e-9, nan_ok=True)
    skipped = [sum(v is None for v in c) for c in cols]
    assert list(rep.skipped) == skipped and rep.skipped_overall == sum(skipped)
    assert rep.to_frame()["skipped"].to_list() == [*skipped, sum(skipped)]
    assert df.sdc.ild(rel).skipped == sum(skipped)
    assert df.lazy().sdc.ild_report(rel.lazy()) == rep
    assert df.sdc.information_amount() == pytest.approx(a, rel=1e-9, abs=1e-6)
    assert df.lazy().sdc.information_amount().skipped == sum(skipped)


def test_ild_exponent_one_over_several_columns_uses_complete_records():
    cols = [[1.0, None, 4.0, 2.0, 8.0], [0.5, 3.0, None, 1.0, 2.0]]
    masked = [[1.5, None, 3.0, 2.0, 7.0], [0.5, 2.0, None, 2.0, 2.0]]
    a, m, loss = reference_ild_nulls(cols, masked, [lambda u, v: abs(u - v)] * 2, exponent=1)
    rep = frame(cols).sdc.ild_report(frame(masked), exponent=1)
    assert (rep.total, rep.total_masked) == (pytest.approx(a), pytest.approx(m))
    assert rep.ild == pytest.approx(loss) and rep.skipped_overall == 2  # two incomplete records
    amount = frame(cols).sdc.information_amount(exponent=1)
    assert amount == pytest.approx(a) and amount.skipped == 2


def test_ild_categorical_with_nulls_equals_the_reference():
    s = ["ab", None, "abc", "b", None, "ab"]
    t = ["ab", None, "ab", "b", None, "ab"]
    df, rel = pl.DataFrame({"s": s}), pl.DataFrame({"s": t})
    from naive import lev_ref

    a, m, loss = reference_ild_nulls([s], [t], [lev_ref])
    rep = df.sdc.ild_report(rel, dist={"s": "levenshtein"})
    assert (rep.total, rep.total_masked, rep.ild) == (pytest.approx(a), pytest.approx(m), pytest.approx(loss))
    assert rep.skipped == (2,)
    # the discrete default over the non-null values: the same as dropping the null rows
    kept = df.filter(pl.col("s").is_not_null())
    assert df.sdc.ild(rel) == kept.sdc.ild(rel.filter(pl.col("s").is_not_null()))


def test_a_changed_null_pattern_names_the_column_and_row():
    df = pl.DataFrame({"x": [1.0, 2.0, None, 4.0], "y": [1.0, None, 3.0, 4.0]})
    moved = pl.DataFrame({"x": [1.0, 2.0, None, 4.0], "y": [1.0, 2.0, 3.0, None]})
    for call in (lambda: df.sdc.ilssdm(masked=moved), lambda: df.sdc.ild(moved),
                 lambda: df.sdc.loss_report(moved), lambda: ebil(df, moved), lambda: ncp(df, masked=moved)):
        with pytest.raises(SDCError, match=r"column 'y': row 1 is null in the original but not in the release"):
            call()
    filled = moved.with_columns(pl.col("y").fill_null(9.0))
    with pytest.raises(SDCError, match=r"column 'y': row 1 is null in the original"):
        df.sdc.ilssdm(masked=filled)
    suppressed = df.with_columns(pl.when(pl.int_range(4) == 0).then(None).otherwise(pl.col("x")).alias("x"))
    with pytest.raises(SDCError, match=r"column 'x': row 0 is null in the release but not in the original"):
        df.sdc.ilssdm(masked=suppressed)


def test_no_nulls_nothing_skipped_and_values_unchanged():
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": [0, 0, 1, 1]})
    r = df.sdc.ilssdm("x", groups="g", standardize=False)
    assert r == 0.2 and r.skipped == 0 and type(r).__name__ == "Measured"
    rep = df.sdc.loss_report(groups="g", on="x", k=2)
    assert rep.skipped == 0 and "skipped" not in repr(rep)
    assert df.sdc.ild_report(groups="g", on="x").to_frame()["skipped"].to_list() == [0, 0]


def test_classic_measures_with_kept_nulls():
    o = pl.DataFrame({"v": ["a", "b", None, "c", None, "c"], "x": [1.0, None, 3.0, 5.0, 6.0, None]})
    m = pl.DataFrame({"v": ["ab", "ab", None, "c", None, "c"], "x": [2.0, None, 2.0, 5.5, 5.5, None]})
    # the frequency measures count a kept null as a value of its own: the same numbers as with
    # the null written as a category that the release leaves unchanged
    fill = [pl.col("v").fill_null("<null>"), pl.col("x").fill_null(-1.0)]
    of, mf = o.with_columns(fill), m.with_columns(fill)
    assert ebil(o, m) == pytest.approx(ebil(of, mf))
    assert ctbil(o, m) == ctbil(of, mf)
    assert entropy_loss(o, m) == pytest.approx(entropy_loss(of, mf))
    assert discernibility(m, on=["v", "x"]) == discernibility(mf, on=["v", "x"])
    # NCP skips them: x's range over 1..6, spans over each class's non-null values
    g = pl.Series([0, 0, 0, 1, 1, 1])
    # group 0: x in {1, 3} span 2 over 2 values; group 1: {5, 6} span 1 over 2; v: group 0 {a, b}
    # (2 of 3 leaves, n = 2), group 1 {c} (one value)
    assert ncp(o, g, on=["x", "v"]) == pytest.approx(2 * 2 / 5 + 1 * 2 / 5 + 2 * 1.0)
    rep = o.sdc.loss_report(m, on=["v", "x"])
    assert rep.skipped == 4 and "4 null values skipped" in repr(rep)
    assert rep.ilssdm == pytest.approx(reference_ilssdm_nulls([o["x"].to_list()], [m["x"].to_list()]))
    assert rep.ilssdm == o.lazy().sdc.loss_report(m.lazy(), on=["v", "x"]).ilssdm
    grouped = o.sdc.loss_report(groups=g, on=["v", "x"])
    assert grouped.skipped == 4 and 0 <= grouped.normalized()["ebil"] <= 1


@pytest.fixture(scope="module")
def silc_noise():
    df = polars_sdc.datasets.eusilc()
    return df, df.sdc.add_noise(["py010n"], seed=1, household="db030")


def test_eusilc_reproducer(silc_noise):
    df, out = silc_noise
    r = df.sdc.ilssdm(["py010n"], masked=out.select("py010n"))
    assert r.skipped == 2720
    kept = df["py010n"].is_not_null()
    # equals the measure on the non-null rows (which have no null to skip)
    plain = df.filter(kept).sdc.ilssdm(["py010n"], masked=out.filter(kept).select("py010n"))
    assert plain.skipped == 0 and r == pytest.approx(plain, rel=1e-12)
    assert r == pytest.approx(reference_ilssdm_nulls([df["py010n"].to_list()], [out["py010n"].to_list()]), rel=1e-9)
    rep = df.sdc.loss_report(out, on=["py010n"])
    assert rep.skipped == 2720 and rep.ilssdm == r
    assert rep.ild == df.filter(kept).sdc.ild(out.filter(kept), on=["py010n"])
    assert df.lazy().sdc.loss_report(out.lazy(), on=["py010n"]) == rep


def test_cli_anonymize_prints_sse_sst_with_nulls(tmp_path, capsys):
    import re

    from polars_sdc.cli import main

    df = polars_sdc.datasets.eusilc()
    src, dst = tmp_path / "silc.parquet", tmp_path / "out.parquet"
    df.write_parquet(src)
    main(["anonymize", str(src), str(dst), "--k", "3", "--on", "py010n,py050n", "--household", "db030"])
    out = capsys.readouterr().out
    shown = re.search(r"SSE/SST ([0-9.]+) % \(numeric --on columns, z-scored, (\d+) null values skipped\)", out)
    assert shown, out
    rel = pl.read_parquet(dst)
    expected = df.sdc.ilssdm(["py010n", "py050n"], masked=rel.select("py010n", "py050n"))
    assert float(shown.group(1)) == pytest.approx(100 * expected, abs=5e-5)
    assert int(shown.group(2)) == expected.skipped == 2 * 2720
    assert not math.isnan(expected) and 0 < expected < 1


def test_recode_utility_counts_the_rows_it_skips():
    x = (["u"] * 12 + ["v"] * 10 + ["w"] * 8)
    y = (["a"] * 12 + ["b"] * 10 + ["a"] * 5 + ["b"] * 3)
    x[3], y[20], x[25] = None, None, None
    df = pl.DataFrame({"x": x, "y": y})
    il = df.sdc.recode_utility("y", "x", 0.3)
    assert il.skipped == 3 and il == df.drop_nulls().sdc.recode_utility("y", "x", 0.3)
    rep = df.sdc.recode_utility("y", "x", 0.3, metric=None)
    assert rep.skipped == 3 and rep.n == 27 and "3 rows with nulls skipped" in repr(rep)


def test_cli_loss_says_what_it_skipped(tmp_path, capsys):
    from polars_sdc.cli import main

    o = pl.DataFrame({"x": [1.0, None, 3.0, 5.0, 6.0], "y": [2.0, 1.0, None, 4.0, 4.5]})
    m = o.with_columns(pl.col("x") + 0.5, pl.col("y") * 1.1)
    o.write_parquet(tmp_path / "o.parquet")
    m.write_parquet(tmp_path / "m.parquet")
    assert main(["loss", str(tmp_path / "o.parquet"), str(tmp_path / "m.parquet"), "--on", "x,y"]) == 0
    out = capsys.readouterr().out
    sse = o.sdc.ilssdm(["x", "y"], masked=m)
    assert f"{100 * sse:.4f} % (2 null values skipped)" in out
    assert "(2 rows with nulls skipped)" in out


@settings(max_examples=40, deadline=None)
@given(with_nulls())
def test_ild_of_a_partition_with_nulls(data):
    cols, _, groups = data
    df = frame(cols).with_columns(pl.Series("g", groups))
    rep = df.sdc.ild_report(groups="g")
    # the release of a partition: each value replaced by its group's mean over the non-null values
    masked = [[None if v is None else sum(u for u, h in zip(c, groups) if h == g and u is not None)
               / sum(1 for u, h in zip(c, groups) if h == g and u is not None)
               for v, g in zip(c, groups)] for c in cols]
    a, m, loss = reference_ild_nulls(cols, masked, [lambda u, v: abs(u - v)] * len(cols))
    assert rep.total == pytest.approx(a, rel=1e-9, abs=1e-6)
    assert rep.ild == pytest.approx(loss, rel=1e-6, abs=1e-9, nan_ok=True)
    # per column, ILD with Euclidean distance and group means is SSE/SST (Akiyama & Wada eq. 6)
    for c, v in rep.by_column.items():
        assert v == pytest.approx(df.sdc.ilssdm(c, groups="g", standardize=False), rel=1e-6, abs=1e-9)
    assert df.lazy().sdc.ild_report(groups="g") == rep


@pytest.mark.parametrize("dtype", [pl.Int8, pl.Int32, pl.UInt16, pl.Int64, pl.Float32])
def test_every_numeric_dtype_with_nulls(dtype):
    o = pl.DataFrame({"x": [3, None, 7, 1, None, 9, 4]}, schema={"x": dtype})
    m = pl.DataFrame({"x": [4, None, 6, 2, None, 9, 3]}, schema={"x": dtype})
    as_float = [None if v is None else float(v) for v in o["x"].to_list()]
    expected = reference_ilssdm_nulls([as_float], [[None if v is None else float(v) for v in m["x"].to_list()]])
    got = o.sdc.ilssdm(masked=m)
    assert got == pytest.approx(expected, rel=1e-12) and got.skipped == 2
    assert o.sdc.ild(m) == pytest.approx(o.drop_nulls().sdc.ild(m.drop_nulls()), rel=1e-12)
    assert o.sdc.loss_report(m).skipped == 2


def test_an_all_null_column():
    o = pl.DataFrame({"x": [None, None, None], "y": [1.0, 2.0, 4.0]}, schema={"x": pl.Int64, "y": pl.Float64})
    m = o.with_columns(pl.col("y") + 1.0)
    r = o.sdc.ilssdm(masked=m)  # x adds nothing to SSE or SST
    assert r == o.sdc.ilssdm("y", masked=m) and r.skipped == 3
    assert o.sdc.ilssdm("x", masked=m) == 0.0
    with pytest.raises(SDCError, match="column 'x': every value is null"):
        o.sdc.ild(m)
