"""refine="anneal" through the frame API: per stratum, groups >= k, never worse than the method
alone, reproducible with a seed, options checked once."""
import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError


@pytest.fixture
def frame():
    rng = np.random.default_rng(5)
    n = 90
    return pl.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n) * 3, "s": rng.choice(["a", "b"], n)})


def test_anneal_on_every_stratum(frame):
    opts = {"max_iter": 200_000, "seed": 1}
    out = frame.sdc.mdav(3, ["x", "y"], by="s", refine="anneal", refine_options=opts, group_column="g",
                         integers="float")
    assert out.sdc.k_anonymity(["x", "y", "s"]) >= 3
    assert out.group_by("g").agg(pl.col("s").n_unique())["s"].max() == 1  # groups inside one stratum
    plain = frame.sdc.partition(3, ["x", "y"], by="s")
    mil = frame.sdc.partition(3, ["x", "y"], by="s", refine="mil")
    annealed = frame.sdc.partition(3, ["x", "y"], by="s", refine="anneal", refine_options=opts)
    sse = {name: frame.sdc.ilssdm(["x", "y"], groups=g) for name, g in
           (("plain", plain), ("mil", mil), ("anneal", annealed))}
    assert sse["anneal"] <= sse["mil"] + 1e-12 <= sse["plain"] + 2e-12
    again = frame.sdc.partition(3, ["x", "y"], by="s", refine="anneal", refine_options=opts)
    assert again.equals(annealed)
    lazy = frame.lazy().sdc.partition(3, ["x", "y"], by="s", refine="anneal", refine_options=opts).collect()
    assert lazy["group"].equals(annealed)


def test_refine_options_are_checked(frame):
    with pytest.raises(SDCError, match="unknown refine option 'max_iters' for refine='anneal'"):
        frame.sdc.mdav(3, ["x", "y"], refine="anneal", refine_options={"max_iters": 10})
    with pytest.raises(SDCError, match="refine_options given without refine="):
        frame.sdc.mdav(3, ["x", "y"], refine_options={"max_iter": 10})
    with pytest.raises(SDCError, match="unknown refine 'best'"):
        frame.sdc.mdav(3, ["x", "y"], refine="best")


def test_mil_frame_anneal(frame):
    """df.sdc.mil(refine="anneal"): a k-partition with UInt32 ids, SSE never above MIL's on the
    same input, reproducible for a seed, LazyFrame == DataFrame, per stratum with by=."""
    rng = np.random.default_rng(2)
    df = frame.with_columns(pl.Series("g", rng.permutation(np.arange(frame.height) // 6) * 10))
    opts = {"max_iter": 200_000, "seed": 3}
    mil = df.sdc.mil(3, ["x", "y"], groups="g")
    ann = df.sdc.mil(3, ["x", "y"], groups="g", refine="anneal", refine_options=opts)
    assert ann["g"].dtype == pl.UInt32 and ann.drop("g").equals(df.drop("g"))
    assert ann["g"].value_counts()["count"].min() >= 3
    loss = {name: df.sdc.ilssdm(["x", "y"], groups=out["g"]) for name, out in (("mil", mil), ("anneal", ann))}
    assert loss["anneal"] <= loss["mil"] + 1e-12
    assert loss["anneal"] < df.sdc.ilssdm(["x", "y"], groups=df["g"])
    assert df.sdc.mil(3, ["x", "y"], groups="g", refine="anneal", refine_options=opts).equals(ann)
    lazy = df.lazy().sdc.mil(3, ["x", "y"], groups="g", refine="anneal", refine_options=opts)
    assert lazy.collect_schema()["g"] == pl.UInt32
    assert lazy.collect().equals(ann)
    # strata: groups inside one stratum, ids unique across strata
    part = df.sdc.partition(3, ["x", "y"], by="s")
    strat = df.with_columns(part.alias("g")).sdc.mil(3, ["x", "y"], groups="g", by="s", refine="anneal", refine_options=opts)
    assert strat.group_by("g").agg(pl.col("s").n_unique(), pl.len())["s"].max() == 1
    assert strat.group_by("g").len()["len"].min() >= 3


def test_mil_frame_refine_checked(frame):
    df = frame.with_columns(pl.Series("g", np.arange(frame.height) // 6))
    with pytest.raises(SDCError, match="unknown refine 'best'"):
        df.lazy().sdc.mil(3, ["x", "y"], groups="g", refine="best")
    with pytest.raises(SDCError, match="unknown refine option 'cycles' for refine='anneal'"):
        df.sdc.mil(3, ["x", "y"], groups="g", refine="anneal", refine_options={"cycles": False})
    with pytest.raises(SDCError, match="MIL's options"):
        df.sdc.mil(3, ["x", "y"], groups="g", refine="anneal", neighbours=4)
    # refine="mil" takes its options either way
    a = df.sdc.mil(3, ["x", "y"], groups="g", neighbours=4)
    assert a.equals(df.sdc.mil(3, ["x", "y"], groups="g", refine_options={"neighbours": 4}))
