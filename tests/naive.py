"""Plain, slow, obviously-correct reference implementations used by the tests.

One reference per kernel or method (as in stumpy's ``tests/naive.py``): each is written from
the paper's definition with no shortcut the implementation under test uses (no kd-tree, no
sorted pruning, no running sums, no heap), so a test comparing the two checks the shortcut.
Import them as ``from naive import ...`` (pytest puts ``tests/`` on ``sys.path``).

Index (reference -> what it checks):

- ``direct_sse``                    SSE of a partition (loss.sse, every microaggregation test)
- ``reference_value_changes``       values suppressed / changed, record by record -> risk/report.py
- ``reference_mdav``                MDAV (thesis 2.3.4) -> kernels/mdav.py
- ``reference_mdav_exact_mean``     MDAV whose centroid is the exactly summed mean (ties on z-scores)
- ``check_k_partition``             every row labelled, every group >= k rows
- ``onehot_features``, ``reference_mdav_exact``  the one-hot embedding of nominal columns as it was
  built before the kernels took codes, and MDAV in exact rational arithmetic -> microagg/features.py,
  the code paths of kernels/mdav.py and kernels/vmdav.py
- ``reference_vmdav``               V-MDAV (thesis 2.3.4) -> kernels/vmdav.py
- ``reference_npn``, ``reference_grid``   MHM orderings (MHM paper 3.2, procedure A')
  -> kernels/path_order_npn.py, kernels/path_order_grid.py
- ``reference_hm_exact``            the shortest path over an ordering in rational arithmetic -> the code path
  of kernels/hansen_mukherjee.py
- ``compositions``, ``brute_force_ordered``  shortest path over an ordering -> kernels/hansen_mukherjee.py
- ``set_partitions``, ``brute_force_univariate``, ``brute_dp``  optimal univariate microaggregation
- ``best_exchange``                 the best SSE-lowering swap between two groups -> kernels/mil.py exchange pass
- ``best_local_step``, ``best_move_and_exchange``, ``group_sse_of_rows``  the best single move, exchange and
  3-cycle of a partition by brute force (MIL's local optimum) -> microagg/mil.py
- ``pairwise_sq``                   squared Euclidean distance matrix (product-distance embedding)
- ``naive_amount``, ``lev_ref``, ``damerau_ref``, ``pnorm_ref``  information amount I(A) = sum d^e -> loss/ild.py, dist.py
- ``reference_fig1``, ``reference_ordinal_plan``, ``reference_threshold``  minimum-frequency recoding -> recode/plan.py
- ``reference_fit``, ``reference_metrics``  multinomial logit and its metrics -> utility.py
- ``joint``, ``quad_convolution``, ``plain_gmm_em``  Gaussian * Laplace density, plain EM -> reconstruct.py
- ``reference_freqcalc``            fk / Fk with sdcMicro's missing-value (wildcard, alpha) rule,
  record by record -> risk/frequencies.py
- ``reference_individual_risk``     sdcMicro's approximate individual risk of one record, as its R code
  reads (no stable rewriting) -> risk/individual.py
- ``sample_moments``                means and sample covariance (add_noise's moments method)
- ``reference_pram_matrix``         sdcMicro's PRAM matrix (P, Bayes inverse, alpha mix) -> masking/pram.py
- ``reference_rank_swap``           rank swapping with the same random stream, plain Python -> kernels/masking.py
- ``brute_suda``                    SUDA2 scores over every key subset -> risk/suda.py
- ``reference_l_diversity``, ``reference_t_closeness``  per record, from the class's values -> risk/diversity.py
- ``reference_risk_levels``         the level at which a household is at risk (record swapping)
- ``reference_ilssdm_nulls``, ``reference_ild_nulls``  SSE/SST and ILD with structural nulls, column by
  column over the non-null values (pairwise records complete in every column) -> loss/sse.py, loss/ild.py
- ``reference_record_swap``         targeted record swapping (sdcMicro recordSwap), household by
  household with Python sets and a full donor scan -> masking/record_swap.py, kernels/record_swap.py
- ``reference_cheapest_masks``     local suppression's cheapest mask per violator, mask by mask -> kernels/wildcard.py
- ``quantile7_exact``, ``equidistant_ref``  R's type-7 quantile in fractions and sdcMicro's
  equidistant points, ``seq(min - 1, max + 1)`` rounded unless that duplicates -> masking/intervals.py
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import factorial

import numpy as np

from polars_sdc import rng


# -- partitions and SSE -----------------------------------------------------------------------
def direct_sse(X, labels):
    """Sum over groups of squared distances to the group mean, one group at a time (1-D or 2-D)."""
    X = np.asarray(X, dtype=float)
    labels = np.asarray(labels)
    return sum(((X[labels == g] - X[labels == g].mean(axis=0)) ** 2).sum() for g in np.unique(labels))


def pairwise_sq(X):
    """Full N x N matrix of squared Euclidean distances."""
    return ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)


def _rounded_mean(rows):
    """Column means as the MDAV kernels compute them: the exact column sum rounded once
    (``math.fsum``), divided by the row count. (numpy's ``mean`` sums pairwise with rounding
    at every step, which breaks exact ties between rows equidistant from the centroid, e.g.
    two blocks of duplicates, in a direction of its own.)"""
    return np.array([math.fsum(c) for c in rows.T]) / len(rows)


def reference_mdav(X, k):
    """Plain numpy MDAV (thesis 2.3.4); ties to the lowest row index; the centroid by
    :func:`_rounded_mean`."""
    X = np.asarray(X, dtype=float)
    left = np.arange(len(X))
    labels = np.full(len(X), -1)
    label = 0

    def take(r):
        nonlocal left, label
        d = ((X[left] - X[r]) ** 2).sum(axis=1)
        others = left[left != r]
        do = ((X[others] - X[r]) ** 2).sum(axis=1)
        order = np.lexsort((others, do))[: k - 1]
        members = np.concatenate([[r], others[order]])
        labels[members] = label
        label += 1
        left = np.setdiff1d(left, members)
        return d

    def farthest(v):
        d = ((X[left] - v) ** 2).sum(axis=1)
        return left[np.flatnonzero(d == d.max())[0]]

    while len(left) >= 3 * k:
        r = farthest(_rounded_mean(X[left]))
        take(r)
        s = farthest(X[r])
        take(s)
    if len(left) >= 2 * k:
        take(farthest(_rounded_mean(X[left])))
    labels[left] = label
    return labels


def onehot_features(df, on, *, standardize=True, ordinal=(), weights=None):
    """The product-distance matrix as it was built before nominal columns reached the kernels
    as codes: numeric z-scores, ordinal rank / |D(V)|, nominal one-hot times sqrt(w / 2), all
    times sqrt(w), then one common power of two when something is extreme (thesis 3.1.3)."""
    import polars as pl

    from polars_sdc.microagg.features import _weighted, category_codes
    from polars_sdc.standardize import SAFE_EXP, pow2_exponent, zscore

    weights = dict(weights or {})
    blocks = []
    for c in on:
        s = df.get_column(c)
        w = float(weights.get(c, 1.0))
        if s.dtype.is_numeric() or s.dtype == pl.Boolean:
            x = s.cast(pl.Float64).to_numpy().reshape(-1, 1)
            blocks.append(_weighted(zscore(x) if standardize else x, w))
            continue
        codes, size = category_codes(s)
        if c in ordinal:
            blocks.append(_weighted((codes / max(size, 1)).reshape(-1, 1), w))
            continue
        used, dense = np.unique(codes, return_inverse=True)
        block = np.zeros((s.len(), used.size))
        block[np.arange(s.len()), dense.ravel()] = 1.0
        blocks.append(_weighted(block, w / 2.0))
    live = [(b, e + pow2_exponent(b)) for b, e in blocks if b.size and np.any(b != 0)]
    top = max((t for _, t in live), default=0)
    if all(e == 0 for _, e in blocks) and -SAFE_EXP <= top <= SAFE_EXP:
        return np.ascontiguousarray(np.hstack([b for b, _ in blocks]))
    return np.ascontiguousarray(np.hstack([np.ldexp(b, e - top) for b, e in blocks]))


def reference_mdav_exact(X, k):
    """MDAV (thesis 2.3.4) in exact rational arithmetic on the float matrix X: the centroid is
    the exact mean, every distance exact (Fractions), ties to the lowest row index."""
    n, p = X.shape
    R = [[Fraction(float(v)) for v in row] for row in X]
    left = list(range(n))
    labels = np.full(n, -1)
    label = 0

    def d2(a, b):
        return sum((x - y) ** 2 for x, y in zip(a, b))

    def mean(rows):
        return [sum(R[i][j] for i in rows) / len(rows) for j in range(p)]

    def farthest(v):
        d = {i: d2(R[i], v) for i in left}
        best = max(d.values())
        return min(i for i in left if d[i] == best)

    def take(r):
        nonlocal left, label
        others = sorted((i for i in left if i != r), key=lambda i: (d2(R[i], R[r]), i))[: k - 1]
        for i in [r] + others:
            labels[i] = label
        label += 1
        gone = set(others) | {r}
        left = [i for i in left if i not in gone]

    while len(left) >= 3 * k:
        r = farthest(mean(left))
        take(r)
        take(farthest(R[r]))
    if len(left) >= 2 * k:
        take(farthest(mean(left)))
    for i in left:
        labels[i] = label
    return labels


def _d2(u, v):
    s = 0.0
    for a, b in zip(u, v):
        s += (a - b) * (a - b)
    return s


def reference_vmdav(X, k, gamma):
    """V-MDAV as the thesis states it, with the full distance matrix (step 1).

    Returns (labels, leftover rows). Ties: lowest row index everywhere.
    """
    n, p = X.shape
    rows = [list(map(float, r)) for r in X]
    D = np.array([[_d2(rows[i], rows[j]) for j in range(n)] for i in range(n)])
    c = [0.0] * p
    for r in rows:
        for j in range(p):
            c[j] += r[j]
    c = [v / n for v in c]
    dc = np.array([_d2(r, c) for r in rows])
    labels = np.full(n, -1)
    free = np.ones(n, dtype=bool)
    g = 0
    while free.sum() >= k:
        cand = np.flatnonzero(free)
        xr = cand[np.argmax(dc[cand])]  # first maximum = lowest row
        near = cand[np.lexsort((cand, D[xr, cand]))][:k]  # xr itself first (distance 0)
        assert near[0] == xr or D[xr, near[0]] == 0
        members = list(near)
        free[near] = False
        while len(members) < 2 * k - 1 and free.any():
            cand = np.flatnonzero(free)
            d_to_D = D[np.ix_(cand, members)].min(axis=1)
            e = cand[np.argmin(d_to_D)]
            d_in2 = d_to_D.min()
            others = cand[cand != e]
            if others.size == 0:
                join = gamma > 0
            else:
                join = d_in2 < gamma * gamma * D[e, others].min()
            if not join:
                break
            members.append(e)
            free[e] = False
        labels[members] = g
        g += 1
    left = np.flatnonzero(free)
    cents = np.array([X[labels == h].mean(axis=0) for h in range(g)])
    for i in left:
        labels[i] = int(np.argmin(((cents - X[i]) ** 2).sum(axis=1)))
    return labels, left


# -- MHM: orderings and the shortest path ------------------------------------------------------
def compositions(n, k):
    """Every way to cut 0..n into consecutive groups of size >= k (no upper bound)."""
    if n == 0:
        yield ()
        return
    for first in range(k, n + 1):
        for rest in compositions(n - first, k):
            yield (first,) + rest


def brute_force_ordered(X, k):
    """Smallest SSE over every cut of the given row order into consecutive groups >= k."""
    best = np.inf
    for sizes in compositions(len(X), k):
        labels = np.repeat(np.arange(len(sizes)), sizes)
        best = min(best, direct_sse(X, labels))
    return best


def _exact(X):
    """X (float) as an object array of exact Fractions."""
    return np.array([[Fraction(float(v)) for v in row] for row in np.asarray(X, dtype=float)], dtype=object).reshape(
        np.shape(X))


def reference_hm_exact(X, k):
    """Hansen–Mukherjee shortest path over the given row order in rational arithmetic: the
    k-partition into consecutive groups of k .. 2k-1 rows with the smallest exact SSE (ties:
    the earliest predecessor). Returns (labels along the order, exact SSE)."""
    R = _exact(X)
    n = len(R)
    D = [None] * (n + 1)
    pred = [0] * (n + 1)
    D[0] = Fraction(0)
    for i in range(n - k + 1):
        if D[i] is None:
            continue
        for j in range(i + k, min(i + 2 * k - 1, n) + 1):
            g = R[i:j]
            v = D[i] + ((g - g.mean(axis=0)) ** 2).sum()
            if D[j] is None or v < D[j]:
                D[j], pred[j] = v, i
    cuts, j = [], n
    while j > 0:
        cuts.append((pred[j], j))
        j = pred[j]
    labels = np.empty(n, dtype=np.int64)
    for g, (a, b) in enumerate(reversed(cuts)):
        labels[a:b] = g
    return labels, D[n]


def reference_npn(X, exact=False):
    """Plain NPN (MHM paper 3.2): farthest from the centroid, then nearest unvisited
    (``exact``: in rational arithmetic, every tie to the lowest row)."""
    X = _exact(X) if exact else np.asarray(X, dtype=float)
    d0 = ((X - X.mean(axis=0)) ** 2).sum(axis=1)
    cur = int(np.flatnonzero(d0 == d0.max())[0])
    order, left = [cur], set(range(len(X))) - {cur}
    while left:
        cand = np.array(sorted(left))
        d = ((X[cand] - X[cur]) ** 2).sum(axis=1)
        cur = int(cand[np.flatnonzero(d == d.min())[0]])
        order.append(cur)
        left.remove(cur)
    return np.array(order)


def reference_grid(X, g, exact=False):
    """Plain procedure A': uniform cells, nearest unvisited in the current cell, else the
    nearest record in the nearest Chebyshev ring of occupied cells (``exact``: distances in
    rational arithmetic)."""
    X = np.asarray(X, dtype=float)
    lo, span = X.min(axis=0), np.ptp(X, axis=0)
    cells = np.where(span > 0, np.minimum(((X - lo) * (g / np.where(span > 0, span, 1))).astype(int), g - 1), 0)
    X = _exact(X) if exact else X
    d0 = ((X - X.mean(axis=0)) ** 2).sum(axis=1)
    cur = int(np.flatnonzero(d0 == d0.max())[0])
    order, left = [cur], set(range(len(X))) - {cur}
    while left:
        cand = np.array(sorted(left))
        same = cand[(cells[cand] == cells[cur]).all(axis=1)]
        if same.size == 0:
            ring = np.abs(cells[cand] - cells[cur]).max(axis=1)
            same = cand[ring == ring.min()]
        d = ((X[same] - X[cur]) ** 2).sum(axis=1)
        cur = int(same[np.flatnonzero(d == d.min())[0]])
        order.append(cur)
        left.remove(cur)
    return np.array(order)


# -- optimal univariate microaggregation ------------------------------------------------------
def set_partitions(items, k):
    """Every partition of ``items`` into groups of size >= k (not only contiguous ones)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    # the group holding `first`: first + any subset of the rest
    n = len(rest)
    for mask in range(1 << n):
        group = [first] + [rest[i] for i in range(n) if mask >> i & 1]
        if len(group) < k:
            continue
        others = [rest[i] for i in range(n) if not mask >> i & 1]
        for tail in set_partitions(others, k):
            yield [group] + tail


