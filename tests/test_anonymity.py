import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_sdc
from polars_sdc import SDCError


def test_equivalence_classes_and_k():
    df = pl.DataFrame({"a": [1, 1, 2, 2, 2, 3, 3], "b": ["x", "x", "y", "y", "y", "z", "w"]})
    ec = df.sdc.equivalence_classes(["a", "b"])
    assert ec.rows() == [(3, "z", 1), (3, "w", 1), (1, "x", 2), (2, "y", 3)]
    assert df.sdc.k_anonymity(["a", "b"]) == 1
    assert df.sdc.k_anonymity("a") == 2
    assert df.lazy().sdc.k_anonymity("a") == 2
    assert df.lazy().sdc.equivalence_classes("a").collect().equals(df.sdc.equivalence_classes("a"))
    assert polars_sdc.k_anonymity(df.head(0), "a") == 0


def test_microaggregated_release_is_k_anonymous(rng):
    df = pl.DataFrame({"x": rng.normal(size=101), "y": rng.normal(size=101)})
    out = df.sdc.mdav(4, on=["x", "y"])
    assert out.sdc.k_anonymity(["x", "y"]) >= 4


# -- reproducers and property tests of the first reliability trial (issue 10) -----------------
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_k_anonymity_requires_on():
    df = pl.DataFrame({"id": [1, 2, 3, 4], "a": [1, 1, 2, 2]})
    for call in (lambda: df.sdc.k_anonymity(), lambda: df.lazy().sdc.k_anonymity(),
                 lambda: df.sdc.equivalence_classes(), lambda: polars_sdc.k_anonymity(df)):
        with pytest.raises(SDCError, match="name the quasi-identifier columns"):
            call()
    assert df.sdc.k_anonymity("a") == 2


@FAST
@given(dtype=st.sampled_from([pl.Float64, pl.Int32, pl.Boolean, pl.String, pl.Categorical]),
       n=st.integers(0, 5), lazy=st.booleans())
def test_property_no_silent_defaults(dtype, n, lazy):
    """k_anonymity / equivalence_classes never guess the quasi-identifiers; loss measures on
    a frame without rows raise a clear error, whatever the dtype."""
    values = {pl.Float64: [1.5], pl.Int32: [2], pl.Boolean: [True], pl.String: ["a"], pl.Categorical: ["a"]}[dtype]
    df = pl.DataFrame({"a": values * n}, schema={"a": dtype})
    frame = df.lazy() if lazy else df
    with pytest.raises(SDCError, match="quasi-identifier"):
        frame.sdc.k_anonymity()
    assert frame.sdc.k_anonymity("a") == (n if n else 0)
    if n == 0:
        with pytest.raises(SDCError, match="no rows"):
            df.sdc.ild(df, on="a")
