"""One rule for ``by=`` and for empty frames (session 27 audit, item 4).

A null in a ``by`` column is a stratum of its own, as in Polars' ``group_by`` (and sdcMicro,
whose strata are the pasted values, NA included): microaggregation, PRAM, rank swapping and
noise already did so, ``suppress`` refused it ("must have no nulls"). An empty frame is released
empty with the method's output schema, as suppression, PRAM and noise did; microaggregation
(``mdav`` ... ``partition``, ``mil``) refused it ("k = 2 is larger than the number of rows (0)").
"""
import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError

rng = np.random.default_rng(5)
N = 24
DF = pl.DataFrame({
    "s": (["a"] * 8 + [None] * 8 + ["b"] * 8),
    "x": rng.normal(50, 10, N).round(2),
    "y": rng.normal(0, 1, N),
    "c": rng.choice(["u", "v", "w"], N).tolist(),
    "d": rng.choice(["p", "q"], N).tolist(),
    "id": np.arange(N),
})
FILLED = DF.with_columns(pl.col("s").fill_null("<null>"))

CALLS = {
    "mdav": lambda f: f.sdc.mdav(3, ["x", "y"], by="s"),
    "mhm": lambda f: f.sdc.mhm(3, ["x", "y"], by="s"),
    "univariate": lambda f: f.sdc.univariate(3, "x", by="s"),
    "pram": lambda f: f.sdc.pram(["c"], by="s", seed=4, key="id"),
    "rank_swap": lambda f: f.sdc.rank_swap(["x"], p=0.3, by="s", seed=4, key="id"),
    "add_noise": lambda f: f.sdc.add_noise(["x", "y"], method="moments", by="s", seed=4, key="id"),
    "suppress": lambda f: f.sdc.suppress(2, ["c", "d"], by="s"),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_a_null_stratum_is_a_stratum_of_its_own(name):
    call = CALLS[name]
    out = call(DF)
    assert out.drop("s").equals(call(FILLED).drop("s")), name     # as if the null were a label
    assert out["s"].equals(DF["s"])
    assert call(DF.lazy()).collect().equals(out)


def test_suppress_null_stratum_is_k_anonymous_on_its_own():
    out = DF.sdc.suppress(3, ["c", "d"], by="s")
    for part in out.partition_by("s"):
        assert part.sdc.k_anonymity(["c", "d"]) >= 3
    assert out.filter(pl.col("s").is_null()).equals(DF.filter(pl.col("s").is_null()).sdc.suppress(3, ["c", "d"]))


def test_suppress_a_small_null_stratum_is_refused_by_name():
    df = DF.with_columns(s=pl.when(pl.col("id") < 2).then(None).otherwise(pl.lit("a")))
    with pytest.raises(SDCError, match=r"stratum \{'s': None\} of `by`"):
        df.sdc.suppress(3, ["c", "d"], by="s")


EMPTY = {
    "mdav": lambda f: f.sdc.mdav(3, ["x", "y"], by="s", group_column="g"),
    "vmdav": lambda f: f.sdc.vmdav(3, ["x", "c"]),
    "mhm": lambda f: f.sdc.mhm(3, ["x", "y"]),
    "univariate": lambda f: f.sdc.univariate(3, "x", integers="float"),
    "microaggregate": lambda f: f.sdc.microaggregate(3, ["x", "y"], method="mdav", household="id"),
    "mil": lambda f: f.with_columns(g=pl.lit(0, pl.UInt32)).sdc.mil(3, ["x", "y"], groups="g"),
    "suppress": lambda f: f.sdc.suppress(3, ["c", "d"], by="s"),
    "pram": lambda f: f.sdc.pram(["c"], seed=1),
    "add_noise": lambda f: f.sdc.add_noise(["x"], seed=1),
}


@pytest.mark.parametrize("name", list(EMPTY))
def test_an_empty_frame_is_released_empty(name):
    call = EMPTY[name]
    empty = DF.clear()
    out = call(empty)
    assert out.height == 0
    lazy = call(empty.lazy())
    assert out.schema == lazy.collect_schema()
    assert lazy.collect().equals(out) and lazy.collect(engine="streaming").equals(out)
    assert out.schema == call(DF).schema                   # the schema of a non-empty release


def test_empty_partition_and_bad_k_still_refused():
    assert DF.clear().sdc.partition(3, ["x", "y"]).len() == 0
    assert DF.clear().sdc.partition(3, ["x", "y"]).dtype == pl.UInt32
    with pytest.raises(SDCError, match="k"):
        DF.clear().sdc.mdav(0, ["x", "y"])
