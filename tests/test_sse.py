import numpy as np
import polars as pl
import pytest

from polars_sdc.loss.sse import ilssdm, sse, sst
from naive import direct_sse


def test_sse_sst_against_numpy(rng):
    X = rng.normal(size=(500, 4)) * [1, 10, 100, 1e-3] + 1e6
    g = rng.integers(0, 37, size=500)
    expected = direct_sse(X, g)
    assert sse(X, g) == pytest.approx(expected, rel=1e-9)
    assert sst(X) == pytest.approx(((X - X.mean(axis=0)) ** 2).sum(), rel=1e-9)
    assert ilssdm(X, groups=g) == pytest.approx(expected / sst(X), rel=1e-9)


def test_ilssdm_worked_example_and_extremes():
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    assert ilssdm(X, groups=np.array([0, 0, 1, 1])) == pytest.approx(0.2)
    assert ilssdm(X, groups=np.zeros(4, int)) == pytest.approx(1.0)
    assert ilssdm(X, groups=np.arange(4)) == 0.0
    assert ilssdm(np.ones((3, 1)), groups=np.array([0, 0, 0])) == 0.0


def test_frame_ilssdm_groups_equals_masked(rng):
    df = pl.DataFrame({"x": rng.normal(size=60), "y": rng.exponential(size=60) * 100})
    g = df.sdc.partition(3)
    masked = df.sdc.aggregate(g, ["x", "y"])
    a = df.sdc.ilssdm(groups=g)
    b = df.sdc.ilssdm(masked=masked)
    assert a == pytest.approx(b, rel=1e-10)
    assert df.lazy().sdc.ilssdm(masked=masked.lazy()) == pytest.approx(a, rel=1e-10)
    assert 0 < a < 1
