"""Audit 28b, reconstruction: what IBT's ``loglik`` is (Hasegawa et al. eq. 3, the binned noisy
values' log-likelihood under the discretised Laplace transition probabilities), checked record by
record against tests/naive.py; it is a likelihood of bin probabilities, so it does not change
when the data, phi and the bins are scaled together (GMM's density log-likelihood does)."""
from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from naive import reference_ibt_loglik
from polars_sdc.reconstruct.ibt import fit_ibt


def _noisy(n=40, seed=1):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, n) + rng.laplace(0, 0.5, n)


@pytest.mark.parametrize("max_iter", [1, 5, None])
def test_ibt_loglik_is_eq3_at_the_returned_probabilities(max_iter):
    y = _noisy()
    edges = [-0.5, 0.5, 1.5, 2.5]
    fit = fit_ibt(y, 0.5, edges, max_iter=max_iter, tol=1e-10)
    ref = reference_ibt_loglik(y.tolist(), 0.5, edges, fit.probabilities.tolist())
    assert fit.loglik == pytest.approx(ref, rel=1e-12)


def test_ibt_converged_fit_is_a_maximum_of_eq3():
    # the EM fixed point of eq. 3 (KKT of the multinomial likelihood on the simplex): every bin
    # with mass has sum_j h_j A[j, b] / q_j = N, and moving mass between bins lowers the likelihood
    y = _noisy(60, 2)
    edges = [-0.5, 0.5, 1.5, 2.5]
    fit = fit_ibt(y, 0.5, edges, max_iter=None, tol=1e-12)
    assert fit.converged
    p = fit.probabilities
    for a in range(3):
        for b in range(3):
            if a != b and p[a] > 1e-3:
                q = p.copy()
                q[a] -= 1e-3
                q[b] += 1e-3
                assert reference_ibt_loglik(y.tolist(), 0.5, edges, q.tolist()) < fit.loglik


@pytest.mark.parametrize("c", [1e-3, 1e3])
def test_ibt_loglik_of_bin_probabilities_does_not_depend_on_the_scale(c):
    y = _noisy()
    edges = np.array([-0.5, 0.5, 1.5, 2.5])
    one = fit_ibt(y, 0.5, edges, max_iter=None, tol=1e-10)
    scaled = fit_ibt(y * c, 0.5 * c, edges * c, max_iter=None, tol=1e-10)
    assert scaled.loglik == pytest.approx(one.loglik, rel=1e-12) and scaled.n_iter == one.n_iter
    np.testing.assert_allclose(scaled.probabilities, one.probabilities, rtol=1e-9)
    # a density log-likelihood (GMM's) moves by -N log c under the same scaling
    df = pl.DataFrame({"x": y})
    g1 = df.sdc.reconstruct_gmm(2, "x", 0.5, seed=0)
    gc = df.with_columns(pl.col("x") * c).sdc.reconstruct_gmm(2, "x", 0.5 * c, seed=0)
    assert gc.loglik - g1.loglik == pytest.approx(-y.size * math.log(c), abs=0.01)   # (to its EM tolerance)