def brute_force_univariate(x, k):
    """Smallest SSE over every partition (any shape) of the values into groups >= k."""
    best = np.inf
    for part in set_partitions(list(range(len(x))), k):
        best = min(best, sum(((x[g] - x[g].mean()) ** 2).sum() for g in part))
    return best


def brute_dp(x, k):
    """Plain O(n k) DP over the sorted values with two-pass group SSE (no shortcuts)."""
    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    D = np.full(n + 1, np.inf)
    D[0] = 0.0
    for j in range(k, n + 1):
        for m in range(k, min(2 * k - 1, j) + 1):
            g = x[j - m:j]
            D[j] = min(D[j], D[j - m] + ((g - g.mean()) ** 2).sum())
    return D[n]


# -- MIL ----------------------------------------------------------------------------------------
def best_exchange(X, labels, a, b):
    """(SSE gain, i, j) of the best swap of a row i of group a with a row j of group b,
    by recomputing the SSE of both groups for every pair (gain > 0: the swap lowers SSE)."""
    X = np.asarray(X, dtype=float)
    labels = np.asarray(labels)
    A, B = np.flatnonzero(labels == a), np.flatnonzero(labels == b)
    base = direct_sse(X[A], np.zeros(A.size)) + direct_sse(X[B], np.zeros(B.size))
    best = (0.0, -1, -1)
    for i in A:
        for j in B:
            A2 = np.where(A == i, j, A)
            B2 = np.where(B == j, i, B)
            after = direct_sse(X[A2], np.zeros(A.size)) + direct_sse(X[B2], np.zeros(B.size))
            if base - after > best[0]:
                best = (base - after, int(i), int(j))
    return best


