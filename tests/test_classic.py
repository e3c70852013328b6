"""Classic information-loss measures (thesis 2.4.3, Sano & Hattori section 3) and loss_report."""
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_sdc import SDCError, dist
from polars_sdc.loss.classic import (
    classification_metric,
    ctbil,
    discernibility,
    ebil,
    entropy_loss,
    loss_report,
    ncp,
)
from polars_sdc.loss.sse import ilssdm_frame


def test_discernibility_thesis_example_32_and_33():
    two = pl.DataFrame({"g": [0] * 4 + [1] * 4})
    three = pl.DataFrame({"g": [0] + [1] * 3 + [2] * 4})
    assert discernibility(two, "g", k=3) == 32
    assert discernibility(three, "g", k=3) == 33  # 3^2 + 4^2 + 1 * 8
    assert discernibility(three, "g") == 1 + 9 + 16
    # equivalence classes of a release
    rel = pl.DataFrame({"a": ["x"] + ["y"] * 3 + ["z"] * 4, "b": [1] * 8})
    assert discernibility(rel, on=["a", "b"], k=3) == 33


def test_classification_metric_thesis_figure_2_9():
    # 20 rows in 4 groups; G1 pure, G2..G4 one row outside the majority each -> 3/20
    labels = ["o"] * 5 + ["o"] * 4 + ["t"] + ["o"] + ["t"] * 4 + ["t"] * 4 + ["o"]
    df = pl.DataFrame({"g": np.repeat([0, 1, 2, 3], 5), "y": labels})
    assert classification_metric(df, "y", "g") == 3 / 20
    sup = pl.Series([False] * 19 + [True])  # the G4 minority row is suppressed: still 1
    assert classification_metric(df, "y", "g", suppressed=sup) == 3 / 20
    sup2 = pl.Series([True] + [False] * 19)  # a G1 row suppressed: one more penalty
    assert classification_metric(df, "y", "g", suppressed=sup2) == 4 / 20


PREFS = ["Nagano", "Niigata", "Tokyo", "Kanagawa", "Osaka", "Nara", "Fukuoka", "Kumamoto"]
REGIONS = ["Koshinetsu"] * 2 + ["Kanto"] * 2 + ["Kansai"] * 2 + ["Kyushu"] * 2
AREA = ["East"] * 4 + ["West"] * 4
TREE = {**dict(zip(PREFS, REGIONS)), **dict(zip(REGIONS, AREA))}


def test_ncp_numeric_and_hierarchy():
    df = pl.DataFrame({"x": [0.0, 2.0, 6.0, 10.0, 1.0, 3.0, 7.0, 9.0], "p": PREFS})
    pairs = pl.Series(np.repeat(np.arange(4), 2))
    halves = pl.Series(np.repeat(np.arange(2), 4))
    # numeric: ranges 2, 4, 2, 2 over the column range 10, two rows each
    assert ncp(df, pairs, on="x") == pytest.approx(2 * (2 + 4 + 2 + 2) / 10, abs=1e-12)
    # categorical: pairs meet at a region (2 of 8 leaves), halves at an area (4 of 8)
    assert ncp(df, pairs, on="p", hierarchies={"p": TREE}) == pytest.approx(8 * 2 / 8, abs=1e-12)
    assert ncp(df, halves, on="p", hierarchies={"p": dist.tree(TREE)}) == pytest.approx(8 * 4 / 8, abs=1e-12)
    # flat hierarchy: any group with two values costs 1 per row; weights scale
    assert ncp(df, halves, on="p") == 8.0
    both = ncp(df, pairs, on=["x", "p"], hierarchies={"p": TREE}, weights={"x": 0.5, "p": 2.0})
    assert both == pytest.approx(0.5 * 2.0 + 2.0 * 2.0, abs=1e-12)
    # the release's equivalence classes give the same groups
    masked = pl.DataFrame({"x": [1.0, 1.0, 8.0, 8.0, 2.0, 2.0, 8.0, 8.0], "p": REGIONS})
    assert ncp(df, masked=masked, on="p", hierarchies={"p": TREE}) == pytest.approx(2.0, abs=1e-12)
    with pytest.raises(SDCError, match="not a node"):
        ncp(df, pairs, on="p", hierarchies={"p": {"Nagano": "X"}})


def test_ebil_seed002_table2_and_ctbil():
    orig = ["agri"] * 5 + ["forest"] * 2 + ["service"] * 30 + ["estate"] * 13 + ["manuf"] * 50
    rec = ["agri+forest"] * 7 + orig[7:]
    o, m = pl.DataFrame({"ind": orig}), pl.DataFrame({"ind": rec})
    h = -(5 / 7 * math.log(5 / 7) + 2 / 7 * math.log(2 / 7))
    assert ebil(o, m) == pytest.approx(7 * h, rel=1e-12)
    assert ebil(o, m, base=2) == pytest.approx(7 * h / math.log(2), rel=1e-12)
    assert ctbil(o, m) == 5 + 2 + 7
    assert ctbil(o, m, normalize=True) == pytest.approx(14 / 6)


def test_ctbil_two_way_tables():
    o = pl.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 2, 1, 2]})
    m = pl.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 1, 1, 1]})
    # one-way: a equal; b: |2-4| + |2-0| = 4. two-way: (x,1) 1v2, (x,2) 1v0, (y,1) 1v2, (y,2) 1v0 -> 4
    assert ctbil(o, m, max_dim=1) == 4
    assert ctbil(o, m, max_dim=2) == 8
    # a Float64 release of an integer column still compares values
    assert ctbil(o, m.with_columns(pl.col("b").cast(pl.Float64)), on="b") == 4


