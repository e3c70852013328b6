"""Distributed blocking for microaggregation on Spark: a kd-tree built on the driver from a
sample, its split points broadcast, and every record given a block id.

Why: a k-partition of a very large table cannot be computed in one piece, so the table is cut
into blocks of at most ``block_rows`` records and the local method runs inside each block
(Solanas et al., "A 2^d-tree-based blocking method for microaggregating very large data
sets": the blocks come from a space-partitioning tree, so each block holds nearby records
and blocking costs little information). Here the tree is a kd-tree (one split per node, on
the column of largest spread in z-scores, at a sample quantile) rather than a 2^d-tree: it
cuts one column at a time whatever the dimension, so the blocks come out close to the size
asked for even with p = 10 quasi-identifiers (a 2^d-tree would cut 1,024 ways at once).

Steps (each a Spark job over the data; nothing but split points and counts reaches the driver):

1. global mean and standard deviation of the numeric quasi-identifiers (the z-scores of the
   local method, computed once for the whole table) and the count of each stratum (``by``);
2. a sample of about ``sample_per_block`` records per block; a kd-tree per stratum larger
   than ``block_rows``: a node estimated to need m leaves of at most 0.85 ``block_rows`` is
   cut at the floor(m/2)/m quantile of its column of largest spread;
3. exact leaf counts (one aggregation); a leaf still larger than ``block_rows - k + 1`` is
   split again from a sample of its own records (rarely needed);
4. every leaf with fewer than k records joins the smallest block under its nearest ancestor
   (its sibling subtree first), so every block holds >= k records and at most ``block_rows``.

Strata are blocked separately: each has its own tree, and a block never spans two strata.
Only the numeric quasi-identifiers steer the tree (categorical ones still take part in the
distance inside each block); with none, a stratum larger than ``block_rows`` stays one block
(with a warning).
The assignment is a pure function of a record's values and the broadcast plan, so it is the
same in every partitioning, executor and task retry; the input must itself be deterministic
(cache or checkpoint a non-deterministic source before blocking).

One module on purpose (~560 lines): the plan (tree, split points, leaf counts, merging of
small leaves) and its two evaluators — numpy for tests and the local reference, Spark SQL for
the cluster — must stay equal record for record, so they live and change together.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .._columns import ColumnSpec, is_numeric, resolve_columns
from .._errors import SDCError
from .._signature import check_keywords
from .._validation import check_int
from ._common import bad_totals, bad_value_counts, check_present, column_list, polars_schema, raise_bad, require_pyspark

ROOT = "__sdc_root"
COUNT = "__sdc_count"


@dataclass
class BlockPlan:
    """The broadcast blocking plan: a kd-forest (one tree per stratum) and the block of each leaf.

    ``features`` are the numeric quasi-identifiers the tree splits on, scored as
    ``(x - center) * scale``; node arrays ``feature``, ``threshold``, ``left``, ``right``,
    ``leaf`` (-1 for an internal node); ``strata`` holds the ``by`` values, each stratum's
    root node and row count; ``leaf_block`` maps a leaf to its block; ``block_sizes`` are
    the exact block sizes. Built by :func:`plan_blocks` on the driver; its methods map the
    rows of a Polars batch (inside ``mapInArrow``) to their block.

    >>> plan = plan_blocks(sdf, 5, ["x", "y"], block_rows=10_000)   # doctest: +SKIP
    >>> plan.blocks(batch)              # a Polars batch of sdf's rows   # doctest: +SKIP
    """

    by: list[str]
    on: list[str]
    features: list[str]
    center: np.ndarray
    scale: np.ndarray
    std: np.ndarray
    feature: list[int]
    threshold: list[float]
    left: list[int]
    right: list[int]
    leaf: list[int]
    strata: pl.DataFrame
    leaf_block: np.ndarray
    block_sizes: np.ndarray
    n: int

    # -- the forest ---------------------------------------------------------------------
    def _new_leaf(self) -> int:
        self.feature.append(-1)
        self.threshold.append(0.0)
        self.left.append(-1)
        self.right.append(-1)
        self.leaf.append(self._n_leaves())
        return len(self.leaf) - 1

    def _n_leaves(self) -> int:
        return int(max(self.leaf, default=-1)) + 1

    def _split(self, node: int, j: int, thr: float) -> tuple[int, int]:
        a, b = self._new_leaf(), self._new_leaf()
        self.feature[node], self.threshold[node] = j, float(thr)
        self.left[node], self.right[node], self.leaf[node] = a, b, -1
        return a, b

    def scores(self, df: pl.DataFrame) -> np.ndarray:
        """The (n, d) float64 matrix the tree splits on: ``(x - center) * scale``."""
        if not self.features:
            return np.empty((df.height, 0))
        return df.select(     # a null (structural) sits at the centre: score 0
            ((pl.col(c).cast(pl.Float64).fill_null(float(m)) - float(m)) * float(s)).alias(c)
            for c, m, s in zip(self.features, self.center, self.scale)
        ).to_numpy().reshape(df.height, len(self.features))

    def roots(self, df: pl.DataFrame) -> np.ndarray:
        """The root node of each row's stratum."""
        if not self.by:
            return np.full(df.height, int(self.strata[ROOT][0]), dtype=np.int64)
        r = df.select(self.by).join(
            self.strata.select(*self.by, ROOT), on=self.by, how="left", nulls_equal=True, maintain_order="left"
        )[ROOT]
        if r.null_count():
            raise SDCError("a stratum appeared that was not there when the blocks were planned; "
                           "the input must be deterministic (cache it before blocking)")
        return r.to_numpy().astype(np.int64)

    def leaves(self, df: pl.DataFrame) -> np.ndarray:
        """The kd-tree leaf of every row of ``df`` (a walk down the forest, one numpy pass per level)."""
        feature = np.asarray(self.feature, dtype=np.int64)
        threshold = np.asarray(self.threshold, dtype=np.float64)
        left = np.asarray(self.left, dtype=np.int64)
        right = np.asarray(self.right, dtype=np.int64)
        leaf = np.asarray(self.leaf, dtype=np.int64)
        node = self.roots(df)
        X = self.scores(df)
        idx = np.flatnonzero(leaf[node] < 0)
        while idx.size:
            nd = node[idx]
            go_right = X[idx, feature[nd]] > threshold[nd]
            node[idx] = np.where(go_right, right[nd], left[nd])
            idx = idx[leaf[node[idx]] < 0]
        return leaf[node]

    def blocks(self, df: pl.DataFrame) -> np.ndarray:
        """The block id (int32) of every row of ``df``."""
        return self.leaf_block[self.leaves(df)].astype(np.int32)

    @property
    def n_blocks(self) -> int:
        return int(self.block_sizes.size)

    def __repr__(self) -> str:
        s = self.block_sizes
        return (f"BlockPlan(rows={self.n}, strata={self.strata.height}, blocks={s.size}, "
                f"block sizes {int(s.min()) if s.size else 0}..{int(s.max()) if s.size else 0})")


