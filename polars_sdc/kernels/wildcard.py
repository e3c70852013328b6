"""Wildcard matches between key combinations with missing values (sdcMicro freqCalc rule)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def compatible_sums(codes, c, w):
    """For each row i of codes (m, M) int64, -1 = missing: the sums of c and w over the other
    rows j that agree with i on every key where both have a value."""
    m, M = codes.shape
    oc = np.zeros(m)
    ow = np.zeros(m)
    for i in range(m):
        for j in range(i + 1, m):
            ok = True
            for k in range(M):
                a = codes[i, k]
                b = codes[j, k]
                if a >= 0 and b >= 0 and a != b:
                    ok = False
                    break
            if ok:
                oc[i] += c[j]
                ow[i] += w[j]
                oc[j] += c[i]
                ow[j] += w[i]
    return oc, ow
