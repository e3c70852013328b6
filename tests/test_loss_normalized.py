"""LossReport's normalized measures: 0 when nothing is lost, 1 when everything is."""
import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc.loss.classic import MEANINGS, loss_report


@pytest.fixture
def df():
    rng = np.random.default_rng(3)
    return pl.DataFrame({"x": rng.normal(size=12), "c": rng.choice(list("abcd"), 12), "y": rng.choice(list("pq"), 12)})


def test_identity_release_is_zero(df):
    r = loss_report(df, df, on=["x", "c"])
    z = r.normalized()
    for name in ("ild", "ilssdm", "dm", "ncp", "entropy_loss", "ebil", "ctbil"):
        assert z[name] == pytest.approx(0.0, abs=1e-12), name


def test_one_group_is_one(df):
    one = df.with_columns(g=pl.lit(0))
    r = loss_report(one, groups="g", on=["x", "c"], label="y")
    z = r.normalized()
    assert r.dm == df.height**2 and z["dm"] == pytest.approx(1.0)
    assert z["ncp"] == pytest.approx(1.0)          # every group spans each column's whole range / all leaves
    assert z["ilssdm"] == pytest.approx(1.0)
    assert z["entropy_loss"] == pytest.approx(1.0)
    # the release holds one value per column: it says nothing about the original value
    assert z["ebil"] == pytest.approx(1.0)
    assert 0.0 <= z["ctbil"] <= 1.0


def test_frame_and_repr_explain_every_measure(df):
    r = loss_report(df.with_columns(g=pl.Series(np.arange(12) // 3)), groups="g", on=["x", "c"], k=3)
    t = r.to_frame()
    assert t.columns == ["measure", "value", "normalized", "meaning"]
    assert t["meaning"].to_list() == [MEANINGS[m] for m in t["measure"]]
    assert ((t["normalized"].drop_nulls() >= 0) & (t["normalized"].drop_nulls() <= 1)).all()
    text = repr(r)
    assert all(MEANINGS[m] in text for m in MEANINGS if m != "cm")


def test_ilssdm_is_said_to_be_column_mean_relative_not_a_share():
    """ILSSDM of a release is SSE/SST: 1 for every value released as its column mean, within
    [0, 1] for group means, and above 1 for a noise release (~(150/100)^2 at sdcMicro's default
    noise). The report called it "a share already" under "1 = all lost" while printing 2.05 there;
    it now says what 1 is and that noise exceeds it."""
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"x": rng.normal(size=200), "y": rng.normal(size=200)})
    means = df.select(pl.all().mean().repeat_by(df.height).explode())
    assert loss_report(df, means).normalized()["ilssdm"] == pytest.approx(1.0)
    noisy = df.sdc.add_noise(["x", "y"], seed=1)
    r = loss_report(df, noisy)
    z = r.normalized()["ilssdm"]
    assert z == r.ilssdm and 1.5 < z < 3.0
    line = next(s for s in repr(r).splitlines() if s.lstrip().startswith("ilssdm"))
    assert f"{z:.4f}" in line and "1 = the column means released; noise can exceed 1" in line
    assert repr(r).splitlines()[0].endswith("normalized (0 = no loss, 1 = all lost; ilssdm: 1 = column means)")