#: the stratum column microaggregation adds for the null pattern over `on` (its non-null columns)
NULLS = "__sdc_nulls"
SEP = "\x1f"          # between the names of a null pattern's non-null columns




def _stratum_label(row: Mapping[str, Any], by: Sequence[str]) -> str:
    return ", ".join(f"non-null `on` columns [{', '.join(row[c].split(SEP)) if row[c] else ''}]" if c == NULLS
                     else f"{c}={row[c]!r}" for c in by)


def _grow(plan: BlockPlan, node: int, Z: np.ndarray, est: float, split_at: float) -> bool:
    """Split leaf ``node`` (whose records are estimated at ``est``, represented by the sample
    rows ``Z``) until every leaf's estimate is <= ``split_at``. A node that needs m leaves is
    cut at its sample's floor(m/2)/m quantile on the column of largest variance, so the leaves
    come out close to ``split_at`` (not half of it, as median cuts of a power of two would
    give). Returns False when some node could not be split (its sample rows are all equal)."""
    ok = True
    stack = [(node, Z, est)]
    while stack:
        nd, sub, e = stack.pop()
        if e <= split_at or sub.shape[0] < 2 or sub.shape[1] == 0:
            ok &= e <= split_at
            continue
        m = int(np.ceil(e / split_at))
        q = (m // 2) / m
        chosen = None
        for j in np.argsort(-sub.var(axis=0), kind="stable"):
            col = sub[:, j]
            r = min(max(int(np.ceil(q * col.size)) - 1, 0), col.size - 1)
            thr = np.partition(col, r)[r]
            go_left = col <= thr
            if go_left.all():
                below = col[col < thr]
                if below.size == 0:
                    continue
                thr = below.max()
                go_left = col <= thr
            chosen = (int(j), float(thr), go_left)
            break
        if chosen is None:
            ok = False
            continue
        j, thr, go_left = chosen
        a, b = plan._split(nd, j, thr)
        frac = go_left.mean()
        stack.append((b, sub[~go_left], e * (1.0 - frac)))
        stack.append((a, sub[go_left], e * frac))
    return ok


def _subtree_leaves(plan: BlockPlan, node: int) -> list[int]:
    out, stack = [], [node]
    while stack:
        nd = stack.pop()
        if plan.leaf[nd] >= 0:
            out.append(plan.leaf[nd])
        else:
            stack += [plan.right[nd], plan.left[nd]]
    return out


def _merge_small(plan: BlockPlan, counts: np.ndarray, k: int, block_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Leaf -> block map: leaves with fewer than ``k`` records (and empty leaves) join the
    smallest block under their nearest ancestor that offers one."""
    n_nodes = len(plan.leaf)
    parent = np.full(n_nodes, -1, dtype=np.int64)
    node_of_leaf = np.full(plan._n_leaves(), -1, dtype=np.int64)  # -1: a leaf since split
    for nd in range(n_nodes):
        if plan.leaf[nd] < 0:
            parent[plan.left[nd]] = nd
            parent[plan.right[nd]] = nd
        else:
            node_of_leaf[plan.leaf[nd]] = nd
    block = np.arange(counts.size)           # union-find on leaves, by block representative
    size = counts.astype(np.int64).copy()

    def find(x: int) -> int:
        while block[x] != x:
            block[x] = block[block[x]]
            x = block[x]
        return x

    def target(leaf: int, need_room: int) -> int | None:
        me = find(leaf)
        nd = node_of_leaf[leaf]
        best = None
        while parent[nd] >= 0:
            nd = parent[nd]
            cands = {find(x) for x in _subtree_leaves(plan, nd)} - {me}
            cands = [c for c in cands if size[c] > 0]
            if cands:
                fits = [c for c in cands if size[c] + need_room <= block_rows] or cands
                best = min(fits, key=lambda c: (size[c], c))
                break
        return best

    while True:
        small = [r for r in range(counts.size) if find(r) == r and 0 < size[r] < k]
        if not small:
            break
        r = min(small, key=lambda x: (size[x], x))
        t = target(r, int(size[r]))
        if t is None:  # a stratum smaller than k is refused before blocking
            raise SDCError(f"internal: a block of {size[r]} rows < k has no neighbour")
        block[r] = t
        size[t] += size[r]
        size[r] = 0
    for leaf in range(counts.size):  # empty leaves: any block under their nearest ancestor
        if node_of_leaf[leaf] >= 0 and size[find(leaf)] == 0:
            t = target(leaf, 0)
            if t is not None:
                block[leaf] = t
    reps = np.array([find(x) for x in range(counts.size)])
    live = sorted({int(r) for r in reps if size[r] > 0})
    dense = {r: i for i, r in enumerate(live)}
    leaf_block = np.array([dense.get(int(r), 0) for r in reps], dtype=np.int32)
    return leaf_block, np.array([size[r] for r in live], dtype=np.int64)


def _leaf_counts(sdf: Any, plan: BlockPlan) -> np.ndarray:
    from pyspark.sql import functions as F

    leaves = assign(sdf.select(*plan.by, *plan.features), plan, column="__sdc_leaf", leaves=True)
    rows = leaves.groupBy("__sdc_leaf").agg(F.count(F.lit(1)).alias("n")).collect()
    counts = np.zeros(plan._n_leaves(), dtype=np.int64)
    for r in rows:
        counts[int(r["__sdc_leaf"])] = int(r["n"])
    return counts


@check_keywords
def plan_blocks(
    sdf: Any,
    k: int,
    on: ColumnSpec = None,
    *,
    by: ColumnSpec = None,
    block_rows: int = 100_000,
    standardize: bool = True,
    weights: Mapping[str, float] | None = None,
    seed: int = 0,
    sample_per_block: int = 200,
    max_rounds: int = 4,
    nulls: bool = False,
) -> BlockPlan:
    """Plan the blocks of a Spark DataFrame: every block holds >= k and <= ``block_rows``
    records of one stratum (see the module docstring for the steps). ``nulls=True``: nulls in
    ``on`` are structural (they stay null; microaggregation groups them by null pattern): a null
    scores at its column's centre, the means and standard deviations are those of the non-null
    values; else a null is an error. Only counts, the
    column means and standard deviations and a sample of about ``sample_per_block`` records
    per block reach the driver.

    >>> from pyspark.sql import SparkSession                       # doctest: +SKIP
    >>> plan = plan_blocks(sdf, 5, ["x", "y"], block_rows=10_000)   # doctest: +SKIP
    """
    require_pyspark(sdf, internal=(NULLS,))   # microaggregate plans on its null-pattern column
    from pyspark.sql import functions as F

    schema = polars_schema(sdf)
    by_cols = column_list(by)
    check_present(schema, by_cols, "by")
    if on is None:
        on_cols = [c for c, t in schema.items() if is_numeric(t) and c not in by_cols]
    else:
        on_cols = resolve_columns(schema, on, kind="supported")
    both = [c for c in on_cols if c in by_cols]
    if both:
        raise SDCError(f"column {both[0]!r}: cannot be both a quasi-identifier (on) and a stratum (by)")
    if not on_cols:
        raise SDCError("`on`: no quasi-identifier columns")
    k = check_int(k, "k", minimum=1)
    block_rows = check_int(block_rows, "block_rows (at least 2 k)", minimum=2 * k)
    weights = dict(weights or {})
    for c, w in weights.items():
        if c not in on_cols:
            raise SDCError(f"column {c!r}: has a weight but is not a quasi-identifier")
        if not (isinstance(w, (int, float)) and np.isfinite(w) and w >= 0):
            raise SDCError(f"column {c!r}: weight must be a finite number >= 0, got {w!r}")
    feats = [c for c in on_cols if is_numeric(schema[c])]

    # 1. one pass: per-stratum count, mean and sum of squared deviations (combined on the
    #    driver into the global mean and standard deviation, ddof 0 as the local z-scores),
    #    and the null / NaN / infinity counts of the quasi-identifiers
    aggs = [F.count(F.lit(1)).alias(COUNT)]
    for c in feats:
        x = F.col(c).cast("double")
        aggs += [F.mean(x).alias(f"__sdc_m_{c}"), (F.var_pop(x) * F.count(x)).alias(f"__sdc_q_{c}"),
                 F.count(x).alias(f"__sdc_n_{c}")]
    bad = bad_value_counts(sdf, on_cols, schema, nulls=nulls)
    grouped = sdf.groupBy(*by_cols).agg(*aggs, *bad) if by_cols else sdf.agg(*aggs, *bad)
    strata = pl.from_arrow(grouped.toArrow())
    raise_bad(on_cols, bad_totals(strata))
    counts_s = strata[COUNT].to_numpy().astype(np.float64)
    n = int(counts_s.sum())
    if n < k:
        raise SDCError(f"k = {k} is larger than the number of rows ({n})")
    center = np.zeros(len(feats))
    std = np.zeros(len(feats))
    for j, c in enumerate(feats):   # Chan et al.'s pairwise combination of (count, mean, M2)
        m = strata[f"__sdc_m_{c}"].fill_null(0.0).to_numpy()
        q = strata[f"__sdc_q_{c}"].fill_null(0.0).to_numpy()
        cnt = strata[f"__sdc_n_{c}"].to_numpy().astype(np.float64)      # the non-null values
        nn = float(cnt.sum())
        if nn == 0:
            continue
        mean = float((cnt * m).sum() / nn)
        m2 = float(q.sum() + (cnt * (m - mean) ** 2).sum())
        center[j], std[j] = mean, float(np.sqrt(max(m2, 0.0) / nn))
    w = np.array([float(weights.get(c, 1.0)) for c in feats])
    if standardize:
        scale = np.where(std > 0, np.sqrt(w) / np.where(std > 0, std, 1.0), 0.0)
    else:
        scale = np.sqrt(w)
    strata = strata.select(*by_cols, COUNT)
    if by_cols:
        strata = strata.sort(by_cols, nulls_last=True)
        for r in strata.iter_rows(named=True):
            if r[COUNT] < k:
                raise SDCError(f"stratum {_stratum_label(r, by_cols)}: {r[COUNT]} rows < k = {k}")
    strata = strata.with_columns(pl.int_range(pl.len()).cast(pl.Int64).alias(ROOT))  # root = node i
    plan = BlockPlan(by_cols, on_cols, feats, center, scale, std, [], [], [], [], [], strata,
                     np.zeros(0, np.int32), np.zeros(0, np.int64), n)
    for _ in range(strata.height):
        plan._new_leaf()

    # 2. trees from a sample, for strata larger than the split size
    split_at = 0.85 * block_rows
    limit = block_rows - k + 1
    big = strata.filter(pl.col(COUNT) > split_at)
    if big.height and feats:
        fraction = min(1.0, sample_per_block / (0.375 * block_rows))
        part = sdf.select(*by_cols, *feats)
        if fraction < 1.0:
            part = part.sample(fraction=fraction, seed=seed)
        sample = pl.from_arrow(part.toArrow())
        for r in big.iter_rows(named=True):
            sub = sample
            for c in by_cols:
                sub = sub.filter(pl.col(c).is_null() if r[c] is None else pl.col(c) == r[c])
            Z = plan.scores(sub)
            est = float(r[COUNT])
            _grow(plan, int(r[ROOT]), Z, est, split_at)  # False: a leaf too tied to split

    # 3. exact leaf counts; split the leaves still too large from their own sample
    counts = _leaf_counts(sdf, plan)
    for round_ in range(max_rounds):
        over = [leaf for leaf in range(counts.size) if counts[leaf] > limit]
        if not over or not feats:
            break
        leaf_node = {plan.leaf[nd]: nd for nd in range(len(plan.leaf)) if plan.leaf[nd] >= 0}
        fractions = {leaf: min(1.0, 4.0 * sample_per_block / counts[leaf]) for leaf in over}
        tagged = assign(sdf.select(*plan.by, *plan.features), plan, column="__sdc_leaf", leaves=True)
        tagged = tagged.where(F.col("__sdc_leaf").isin(over))
        if max(fractions.values()) < 1.0:
            tagged = tagged.sampleBy("__sdc_leaf", fractions, seed=seed + 1 + round_)
        sample = pl.from_arrow(tagged.toArrow())
        for leaf in over:
            sub = sample.filter(pl.col("__sdc_leaf") == leaf)
            _grow(plan, leaf_node[leaf], plan.scores(sub), float(counts[leaf]), limit / 2.0)
        counts = _leaf_counts(sdf, plan)

    # 4. small leaves join a neighbour
    plan.leaf_block, plan.block_sizes = _merge_small(plan, counts, k, block_rows)
    # a leaf that could not be split is harmless when every block still holds at most
    # block_rows; warn only about blocks that really exceed it
    if (plan.block_sizes > block_rows).any():
        warnings.warn(
            f"some blocks have more than block_rows = {block_rows} records (largest: {int(plan.block_sizes.max())}); "
            "their quasi-identifiers are too often equal to split them", stacklevel=2,
        )
    return plan


_M32 = np.uint64(0xFFFFFFFF)


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & _M32


def _mix_k1(k: np.ndarray) -> np.ndarray:
    k = (k * np.uint64(0xCC9E2D51)) & _M32
    return (_rotl(k, 15) * np.uint64(0x1B873593)) & _M32


def _mix_h1(h: np.ndarray, k: np.ndarray) -> np.ndarray:
    h = _rotl(h ^ k, 13)
    return (h * np.uint64(5) + np.uint64(0xE6546B64)) & _M32


def spark_hash_long(x: np.ndarray) -> np.ndarray:
    """Spark's ``hash(x)`` of a long column (Murmur3 x86_32 of the 8 bytes, seed 42), as int32:
    the hash Spark's ``repartition(n, col)`` takes modulo n.

    >>> spark_hash_long(np.array([0, 1, 2])).tolist()   # Spark SQL: SELECT hash(0L), hash(1L), hash(2L)
    [-1670924195, -1712319331, -797927272]
    """
    u = np.asarray(x, dtype=np.int64).view(np.uint64)
    low, high = u & _M32, (u >> np.uint64(32)) & _M32
    h = _mix_h1(np.full(u.shape, 42, dtype=np.uint64), _mix_k1(low))
    h = _mix_h1(h, _mix_k1(high)) ^ np.uint64(8)
    h = (((h ^ (h >> np.uint64(16))) * np.uint64(0x85EBCA6B)) & _M32)
    h = (((h ^ (h >> np.uint64(13))) * np.uint64(0xC2B2AE35)) & _M32)
    h = h ^ (h >> np.uint64(16))
    return h.astype(np.uint32).view(np.int32)


def partition_labels(n: int) -> np.ndarray:
    """For i = 0 .. n-1 a long whose Spark hash partition among ``n`` (``pmod(hash(label), n)``)
    is i, computed on the driver without a Spark job: repartitioning by the label of its block
    puts every block in a task of its own, so no task gets two blocks while another idles
    (hash collisions of the block ids would).

    >>> labels = partition_labels(5)
    >>> (spark_hash_long(labels).astype(np.int64) % 5).tolist()
    [0, 1, 2, 3, 4]
    """
    labels = np.full(n, -1, dtype=np.int64)
    start, step = 0, 64 * max(n, 1)
    while (labels < 0).any():
        ids = np.arange(start, start + step, dtype=np.int64)
        part = spark_hash_long(ids).astype(np.int64) % max(n, 1)
        first = np.full(n, -1, dtype=np.int64)
        order = np.argsort(part, kind="stable")
        p_sorted = part[order]
        heads = np.flatnonzero(np.r_[True, p_sorted[1:] != p_sorted[:-1]])
        first[p_sorted[heads]] = ids[order[heads]]
        labels = np.where(labels < 0, first, labels)
        start += step
    return labels


def _forest_arrays(plan: BlockPlan) -> tuple[list[int], list[float], list[int], list[int], int]:
    """Node arrays for the walk in Spark SQL: a leaf points to itself on both sides (so the
    walk stays on it) and splits on column 0; plus the depth of the deepest leaf."""
    n = len(plan.leaf)
    feat, thr, left, right = [], [], [], []
    for nd in range(n):
        internal = plan.leaf[nd] < 0
        feat.append(int(plan.feature[nd]) if internal else 0)
        thr.append(float(plan.threshold[nd]) if internal else 0.0)
        left.append(int(plan.left[nd]) if internal else nd)
        right.append(int(plan.right[nd]) if internal else nd)
    depth = np.zeros(n, dtype=np.int64)
    for nd in range(n):  # children are created after their parent: one forward pass
        if plan.leaf[nd] < 0:
            depth[plan.left[nd]] = depth[plan.right[nd]] = depth[nd] + 1
    return feat, thr, left, right, int(depth.max(initial=0))


def assign(sdf: Any, plan: BlockPlan, *, column: str = "block", leaves: bool = False,
           part_column: str | None = None, part_labels: np.ndarray | None = None) -> Any:
    """``sdf`` with an int32 ``column``: each record's block (or kd leaf) under ``plan``;
    ``part_column`` adds the block's :func:`partition_labels` label (int64).

    The walk down the forest is Spark SQL (no Python worker, no shuffle): the plan's node
    arrays come as one broadcast row, the stratum's root from a broadcast join, and each
    level of the tree is one projection ``node = z[feature[node]] > threshold[node] ?
    right[node] : left[node]`` on the scores ``z = (x - center) * scale`` — the same float64
    operations as :meth:`BlockPlan.leaves`, so the same leaf for every record.
    """
    require_pyspark()
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType

    if column in sdf.columns:
        raise SDCError(f"column {column!r}: already in the frame; choose another block column name")
    node, zcol, root = "__sdc_node", "__sdc_z", "__sdc_root_node"
    out = sdf
    if plan.by:
        spark = sdf.sparkSession
        names = [f"__sdc_by{i}" for i in range(len(plan.by))]
        by_fields = {f.name: f for f in sdf.schema.fields}
        schema = StructType([StructField(nm, by_fields[c].dataType, True) for nm, c in zip(names, plan.by)]
                            + [StructField(root, LongType(), False)])
        strata = spark.createDataFrame(plan.strata.select(*plan.by, ROOT).rows(), schema=schema)
        cond = [F.col(c).eqNullSafe(F.col(nm)) for c, nm in zip(plan.by, names)]
        out = out.join(F.broadcast(strata), on=cond, how="left").drop(*names)
        msg = ("a stratum appeared that was not there when the blocks were planned; "
               "the input must be deterministic (cache it before blocking)")
        out = out.withColumn(node, F.when(F.col(root).isNull(), F.raise_error(F.lit(msg))).otherwise(F.col(root)))
        out = out.drop(root)
    else:
        out = out.withColumn(node, F.lit(int(plan.strata[ROOT][0])).cast("long"))
    feat, thr, left, right, depth = _forest_arrays(plan)
    leaf = np.asarray([max(x, 0) for x in plan.leaf], dtype=np.int64)
    if leaves:
        value = leaf
    else:
        value = plan.leaf_block[leaf].astype(np.int64) if plan.leaf_block.size else np.zeros(leaf.size, np.int64)
    # the node arrays travel as one broadcast row (array columns), not as literals: a plan
    # with thousands of nodes stays small to analyse whatever the depth of the tree
    arrays = sdf.sparkSession.createDataFrame(
        [(feat, thr, left, right, value.tolist(),
          np.asarray(part_labels if part_labels is not None else [], dtype=np.int64).tolist())],
        "__sdc_feat array<int>, __sdc_thr array<double>, __sdc_left array<long>, __sdc_right array<long>, "
        "__sdc_value array<long>, __sdc_labels array<long>",
    )
    out = out.crossJoin(F.broadcast(arrays))
    if depth:
        out = out.withColumn(zcol, F.array(*[
            ((F.coalesce(F.col(c).cast("double"), F.lit(float(m))) - F.lit(float(m))) * F.lit(float(s)))
            for c, m, s in zip(plan.features, plan.center, plan.scale)
        ]))
        n = F.col(node)
        for _ in range(depth):
            out = out.withColumn(node, F.when(F.col(zcol)[F.col("__sdc_feat")[n]] > F.col("__sdc_thr")[n],
                                              F.col("__sdc_right")[n]).otherwise(F.col("__sdc_left")[n]))
        out = out.drop(zcol)
    out = out.withColumn(column, F.col("__sdc_value")[F.col(node)].cast("int"))
    if part_column is not None:
        out = out.withColumn(part_column, F.col("__sdc_labels")[F.col(column)].cast("long"))
    out = out.drop("__sdc_feat", "__sdc_thr", "__sdc_left", "__sdc_right", "__sdc_value", "__sdc_labels")
    return out.drop(node)


def assign_blocks(
    sdf: Any,
    k: int,
    on: ColumnSpec = None,
    *,
    column: str = "block",
    **options: Any,
) -> Any:
    """``sdf`` with a ``column`` of block ids (int32) from :func:`plan_blocks` (same options):
    every block holds >= k and <= ``block_rows`` records of one stratum.

    >>> blocked = assign_blocks(sdf, 5, ["x", "y"], block_rows=10_000)   # doctest: +SKIP
    """
    return assign(sdf, plan_blocks(sdf, k, on, **options), column=column)
