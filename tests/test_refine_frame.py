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
