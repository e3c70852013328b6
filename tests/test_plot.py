"""Plot helpers: the numbers they draw are the package's own measures, and no axis goes unlabelled."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import pytest  # noqa: E402

import polars_sdc  # noqa: E402, F401
from polars_sdc import SDCError, datasets, plot  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_loss_curve_is_ilssdm_of_each_partition():
    df = datasets.census().head(150)
    cols = ["AFNLWGT", "AGI", "FEDTAX"]
    t = plot.loss_curve(df, cols, ks=[3, 5], methods={"MDAV": {"method": "mdav"}, "MHM kd": {"method": "mhm", "order": "kd"}})
    assert t.shape == (4, 3)
    for label, method, opts in (("MDAV", "mdav", {}), ("MHM kd", "mhm", {"order": "kd"})):
        for k in (3, 5):
            g = df.sdc.partition(k, cols, method=method, **opts)
            want = 100 * df.sdc.ilssdm(cols, groups=g)
            got = t.filter((pl.col("method") == label) & (pl.col("k") == k))["sse_sst_pct"].item()
            assert got == pytest.approx(want, rel=1e-12)


def test_helpers_leave_no_axis_unlabelled():
    df = datasets.census().head(120)
    fig, axes = plt.subplots(1, 3, figsize=(12, 3))
    plot.loss_vs_k(df, ["AGI", "FEDTAX"], ks=[2, 3], methods=["mdav", "vmdav"], ax=axes[0])
    plot.groups_2d(df, "AGI", "FEDTAX", df.sdc.partition(3, ["AGI", "FEDTAX"]), ax=axes[1])
    x = pl.DataFrame({"x": np.random.default_rng(1).normal(size=400)})
    noisy = x.sdc.laplace(0.3, "x", seed=2)
    fit = noisy.sdc.reconstruct_gmm(1, "x", phi=0.3)
    ax = plot.reconstruction(fit, noisy, x, column="x", ax=axes[2])
    assert plot.unlabelled_axes(fig) == []
    lo, hi = ax.get_ylim()
    assert lo == 0 and hi < 1.0  # a standard normal density peaks at 0.40: the range fits the curves
    # loss axis: integer ticks for k, starting at 0
    assert all(float(t).is_integer() for t in axes[0].get_xticks())
    assert axes[0].get_ylim()[0] == 0


def test_unlabelled_axes_finds_every_gap():
    fig, (a, b) = plt.subplots(1, 2)
    a.plot([1, 2], label="one")
    a.plot([2, 1], label="two")
    b.imshow(np.eye(3))
    b.set(xlabel="u", ylabel="v", title="t")
    missing = plot.unlabelled_axes(fig)
    assert missing == ["axes 0: no x label", "axes 0: no y label", "axes 0: no title", "axes 0: no legend for 2 series"]
    a.set(xlabel="x", ylabel="y")
    fig.suptitle("both")
    a.legend()
    assert plot.unlabelled_axes(fig) == []


def test_groups_2d_errors_name_the_column():
    df = pl.DataFrame({"a": [0.0, 1.0], "b": [0.0, 1.0]})
    with pytest.raises(SDCError, match="column 'c'"):
        plot.groups_2d(df, "a", "c", np.array([0, 0]))


def test_groups_2d_with_dollar_column_names():
    """A `$` in a column name is a label, not mathtext."""
    df = pl.DataFrame({"$a$": [1.0, 2.0, 3.0, 4.0], "b$": [1.0, 3.0, 2.0, 4.0]})
    ax = plot.groups_2d(df, "$a$", "b$", pl.Series([0, 0, 1, 1]))
    ax.figure.canvas.draw()                                # mathtext would raise here
    assert ax.get_xlabel() == r"\$a\$"
