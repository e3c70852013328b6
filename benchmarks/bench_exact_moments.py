"""Would exactly rounded moments make Spark's add_noise(method="moments") bit-identical to local,
and at what cost? (docs/spark.md, "add_noise: why ~1e-15 and not bit-identical").

1. The exactly rounded sum of the products (x_i - mean_i)(x_j - mean_j): Dekker's two-product
   (numpy has no FMA) and math.fsum, checked against a Fraction reference.
2. With the SAME moments on both sides (G, the means, so the same matrix Mt), the release's last
   step Y = B Mt' + mean: the local blocks vs Spark's Arrow batches of other sizes.
3. CPU cost of the exact sums against the BLAS Gram B'B of the local path.

    python benchmarks/bench_exact_moments.py
"""
import math, time
from fractions import Fraction
import numpy as np
from polars_sdc.masking.add_noise import moments_matrix, constant_columns

def exact_G(B):
    n, q = B.shape
    G = np.empty((q, q))
    for i in range(q):
        for j in range(i, q):
            s = sum((Fraction(a) * Fraction(b) for a, b in zip(B[:, i].tolist(), B[:, j].tolist())), Fraction(0))
            G[i, j] = G[j, i] = float(s)
    return G

def two_prod(a, b):                     # Dekker: a*b = p + e exactly (no FMA in numpy)
    p = a * b
    c = 134217729.0
    ah = a * c; ah = ah - (ah - a); al = a - ah
    bh = b * c; bh = bh - (bh - b); bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e

def fsum_G(B):                           # exactly rounded sums of the exact products
    n, q = B.shape
    G = np.empty((q, q))
    for i in range(q):
        for j in range(i, q):
            p, e = two_prod(B[:, i], B[:, j])
            G[i, j] = G[j, i] = math.fsum(np.concatenate([p, e]).tolist())
    return G

rng = np.random.default_rng(3)
n, p = 200, 3
X = rng.normal(10, 3, (n, p)) * np.array([1.0, 100.0, 0.01]); Z = rng.normal(size=(n, p))
mu = np.array([math.fsum(c.tolist()) / n for c in np.hstack([X, Z]).T])
B = np.hstack([X - mu[:p], Z - mu[p:]])
G1 = exact_G(B); G2 = fsum_G(B)
print("sums of products: fsum of two-products == Fraction reference (exactly rounded):", np.array_equal(G1, G2))
Mt = moments_matrix(G1 / (n - 1), p, 1.5, constant_columns(X))
# the local last step (one block, np.matmul into a column-major Y) vs Spark's per-batch (Mt @ B.T).T
Yl = np.empty((n, p), order="F"); np.matmul(Mt, B.T, out=Yl.T); Yl += mu[:p]
for cut in ([0, 200], [0, 37, 90, 200], [0, 1, 2, 200], [0, 100, 200]):
    Ys = np.vstack([(Mt @ B[a:b].T).T + mu[:p] for a, b in zip(cut, cut[1:])])
    print(f"same moments, last step, Spark batches cut at {cut}: {int((Ys != Yl).sum())} of {n * p} values differ from local")
# cost: exact sums vs the BLAS B'B of the local path
for n in (100_000, 1_000_000):
    B = rng.normal(size=(n, 2 * 5))
    t = time.process_time(); G = B.T @ B; tb = time.process_time() - t
    t = time.process_time(); fsum_G(B); tf = time.process_time() - t
    print(f"n={n}, 2p=10: BLAS B'B {tb*1e3:.1f} ms CPU, exact (two-product + fsum) {tf*1e3:.0f} ms CPU, x{tf/max(tb,1e-9):.0f}")