# -- information amount and distances ----------------------------------------------------------
def naive_amount(values, d, exponent):
    """I(A) = sum_i sum_j d(x_i, x_j)^e over all ordered pairs (thesis 3.1.2)."""
    return sum(d(a, b) ** exponent for a in values for b in values)


def lev_ref(a, b):
    """Levenshtein distance by the full dynamic-programming table."""
    D = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        D[i][0] = i
    for j in range(len(b) + 1):
        D[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            D[i][j] = min(D[i - 1][j] + 1, D[i][j - 1] + 1, D[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    return D[-1][-1]


def damerau_ref(a, b):
    """Unrestricted Damerau-Levenshtein by the textbook recurrence with last-seen rows."""
    INF = len(a) + len(b)
    H = [[INF] * (len(b) + 2) for _ in range(len(a) + 2)]
    for i in range(len(a) + 1):
        H[i + 1][1] = i
    for j in range(len(b) + 1):
        H[1][j + 1] = j
    last = {}
    for i in range(1, len(a) + 1):
        db = 0
        for j in range(1, len(b) + 1):
            k, l = last.get(b[j - 1], 0), db
            cost = 0 if a[i - 1] == b[j - 1] else 1
            if cost == 0:
                db = j
            H[i + 1][j + 1] = min(H[i][j] + cost, H[i + 1][j] + 1, H[i][j + 1] + 1,
                                  H[k][l] + (i - k - 1) + 1 + (j - l - 1))
        last[a[i - 1]] = i
    return H[-1][-1]


def pnorm_ref(p):
    """The p-norm distance of two tuples (p = inf: Chebyshev)."""
    def d(x, y):
        diffs = [abs(u - v) for u, v in zip(x, y)]
        return max(diffs) if math.isinf(p) else sum(t**p for t in diffs) ** (1 / p)
    return d


# -- minimum-frequency global recoding -----------------------------------------------------------
def reference_threshold(n, p):
    """Fig. 1's th = n p as an exact integer bound: floor of n times p read as a decimal."""
    return math.floor(n * Fraction(str(p)))


def reference_fig1(counts: list[int], th: float) -> list[list[int]]:
    """Fig. 1 written plainly: groups of original indices (ties: lowest first position)."""
    groups = [[i] for i in range(len(counts))]
    size = lambda g: sum(counts[i] for i in g)  # noqa: E731
    while len(groups) > 1:
        groups.sort(key=lambda g: (size(g), min(g)))
        if size(groups[0]) > th:
            break
        if size(groups[1]) == size(groups[0]):
            tied = [g for g in groups if size(g) == size(groups[0])]
        else:
            tied = groups[:2]
        merged = sorted(i for g in tied for i in g)
        groups = [g for g in groups if g not in tied] + [merged]
    return sorted(groups)


def reference_ordinal_plan(counts: list[int], th: float) -> list[list[int]]:
    """Ordinal recoding: while the smallest run (first one on ties) has count <= th, merge it
    with its smaller neighbour (the preceding one when both neighbours have equal counts)."""
    runs = [[i] for i in range(len(counts))]
    size = lambda g: sum(counts[i] for i in g)  # noqa: E731
    while len(runs) > 1:
        sizes = [size(g) for g in runs]
        i = sizes.index(min(sizes))
        if sizes[i] > th:
            break
        if i == 0:
            j = 1
        elif i == len(runs) - 1:
            j = i - 1
        elif sizes[i - 1] == sizes[i + 1]:
            j = i - 1
        else:
            j = i - 1 if sizes[i - 1] < sizes[i + 1] else i + 1
        lo, hi = sorted((i, j))
        runs[lo:hi + 1] = [runs[lo] + runs[hi]]
    return runs


# -- multinomial logit and metrics ---------------------------------------------------------------
def reference_fit(X, y, K, l2):
    """Row-by-row penalised mean negative log-likelihood, minimised by scipy's BFGS."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    n, d = X.shape
    Xi = np.hstack([np.ones((n, 1)), X])

    def f(theta):
        W = np.hstack([np.zeros((d + 1, 1)), theta.reshape(d + 1, K - 1)])
        eta = Xi @ W
        nll = np.sum(logsumexp(eta, axis=1) - eta[np.arange(n), y])
        return nll / n + 0.5 * l2 * np.sum(theta.reshape(d + 1, K - 1)[1:] ** 2)

    def g(theta):
        W = np.hstack([np.zeros((d + 1, 1)), theta.reshape(d + 1, K - 1)])
        eta = Xi @ W
        P = np.exp(eta - logsumexp(eta, axis=1, keepdims=True))
        Y = np.eye(K)[y]
        G = Xi.T @ (P - Y)[:, 1:] / n
        G[1:] += l2 * theta.reshape(d + 1, K - 1)[1:]
        return G.ravel()

    res = minimize(f, np.zeros((d + 1) * (K - 1)), jac=g, method="BFGS", options={"gtol": 1e-11, "maxiter": 10000})
    return res.x.reshape(d + 1, K - 1), res.fun


def reference_metrics(y, pred, K):
    """Macro precision / recall / F (over classes where defined) and accuracy, by counting."""
    prec, rec, f = [], [], []
    for a in range(K):
        tp = sum(1 for t, q in zip(y, pred) if t == a and q == a)
        npred = sum(1 for q in pred if q == a)
        ntrue = sum(1 for t in y if t == a)
        p_a = tp / npred if npred else None
        r_a = tp / ntrue if ntrue else None
        if p_a is not None:
            prec.append(p_a)
        if r_a is not None:
            rec.append(r_a)
        if p_a is not None and r_a is not None:
            f.append(0.0 if p_a + r_a == 0 else 2 * p_a * r_a / (p_a + r_a))
    acc = sum(1 for t, q in zip(y, pred) if t == q) / len(y)
    mean = lambda v: sum(v) / len(v) if v else float("nan")  # noqa: E731
    return {"precision": mean(prec), "recall": mean(rec), "f": mean(f), "accuracy": acc}


# -- Laplace noise and the Gaussian-mixture reconstruction ---------------------------------------
def joint(x, y, mu, var, phi):
    """N(x; mu, var) * Laplace(y - x; phi), the integrand of eq. 6 (reconstruction paper)."""
    return np.exp(-0.5 * (x - mu) ** 2 / var) / math.sqrt(2 * math.pi * var) * np.exp(-abs(y - x) / phi) / (2 * phi)


def quad_convolution(y, mu, var, phi, g=lambda x: 1.0):
    """The convolved density (times g) at y by adaptive quadrature of ``joint``."""
    from scipy import integrate

    s = math.sqrt(var)
    lo, hi = min(y, mu) - 40 * (s + phi), max(y, mu) + 40 * (s + phi)
    return integrate.quad(
        lambda x: joint(x, y, mu, var, phi) * g(x), lo, hi, limit=400, epsabs=0, epsrel=1e-12,
        points=sorted({y - 30 * phi, y, y + 30 * phi, mu - 10 * s, mu, mu + 10 * s}),
    )[0]


def plain_gmm_em(x, mu, var, rho, iters=3000):
    """Textbook EM for a 1-D Gaussian mixture (no noise)."""
    from scipy import special

    for _ in range(iters):
        logp = -0.5 * (x[:, None] - mu) ** 2 / var - 0.5 * np.log(2 * np.pi * var) + np.log(rho)
        g = np.exp(logp - special.logsumexp(logp, axis=1, keepdims=True))
        nk = g.sum(axis=0)
        rho, mu = nk / x.size, (g * x[:, None]).sum(axis=0) / nk
        var = (g * (x[:, None] - mu) ** 2).sum(axis=0) / nk
    return mu, var, rho


def reference_value_changes(before, after):
    """Per-value comparison of two equal-length lists, one record at a time (None = missing):
    (suppressed: value -> missing, changed: value -> another value), values compared as text."""
    suppressed = changed = 0
    for a, b in zip(before, after, strict=True):
        if a is not None and b is None:
            suppressed += 1
        elif a is not None and b is not None and str(a) != str(b):
            changed += 1
    return suppressed, changed


# -- disclosure risk ----------------------------------------------------------------------------

def reference_freqcalc(rows, weights, alpha):
    """fk / Fk of sdcMicro's ``freqCalc`` record by record over all pairs (None = missing key
    value): records are compatible when they agree wherever both have a value; a record
    counts another with share 1 when identical, a complete record counts compatible records
    with some (not all) missing keys with share alpha, a record with missing keys counts
    compatible complete records with share 1 and other compatible records with share alpha;
    a record with every key missing has fk = n and Fk = the sum of all weights and, with two
    or more keys, does not count for complete records; with ONE key it does (share alpha:
    sdcMicro's single-key branch)."""
    n = len(rows)
    fk, Fk = np.zeros(n), np.zeros(n)
    for i, ri in enumerate(rows):
        miss_i = [v is None for v in ri]
        if all(miss_i):
            fk[i], Fk[i] = n, sum(weights)
            continue
        for j, rj in enumerate(rows):
            miss_j = [v is None for v in rj]
            compatible = all(a is None or b is None or a == b for a, b in zip(ri, rj))
            if not compatible:
                continue
            if ri == rj:
                share = 1.0
            elif not any(miss_i):
                share = alpha if any(miss_j) and (not all(miss_j) or len(rj) == 1) else 0.0
            else:
                share = 1.0 if not any(miss_j) else alpha
            fk[i] += share
            Fk[i] += share * weights[j]
    return fk, Fk


def reference_individual_risk(fk, Fk):
    """sdcMicro 5.8.1 ``indivRisk(method = "approx")`` for one record, term by term as its R code
    reads (Franconi & Polettini's approximation, pk = fk / Fk): 1 / fk where Fk == fk, else
    pk / (fk - (1 - pk)) for fk > 2, pk / (1 - pk) - (pk / (1 - pk))^2 log(1 / pk) for fk == 2,
    pk / (1 - pk) log(1 / pk) for fk == 1, and 0 for any other fk (a fractional one)."""
    pk = fk / Fk
    if fk == Fk:
        return 1.0 / fk
    if fk > 2:
        return pk / (fk - (1 - pk))
    if fk == 2:
        return pk / (1 - pk) - (pk / (1 - pk)) ** 2 * math.log(1 / pk)
    if fk == 1:
        return pk / (1 - pk) * math.log(1 / pk)
    return 0.0

def reference_record_swap(df, household, hierarchy, similar, swaprate, k, risk_variables, seed):
    """sdcMicro 5.8.1 ``recordSwap`` (recordSwap.cpp) read literally, on Python tuples: risk from
    person counts per (risk variables, area prefix), households at risk from the coarsest level
    with a count < k, quota per lowest area, then level by level each selected household takes
    the first donor of the whole donor list (descending ``risk / Exp(1)``) that is free, in
    another area and has its profile. Draws from ``polars_sdc.rng`` with the documented streams.
    Returns ``{household id: partner id}`` for every swapped household and the set of failures."""
    import math
    from collections import Counter

    import polars as pl

    from polars_sdc import rng

    rows = df.rows(named=True)
    hids = sorted({r[household] for r in rows})
    pos = {h: i for i, h in enumerate(hids)}
    H, L = len(hids), len(hierarchy)
    first = {}
    members = {h: [] for h in hids}
    for r in rows:
        first.setdefault(r[household], r)
        members[r[household]].append(r)
    area = [[tuple(first[h][c] for c in hierarchy[:lv + 1]) for h in hids] for lv in range(L)]
    prob = [[0.0] * L for _ in hids]
    level = [L] * H
    for lv in range(L):
        cnt = Counter((tuple(r[c] for c in risk_variables), tuple(r[c] for c in hierarchy[:lv + 1])) for r in rows)
        for i, h in enumerate(hids):
            m = min(cnt[(tuple(r[c] for c in risk_variables), tuple(r[c] for c in hierarchy[:lv + 1]))]
                    for r in members[h])
            prob[i][lv] = 1.0 / m
            if m < k and level[i] == L:
                level[i] = lv
    prof = [[tuple(first[h][c] for c in p) for h in hids] for p in similar]
    keys = rng.row_keys(pl.Series(hids))
    dkey = [prob_col / -np.log(rng.uniform(seed, f"swap_records/donor{lv}", keys))
            for lv, prob_col in enumerate(np.array(prob).T)]
    skey = np.array(prob)[:, L - 1] / -np.log(rng.uniform(seed, "swap_records/select", keys))
    donors = [sorted(range(H), key=lambda i, lv=lv: (-dkey[lv][i], i)) for lv in range(L)]
    coin = rng.uniform(seed, "swap_records/total", np.zeros(1, dtype=np.uint64))[0] < 0.5
    total = math.ceil(H * swaprate / 2) if coin else math.floor(H * swaprate / 2)
    lowest = sorted(set(area[L - 1]))
    size = Counter(area[L - 1])
    share = {a: size[a] / H * total for a in lowest}
    draws = {a: math.floor(share[a]) for a in lowest}
    excess = int(round(sum(share[a] - draws[a] for a in lowest)))
    first_hh = {a: min(i for i in range(H) if area[L - 1][i] == a) for a in lowest}
    u = {a: rng.uniform(seed, "swap_records/extra", keys[[first_hh[a]]])[0] for a in lowest}
    for a in sorted(lowest, key=lambda a: (u[a], lowest.index(a)))[:excess]:
        draws[a] += 1
    used, failed, partner, selected = set(), set(), {}, set()

    def donor(i, lv):
        for p in range(len(similar)):
            for d in donors[lv]:
                if d not in used and prob[d][lv] > 0 and area[lv][d] != area[lv][i] and prof[p][d] == prof[p][i]:
                    return d
        return None

    def swap(cands, lv):
        for i in cands:
            if i in used:
                continue
            d = donor(i, lv)
            if d is None:
                failed.add(i)
            else:
                used.update((i, d))
                failed.discard(d)
                partner[i], partner[d] = d, i
                selected.add(i)

    for lv in range(L - 1):
        for a in sorted(set(area[lv])):
            swap([i for i in range(H) if area[lv][i] == a and level[i] == lv], lv)
    lv = L - 1
    already = Counter(area[lv][i] for i in selected)
    for a in lowest:
        inside = [i for i in range(H) if area[lv][i] == a]
        must = [i for i in inside if level[i] == lv and i not in used]
        rest = sorted((i for i in inside if level[i] != lv and i not in used and i not in failed and prob[i][lv] > 0),
                      key=lambda i: (-skey[i], i))
        want = max(0, draws[a] - already[a])
        swap(must + rest[:max(0, want - len(must))], lv)
    return {hids[i]: hids[d] for i, d in partner.items()}, {hids[i] for i in failed}

# -- households --------------------------------------------------------------------------------

def reference_household_index(ids):
    """Household number of every row, numbered by first appearance, with a plain dict."""
    seen = {}
    return [seen.setdefault(h, len(seen)) for h in ids]


def reference_household_level(ids, values):
    """True when ``values`` (None a value like any other) is constant within every household."""
    first = {}
    for h, v in zip(ids, values):
        if h in first and first[h] != v:
            return False
        first.setdefault(h, v)
    return True


def reference_collapse(ids, columns, weights=None, agg="first"):
    """One row per household in first-appearance order: the first member's values of each
    column and the household weight aggregated from the members' ``weights``."""
    order, rows, ws = [], {}, {}
    for i, h in enumerate(ids):
        if h not in rows:
            order.append(h)
            rows[h] = tuple(col[i] for col in columns)
            ws[h] = []
        if weights is not None:
            ws[h].append(weights[i])
    out = []
    for h in order:
        row = (h,) + rows[h]
        if weights is not None:
            w = ws[h]
            row += ({"first": w[0], "sum": sum(w), "mean": sum(w) / len(w)}[agg],)
        out.append(row)
    return out


def reference_household_fk(rows, households, weights=None):
    """fk / Fk counting households, record by record over all pairs: the distinct households
    with a record compatible with the record (None matches anything), and the sum of their
    first members' weights. As for records (sdcMicro's addAllNAtoKeys = FALSE), with two or
    more keys a record with every key missing is not compatible with a complete record."""
    first_w = {}
    for h, w in zip(households, weights if weights is not None else [1.0] * len(households)):
        first_w.setdefault(h, w)
    fk, Fk = [], []
    for ri in rows:
        complete = all(a is not None for a in ri) and len(ri) > 1
        hs = {households[j] for j, rj in enumerate(rows)
              if all(a is None or b is None or a == b for a, b in zip(ri, rj))
              and not (complete and all(b is None for b in rj))}
        fk.append(float(len(hs)))
        Fk.append(float(sum(first_w[h] for h in hs)))
    return fk, Fk

def naive_household_repair(X, labels, units, k):
    """Reference for ``microagg.blocks.household_repair``: the groups with fewer than k distinct
    households, fewest first (ties: lowest id), each dissolved in turn if it still has fewer than
    k: each of its rows joins the remaining group whose centroid (before the dissolution) is
    nearest by plain Euclidean distance (ties: lowest id)."""
    X = np.asarray(X, dtype=float)
    X = X[:, None] if X.ndim == 1 else X
    labels = np.asarray(labels).astype(np.int64).copy()
    units = np.asarray(units)

    def households(g):
        return len(set(units[labels == g].tolist()))

    initial = sorted({int(g) for g in labels.tolist()})
    order = sorted((households(g), g) for g in initial if households(g) < k)
    for _, g in order:
        rows = [i for i in range(labels.size) if labels[i] == g]
        if not rows or households(g) >= k:
            continue
        others = sorted({int(h) for h in labels.tolist()} - {g})
        centroids = {h: X[labels == h].mean(axis=0) for h in others}
        for r in rows:
            dist = [float(((X[r] - centroids[h]) ** 2).sum()) for h in others]
            labels[r] = others[int(np.argmin(dist))]
    return labels

# -- full-domain generalisation (ARX) ---------------------------------------------------------

def reference_hierarchical_emd(p, q, sensitive_hierarchy):
    """The earth mover's distance between distributions ``p`` and ``q`` ({value: share}) with
    the hierarchical ground distance of Li, Li & Venkatasubramanian 2007 (the level of the two
    values' lowest common ancestor / the hierarchy's height), solved as a transport linear
    program (scipy ``linprog``), not by the bottom-up formula the search uses."""
    import numpy as np
    from scipy.optimize import linprog

    levels = sensitive_hierarchy
    H = len(levels) - 1
    row = {v: i for i, v in enumerate(levels[0])}
    vals = sorted(set(p) | set(q))

    def dist(u, v):
        for j in range(H + 1):
            if levels[j][row[u]] == levels[j][row[v]]:
                return j / H
        return 1.0

    m = len(vals)
    cost = np.array([[dist(u, v) for v in vals] for u in vals]).ravel()
    A, b = [], []
    for i, u in enumerate(vals):  # mass leaving u is p_u
        a = np.zeros((m, m)); a[i, :] = 1; A.append(a.ravel()); b.append(p.get(u, 0.0))
    for j, v in enumerate(vals):  # mass arriving at v is q_v
        a = np.zeros((m, m)); a[:, j] = 1; A.append(a.ravel()); b.append(q.get(v, 0.0))
    res = linprog(cost, A_eq=np.array(A), b_eq=np.array(b), bounds=(0, None), method="highs")
    return float(res.fun)


def reference_l_diverse(counts, l, kind, c=None):
    """ARX's l-diversity of one class from its sensitive value counts, by the definitions
    (Machanavajjhala et al. 2007): distinct, entropy (Shannon: exp(H) >= l; Grassberger's
    estimator G), recursive (c, l)."""
    import math

    vals = sorted(counts.values(), reverse=True)
    n = sum(vals)
    if len(vals) < math.ceil(l):
        return False
    if kind == "distinct":
        return True
    if kind in ("entropy", "entropy_grassberger"):
        if kind == "entropy":
            psi = math.log
        else:
            def psi(x):  # G_1 = -gamma - ln 2, G_2m = G_2m+1 = G_1 + sum_{i<=m} 2/(2i-1); ARX's expansion above 100
                if x > 100:
                    x -= x % 2
                    mm = 1.0 / ((x // 2) ** 2)
                    return math.log(x) + mm * (1 / 24 - mm * (7 / 960 - mm * 31 / 8064))
                g = -0.5772156649015329 - math.log(2)
                for i in range(1, x // 2 + 1):
                    g += 2 / (2 * i - 1)
                return g
        return sum(v * psi(v) for v in vals) <= n * (psi(n) - math.log(l))
    return vals[0] < c * sum(vals[int(l) - 1:])


def reference_generalization_lattice(records, hierarchies, k, max_outliers, metric, sensitive=None,
                                     l_div=None, t_close=None, l_kind="distinct", c=None,
                                     sensitive_hierarchy=None, households=None):
    """Every transformation of a small problem, evaluated record by record with ARX 3.9.2's
    definitions (criteria/KAnonymity, DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity,
    EqualDistanceTCloseness, HierarchicalDistanceTCloseness (by a transport LP);
    metric/v2/MetricMDNMLoss, MetricSDNMDiscernability, MetricSDDiscernability,
    MetricMDNUNMEntropy, MetricMDNUEntropy, MetricMDNMPrecision, MetricMDPrecision, default
    weights and gs-factor): ``records`` is a list of tuples of level-0 values (strings),
    ``hierarchies`` a list of level lists (``levels[j][i]`` = label of value ``levels[0][i]`` at
    level j), ``sensitive`` the sensitive value per record (None: no sensitive value, left out
    of l and t; a class of Nones only fails them), ``households`` the household id per
    record (a class then also fails with fewer than k distinct households; and when a
    quasi-identifier is household-level, the same value on every member of every household, a
    household with a suppressed member is suppressed whole, after which the rest of every class
    must pass again, until nothing changes). A value None (a structural null) is kept None at
    every level: its own label, one row outside the domain R (it loses nothing). Returns
    {levels: (passes, suppressed, loss)}, loss None where the transformation fails."""
    import itertools
    import math

    c_recursive = c  # `c` is a column index below
    n = len(records)
    d = len(hierarchies)
    whole_households = households is not None and any(
        len({(households[i], records[i][col]) for i in range(n)}) == len(set(households)) for col in range(d))
    index = [{v: i for i, v in enumerate(h[0])} for h in hierarchies]
    q = {}
    if sensitive is not None:   # a None sensitive value is no sensitive value: q over the others
        valued = [s for s in sensitive if s is not None]
        for s in valued:
            q[s] = q.get(s, 0) + 1 / len(valued)
    out = {}
    for lv in itertools.product(*[range(len(h)) for h in hierarchies]):
        gen = [tuple(None if r[c] is None else hierarchies[c][lv[c]][index[c][r[c]]] for c in range(d))
               for r in records]
        classes = {}
        for i, g in enumerate(gen):
            classes.setdefault(g, []).append(i)
        def fails(members):
            bad = len(members) < k
            if households is not None:
                bad |= len({households[i] for i in members}) < k
            valued = [i for i in members if sensitive is not None and sensitive[i] is not None]
            if (l_div is not None or t_close is not None) and not valued:
                return True              # no sensitive value (every one None): fails l and t
            if l_div is not None:
                counts = {}
                for i in valued:
                    counts[sensitive[i]] = counts.get(sensitive[i], 0) + 1
                bad |= not reference_l_diverse(counts, l_div, l_kind, c_recursive)
            if t_close is not None:
                p = {}
                for i in valued:
                    p[sensitive[i]] = p.get(sensitive[i], 0) + 1 / len(valued)
                if sensitive_hierarchy is not None:
                    emd = reference_hierarchical_emd(p, q, sensitive_hierarchy)
                else:
                    emd = 0.5 * sum(abs(q[v] - p.get(v, 0.0)) for v in q)
                bad |= emd > t_close + 1e-12
            return bad

        suppressed = {i for members in classes.values() if fails(members) for i in members}
        while whole_households and suppressed:   # a household with a suppressed member goes whole
            grow = {i for i in range(n) if households[i] in {households[j] for j in suppressed}} - suppressed
            if not grow:
                break
            suppressed |= grow
            for members in classes.values():   # the rest of a class must pass on its own
                rest = [i for i in members if i not in suppressed]
                if rest and fails(rest):
                    suppressed.update(rest)
        bad = {g for g, members in classes.items() if any(i in suppressed for i in members)}
        kept_of = {g: [i for i in members if i not in suppressed] for g, members in classes.items()}
        out_of = {g: [i for i in members if i in suppressed] for g, members in classes.items()}
        n_out = len(suppressed)
        if n_out > max_outliers:
            out[lv] = (False, n_out, None)
            continue
        heights = [len(h) - 1 for h in hierarchies]
        if metric in ("discernibility", "discernibility_star"):
            if metric == "discernibility":
                loss = sum(len(kept_of[g]) ** 2 for g in classes) + n * n_out
            else:
                loss = sum(len(m) ** 2 for m in classes.values())
        elif metric in ("precision", "precision_monotone"):
            cols = []
            for c in range(d):
                share = lv[c] / heights[c] if heights[c] else 0.0
                cols.append(share if metric == "precision_monotone" else ((n - n_out) * share + n_out) / n)
            loss = sum(cols) / d
        elif metric in ("entropy", "entropy_monotone"):
            total = 0.0
            for c in range(d):
                a, b = {}, {}
                for r, g in zip(records, gen):
                    a[r[c]] = a.get(r[c], 0) + 1
                    b[g[c]] = b.get(g[c], 0) + 1
                e = 0.0
                for r in {r[c]: g[c] for r, g in zip(records, gen)}.items():
                    e -= a[r[0]] * math.log2(a[r[0]] / b[r[1]])
                if metric == "entropy" and n_out:
                    cg = {}
                    for g in bad:
                        cg[g[c]] = cg.get(g[c], 0) + len(out_of[g])
                    e -= sum(x * math.log2(x / n_out) for x in cg.values())
                total += math.floor(e * 1e10) / 1e10
            loss = total
        else:  # loss
            cols = []
            for c in range(d):
                R = len(hierarchies[c][0])
                labels = hierarchies[c][lv[c]]
                x = 0  # R * (sum of kept records' shares + suppressed records): an integer
                for g in classes:
                    x += len(out_of[g]) * R + len(kept_of[g]) * (1 if g[c] is None else labels.count(g[c]))
                # floor10 of the exact rational (R x - n) / (n R - n) (no float summation order)
                cols.append(max(0, (x - n) * 10**10 // (n * R - n)) / 1e10 if R > 1 else 0.0)
            loss = math.prod((v + 1) ** (1 / d) for v in cols) - 1
        out[lv] = (True, n_out, loss)
    return out


# -- partitions: MDAV with the exactly summed mean, the k-partition check ------------------------
def reference_mdav_exact_mean(X, k):
    """Plain numpy MDAV (thesis 2.3.4) whose centroid is the exactly summed column mean
    (math.fsum), ties to the lowest row index."""
    import math

    X = np.asarray(X, dtype=float)
    left = np.arange(len(X))
    labels = np.full(len(X), -1)
    label = 0

    def mean(rows):
        return np.array([math.fsum(X[rows, j].tolist()) for j in range(X.shape[1])]) / len(rows)

    def take(r):
        nonlocal left, label
        others = left[left != r]
        d = ((X[others] - X[r]) ** 2).sum(axis=1)
        members = np.concatenate([[r], others[np.lexsort((others, d))[: k - 1]]])
        labels[members] = label
        label += 1
        left = np.setdiff1d(left, members)

    def farthest(v):
        d = ((X[left] - v) ** 2).sum(axis=1)
        return left[np.flatnonzero(d == d.max())[0]]

    while len(left) >= 3 * k:
        r = farthest(mean(left))
        take(r)
        take(farthest(X[r]))
    if len(left) >= 2 * k:
        take(farthest(mean(left)))
    labels[left] = label
    return labels


def check_k_partition(labels, k):
    """Every row has a real group id (no 4294967295) and every group >= k rows."""
    labels = np.asarray(labels)
    assert labels.max() < labels.size  # no garbage label (4294967295)
    assert np.bincount(labels).min() >= k if labels.size else True


# -- PRAM (sdcMicro pram.R) (moved from tests/test_masking_pram.py) --------------------------------
def reference_pram_matrix(p, diag, alpha):
    """sdcMicro's loops, written plainly: P, the Bayes inverse Qest, R = P Qest, alpha R + (1-alpha) I."""
    L = len(p)
    P = np.empty((L, L))
    for i in range(L):
        P[i, :] = (1 - diag[i]) / (L - 1)
        P[i, i] = diag[i]
    Q = np.empty((L, L))
    for k in range(L):
        s = sum(p[j] * P[j, k] for j in range(L))
        for j in range(L):
            Q[k, j] = P[j, k] * p[j] / s
    return alpha * (P @ Q) + (1 - alpha) * np.eye(L)


# -- rank swapping (moved from tests/test_masking_rank_swap.py) ------------------------------------
def reference_rank_swap(x, keys, seed, column, w):
    """Plain-Python rank swapping with the same random stream (rng.bits, then SplitMix steps)."""
    M = (1 << 64) - 1

    def mix(z):
        z ^= z >> 30; z = (z * 0xBF58476D1CE4E5B9) & M
        z ^= z >> 27; z = (z * 0x94D049BB133111EB) & M
        return z ^ (z >> 31)

    order = np.lexsort((keys, x))
    n = len(x)
    taken = [False] * n
    partner = list(range(n))
    for j in range(n):
        if taken[j]:
            continue
        hi = min(n - 1, j + w)
        span = hi - j
        if span <= 0:
            continue
        z = int(rng.bits(seed, f"rank_swap/{column}", keys[order][j:j + 1])[0])
        found = None
        for _ in range(64):
            k = j + 1 + min(int(((z >> 11) + 0.5) / 2**53 * span), span - 1)
            if not taken[k]:
                found = k
                break
            z = mix((z + 0x9E3779B97F4A7C15) & M)
        if found is None:
            free = [k for k in range(j + 1, hi + 1) if not taken[k]]
            if not free:
                continue
            found = free[min(int(((z >> 11) + 0.5) / 2**53 * len(free)), len(free) - 1)]
        taken[j] = taken[found] = True
        partner[j], partner[found] = found, j
    out = np.empty_like(x)
    out[order] = x[order][partner]
    return out


# -- SUDA2 (moved from tests/test_risk_suda.py) ----------------------------------------------------
def brute_suda(rows, max_size=None):
    """Score = sum over minimal sample uniques S of (M - |S|)!; missing values (None) never in S."""
    n, M = len(rows), len(rows[0])
    max_size = max_size or M

    def unique(i, S):
        if any(rows[i][k] is None for k in S):
            return False
        return sum(all(rows[j][k] == rows[i][k] for k in S) for j in range(n)) == 1

    scores, contrib = np.zeros(n), np.zeros((n, M))
    for i in range(n):
        for size in range(1, max_size + 1):
            for S in combinations(range(M), size):
                if unique(i, S) and not any(unique(i, T) for T in combinations(S, size - 1) if T):
                    scores[i] += factorial(M - size)
                    for k in S:
                        contrib[i, k] += factorial(M - size)
    return scores, contrib


# -- l-diversity and t-closeness (moved from tests/test_risk_diversity.py) -------------------------
def reference_l_diversity(keys, sens, kind, c=2.0):
    out = []
    for k in keys:
        vals = [s for kk, s in zip(keys, sens) if kk == k]
        cnt = Counter(v for v in vals if v is not None)
        nmiss = sum(v is None for v in vals)
        if kind == "distinct":
            out.append(len(cnt) + (1 if nmiss and cnt else 0))
        elif kind == "entropy":
            parts = list(cnt.values()) + ([nmiss] if nmiss and cnt else [])
            out.append(math.exp(-sum(x / len(vals) * math.log(x / len(vals)) for x in parts)) if cnt else 1.0)
        else:
            r = sorted(cnt.values(), reverse=True)
            if not r:
                out.append(0)
                continue
            best = 1
            for l in range(2, len(r) + 1):
                if r[0] < c * sum(r[l - 1:]):
                    best = l
            out.append(best)
    return np.array(out, dtype=float)


def reference_t_closeness(keys, sens, ordered):
    values = sorted(set(sens))
    n, m = len(sens), len(values)
    q = np.array([sens.count(v) / n for v in values])
    out = []
    for k in keys:
        vals = [s for kk, s in zip(keys, sens) if kk == k]
        p = np.array([vals.count(v) / len(vals) for v in values])
        if ordered:
            out.append(0.0 if m == 1 else sum(abs(sum(q[: i + 1] - p[: i + 1])) for i in range(m)) / (m - 1))
        else:
            out.append(0.5 * np.abs(q - p).sum())
    return np.array(out)


# -- record swapping: the risk level of each household (moved from tests/test_record_swap.py) ------
def reference_risk_levels(df, hier, risk_variables, k):
    """The coarsest level (index) at which each household has a member whose risk-variable
    combination has fewer than k persons in its area (len(hier): none), by brute force."""
    out = {}
    rows = df.rows(named=True)
    for lv in range(len(hier)):
        key = [tuple(r[c] for c in (*risk_variables, *hier[:lv + 1])) for r in rows]
        cnt = {}
        for t in key:
            cnt[t] = cnt.get(t, 0) + 1
        for r, t in zip(rows, key):
            if cnt[t] < k and out.get(r["hid"], len(hier)) > lv:
                out[r["hid"]] = lv
    return {h: out.get(h, len(hier)) for h in set(df["hid"].to_list())}


# -- MIL: the best move, exchange and 3-cycle by brute force (moved from tests/test_mil.py) --------
def group_sse_of_rows(X, rows):
    Y = X[list(rows)]
    return float(((Y - Y.mean(axis=0)) ** 2).sum())


def best_local_step(X, labels, k, cap):
    """Brute force, recomputing each changed group's SSE from its rows: the lowest SSE change
    over (1) moving one row to another group (its group keeping >= k rows), (2) exchanging
    two rows of different groups, (3) rotating one row each among three groups of at most
    ``cap`` rows, in both directions (a -> b -> c -> a and a -> c -> b -> a)."""
    from itertools import combinations

    groups = {g: [int(i) for i in np.flatnonzero(labels == g)] for g in np.unique(labels)}
    own = {g: group_sse_of_rows(X, r) for g, r in groups.items()}
    best = 0.0
    for a, ra in groups.items():
        if len(ra) <= k:
            continue
        for i in ra:
            rest = group_sse_of_rows(X, [r for r in ra if r != i]) - own[a]
            for b, rb in groups.items():
                if b != a:
                    best = min(best, rest + group_sse_of_rows(X, rb + [i]) - own[b])
    for a, b in combinations(groups, 2):
        ra, rb = groups[a], groups[b]
        for i in ra:
            for j in rb:
                na = [r if r != i else j for r in ra]
                nb = [r if r != j else i for r in rb]
                best = min(best, group_sse_of_rows(X, na) + group_sse_of_rows(X, nb) - own[a] - own[b])
    for a, b, c in combinations(groups, 3):
        ra, rb, rc = groups[a], groups[b], groups[c]
        if max(len(ra), len(rb), len(rc)) > cap:
            continue
        old = own[a] + own[b] + own[c]
        for i in ra:
            for j in rb:
                for m in rc:
                    fwd = (group_sse_of_rows(X, [r if r != i else m for r in ra]) + group_sse_of_rows(X, [r if r != j else i for r in rb])
                           + group_sse_of_rows(X, [r if r != m else j for r in rc]))
                    bwd = (group_sse_of_rows(X, [r if r != i else j for r in ra]) + group_sse_of_rows(X, [r if r != j else m for r in rb])
                           + group_sse_of_rows(X, [r if r != m else i for r in rc]))
                    best = min(best, fwd - old, bwd - old)
    return best


def best_move_and_exchange(X, labels, k):
    """Vectorised brute force over every single move and every pairwise exchange, each
    group's SSE taken as sum |x|^2 - |sum x|^2 / n after the change: (best move, best
    exchange) SSE changes."""
    G = labels.max() + 1
    n_g = np.bincount(labels, minlength=G).astype(float)
    S = np.zeros((G, X.shape[1]))
    np.add.at(S, labels, X)
    q = (X**2).sum(axis=1)
    Q = np.bincount(labels, weights=q, minlength=G)

    def g_sse(Qg, Sg, ng):
        return Qg - (Sg**2).sum(axis=-1) / ng

    own = g_sse(Q, S, n_g)
    a = labels
    # moves: row i from a to every b
    out_a = np.where(n_g[a] > k, g_sse(Q[a] - q, S[a] - X, n_g[a] - 1) - own[a], np.inf)
    in_b = g_sse(Q[None, :] + q[:, None], S[None, :, :] + X[:, None, :], n_g[None, :] + 1) - own[None, :]
    move = out_a[:, None] + in_b
    move[np.arange(len(a)), a] = np.inf
    # exchanges: i (in a) <-> j (in b)
    dX = X[None, :, :] - X[:, None, :]  # x_j - x_i
    dq = q[None, :] - q[:, None]
    new_a = g_sse(Q[a][:, None] + dq, S[a][:, None, :] + dX, n_g[a][:, None]) - own[a][:, None]
    new_b = g_sse(Q[a][None, :] - dq, S[a][None, :, :] - dX, n_g[a][None, :]) - own[a][None, :]
    swap = new_a + new_b
    swap[a[:, None] == a[None, :]] = np.inf
    return float(move.min()), float(swap.min())


# -- noise: the moments add_noise keeps ----------------------------------------------------------
def sample_moments(X):
    """(column means, (p, p) sample covariance with n - 1) of the rows of X."""
    X = np.asarray(X, dtype=float)
    return X.mean(axis=0), np.cov(X.T, ddof=1).reshape(X.shape[1], X.shape[1])


# -- information loss with structural nulls --------------------------------------------------------
def reference_ilssdm_nulls(columns, masked=None, groups=None, standardize=True):
    """SSE/SST over the non-null values, column by column, in exact rational arithmetic (sdcMicro's
    dUtility ``na.rm = TRUE`` rule): ``columns`` / ``masked`` are lists of value lists (None =
    null); z-scores with the column's non-null mean and population std -- only the variance
    enters, ``((x - y) / sd)^2 = (x - y)^2 / var`` -- (a constant column: deviations from its
    value); with ``groups`` a row's release is the mean of its group's non-null values. Exact,
    so values near 1e-263 neither underflow nor overflow; a ratio beyond float64 is inf."""
    sse = sst = Fraction(0)
    for j, x in enumerate(columns):
        rows = [i for i, v in enumerate(x) if v is not None]
        if not rows:
            continue
        xv = [Fraction(float(x[i])) for i in rows]
        if masked is not None:
            yv = [Fraction(float(masked[j][i])) for i in rows]
        else:
            yv = []
            for i in rows:
                same = [Fraction(float(x[r])) for r in rows if groups[r] == groups[i]]
                yv.append(sum(same) / len(same))
        mean = sum(xv) / len(xv)
        var = sum((v - mean) ** 2 for v in xv) / len(xv)
        err = sum((a - b) ** 2 for a, b in zip(xv, yv))
        if standardize and var > 0:
            sst += len(xv)
            sse += err / var
        elif standardize:
            sse += sum((b - xv[0]) ** 2 for b in yv)
        else:
            sst += sum((v - mean) ** 2 for v in xv)
            sse += err
    if sst == 0:
        return 0.0
    try:
        return float(sse / sst)
    except OverflowError:
        return math.inf


def reference_ild_nulls(columns, masked, distances, exponent=2, weights=None):
    """ILD with structural nulls, pair by pair: with exponent 2 the product distance is a sum
    over the columns, each over its pairs of non-null rows; otherwise the pairs of records
    complete in every column, d = sqrt(sum_c w_c d_c^2). Returns (I, I_masked, ILD clipped at 0;
    NaN when the original has no information and the release has some)."""
    n = len(columns[0])
    w = weights or [1.0] * len(columns)

    def amount(cols):
        if exponent == 2:
            total = 0.0
            for j, (c, d, wc) in enumerate(zip(cols, distances, w)):
                vals = [v for v, o in zip(c, columns[j]) if o is not None]
                total += wc * naive_amount(vals, d, 2)
            return total
        rows = [i for i in range(n) if all(col[i] is not None for col in columns)]
        return sum(
            sum(wc * d(c[i], c[k]) ** 2 for c, d, wc in zip(cols, distances, w)) ** (exponent / 2)
            for i in rows for k in rows
        )

    a, m = amount(list(columns)), amount(list(masked))
    return a, m, (max((a - m) / a, 0.0) if a > 0 else (0.0 if m == 0 else math.nan))


def naive_linkage_nulls(X, Y):
    """Reference for record linkage with structural nulls (NaN, the same cells in X and Y):
    z-scores over each column's non-null values (a constant column only centred), the distance
    of two records over the n_g columns both hold times sqrt(p / n_g) (sdcMicro recordLinkage,
    na_action = "ignore", cluster::daisy), every pair compared; a record counts 1/m when its
    own original is among the m nearest (within a relative 1e-9), else 0."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n, p = X.shape
    cols = [X[~np.isnan(X[:, j]), j] for j in range(p)]
    mu = np.array([float(np.mean(v)) if v.size else 0.0 for v in cols])
    sd = np.array([float(np.std(v)) if v.size else 1.0 for v in cols])
    sd[~(sd > 0)] = 1.0
    X = (X - mu) / sd
    Y = (Y - mu) / sd
    out = []
    for i in range(n):
        d = []
        for j in range(n):
            both = ~np.isnan(Y[i]) & ~np.isnan(X[j])
            d.append(math.sqrt(float(((Y[i, both] - X[j, both]) ** 2).sum()) * p / both.sum()))
        own = d[i]
        tol = 1e-9 * max(own, 1.0)
        if min(d) < own - tol:
            out.append(0.0)
        else:
            out.append(1.0 / sum(1 for v in d if v <= own + tol))
    return out


# -- the prosecutor's attack on a release with suppressed (missing) keys ---------------------------
def reference_prosecutor_attack(targets, released):
    """Per target (its true key values, as the release would show them unsuppressed), the share
    1 / c with c the released records an attacker who knows the target is in the file cannot
    rule out: those whose every released key equals the target's or is missing (None). A
    record suppressed by a generalisation had its whole class suppressed, so no kept record
    shows its combination and c counts the suppressed records only."""
    out = []
    for t in targets:
        c = sum(all(v is None or v == x for v, x in zip(r, t)) for r in released)
        out.append(1.0 / c)
    return out


def reference_household_risk(risk, households):
    """``1 - prod(1 - r_i)`` over each record's household, exactly (``Fraction`` of the float
    risks), rounded once to float: the reference of the household risk at any precision."""
    exact = {}
    for r, h in zip(risk, households):
        exact[h] = exact.get(h, Fraction(1)) * (1 - Fraction(float(r)))
    return [float(1 - exact[h]) for h in households]


def quantile7_exact(values, p):
    """R's ``quantile(type = 7)`` of integers (or Fractions) at the rational ``p``, exactly:
    ``x[j] + (h - j) (x[j+1] - x[j])`` with ``h = (N - 1) p`` over the sorted values."""
    xs = sorted(values)
    h = (len(xs) - 1) * Fraction(p)
    j = math.floor(h)
    return Fraction(xs[j]) + (h - j) * (xs[min(j + 1, len(xs) - 1)] - xs[j])


def equidistant_ref(lo, hi, n):
    """sdcMicro's ``equidistant`` points in fractions: ``seq(lo - 1, hi + 1, length.out = n + 1)``,
    rounded half to even (R's ``round``) unless rounding makes two points equal."""
    pts = [Fraction(lo) - 1 + (Fraction(hi) - Fraction(lo) + 2) * i / n for i in range(n + 1)]
    r = [round(v) for v in pts]
    return r if len(set(r)) == len(r) else pts


# -- ARX's sample risk summary of a generalised release --------------------------------------------
def reference_arx_sample_summary(rows, threshold=0.1, suppressed=None):
    """ARX 3.9.2 ``RiskModelSampleSummary`` without a population table, record by record: the
    records whose every key is ``suppressed`` are left out (``DataHandle.isOutlier(row, qis)``);
    the classes of the others (equal key tuples; a None is a value) give prosecutor highest
    (1 / smallest), average (classes / records), records at risk (share in classes with
    1 / size > threshold), marketer (classes / records here: F = f). All 0 for an empty sample."""
    kept = [r for r in rows if suppressed is None or any(v != suppressed for v in r)]
    if not kept:
        return {"prosecutor_highest": 0.0, "prosecutor_average": 0.0, "prosecutor_records_at_risk": 0.0,
                "marketer_risk": 0.0, "records": 0}
    size = {}
    for r in kept:
        size[r] = size.get(r, 0) + 1
    n = len(kept)
    return {"prosecutor_highest": 1 / min(size.values()), "prosecutor_average": len(size) / n,
            "prosecutor_records_at_risk": sum(1 for r in kept if 1 / size[r] > threshold) / n,
            "marketer_risk": len(size) / n, "records": n}

def noise_unit_unresolved(values):
    """Brute force of add_noise's resolution refusal for one noise unit of integers: True when
    they reach beyond 2^53 and their exact sample standard deviation (Fractions) lies strictly
    between 0 and float64's spacing at the largest |value|."""
    from fractions import Fraction

    vals = [int(v) for v in values if v is not None]
    if len(vals) < 2:
        return False
    top = max(abs(v) for v in vals)
    if top <= 2**53:
        return False
    m = Fraction(sum(vals), len(vals))
    var = sum((v - m) ** 2 for v in vals) / (len(vals) - 1)
    gap = Fraction(float(np.spacing(float(top))))
    return 0 < var < gap * gap


def reference_cheapest_masks(C, g, bad, k, exact, rank, tier):
    """Local suppression's search, violator by violator and mask by mask: for each row ``r`` of
    ``bad`` (missing keys ``-1`` in ``C``), among the masks ``s`` strictly containing its missing
    keys whose kept keys are matched by >= k rows of its stratum (a row matches when it equals
    ``r`` on every kept key where it has a value; with ``exact`` False it must have them all;
    every key suppressed: all rows), the lowest ``tier``, then the most violators matching with
    every kept key present, then the lowest ``rank``. -> kernels/wildcard.py cheapest_masks."""
    n, m = C.shape
    badset = set(int(b) for b in bad)
    out = []
    for r in bad:
        r = int(r)
        already = sum(1 << j for j in range(m) if C[r, j] < 0)
        best = None
        for s in range(1 << m):
            if s & already != already or s == already:
                continue
            kept = [j for j in range(m) if not s >> j & 1]
            if not kept:
                cnt, cov = n, len(badset)
            else:
                cnt = cov = 0
                for q in range(n):
                    if g[q] != g[r]:
                        continue
                    present = all(C[q, j] >= 0 for j in kept)
                    equal = all(C[q, j] < 0 or C[q, j] == C[r, j] for j in kept)
                    if equal and (exact or present):
                        cnt += 1
                    if equal and present and q in badset:
                        cov += 1
            if cnt >= k:
                key = (tier[s], -cov, rank[s])
                if best is None or key < best[0]:
                    best = (key, s, cov)
        out.append((-1, 0.0) if best is None else (best[1], float(best[2])))
    return out


def reference_top_bottom(values: list, lower_p: float | None = None, upper_p: float | None = None) -> list:
    """Top / bottom coding by share with Python numbers (exact at any integer size): the
    thresholds are the sorted non-null values' elements at ``floor((n - 1) lower_p)`` and
    ``ceil((n - 1) (1 - upper_p))`` (Polars' "lower" / "higher" quantile index); a value below /
    above its threshold becomes the threshold; nulls stay null."""
    import math

    s = sorted(v for v in values if v is not None)
    lo = s[math.floor((len(s) - 1) * lower_p)] if lower_p is not None and s else None
    hi = s[math.ceil((len(s) - 1) * (1.0 - upper_p))] if upper_p is not None and s else None
    out = []
    for v in values:
        if v is not None and hi is not None and v > hi:
            v = hi
        if v is not None and lo is not None and v < lo:
            v = lo
        out.append(v)
    return out


def reference_ibt_loglik(y: list, phi: float, edges: list, p: list) -> float:
    """Eq. 3 of Hasegawa et al. (Agrawal et al.'s IBT) record by record with Python floats:
    ``sum_i log sum_b P(y-bin of y_i | x = centre b) p_b``. The y-bins are those of
    ``fit_ibt``: from ``min(y, edges) - 8 phi`` to ``max(y, edges) + 8 phi`` in
    ``ceil(span / narrowest bin)`` equal steps; ``P`` is the Laplace(centre, phi) mass of the
    y-bin, divided by its mass on the whole grid (a transition probability, no density)."""
    import math

    def cdf(z: float) -> float:
        return 0.5 * math.exp(z / phi) if z < 0 else 1.0 - 0.5 * math.exp(-z / phi)

    centres = [(a + b) / 2 for a, b in zip(edges, edges[1:])]
    h = min(b - a for a, b in zip(edges, edges[1:]))
    lo, hi = min(min(y), edges[0]) - 8 * phi, max(max(y), edges[-1]) + 8 * phi
    n = math.ceil((hi - lo) / h)
    grid = [lo + (hi - lo) * k / n for k in range(n + 1)]
    total = 0.0
    for v in y:
        j = min(max(k for k in range(n) if grid[k] <= v), n - 1)   # the last bin holds its right edge
        q = sum(pb * (cdf(grid[j + 1] - c) - cdf(grid[j] - c)) / (cdf(grid[-1] - c) - cdf(grid[0] - c))
                for pb, c in zip(p, centres))
        total += math.log(q)
    return total
