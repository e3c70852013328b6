"""The information amount by the pairwise sum, over distinct records (thesis eq. 3.1.2).

Used only when the distance does not decompose: a p-norm other than 2 over several numeric
columns, or a product distance with an exponent other than 2. Records are distinct rows
with multiplicities, so the cost is O(R^2) for R distinct records and memory is O(R);
no R x R matrix is formed.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def pairwise_amount(counts, num, num_block, num_p, num_w, codes, mats, mat_off, mat_size, cat_w, exponent, done):
    """I = sum_r sum_s c_r c_s d(r, s)^exponent over R distinct records (2 x the sum over r < s).

    The distance is the product distance (thesis 3.1.3)
    ``d(r, s)^2 = sum_b num_w[b] |x_r - x_s|_{p_b}^2 + sum_b cat_w[b] D_b[codes[r, b], codes[s, b]]^2``:
    numeric blocks are the columns of ``num`` (R, P) grouped by ``num_block`` (P,) with the
    p-norm ``num_p[b]`` (1, 2, inf or any p >= 1); other blocks are given by their distance
    matrices over the block's distinct values, flattened into ``mats`` (block b starts at
    ``mat_off[b]``, side ``mat_size[b]``), and each record's code per block. ``done[0]``
    (float64) holds the share of the pairs summed so far, updated with the GIL released so
    another thread can show progress.

    Parameters
    ----------
    counts : float64 (R,)
        Multiplicity of each distinct record.
    num : float64 (R, P)
        Numeric columns.
    num_block, num_p, num_w : arrays (P,), (B,), (B,)
        Block of each numeric column, the block's p-norm and weight.
    codes : int array (R, C)
        Each record's code per non-numeric block.
    mats : float64 (sum size^2,)
        The blocks' distance matrices, flattened; ``mat_off`` / ``mat_size`` locate them.
    cat_w : float64 (C,)
        Weight per non-numeric block.
    exponent : float
        The exponent e of ``d^e``.
    done : float64 (1,)
        Progress share, written while running.

    Notes
    -----
    The information amount I(A) of ILD (Akiyama & Wada; Akiyama 2018 (thesis) 3.1);
    O(R^2 (P + C)) over the distinct records, no R x R matrix.
    """
    R = counts.size
    P = num.shape[1]
    Bn = num_p.size
    Bc = cat_w.size
    acc = np.zeros(max(Bn, 1), dtype=np.float64)
    total = 0.0
    pairs = 0.0
    all_pairs = max(R * (R - 1) / 2.0, 1.0)
    for r in range(R):
        part = 0.0
        for s in range(r + 1, R):
            for b in range(Bn):
                acc[b] = 0.0
            for j in range(P):
                b = num_block[j]
                d = abs(num[r, j] - num[s, j])
                p = num_p[b]
                if p == 2.0:
                    acc[b] += d * d
                elif p == 1.0:
                    acc[b] += d
                elif np.isinf(p):
                    if d > acc[b]:
                        acc[b] = d
                else:
                    acc[b] += d**p
            d2 = 0.0
            for b in range(Bn):
                p = num_p[b]
                if p == 2.0:
                    d2 += num_w[b] * acc[b]
                elif p == 1.0 or np.isinf(p):
                    d2 += num_w[b] * acc[b] * acc[b]
                else:
                    nb = acc[b] ** (1.0 / p)
                    d2 += num_w[b] * nb * nb
            for b in range(Bc):
                m = mat_size[b]
                dd = mats[mat_off[b] + codes[r, b] * m + codes[s, b]]
                d2 += cat_w[b] * dd * dd
            if d2 > 0.0:
                if exponent == 2.0:
                    part += counts[s] * d2
                elif exponent == 1.0:
                    part += counts[s] * np.sqrt(d2)
                else:
                    part += counts[s] * d2 ** (exponent / 2.0)
        total += counts[r] * part
        pairs += R - r - 1
        done[0] = pairs / all_pairs
    done[0] = 1.0
    return 2.0 * total