@settings(max_examples=30, deadline=None)
@given(vals=st.lists(st.integers(0, 6), min_size=2, max_size=30), merge=st.integers(1, 4))
def test_entropy_loss_is_ebil_over_n_h_for_a_recoding(vals, merge):
    o = pl.DataFrame({"v": vals})
    m = pl.DataFrame({"v": [v // merge for v in vals]})
    n = len(vals)
    p = np.bincount(vals) / n
    p = p[p > 0]
    H = float(-(p * np.log(p)).sum())
    if H == 0:
        assert entropy_loss(o, m) == 0.0
    else:
        assert entropy_loss(o, m) == pytest.approx(ebil(o, m) / (n * H), abs=1e-12)


def test_loss_report_collects_the_measures():
    df = pl.DataFrame({
        "x": [1.0, 2.0, 3.0, 4.0, 10.0, 11.0], "c": ["a", "a", "b", "c", "c", "c"],
        "y": ["p", "q", "p", "p", "q", "q"], "g": [0, 0, 1, 1, 2, 2],
    })
    r = df.sdc.loss_report(groups="g", on=["x", "c"], label="y", k=2)
    masked = df.sdc.aggregate("g", ["x", "c"])
    # every value worked out by hand from the definitions. Released: x -> 1.5, 3.5, 10.5 (pair
    # means); c -> a, b (group {b, c}: most frequent, ties to the smallest), c.
    assert masked["c"].to_list() == ["a", "a", "b", "b", "c", "c"]
    x = np.array([1.0, 2.0, 3.0, 4.0, 10.0, 11.0])
    sst, sse = ((x - x.mean()) ** 2).sum(), 3 * 2 * 0.5**2  # 90.83..., 1.5
    # ILD, e = 2: I(x) = 2 N SST = 1090 and I(x_hat) = I(x) - 2 N SSE = 1072 (Akiyama & Wada eq. 5);
    # discrete c: I = N^2 - sum n_v^2 = 36 - (4 + 1 + 9) = 22, released 36 - 3 * 4 = 24
    assert 2 * 6 * sst == pytest.approx(1090)
    assert r.ild == pytest.approx(((1090 + 22) - (1072 + 24)) / (1090 + 22), abs=1e-12)
    assert r.ilssdm == pytest.approx(sse / sst, abs=1e-12)
    assert r.dm == 3 * 2**2  # three classes of 2 >= k
    assert r.cm == pytest.approx(1 / 6)  # group 0 holds p and q: one minority row of 6
    # NCP: x ranges 1 + 1 + 1 over 10, two rows each; c: only group {b, c} generalises (2 rows)
    assert r.ncp == pytest.approx(2 * 3 / 10 + 2, abs=1e-12)
    # EBIL: each released x value hides 2 equally likely originals (3 x 2 ln 2); c: one group
    assert r.ebil == pytest.approx(3 * 2 * math.log(2) + 2 * math.log(2), rel=1e-12)
    # CTBIL: x 6 + 6, c |2-2| + |1-2| + |3-2| = 2, (x, c) 6 + 6
    assert r.ctbil == 12 + 2 + 12
    # entropy: 6 distinct records -> 3 classes of 2: (ln 6 - ln 3) / ln 6
    assert r.entropy_loss == pytest.approx(math.log(2) / math.log(6), rel=1e-12)
    # and the frame-level functions agree with the report
    assert r.ild == df.sdc.ild(groups="g", on=["x", "c"])
    assert r.ilssdm == pytest.approx(ilssdm_frame(df, "x", groups="g"), abs=1e-12)
    assert r.ebil == ebil(df, masked, ["x", "c"]) and r.ctbil == ctbil(df, masked, ["x", "c"])
    # the same release given as a frame: the equivalence classes are the groups here
    r2 = df.lazy().sdc.loss_report(masked.lazy(), on=["x", "c"], label="y", k=2)
    assert r2.dm == r.dm and r2.cm == r.cm and r2.ctbil == r.ctbil
    assert r2.ild == pytest.approx(r.ild, abs=1e-12)
    t = r.to_frame()
    assert t["measure"].to_list() == ["ild", "ilssdm", "dm", "ncp", "entropy_loss", "ebil", "ctbil", "cm"]
    assert "LossReport(6 rows)" in repr(r)
    no_label = loss_report(df.select("c", "g"), groups="g", on="c")
    assert no_label.cm is None and no_label.ilssdm is None
    assert no_label.to_frame().filter(pl.col("measure") == "cm")["value"].to_list() == [None]


def test_classic_errors():
    df = pl.DataFrame({"g": [0, 0], "y": ["a", None]})
    with pytest.raises(SDCError, match="column 'y'.*null"):
        classification_metric(df, "y", "g")
    with pytest.raises(SDCError, match="row-aligned"):
        ebil(pl.DataFrame({"v": [1, 2]}), pl.DataFrame({"v": [1]}))
    with pytest.raises(SDCError, match="exactly one"):
        ncp(pl.DataFrame({"v": [1, 2]}), on="v")
    with pytest.raises(SDCError, match="max_dim"):
        ctbil(pl.DataFrame({"v": [1]}), pl.DataFrame({"v": [1]}), max_dim=0)
