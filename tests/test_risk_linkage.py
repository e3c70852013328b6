"""Record linkage and interval disclosure: unmasked release, random permutation, direct
definitions (sdcMicro dRiskWORK), ties."""
import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.risk.linkage import interval_disclosure, linkage_per_record, linkage_risk


def test_unmasked_is_one_and_permutation_is_about_one_over_n(rng):
    n = 2000
    df = pl.DataFrame({f"x{j}": rng.normal(size=n) for j in range(4)})
    assert df.sdc.linkage_risk(df) == 1.0
    perm = df[rng.permutation(n)]
    assert linkage_risk(df, perm) < 5.0 / n
    # lazy inputs on both sides
    assert df.lazy().sdc.linkage_risk(perm.lazy()) == linkage_risk(df, perm)


def test_against_brute_force(rng):
    n = 300
    X = rng.normal(size=(n, 3)) * [1, 10, 100]
    Y = X + rng.normal(size=(n, 3)) * [0.5, 5, 50]
    o = pl.DataFrame(X, schema=["a", "b", "c"])
    m = pl.DataFrame(Y, schema=["a", "b", "c"])
    mu, sd = X.mean(0), X.std(0)
    Xs, Ys = (X - mu) / sd, (Y - mu) / sd
    D = ((Ys[:, None, :] - Xs[None, :, :]) ** 2).sum(-1)
    expected = (D.argmin(axis=1) == np.arange(n)).astype(float)
    np.testing.assert_array_equal(linkage_per_record(o, m), expected)
    np.testing.assert_array_equal(linkage_per_record(o, m, ties=False), expected)  # no ties here
    assert 0.05 < expected.mean() < 0.95


def test_ties_count_fractionally():
    o = pl.DataFrame({"x": [0.0, 0.0, 0.0, 10.0]})  # three identical originals
    assert linkage_per_record(o, o).tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 3, 1.0])
    assert sum(linkage_per_record(o, o, ties=False)[:3]) == 1.0  # the tree returns one of the three


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("dedup", [0.0, 1.0])
def test_ties_against_brute_force_on_a_lattice(seed, dedup, monkeypatch):
    """Integer data (many equidistant originals, duplicates) and more records than the
    bounded query's buckets: per-record scores equal the definition computed on all pairs —
    1/m when the own record is among the m nearest (within 1e-9 relative), else 0 — with the
    tree on every original row (dedup 0) and on the distinct rows with multiplicities (1)."""
    import polars_sdc.risk.linkage as linkage

    monkeypatch.setattr(linkage, "DEDUP_SHARE", dedup)
    rng = np.random.default_rng(seed)
    n = 700
    X = rng.integers(0, 6, size=(n, 2)).astype(float) * [1.0, 3.0]
    Y = X + rng.integers(-1, 2, size=(n, 2)) * [1.0, 3.0] * (rng.random((n, 1)) < 0.5)
    o = pl.DataFrame(X, schema=["a", "b"])
    m = pl.DataFrame(Y, schema=["a", "b"])
    mu, sd = X.mean(0), X.std(0)
    Xs, Ys = (X - mu) / sd, (Y - mu) / sd
    D = np.sqrt(((Ys[:, None, :] - Xs[None, :, :]) ** 2).sum(-1))
    d1 = D.min(axis=1)
    own = D[np.arange(n), np.arange(n)]
    tol = 1e-9 * np.maximum(d1, 1.0)
    hit = own <= d1 + tol
    m_tied = (D <= (own + tol)[:, None]).sum(axis=1)
    expected = np.where(hit, 1.0 / m_tied, 0.0)
    got = linkage_per_record(o, m)
    np.testing.assert_allclose(got, expected, rtol=1e-15)
    assert (expected > 0).any() and ((expected > 0) & (expected < 1)).sum() > n // 10  # real ties
    # ties=False: 1 only where the own record is among the nearest, and one per tied set at most
    nt = linkage_per_record(o, m, ties=False)
    assert set(np.unique(nt)) <= {0.0, 1.0} and not (nt > 0)[~hit].any()
    assert (nt[m_tied == 1] == expected[m_tied == 1]).all()


def test_interval_disclosure_direct(rng):
    n = 500
    x = rng.normal(size=(n, 2))
    xm = x + rng.normal(size=(n, 2)) * 0.05
    o, m = pl.DataFrame(x, schema=["a", "b"]), pl.DataFrame(xm, schema=["a", "b"])
    for k in (0.01, 0.05, 0.2):
        sd = xm.std(axis=0, ddof=1)
        inside = ((x >= xm - k * sd) & (x <= xm + k * sd)).all(axis=1)
        assert interval_disclosure(o, m, k=k) == pytest.approx(inside.mean())
    assert o.sdc.interval_disclosure(o) == 1.0
    # a missing value never counts as outside
    o2 = o.with_columns(pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col("a")).alias("a"))
    far = m.with_columns(pl.lit(100.0).alias("b"))
    assert interval_disclosure(o2, far) == 0.0


def test_bad_input():
    o = pl.DataFrame({"x": [1.0, 2.0], "s": ["a", "b"]})
    with pytest.raises(SDCError, match="rows"):
        o.sdc.linkage_risk(o.head(1), "x")
    with pytest.raises(SDCError, match="'s'"):
        o.sdc.linkage_risk(o, "s")
    with pytest.raises(SDCError, match="'x'.*null"):
        o.sdc.linkage_risk(o.with_columns(x=pl.lit(None, pl.Float64)), "x")
    with pytest.raises(SDCError, match="k must"):
        o.sdc.interval_disclosure(o, "x", k=-1)
    with pytest.raises(SDCError, match="empty"):
        o.head(0).sdc.linkage_risk(o.head(0), "x")
