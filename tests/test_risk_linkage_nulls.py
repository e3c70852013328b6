"""Record linkage with structural nulls: sdcMicro's recordLinkage rule (na_action = "ignore",
cluster::daisy: the distance over the columns both records hold, times sqrt(p / n_g)),
checked against the all-pairs reference; the nulls path equals the usual one on complete data;
a changed null pattern and a pair without a shared column are refused."""
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import naive_linkage_nulls

import polars_sdc  # noqa: F401
from polars_sdc._errors import SDCError
from polars_sdc.risk.linkage import _linkage_nulls, linkage_per_record, linkage_risk


def _frames(vals, noise, holes):
    n = len(vals)
    o = pl.DataFrame({"x": [v[0] for v in vals], "y": [v[1] for v in vals], "z": [v[2] for v in vals]},
                     schema={c: pl.Float64 for c in "xyz"})
    m = o.with_columns((pl.col(c) + pl.Series(noise[i][:n])) for i, c in enumerate("xyz"))
    # structural nulls: y missing where holes[0], z where holes[1]; x always present (a shared column)
    o = o.with_columns(pl.when(pl.Series(holes[0][:n])).then(None).otherwise(pl.col("y")).alias("y"),
                       pl.when(pl.Series(holes[1][:n])).then(None).otherwise(pl.col("z")).alias("z"))
    m = m.with_columns(pl.when(o["y"].is_null()).then(None).otherwise(pl.col("y")).alias("y"),
                       pl.when(o["z"].is_null()).then(None).otherwise(pl.col("z")).alias("z"))
    return o, m


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 4).map(float)] * 3), min_size=2, max_size=20),
       st.lists(st.lists(st.sampled_from([0.0, 0.0, 0.5, -1.0]), min_size=20, max_size=20), min_size=3, max_size=3),
       st.lists(st.lists(st.booleans(), min_size=20, max_size=20), min_size=2, max_size=2))
def test_linkage_with_structural_nulls_against_all_pairs(vals, noise, holes):
    o, m = _frames(vals, noise, holes)
    got = linkage_per_record(o, m)
    want = naive_linkage_nulls(o.to_numpy(), m.to_numpy())
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert linkage_risk(o, m) == pytest.approx(float(np.mean(want)))


def test_nulls_path_equals_the_usual_path_on_complete_data():
    g = np.random.default_rng(2)
    o = pl.DataFrame({"x": g.normal(0, 1, 300), "y": g.integers(0, 5, 300).astype(float)})
    m = o.with_columns(pl.col("x") + g.normal(0, 0.3, 300), pl.col("y") + g.choice([0.0, 1.0], 300))
    usual = linkage_per_record(o, m)
    assert _linkage_nulls(o.to_numpy(), m.to_numpy(), ["x", "y"], -1) == pytest.approx(usual, rel=1e-12)
    assert 0 < usual.mean() < 1


def test_refused():
    o = pl.DataFrame({"x": [1.0, None, 3.0], "y": [1.0, 2.0, 3.0]})
    with pytest.raises(SDCError, match="column 'x': row 1 is null in the original but not in the release"):
        linkage_risk(o, o.with_columns(pl.col("x").fill_null(2.0)))
    split = pl.DataFrame({"x": [1.0, None, 3.0], "y": [None, 2.0, 3.0]})
    with pytest.raises(SDCError, match="share no non-null linkage column"):
        linkage_risk(split, split)
    with pytest.raises(SDCError, match="row 0: every linkage column is null"):
        linkage_risk(pl.DataFrame({"x": [None, 1.0]}), pl.DataFrame({"x": [None, 1.0]}))
