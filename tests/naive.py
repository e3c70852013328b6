"""Plain, slow, obviously-correct reference implementations used by the tests.

One reference per kernel or method (as in stumpy's ``tests/naive.py``): each is written from
the paper's definition with no shortcut the implementation under test uses (no kd-tree, no
sorted pruning, no running sums, no heap), so a test comparing the two checks the shortcut.
Import them as ``from naive import ...`` (pytest puts ``tests/`` on ``sys.path``).

Index (reference -> what it checks):

- ``direct_sse``                    SSE of a partition (loss.sse, every microaggregation test)
- ``reference_mdav``                MDAV (thesis 2.3.4) -> kernels/mdav.py
- ``onehot_features``, ``reference_mdav_exact``  the one-hot embedding of nominal columns as it was
  built before the kernels took codes, and MDAV in exact rational arithmetic -> microagg/features.py,
  the code paths of kernels/mdav.py and kernels/vmdav.py
- ``reference_vmdav``               V-MDAV (thesis 2.3.4) -> kernels/vmdav.py
- ``reference_npn``, ``reference_grid``   MHM orderings (MHM paper 3.2, procedure A') -> kernels/path_order.py
- ``reference_hm_exact``            the shortest path over an ordering in rational arithmetic -> the code path
  of kernels/hansen_mukherjee.py
- ``compositions``, ``brute_force_ordered``  shortest path over an ordering -> kernels/hansen_mukherjee.py
- ``set_partitions``, ``brute_force_univariate``, ``brute_dp``  optimal univariate microaggregation
- ``best_exchange``                 the best SSE-lowering swap between two groups -> kernels/mil.py exchange pass
- ``pairwise_sq``                   squared Euclidean distance matrix (product-distance embedding)
- ``naive_amount``, ``lev_ref``, ``damerau_ref``, ``pnorm_ref``  information amount I(A) = sum d^e -> loss/ild.py, dist.py
- ``reference_fig1``, ``reference_ordinal_plan``, ``reference_threshold``  minimum-frequency recoding -> recode/plan.py
- ``reference_fit``, ``reference_metrics``  multinomial logit and its metrics -> utility.py
- ``joint``, ``quad_convolution``, ``plain_gmm_em``  Gaussian * Laplace density, plain EM -> reconstruct.py
- ``reference_freqcalc``            fk / Fk with sdcMicro's missing-value (wildcard, alpha) rule,
  record by record -> risk/frequencies.py
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


# -- partitions and SSE -----------------------------------------------------------------------
def direct_sse(X, labels):
    """Sum over groups of squared distances to the group mean, one group at a time (1-D or 2-D)."""
    X = np.asarray(X, dtype=float)
    labels = np.asarray(labels)
    return sum(((X[labels == g] - X[labels == g].mean(axis=0)) ** 2).sum() for g in np.unique(labels))


def pairwise_sq(X):
    """Full N x N matrix of squared Euclidean distances."""
    return ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)


def reference_mdav(X, k):
    """Plain numpy MDAV (thesis 2.3.4); ties to the lowest row index."""
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
        r = farthest(X[left].mean(axis=0))
        take(r)
        s = farthest(X[r])
        take(s)
    if len(left) >= 2 * k:
        take(farthest(X[left].mean(axis=0)))
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


# -- households: groups of >= k households (microaggregation) -----------------------------------
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


# -- disclosure risk ----------------------------------------------------------------------------

def reference_freqcalc(rows, weights, alpha):
    """fk / Fk of sdcMicro's ``freqCalc`` record by record over all pairs (None = missing key
    value): records are compatible when they agree wherever both have a value; a record
    counts another with share 1 when identical, a complete record counts compatible records
    with some (not all) missing keys with share alpha, a record with missing keys counts
    compatible complete records with share 1 and other compatible records with share alpha;
    a record with every key missing has fk = n and Fk = the sum of all weights."""
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
                share = alpha if any(miss_j) and not all(miss_j) else 0.0
            else:
                share = 1.0 if not any(miss_j) else alpha
            fk[i] += share
            Fk[i] += share * weights[j]
    return fk, Fk

