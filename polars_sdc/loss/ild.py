"""ILD: information loss based on distance (Akiyama & Wada section 2, thesis 3.1).

Information amount ``I(A) = sum_i sum_j d(x_i, x_j)^e`` over ordered pairs of rows (e = 2 in
the papers, which also tabulate e = 1), and ``ILD = (I(A) - I(A_hat)) / I(A)`` when each row is
replaced by its released value. The naive sum is O(N^2); here:

* Euclidean distance, e = 2: ``I = 2 N SST`` (Akiyama & Wada eq. 3), O(N); with group means
  ``I(A) - I(A_hat) = 2 N SSE``, so ILD == SSE / SST (eq. 6) -- computed by :mod:`.sse`;
* one numeric column (or ordinal scores), e = 1: ``I = 2 sum_k gap_k * below_k * above_k``
  over the sorted values, O(N log N);
* any distance on a column: ``I = sum_u sum_v c_u c_v d(u, v)^e`` over its U distinct values;
* the product distance with e = 2: ``I = sum_b w_b I_b`` (thesis 3.1.3);
* anything else (a p-norm other than 2 over several columns, the product distance with
  e != 2): the pairwise sum over distinct records in a Numba kernel, O(R^2) time, O(R) memory.

One module on purpose (~550 lines): the fast paths and the pairwise fallback compute one
quantity and are checked against each other; splitting them would separate a path from its
reference.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from . import dist as _dist
from .._columns import check_no_nulls, did_you_mean, is_categorical, is_numeric, numeric_matrix, resolve_columns
from .._errors import SDCError
from .._signature import same_parameters


@dataclass(frozen=True)
class Block:
    """Columns measured together by one distance (one factor of the product distance)."""

    columns: tuple[str, ...]
    distance: _dist.Distance

    @property
    def label(self) -> str:
        return _dist._label(self.columns)


def resolve_blocks(
    schema: Mapping[str, pl.DataType],
    dist: Any = None,
    on: Any = None,
    weights: Any = None,
    exclude: Sequence[str] = (),
) -> tuple[list[Block], Any]:
    """Blocks (columns + distance) and the weights spec from the user's ``dist``/``on``/``weights``.

    ``dist``: None (Euclidean for numeric, discrete otherwise, per column); a mapping or
    :func:`polars_sdc.dist.product` (column or tuple of columns -> distance; columns of ``on``
    not mentioned get the default); or one distance: a distance that spans several columns
    (p-norms, discrete, a function) measures the ``on`` columns together as records, any other
    is applied to each column and combined by the product distance.
    """
    if isinstance(dist, Mapping):
        dist = _dist.product(dist, weights)
    elif isinstance(dist, _dist.Product):
        if weights is not None:
            raise SDCError("weights: give the weights once, in dist.product(...) or as weights=")
    elif weights is not None and weights != "amount" and not isinstance(weights, Mapping):
        raise SDCError('weights: expected None, "amount" or a mapping column(s) -> weight')
    if isinstance(dist, _dist.Product):
        listed = [c for cols in dist.parts for c in cols]
        resolve_columns(schema, listed, what="dist")
        if on is None:
            cols = listed
        else:
            cols = resolve_columns(schema, on)
            extra = [c for c in listed if c not in cols]
            if extra:
                raise SDCError(f"column {extra[0]!r}: named in dist but not in `on`")
        blocks = [Block(k, d) for k, d in dist.parts.items()]
        blocks += [Block((c,), _dist.default_for(schema[c])) for c in cols if c not in listed]
        wspec = dist.weights
    else:
        if on is None:
            cols = [c for c, t in schema.items() if c not in exclude and (is_numeric(t) or is_categorical(t))]
            if not cols:
                raise SDCError("`on`: no column left to measure")
        else:
            cols = resolve_columns(schema, on)
        if dist is None:
            blocks = [Block((c,), _dist.default_for(schema[c])) for c in cols]
        else:
            d = _dist.get(dist)
            blocks = [Block(tuple(cols), d)] if d.multi else [Block((c,), d) for c in cols]
        wspec = weights
        if isinstance(wspec, Mapping):
            wspec = _dist.product({b.columns: b.distance for b in blocks}, wspec).weights
    for b in blocks:
        b.distance.check(b.columns, schema)
    return blocks, wspec


# -- amounts -----------------------------------------------------------------------------
def _distinct(frame: pl.DataFrame, cols: Sequence[str]) -> tuple[pl.DataFrame, np.ndarray]:
    """Distinct rows of ``cols`` (sorted, so results are deterministic) and their counts."""
    name = "__sdc_n__"
    while name in cols:
        name += "_"
    g = frame.group_by(list(cols)).agg(pl.len().alias(name)).sort(list(cols))
    return g.select(cols), g.get_column(name).cast(pl.Float64).to_numpy()


def amount_1d(x: np.ndarray, exponent: float, counts: np.ndarray | None = None) -> float:
    """``sum_i sum_j |x_i - x_j|^e`` of one numeric variable (values with optional counts):
    e = 2 by ``2 N sum c (x - mean)^2``, e = 1 by the gaps of the sorted values; else pairs.

    >>> amount_1d(np.array([1.0, 2.0, 3.0, 4.0]), 2), amount_1d(np.array([1.0, 2.0, 3.0, 4.0]), 1)
    (40.0, 20.0)
    """
    from .sse import sst

    x = np.asarray(x, dtype=np.float64)
    if exponent == 2:
        if counts is None:
            return 2.0 * x.size * sst(x)
        c = np.asarray(counts, dtype=np.float64)
        n = c.sum()
        m = (c * x).sum() / n
        return float(2.0 * n * (c * (x - m) ** 2).sum())
    if exponent == 1:
        order = np.argsort(x, kind="stable")
        xs = x[order]
        c = np.ones(x.size) if counts is None else np.asarray(counts, dtype=np.float64)[order]
        below = np.cumsum(c)[:-1]
        n = c.sum()
        return float(2.0 * (np.diff(xs) * below * (n - below)).sum())
    c = np.ones(x.size) if counts is None else np.asarray(counts, dtype=np.float64)
    return _pairwise(c, x.reshape(-1, 1), [(1, 2.0, 1.0)], [], exponent)


def _pairwise(
    counts: np.ndarray,
    num: np.ndarray,
    num_blocks: Sequence[tuple[int, float, float]],
    cat_blocks: Sequence[tuple[np.ndarray, np.ndarray, float]],
    exponent: float,
) -> float:
    """The kernel :func:`polars_sdc.kernels.ild.pairwise_amount` over distinct records.

    ``num_blocks``: (number of columns, p, weight) per numeric block, in ``num``'s column
    order; ``cat_blocks``: (codes per record, distance matrix, weight).
    """
    from ..kernels.ild import pairwise_amount
    from ..progress import active_counter

    done = active_counter()  # the share of pairs done, read by an open progress bar
    R = counts.size
    num_block = np.repeat(np.arange(len(num_blocks), dtype=np.int64), [b[0] for b in num_blocks])
    num_p = np.array([b[1] for b in num_blocks], dtype=np.float64)
    num_w = np.array([b[2] for b in num_blocks], dtype=np.float64)
    codes = np.zeros((R, len(cat_blocks)), dtype=np.int64)
    mats, off, size = [], [], []
    pos = 0
    for j, (cd, D, _) in enumerate(cat_blocks):
        codes[:, j] = cd
        mats.append(np.ascontiguousarray(D, dtype=np.float64).ravel())
        off.append(pos)
        size.append(D.shape[0])
        pos += D.size
    return float(
        pairwise_amount(
            np.ascontiguousarray(counts, dtype=np.float64),
            np.ascontiguousarray(num, dtype=np.float64).reshape(R, -1),
            num_block, num_p, num_w, codes,
            np.concatenate(mats) if mats else np.zeros(0),
            np.array(off, dtype=np.int64), np.array(size, dtype=np.int64),
            np.array([b[2] for b in cat_blocks], dtype=np.float64),
            float(exponent),
            done if done is not None else np.zeros(1),
        )
    )


def _records_amount(frame: pl.DataFrame, blocks: Sequence[Block], weights: Sequence[float], exponent: float,
                    shifts: Sequence[int] | None = None) -> float:
    """I over distinct records of all blocks' columns for the product distance (pairwise); a
    Euclidean block with a shift E (``shifts``) is measured on its values times 2^-E."""
    cols = [c for b in blocks for c in b.columns]
    values, counts = _distinct(frame, cols)
    num_cols, num_blocks, cat_blocks, num_shift = [], [], [], []
    for b, w, sh in zip(blocks, weights, shifts or [0] * len(blocks)):
        if isinstance(b.distance, _dist.PNorm):
            num_cols += b.columns
            num_shift += [sh] * len(b.columns)
            num_blocks.append((len(b.columns), b.distance.p, w))
        else:
            bvals, _ = _distinct(values, b.columns)
            code = "__sdc_code__"
            codes = (
                values.select(b.columns)
                .join(bvals.with_row_index(code), on=list(b.columns), how="left", maintain_order="left", nulls_equal=True)
                .get_column(code).to_numpy().astype(np.int64)
            )
            cat_blocks.append((codes, b.distance.pairwise(bvals), w))
    num = numeric_matrix(values, num_cols) if num_cols else np.zeros((values.height, 0))
    if any(num_shift):
        num = np.ldexp(num, -np.array(num_shift, dtype=np.int64))
    return _pairwise(counts, num, num_blocks, cat_blocks, exponent)


def block_amount(frame: pl.DataFrame, block: Block, exponent: float, shift: int = 0) -> float:
    """``I`` of one block of ``frame`` with the block's distance and the given exponent; a
    Euclidean (p-norm) block with ``shift`` E is measured on its values times 2^-E (exact), so
    the result is ``I / 2^(exponent E)``."""
    d, cols = block.distance, list(block.columns)
    if isinstance(d, _dist.PNorm):
        X = numeric_matrix(frame, cols)
        if shift:
            X = np.ldexp(X, -shift)
        if exponent == 2 and (d.p == 2 or len(cols) == 1):
            return sum(amount_1d(X[:, j], 2) for j in range(len(cols)))
        if exponent == 1 and (d.p == 1 or len(cols) == 1):
            return sum(amount_1d(X[:, j], 1) for j in range(len(cols)))
        values, counts = _distinct(frame, cols)
        V = numeric_matrix(values, cols)
        return _pairwise(counts, np.ldexp(V, -shift) if shift else V, [(len(cols), d.p, 1.0)], [], exponent)
    check_no_nulls(frame, cols)
    if frame.height == 0:
        return 0.0
    values, counts = _distinct(frame, cols)
    if isinstance(d, _dist.Ordinal):
        return amount_1d(d.scores(values.to_series()), exponent, counts)
    return d.amount(values, counts, exponent)


def _ratio(before: float, after: float) -> float:
    """(before - after) / before, never negative: a release can spread a discrete column more
    evenly than the original (a group's most frequent value as representative), which raises
    I; that is no gain of information, so it is reported as no loss (0). NaN stays NaN."""
    if before > 0:
        r = (before - after) / before
        return 0.0 if r < 0 else r
    return 0.0 if after == 0 else math.nan


def _p2(x: float, lg: float) -> float:
    """x * 2^lg without a spurious overflow of the power itself (inf only if the product is)."""
    if x == 0 or lg == 0:
        return x
    half = lg / 2
    try:
        return x * 2.0**half * 2.0 ** (lg - half)
    except OverflowError:
        return math.copysign(math.inf, x)


def _scaled_weights(w: Sequence[float], wexp: Sequence[int], shifts: Sequence[int]) -> tuple[list[float], int]:
    """The block weights of the pairwise product distance on values scaled by 2^-E_b: block b's
    squared distance is 2^(2 E_b) times the scaled one, and its weight is w_b 2^wexp_b, so it
    enters as w_b 2^(wexp_b + 2 E_b - top), with ``top`` the largest such power (weights <= 1:
    d^2 = 2^top d_scaled^2, nothing overflows). Without shifts: (w, 0) unchanged."""
    if not any(shifts) and not any(wexp):
        return list(w), 0
    lg = [math.frexp(wi)[1] + we + 2 * sh for wi, we, sh in zip(w, wexp, shifts) if wi > 0]
    top = max(lg, default=0)
    return [_p2(wi, we + 2 * sh - top) for wi, we, sh in zip(w, wexp, shifts)], top


def _block_shift(orig: pl.DataFrame, rel: pl.DataFrame | None, block: Block) -> int:
    """E with the Euclidean block's |values| below 2^E, when they lie outside 2^+-100; else 0."""
    from ..standardize import SAFE_EXP, pow2_exponent

    if not isinstance(block.distance, _dist.PNorm):
        return 0
    cols = list(block.columns)
    e = pow2_exponent(numeric_matrix(orig, cols))
    if rel is not None and rel.height and all(c in rel.columns for c in cols):
        e = max(e, pow2_exponent(numeric_matrix(rel, cols)))
    return 0 if -SAFE_EXP <= e <= SAFE_EXP else e


# -- the report --------------------------------------------------------------------------
@dataclass(frozen=True)
class ILDReport:
    """Information amounts and ILD, per block of columns and overall (thesis 3.1.2).

    ``amount`` / ``amount_masked`` are each block's ``I`` on the original and the release
    (with the exponent, unweighted); ``total`` / ``total_masked`` are ``I`` of the product
    distance with ``weights``; ``ild`` is the overall loss, ``by_column`` the per-block losses.
    ``skipped`` (per block) and ``skipped_overall``: the rows left out for structural nulls.

    >>> import polars as pl, polars_sdc
    >>> orig = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    >>> rep = orig.sdc.ild_report(pl.DataFrame({"x": [1.5, 1.5, 3.5, 3.5]}))
    >>> rep.ild, rep.by_column, rep.total, rep.total_masked        # ILD = 1 - 32 / 40
    (0.2, {'x': 0.2}, 40.0, 32.0)
    """

    columns: tuple[str, ...]
    distances: tuple[str, ...]
    weights: tuple[float, ...]
    amount: tuple[float, ...]
    amount_masked: tuple[float, ...]
    total: float
    total_masked: float
    exponent: float
    # (overall, per block) losses formed from rescaled amounts when some block needed it
    ratios: tuple[float, tuple[float, ...]] | None = field(default=None, repr=False, compare=False)
    #: structural nulls: the rows each block left out (a null in one of its columns) and overall
    skipped: tuple[int, ...] = ()
    skipped_overall: int = 0

    @property
    def ild(self) -> float:
        if self.ratios is not None:
            return self.ratios[0]
        return _ratio(self.total, self.total_masked)

    @property
    def by_column(self) -> dict[str, float]:
        if self.ratios is not None:
            return dict(zip(self.columns, self.ratios[1]))
        return {c: _ratio(a, m) for c, a, m in zip(self.columns, self.amount, self.amount_masked)}

    def to_frame(self) -> pl.DataFrame:
        """One row per block and a last row ``"(overall)"``: distance, weight, I(A), I(A_hat), ILD
        and the rows skipped for a null.

        >>> df = pl.DataFrame({"x": [1, 2, 3, 4], "g": [0, 0, 1, 1]})
        >>> ild_report(df, groups="g").to_frame().select("column", "I", "I_masked", "ild").rows()
        [('x', 40.0, 32.0, 0.2), ('(overall)', 40.0, 32.0, 0.2)]
        """
        return pl.DataFrame(
            {
                "column": [*self.columns, "(overall)"],
                "distance": [*self.distances, "product" if len(self.columns) > 1 else self.distances[0]],
                "weight": [*self.weights, None],
                "I": [*self.amount, self.total],
                "I_masked": [*self.amount_masked, self.total_masked],
                "ild": [*self.by_column.values(), self.ild],
                "skipped": [*(self.skipped or (0,) * len(self.columns)), self.skipped_overall],
            },
            schema={"column": pl.String, "distance": pl.String, "weight": pl.Float64,
                    "I": pl.Float64, "I_masked": pl.Float64, "ild": pl.Float64, "skipped": pl.Int64},
        )

    def __repr__(self) -> str:
        w = max(len(c) for c in [*self.columns, "(overall)"])
        nulls = f", {self.skipped_overall} rows with nulls skipped" if self.skipped_overall else ""
        lines = [f"ILDReport(exponent={self.exponent:g}, ILD={self.ild:.6g}{nulls})"]
        for c, d, wt, a, m, l in zip(
            self.columns, self.distances, self.weights, self.amount, self.amount_masked, self.by_column.values()
        ):
            lines.append(f"  {c:<{w}}  ILD={l:<10.6g} I={a:<12.6g} I_masked={m:<12.6g} w={wt:.4g}  {d}")
        lines.append(f"  {'(overall)':<{w}}  ILD={self.ild:<10.6g} I={self.total:<12.6g} I_masked={self.total_masked:<12.6g}")
        return "\n".join(lines)


def _released(
    original: pl.DataFrame, masked: Any, groups: Any, cols: Sequence[str], grouped_cols: Sequence[str]
) -> tuple[pl.DataFrame, Any]:
    """The release restricted to ``cols`` and None, or, with ``groups``, the partition's
    representatives (``aggregate``; a structural null stays null, the representative is over
    the group's non-null values) of ``grouped_cols`` and the group ids."""
    from ..aggregate import aggregate
    from ..partition import group_ids

    if (masked is None) == (groups is None):
        raise SDCError("ILD needs exactly one of `masked` (a row-aligned release) or `groups` (a partition)")
    if groups is not None:
        g = group_ids(original, groups)
        if not grouped_cols:
            return pl.DataFrame(), g
        keep_nulls = original.select(grouped_cols).null_count().sum_horizontal().item() > 0
        return aggregate(original.select(grouped_cols), g, grouped_cols, keep_nulls=keep_nulls), g
    if isinstance(masked, pl.LazyFrame):
        names = masked.collect_schema().names()
        missing = [c for c in cols if c not in names]
        if missing:
            raise SDCError(f"column {missing[0]!r}: not in the masked frame{did_you_mean(missing[0], names)}")
        masked = masked.select(cols).collect()
    if not isinstance(masked, pl.DataFrame):
        raise SDCError(f"masked: expected a DataFrame or LazyFrame, got {type(masked).__name__}")
    missing = [c for c in cols if c not in masked.columns]
    if missing:
        raise SDCError(f"column {missing[0]!r}: not in the masked frame{did_you_mean(missing[0], masked.columns)}")
    if masked.height != original.height:
        raise SDCError(
            f"masked frame has {masked.height} rows, the original {original.height}; they must be row-aligned"
        )
    return masked.select(cols), None


def _by_sse(block: Block, exponent: float, grouped: bool) -> bool:
    """Euclidean block, e = 2, group means: I(A) - I(A_hat) = 2 N SSE (Akiyama & Wada eq. 5)."""
    d = block.distance
    return grouped and exponent == 2 and isinstance(d, _dist.PNorm) and (d.p == 2 or len(block.columns) == 1)


def _weights(blocks: Sequence[Block], wspec: Any, amounts2: Sequence[float]) -> list[float]:
    if wspec is None:
        return [1.0] * len(blocks)
    if wspec == "amount":
        return [1.0 / a if a > 0 else 0.0 for a in amounts2]
    return [wspec.get(b.columns, 1.0) for b in blocks]


def _total(frame: pl.DataFrame, blocks: Sequence[Block], w: Sequence[float], per_block: Sequence[float], e: float) -> float:
    if e == 2:
        return float(sum(wi * a for wi, a in zip(w, per_block)))
    if len(blocks) == 1:
        return float(w[0] ** (e / 2) * per_block[0])
    return _records_amount(frame, blocks, w, e)


def _amounts(frames, blocks, shifts, by_sse, e, wspec, pb):
    """I of every block on the original and the release (and with e = 2 for weights "amount");
    ``frames``: per block (original, release, group ids), its rows without nulls."""
    amounts, masked_amounts, amounts2 = [], [], []
    for b, sh, (orig, rel, gids) in zip(blocks, shifts, frames):
        with pb.waiting(f"{b.label}, original", counter="share"):  # one unit, done at exit
            a = block_amount(orig, b, e, sh)
        if b.columns in by_sse:
            from .sse import sse

            # group means: I(A) - I(A_hat) = 2 N SSE (Akiyama & Wada eq. 5), no cancellation
            X = numeric_matrix(orig, list(b.columns))
            m = a - 2.0 * orig.height * sse(np.ldexp(X, -sh) if sh else X, gids.to_numpy())
            m = max(m, 0.0)
            pb.advance()
        elif _unchanged(orig, rel, b.columns):
            m = a  # the release left these columns as they were: exactly no loss
            pb.advance()
        else:
            with pb.waiting(f"{b.label}, release", counter="share"):
                m = block_amount(rel, b, e, sh)
        amounts.append(a)
        masked_amounts.append(m)
        if wspec == "amount":
            amounts2.append(a if e == 2 else block_amount(orig, b, 2, sh))
    return amounts, masked_amounts, amounts2


def ild_report(
    original: pl.DataFrame,
    masked: pl.DataFrame | pl.LazyFrame | None = None,
    *,
    groups: Any = None,
    dist: Any = None,
    on: Any = None,
    weights: Any = None,
    exponent: float = 2,
    progress: bool = False,
) -> ILDReport:
    """ILD of a release, per block of columns and overall (thesis 3.1.2, Akiyama & Wada 2.2).

    The release is ``masked`` (row-aligned with ``original``) or, with ``groups`` (a column
    name or ids), each group replaced by its representative (:func:`polars_sdc.aggregate`:
    mean / most frequent value). ``dist``, ``on`` and ``weights``: see :func:`resolve_blocks`
    and :func:`polars_sdc.dist.product`; ``exponent`` is e in ``I = sum d^e`` (2 or 1 in the
    papers; any e > 0). ``progress=True`` shows a bar on stderr: the information amounts
    computed (two per block of columns, two more for a pairwise product distance) out of all,
    with the elapsed time moving inside a long pairwise sum. Akiyama & Wada example 2.1:

    >>> df = pl.DataFrame({"x": [1, 2, 3, 4], "g": [0, 0, 1, 1]})
    >>> r = ild_report(df, groups="g", on="x")
    >>> r.total, r.total_masked, r.ild
    (40.0, 32.0, 0.2)
    """
    e = _check_exponent(exponent)
    _check_rows(original)
    exclude = [groups] if isinstance(groups, str) else []
    blocks, wspec = resolve_blocks(original.schema, dist, on, weights, exclude)
    cols = list(dict.fromkeys(c for b in blocks for c in b.columns))
    grouped = groups is not None
    # blocks measured through SSE need no released values (with e = 2 nothing else does)
    by_sse = {b.columns for b in blocks if _by_sse(b, e, grouped)}
    grouped_cols = [c for b in blocks if b.columns not in by_sse for c in b.columns] if e == 2 else cols
    # Int64 / UInt64 beyond 2^53 under a p-norm: measured as exact differences from an offset
    from .exact import centered, int_offsets

    offsets = int_offsets(original, [c for b in blocks if isinstance(b.distance, _dist.PNorm) for c in b.columns])
    original = centered(original, offsets)
    rel, gids = _released(original, masked, groups, cols, list(dict.fromkeys(grouped_cols)))
    if groups is None:
        rel = centered(rel, offsets)
    orig = original.select(cols)
    # structural nulls: a block is measured on the rows without a null in its columns (the
    # release keeps the original's nulls where they are); a pairwise product distance
    # (e != 2, several blocks) on the records complete in every column
    from .nulls import check_null_pattern, null_counts

    nulls = check_null_pattern(orig, rel, cols) if groups is None else null_counts(orig, cols)
    frames, skipped = _block_frames(orig, rel, gids, blocks, any(nulls.values()))
    bound = []
    for b, (o, r, _) in zip(blocks, frames):
        if b.columns in by_sse:
            bound.append(Block(b.columns, b.distance.bind(b.columns, [o])))
        else:
            b.distance.check(b.columns, rel.schema)
            bound.append(Block(b.columns, b.distance.bind(b.columns, [o, r])))
    blocks = bound
    # a Euclidean block of huge or tiny values (|x| ~ 1e200, 1e-170) is measured on its columns
    # rescaled by a power of two 2^-E (exact): its amounts are a_s * 2^(e E), and the ratios
    # are formed from the scaled numbers, so squares neither overflow nor underflow
    # (with e != 2 over several blocks the pairwise sum of the product distance takes the scaled
    # values and the scale factors folded into the block weights: _scaled_weights)
    shifts = [_block_shift(o, r, b) for b, (o, r, _) in zip(blocks, frames)]
    from ..progress import bar

    pairwise_total = e != 2 and len(blocks) > 1
    skipped_overall = sum(skipped)
    if any(skipped) and e != 2 and len(blocks) > 1:  # not additive: the complete records
        complete = pl.all_horizontal(pl.col(c).is_not_null() for c in cols)
        keep = orig.select(complete).to_series()
        skipped_overall = orig.height - int(keep.sum())
        orig, rel = orig.filter(keep), rel.filter(keep)
        if orig.height == 0:
            raise SDCError(f"no record is complete in {cols}: ILD with exponent {e:g} over several blocks "
                           "compares whole records; measure the columns one by one (exponent 2 adds them)")
    with bar(progress, "ILD", total=2 * len(blocks) + 2 * pairwise_total, unit="amount") as pb:
        amounts, masked_amounts, amounts2 = _amounts(frames, blocks, shifts, by_sse, e, wspec, pb)
        w = _weights(blocks, wspec, amounts2)  # with "amount": times 2^(-2 E) each
        wexp = [-2 * sh if wspec == "amount" else 0 for sh in shifts]
        if pairwise_total:
            kw, top = _scaled_weights(w, wexp, shifts)
            with pb.waiting("pairwise, original", counter="share"):
                total = _records_amount(orig, blocks, kw, e, shifts)
            with pb.waiting("pairwise, release", counter="share"):
                total_m = _records_amount(rel, blocks, kw, e, shifts)
    if pairwise_total and (any(shifts) or top):
        # the sums are I / 2^(e top / 2): the loss is their ratio, the amounts are scaled back
        ratios = (_ratio(total, total_m), tuple(_ratio(a, m) for a, m in zip(amounts, masked_amounts)))
        total, total_m = _p2(total, e * top / 2), _p2(total_m, e * top / 2)
        amounts = [_p2(a, e * sh) for a, sh in zip(amounts, shifts)]
        masked_amounts = [_p2(m, e * sh) for m, sh in zip(masked_amounts, shifts)]
        w = [_p2(wi, we) for wi, we in zip(w, wexp)]
    elif pairwise_total:
        ratios = None
    elif any(shifts):
        if len(blocks) == 1:
            terms = [(w[0] ** (e / 2) * amounts[0], wexp[0] * e / 2 + e * shifts[0])]
            terms_m = [(w[0] ** (e / 2) * masked_amounts[0], terms[0][1])]
        else:  # e == 2
            terms = [(wi * a, we + 2 * sh) for wi, a, we, sh in zip(w, amounts, wexp, shifts)]
            terms_m = [(wi * m, we + 2 * sh) for wi, m, we, sh in zip(w, masked_amounts, wexp, shifts)]
        top = max((lg for v, lg in terms if v), default=0.0)
        total_s = math.fsum(_p2(v, lg - top) for v, lg in terms)
        total_ms = math.fsum(_p2(v, lg - top) for v, lg in terms_m)
        ratios = (_ratio(total_s, total_ms), tuple(_ratio(a, m) for a, m in zip(amounts, masked_amounts)))
        total, total_m = _p2(total_s, top), _p2(total_ms, top)
        amounts = [_p2(a, e * sh) for a, sh in zip(amounts, shifts)]
        masked_amounts = [_p2(m, e * sh) for m, sh in zip(masked_amounts, shifts)]
        w = [_p2(wi, we) for wi, we in zip(w, wexp)]
    else:
        total = _total(orig, blocks, w, amounts, e)
        total_m = _total(rel, blocks, w, masked_amounts, e)
        ratios = None
    return ILDReport(
        columns=tuple(b.label for b in blocks),
        distances=tuple(repr(b.distance) for b in blocks),
        weights=tuple(w),
        amount=tuple(amounts),
        amount_masked=tuple(masked_amounts),
        total=total,
        total_masked=total_m,
        exponent=e,
        ratios=ratios,
        skipped=tuple(skipped),
        skipped_overall=skipped_overall,
    )


def _block_frames(orig: pl.DataFrame, rel: pl.DataFrame, gids: Any, blocks: Sequence[Block], nulls: bool):
    """Per block (original, release, group ids) on the rows without a null in its columns, and
    the number of rows each block leaves out; without nulls the whole frames, nothing copied."""
    if not nulls:
        return [(orig, rel, gids)] * len(blocks), [0] * len(blocks)
    frames, skipped = [], []
    for b in blocks:
        keep = orig.select(pl.all_horizontal(pl.col(c).is_not_null() for c in b.columns)).to_series()
        n = int(keep.sum())
        if n == 0:
            raise SDCError(f"column {b.columns[0]!r}: every value is null; information loss needs a value")
        if n == orig.height:
            frames.append((orig, rel, gids))
        else:
            frames.append((orig.filter(keep), rel.filter(keep) if rel.width else rel,
                           None if gids is None else gids.filter(keep)))
        skipped.append(orig.height - n)
    return frames, skipped


@same_parameters(ild_report)
def ild(original: pl.DataFrame, masked: pl.DataFrame | pl.LazyFrame | None = None, **options: Any) -> float:
    """``ILD = (I(A) - I(A_hat)) / I(A)`` (Akiyama & Wada 2.2): 0 nothing lost, 1 everything
    replaced by one value; arguments as :func:`ild_report`. A column without information
    (I(A) = 0) has ILD 0 when the release has none either, else NaN. Structural nulls are
    skipped as in :func:`ild_report`; the float's ``.skipped`` counts the rows left out.

    >>> df = pl.DataFrame({"x": [1, 2, 3, 4]})
    >>> ild(df, pl.DataFrame({"x": [1.5, 1.5, 3.5, 3.5]}))
    0.2
    """
    from .nulls import Measured

    rep = ild_report(original, masked, **options)
    return Measured(rep.ild, rep.skipped_overall)


def information_amount(
    df: pl.DataFrame, dist: Any = None, *, on: Any = None, weights: Any = None, exponent: float = 2
) -> float:
    """``I(A) = sum_i sum_j d(x_i, x_j)^e`` of a frame (thesis 3.1.2) under the (product)
    distance; ``weights="amount"`` makes every block contribute 1 (with e = 2). Structural
    nulls: each block is summed over its rows without a null (a float whose ``.skipped``
    counts the rows left out, per block), the pairwise product distance (e != 2) over the
    complete records.

    >>> information_amount(pl.DataFrame({"x": [1, None, 2, 3, 4]})).skipped
    1
    >>> information_amount(pl.DataFrame({"s": ["a11", "a12", "a21", "a22"]}),
    ...     {"s": _dist.tree({"a1": "a", "a2": "a", "a11": "a1", "a12": "a1", "a21": "a2", "a22": "a2"})})
    144.0
    """
    e = _check_exponent(exponent)
    _check_rows(df)
    blocks, wspec = resolve_blocks(df.schema, dist, on, weights)
    cols = list(dict.fromkeys(c for b in blocks for c in b.columns))
    from .exact import centered, int_offsets

    pcols = [c for b in blocks if isinstance(b.distance, _dist.PNorm) for c in b.columns]
    frame = centered(df.select(cols), int_offsets(df, pcols))  # I reads differences only
    from .nulls import Measured, null_counts

    # structural nulls: each block over its rows without a null; a pairwise product distance
    # (e != 2, several blocks) over the records complete in every column
    frames, skipped = _block_frames(frame, pl.DataFrame(), None, blocks, any(null_counts(frame, cols).values()))
    frames = [f for f, _, _ in frames]
    blocks = [Block(b.columns, b.distance.bind(b.columns, [f])) for b, f in zip(blocks, frames)]
    amounts = [block_amount(f, b, e) for f, b in zip(frames, blocks)]
    amounts2 = amounts if e == 2 or wspec != "amount" else [block_amount(f, b, 2) for f, b in zip(frames, blocks)]
    total_skipped = sum(skipped)
    if total_skipped and e != 2 and len(blocks) > 1:
        frame = frame.drop_nulls()
        total_skipped = df.height - frame.height
        _check_rows(frame)
    return Measured(_total(frame, blocks, _weights(blocks, wspec, amounts2), amounts, e), total_skipped)


def _check_rows(frame: pl.DataFrame) -> None:
    if frame.height == 0:
        raise SDCError("the frame has no rows; information loss needs at least one row")


def _unchanged(orig: pl.DataFrame, rel: pl.DataFrame, cols: Sequence[str]) -> bool:
    """True when the release holds exactly the original values in ``cols`` (dtype aside)."""
    for c in cols:
        a, b = orig.get_column(c), rel.get_column(c)
        if a.dtype != b.dtype:
            try:
                b = b.cast(a.dtype, strict=True)
            except Exception:  # noqa: BLE001 - not castable back: it changed
                return False
        if not a.equals(b, check_names=False):
            return False
    return True


def _check_exponent(exponent: Any) -> float:
    try:
        e = float(exponent)
    except (TypeError, ValueError):
        raise SDCError(f"exponent must be a positive number, got {exponent!r}") from None
    if not (e > 0 and math.isfinite(e)):
        raise SDCError(f"exponent must be a positive number, got {exponent!r}")
    return e


def needed_columns(schema: Mapping[str, pl.DataType], dist: Any, on: Any, weights: Any, groups: Any) -> list[str]:
    """The columns of the original that an ILD call reads (for collecting a LazyFrame)."""
    exclude = [groups] if isinstance(groups, str) else []
    blocks, _ = resolve_blocks(schema, dist, on, weights, exclude)
    return list(dict.fromkeys([*(c for b in blocks for c in b.columns), *exclude]))
