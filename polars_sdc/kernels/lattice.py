"""Grouping kernel of the lattice search: the equivalence classes of one full-domain
transformation, as dense class ids of packed integer keys (ARX ``HashGroupify`` does the same
with a hash table of generalised tuples)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def dense_ids(keys):
    """Dense ids (0, 1, ... in order of first appearance) of int64 ``keys`` by open
    addressing; returns (ids, index of each id's first key, number of ids).

    Parameters
    ----------
    keys : int64 (n,)
        The keys.

    Notes
    -----
    The grouping of ARX's ``HashGroupify`` as dense ids; O(n) expected.
    """
    m = keys.shape[0]
    cap = 1
    while cap < 2 * m + 2:
        cap *= 2
    mask = cap - 1
    slot_key = np.empty(cap, dtype=np.int64)
    slot_id = np.full(cap, -1, dtype=np.int64)
    ids = np.empty(m, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    n = 0
    for i in range(m):
        sid = _slot(slot_key, slot_id, mask, keys[i], n)
        ids[i] = sid
        if sid == n:
            first[n] = i
            n += 1
    return ids, first[:n].copy(), n


@njit(cache=True, inline="always")
def _slot(slot_key, slot_id, mask, k, n):
    """The id of key ``k`` in the open-addressing table (``slot_key``, ``slot_id``; ``mask`` =
    capacity - 1): its id if present, else ``k`` is stored with id ``n`` and ``n`` returned."""
    pos = ((k * np.int64(-7046029254386353131)) >> np.int64(17)) & mask
    while True:
        sid = slot_id[pos]
        if sid < 0:
            slot_id[pos] = n
            slot_key[pos] = k
            return n
        if slot_key[pos] == k:
            return sid
        pos = (pos + 1) & mask


def group_keys(T: np.ndarray, gen: list[np.ndarray], radix: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Classes of the rows of code matrix ``T`` (m, d) under the label maps ``gen[c]``
    (hierarchy row -> label id) with ``radix[c]`` labels: (class id per row, first row of each
    class, number of classes). Keys are packed mixed-radix int64; when the product of radices
    would overflow, the label rows are grouped by ``np.unique(axis=0)``.

    Parameters
    ----------
    T : int array (m, d)
        Code matrix (hierarchy rows) of the quasi-identifiers.
    gen : list of int arrays
        Per column, hierarchy row -> label id at the node's level.
    radix : int64 (d,)
        Number of labels per column.

    Notes
    -----
    ARX's equivalence classes of a full-domain transformation; O(m d).
    """
    m, d = T.shape
    total = 1
    for r in radix:
        total *= int(r)
    if total < 2**62:
        key = np.zeros(m, dtype=np.int64)
        for c in range(d):
            key *= int(radix[c])
            key += gen[c][T[:, c]]
        ids, first, n = dense_ids(key)
        return ids, first, int(n)
    lab = np.stack([gen[c][T[:, c]] for c in range(d)], axis=1)
    _, first, inv = np.unique(lab, axis=0, return_index=True, return_inverse=True)
    return inv.reshape(-1).astype(np.int64), first.astype(np.int64), int(first.size)


@njit(cache=True)
def group_node(T, G, levels, radix, w, max_classes):
    """The classes of one transformation in one pass: row i's key packs the labels
    ``G[c, levels[c], T[i, c]]`` in mixed radix ``radix``; returns (class id per row, first row
    of each class, class weights (sum of ``w``), number of classes). Keys must fit in int64;
    ``max_classes`` (at most the product of the radices) sizes the hash table.

    Parameters
    ----------
    T : int array (m, d)
        Code matrix of the quasi-identifiers.
    G : int array (d, levels, codes)
        Label of each code at each level.
    levels : int array (d,)
        The transformation (a lattice node).
    radix : int64 (d,)
        Labels per column at those levels.
    w : float64 (m,)
        Row weights.
    max_classes : int
        Upper bound of the number of classes.

    Notes
    -----
    ARX's ``HashGroupify`` in one pass; O(m d) expected.
    """
    m, d = T.shape
    cap = 1
    while cap < 2 * min(m, max_classes) + 2:
        cap *= 2
    mask = cap - 1
    slot_key = np.empty(cap, dtype=np.int64)
    slot_id = np.full(cap, -1, dtype=np.int64)
    ids = np.empty(m, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    sizes = np.zeros(m, dtype=np.float64)
    n = 0
    for i in range(m):
        k = np.int64(0)
        for c in range(d):
            k = k * radix[c] + G[c, levels[c], T[i, c]]
        sid = _slot(slot_key, slot_id, mask, k, n)
        ids[i] = sid
        sizes[sid] += w[i]
        if sid == n:
            first[n] = i
            n += 1
    return ids, first[:n].copy(), sizes[:n].copy(), n


@njit(cache=True)
def tag_cone(L, lv, status, value, up):
    """Set ``status`` to ``value`` on the undecided nodes (status 0) of the cone of ``lv``:
    its generalisations (``up``) or its specialisations; returns how many were tagged.

    Parameters
    ----------
    L : int array (nodes, d)
        The lattice's nodes (levels per column).
    lv : int array (d,)
        The node whose cone is tagged.
    status : int array (nodes,)
        Per node: 0 undecided, else decided; updated in place.
    value : int
        The status to set.
    up : bool
        Generalisations (True) or specialisations (False).

    Notes
    -----
    ARX's predictive tagging (monotone privacy models); O(nodes d).
    """
    N, d = L.shape
    count = 0
    for i in range(N):
        if status[i] != 0:
            continue
        ok = True
        for c in range(d):
            if up:
                if L[i, c] < lv[c]:
                    ok = False
                    break
            elif L[i, c] > lv[c]:
                ok = False
                break
        if ok:
            status[i] = value
            count += 1
    return count


@njit(cache=True)
def raise_bound(L, lv, bound, value):
    """bound[i] = max(bound[i], value) on the generalisations i of ``lv``.

    Parameters
    ----------
    L : int array (nodes, d)
        The lattice's nodes.
    lv : int array (d,)
        The node.
    bound : float64 (nodes,)
        Bounds, raised in place.
    value : float
        The new lower bound.

    Notes
    -----
    ARX's lower bounds of a monotone metric along the generalisations; O(nodes d).
    """
    N, d = L.shape
    for i in range(N):
        if bound[i] >= value:
            continue
        ok = True
        for c in range(d):
            if L[i, c] < lv[c]:
                ok = False
                break
        if ok:
            bound[i] = value


@njit(cache=True)
def hierarchical_emd_kernel(counts, sizes, table_counts, leaf, parent, n_labels, height):
    """The hierarchical-distance EMD of each class (ARX ``HierarchicalDistanceTCloseness``):
    ``counts`` (classes, sensitive codes), ``leaf[v]`` the level-0 label of code v,
    ``parent[j - 1, a]`` the level-j label of level-(j-1) label a, ``n_labels[j]`` the labels
    of level j. Node costs are added level by level, node by node, as ARX adds them.

    Parameters
    ----------
    counts : int array (classes, codes)
        Sensitive-code counts per class.
    sizes : int array (classes,)
        Class sizes.
    table_counts : int array (codes,)
        The whole table's counts.
    leaf, parent, n_labels : int arrays
        The sensitive attribute's hierarchy, as described above.
    height : int
        Number of hierarchy levels.

    Notes
    -----
    t-closeness with hierarchical distance (Li, Li & Venkatasubramanian 2007) as ARX computes
    it; O(classes * labels).
    """
    C, S = counts.shape
    P = 0.0
    for v in range(S):
        P += table_counts[v]
    width = 0
    for j in range(n_labels.shape[0]):
        width = max(width, n_labels[j])
    out = np.empty(C)
    extra = np.empty(width)
    pos = np.empty(width)
    neg = np.empty(width)
    for i in range(C):
        Q = sizes[i]
        for a in range(n_labels[0]):
            extra[a] = 0.0
        for v in range(S):
            extra[leaf[v]] += table_counts[v] * Q - counts[i, v] * P
        cost = 0.0
        for j in range(1, n_labels.shape[0]):
            for b in range(n_labels[j]):
                pos[b] = 0.0
                neg[b] = 0.0
            for a in range(n_labels[j - 1]):
                e = extra[a]
                b = parent[j - 1, a]
                if e > 0:
                    pos[b] += e
                else:
                    neg[b] -= e
            level = j / height
            for b in range(n_labels[j]):
                cost += level * min(pos[b], neg[b])
                extra[b] = pos[b] - neg[b]
        out[i] = cost / (P * Q)
    return out
