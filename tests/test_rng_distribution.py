"""The per-row generator (polars_sdc.rng) draws from the distributions it names.

Fixed seeds, so each Kolmogorov-Smirnov p-value below is one fixed number (no flakiness);
a wrong transform (a dropped sign, a wrong scale, a shared stream) moves it to ~0.
"""
import numpy as np
import pytest
from scipy import stats

from polars_sdc import rng

KEYS = rng.row_positions(20_000)
P_MIN = 1e-3


def test_uniform_laplace_normal_follow_their_distributions():
    assert stats.kstest(rng.uniform(11, "u", KEYS), stats.uniform.cdf).pvalue > P_MIN
    for scale in (0.5, 2.0):
        x = rng.laplace(11, "l", KEYS, scale=scale)
        assert stats.kstest(x, stats.laplace(scale=scale).cdf).pvalue > P_MIN
        assert abs(np.median(x)) < 0.05 * scale and (x < 0).mean() == pytest.approx(0.5, abs=0.02)
    assert stats.kstest(rng.normal(11, "n", KEYS), stats.norm.cdf).pvalue > P_MIN


def test_streams_seeds_and_keys_are_independent():
    a = rng.uniform(11, "laplace/a", KEYS)
    b = rng.uniform(11, "laplace/b", KEYS)
    c = rng.uniform(12, "laplace/a", KEYS)
    for u, v in ((a, b), (a, c)):
        assert abs(np.corrcoef(u, v)[0, 1]) < 0.03
        assert stats.kstest(u - v, stats.triang(c=0.5, loc=-1, scale=2).cdf).pvalue > P_MIN
    # neighbouring keys are not correlated either (lag-1 autocorrelation)
    assert abs(np.corrcoef(a[1:], a[:-1])[0, 1]) < 0.03
    # a key column gives each row its own value, in any order
    perm = np.random.default_rng(0).permutation(KEYS)
    np.testing.assert_array_equal(rng.uniform(11, "laplace/a", perm), a[perm.astype(np.int64)])
