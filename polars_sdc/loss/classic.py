"""The classic information-loss measures ILD is compared with (thesis 2.4.3, 3.3; Sano & Hattori 3).

* :func:`discernibility` -- DM = sum_{|E|>=k} |E|^2 + sum_{|E|<k} |D| |E| (Bayardo & Agrawal);
* :func:`classification_metric` -- CM, share of rows outside their group's majority class;
* :func:`ncp` -- Normalized Certainty Penalty (Xu et al.), numeric ranges and hierarchy leaves;
* :func:`ebil` -- entropy-based loss, Sano & Hattori eq. 5: sum over records of H(V | V' = j);
* :func:`entropy_loss` -- (H(A) - H(A_hat)) / H(A), the entropy analogue of ILD (thesis 3.3.3);
* :func:`ctbil` -- contingency-table loss, Sano & Hattori eq. 3.

ILSSDM (SSE/SST) lives in :mod:`polars_sdc.loss.sse`. A partition is a group column / ids
(``groups``) or, for a release, the equivalence classes of its ``on`` columns.

Structural nulls (:mod:`polars_sdc.loss.nulls`; the release keeps them at the same rows): the
measures of distances and ranges (ILD, ILSSDM, NCP) skip them; the measures of frequencies
(DM, entropy loss, EBIL, CTBIL) count a null as a value of its own -- it is what a recipient
sees, and a null the release keeps where it was adds no loss.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .._columns import check_no_nulls, did_you_mean, is_numeric, numeric_matrix, resolve_columns
from .._errors import SDCError
from .ild import ILDReport


def _partition(df: pl.DataFrame, groups: Any, on: Sequence[str] | None) -> np.ndarray:
    """Group ids per row: the given partition, else the equivalence classes on ``on`` (a null
    is a value of its own: a structural null matches only a null)."""
    from ..partition import group_ids

    if groups is not None:
        return group_ids(df, groups).to_numpy().astype(np.int64)
    cols = resolve_columns(df, on)
    return df.select(pl.struct(cols).rank("dense")).to_series().to_numpy().astype(np.int64) - 1


def _check_one_release(masked: Any, groups: Any, message: str) -> None:
    """A measure of a release takes it as ``masked`` or as the representatives of ``groups``."""
    if (masked is None) == (groups is None):
        raise SDCError(message)


def _release_columns(original: pl.DataFrame, on: Any, masked: Any, groups: Any, message: str) -> list[str]:
    """The ``on`` columns a measure compares (never the ``groups`` column), once exactly one
    of ``masked`` or ``groups`` is given (``message`` otherwise)."""
    _check_one_release(masked, groups, message)
    exclude = [groups] if isinstance(groups, str) else []
    return [c for c in resolve_columns(original, on, kind="supported") if c not in exclude]


def discernibility(df: pl.DataFrame, groups: Any = None, *, on: Any = None, k: int | None = None) -> int:
    """Discernibility Metric ``sum_{|E|>=k} |E|^2 + sum_{|E|<k} |D| |E|`` over the groups E
    (thesis 2.4.3); without ``k`` every group counts |E|^2. Groups are ``groups`` or the
    equivalence classes of ``on``.

    >>> df = pl.DataFrame({"g": [0, 1, 1, 1, 2, 2, 2, 2]})
    >>> discernibility(df, "g", k=3)
    33
    """
    g = _partition(df, groups, on)
    sizes = np.bincount(g)
    sizes = sizes[sizes > 0].astype(np.int64)
    if k is None:
        return int((sizes**2).sum())
    big = sizes >= k
    return int((sizes[big] ** 2).sum() + df.height * sizes[~big].sum())


def classification_metric(
    df: pl.DataFrame, label: str, groups: Any = None, *, on: Any = None, suppressed: Any = None
) -> float:
    """Classification Metric (thesis 2.4.3): the share of rows that are suppressed or whose
    ``label`` is not the majority label of their group (the majority over the group's
    unsuppressed rows). ``suppressed`` is a Boolean column name or Series.

    >>> df = pl.DataFrame({"g": [0, 0, 0, 1, 1], "y": ["a", "a", "b", "c", "c"]})
    >>> classification_metric(df, "y", "g")
    0.2
    """
    resolve_columns(df, label, what="label")
    check_no_nulls(df, [label])
    g = _partition(df, groups, on)
    if suppressed is None:
        sup = np.zeros(df.height, dtype=bool)
    else:
        s = df.get_column(suppressed) if isinstance(suppressed, str) else pl.Series(suppressed)
        if s.len() != df.height or s.dtype != pl.Boolean or s.null_count():
            raise SDCError("suppressed: expected a Boolean column or Series without nulls, one value per row")
        sup = s.to_numpy()
    if df.height == 0:
        return 0.0
    t = pl.DataFrame({"g": g, "y": df.get_column(label), "s": sup}).filter(~pl.col("s"))
    majority = t.group_by("g", "y").len().group_by("g").agg(pl.col("len").max()).get_column("len").sum()
    return float((df.height - (majority or 0)) / df.height)


def ncp(
    original: pl.DataFrame,
    groups: Any = None,
    *,
    masked: pl.DataFrame | None = None,
    on: Any = None,
    hierarchies: Mapping[str, Any] | None = None,
    weights: Mapping[str, float] | None = None,
) -> float:
    """Normalized Certainty Penalty ``NCP(T) = sum_t sum_i w_i NCP_{A_i}(t)`` (thesis eq. 2.1,
    Xu et al. 2006). A row's group is its class under ``groups`` or, with ``masked``, the
    rows sharing its released ``on`` values. Numeric: ``(max - min of the group) / range of
    the column``. Categorical: ``size(u) / |A|`` with u the lowest common ancestor of the
    group's values in ``hierarchies[col]`` (a :func:`polars_sdc.dist.tree` or a child -> parent
    mapping; default: every value under one root), size(u) its leaves and |A| the leaves of
    the hierarchy; 0 when the group holds one value (nothing generalised, as in Xu et al.).
    Structural nulls are skipped: a column's range, spans and counts are over its non-null values.

    >>> df = pl.DataFrame({"x": [0.0, 2.0, 6.0, 10.0], "g": [0, 0, 1, 1]})
    >>> ncp(df, "g", on="x")
    1.2
    """
    from . import dist as _dist

    cols = _release_columns(original, on, masked, groups,
                            "NCP needs exactly one of `groups` (a partition) or `masked` (a release)")
    if masked is not None:
        if masked.height != original.height:
            raise SDCError(f"masked frame has {masked.height} rows, the original {original.height}; they must be row-aligned")
        g = _partition(masked, None, cols)
    else:
        g = _partition(original, groups, None)
    if masked is not None:
        from .nulls import check_null_pattern

        check_null_pattern(original, masked, cols)
    hierarchies = dict(hierarchies or {})
    weights = dict(weights or {})
    unknown = [c for c in [*hierarchies, *weights] if c not in cols]
    if unknown:
        raise SDCError(f"column {unknown[0]!r}: given a hierarchy or weight but not among the measured columns")
    from .exact import centered, int_offsets

    # ranges are differences: Int64 / UInt64 beyond 2^53 as exact offsets from their minimum
    num = [c for c in cols if is_numeric(original.schema[c]) and c not in hierarchies]
    t = centered(original.select(cols), int_offsets(original, num)).with_columns(pl.Series("__g", g))
    total = 0.0
    for c in cols:
        w = float(weights.get(c, 1.0))
        if c in num:
            x = numeric_matrix(t.select(pl.col(c).drop_nulls()), [c])[:, 0]
            half = 1.0
            rng = float(x.max()) - float(x.min()) if x.size else 0.0
            if math.isinf(rng):  # a range beyond 1.8e308 (values near -+1e308): halves, exactly
                half = 0.5
                rng = x.max() * half - x.min() * half
            if rng == 0:
                continue
            v = pl.col(c).cast(pl.Float64) * half if half != 1.0 else pl.col(c)
            spans = t.group_by("__g").agg(
                (v.max() - v.min()).cast(pl.Float64).alias("s"), pl.col(c).count().alias("n")
            ).drop_nulls("s")
            total += w * float((spans["s"] * spans["n"]).sum()) / rng
            continue
        h = hierarchies.get(c)
        if h is None:
            h = _dist.tree({v: "__sdc_all__" for v in original.get_column(c).drop_nulls().unique().to_list()})
        elif not isinstance(h, _dist.Tree):
            h = _dist.tree(h)
        h = h.bind([c], [])
        leaves = h.leaves_under()
        n_leaves = int(leaves.max())
        for vals, n in (
            t.group_by("__g").agg(pl.col(c).drop_nulls().unique().alias("v"), pl.col(c).count().alias("n"))
            .select("v", "n").iter_rows()
        ):
            if len(vals) < 2:
                continue
            u = h.lowest_common_ancestor(h.nodes_of(vals))
            total += w * n * float(leaves[u]) / n_leaves
    return float(total)


def _entropy(counts: np.ndarray, base: float) -> float:
    # sorted: Polars' group_by / value_counts order varies run to run, the float sum must not
    p = np.sort(counts[counts > 0]) / counts.sum()
    return float(-(p * np.log(p)).sum() / math.log(base))


def _aligned(original: pl.DataFrame, masked: Any, cols: Sequence[str]) -> pl.DataFrame:
    names = masked.collect_schema().names() if isinstance(masked, pl.LazyFrame) else masked.columns
    missing = [c for c in cols if c not in names]
    if missing:
        raise SDCError(f"column {missing[0]!r}: not in the masked frame{did_you_mean(missing[0], names)}")
    if isinstance(masked, pl.LazyFrame):
        masked = masked.select(cols).collect()
    if masked.height != original.height:
        raise SDCError(f"masked frame has {masked.height} rows, the original {original.height}; they must be row-aligned")
    from .nulls import check_null_pattern

    check_null_pattern(original, masked, cols)  # structural nulls stay where they are
    return masked


def ebil(original: pl.DataFrame, masked: Any, on: Any = None, *, base: float = math.e) -> float:
    """Entropy-based information loss (Sano & Hattori eq. 5): ``sum_{r} H(V | V' = j_r)`` summed over
    the ``on`` columns, with P(V | V') estimated from the row-aligned pairs (original, masked).

    >>> o = pl.DataFrame({"v": ["a", "b", "c", "c"]})
    >>> round(ebil(o, pl.DataFrame({"v": ["ab", "ab", "c", "c"]}), base=2), 12)
    2.0
    """
    cols = resolve_columns(original, on)
    masked = _aligned(original, masked, cols)
    total = 0.0
    for c in cols:
        t = pl.DataFrame({"v": original.get_column(c), "m": masked.get_column(c)})
        joint = t.group_by("v", "m").len().sort("m", "v")  # a fixed order: the same float sum every run
        for part in joint.partition_by("m"):
            n = part.get_column("len").to_numpy().astype(np.float64)
            total += float(n.sum()) * _entropy(n, base)
    return total


def entropy_loss(
    original: pl.DataFrame, masked: Any = None, *, groups: Any = None, on: Any = None
) -> float:
    """``(H(A) - H(A_hat)) / H(A)`` for the empirical distribution of the ``on`` records
    (thesis 3.3.3): N distinct values in n groups of k give ``log k / log N``. The release is
    ``masked`` or the representatives of ``groups``. 0 when H(A) = 0.

    Never negative: the thesis defines the share of entropy lost when each record is replaced
    by a value determined by it (a representative, a recoding), and then ``H(A_hat) <= H(A)``.
    A release that is not such a function (noise, PRAM) can hold more distinct values than the
    original -- six values in three tied pairs, noised, are six distinct values -- so that
    ``H(A_hat) > H(A)``; that is no information gained about the original, and it is reported
    as no loss, 0, as ILD reports a release more spread than the original (what a noise
    release lost is measured by ILD / ILSSDM; EBIL measures what it says about each value).

    >>> df = pl.DataFrame({"x": [1, 2, 3, 4], "g": [0, 0, 1, 1]})
    >>> entropy_loss(df, groups="g", on="x")
    0.5
    >>> entropy_loss(pl.DataFrame({"x": [1.0, 1.0]}), pl.DataFrame({"x": [0.9, 1.2]}))
    0.0
    """
    from ..aggregate import aggregate

    cols = _release_columns(original, on, masked, groups, "entropy loss needs exactly one of `masked` or `groups`")
    if groups is not None:
        masked = aggregate(original.select(cols), _partition(original, groups, None), cols, keep_nulls=True)
    masked = _aligned(original, masked, cols)

    def h(frame: pl.DataFrame) -> float:
        n = frame.group_by(cols).len().get_column("len").to_numpy().astype(np.float64)
        return _entropy(n, math.e)

    before = h(original.select(cols))
    if before <= 0:
        return 0.0
    return max(0.0, (before - h(masked.select(cols))) / before)


def ctbil(original: pl.DataFrame, masked: Any, on: Any = None, *, max_dim: int = 2, normalize: bool = False) -> float:
    """Contingency-table loss (Sano & Hattori eq. 3): over every set of 1..``max_dim`` of the ``on``
    columns, the sum of |original count - masked count| over the cells of their frequency
    table (a cell missing on one side counts 0 there). ``normalize`` divides each table's sum
    by its number of cells (the product of the columns' numbers of distinct values).

    >>> o = pl.DataFrame({"v": ["a", "b", "c", "c"]})
    >>> ctbil(o, pl.DataFrame({"v": ["a", "a", "c", "c"]}))
    2.0
    """
    cols = resolve_columns(original, on)
    masked = _aligned(original, masked, cols)
    if not (isinstance(max_dim, int) and max_dim >= 1):
        raise SDCError(f"max_dim must be an integer >= 1, got {max_dim!r}")

    def common(c: str) -> tuple[pl.Series, pl.Series]:
        a, b = original.get_column(c), masked.get_column(c)
        if a.dtype != b.dtype and is_numeric(a.dtype) and is_numeric(b.dtype):
            return a.cast(pl.Float64), b.cast(pl.Float64)
        if a.dtype != b.dtype or isinstance(a.dtype, pl.Categorical):
            return a.cast(pl.String), b.cast(pl.String)
        return a, b

    pairs = {c: common(c) for c in cols}
    A = pl.DataFrame([pairs[c][0] for c in cols])
    B = pl.DataFrame([pairs[c][1] for c in cols])
    total = 0.0
    for t in range(1, min(max_dim, len(cols)) + 1):
        for sub in itertools.combinations(cols, t):
            s = list(sub)
            ca = A.group_by(s).len().rename({"len": "__a"})
            cb = B.group_by(s).len().rename({"len": "__b"})
            j = ca.join(cb, on=s, how="full", coalesce=True, nulls_equal=True).fill_null(0)
            diff = float((j["__a"].cast(pl.Int64) - j["__b"].cast(pl.Int64)).abs().sum())
            if normalize:
                cells = math.prod(pl.concat([A.get_column(c), B.get_column(c)]).n_unique() for c in s)
                diff /= cells
            total += diff
    return total


# -- the report --------------------------------------------------------------------------
#: One line per measure: what it says (the README and ``LossReport`` print these).
MEANINGS: dict[str, str] = {
    "ild": "information amount lost under the chosen distances (ILD)",
    "ilssdm": "SSE/SST of the numeric columns, z-scored: 1 = the column means released; noise can exceed 1",
    "dm": "Discernibility Metric: sum of squared class sizes (a class below k counts n x size)",
    "ncp": "Normalized Certainty Penalty: generalisation width summed over rows and columns",
    "entropy_loss": "share of the entropy of the records lost",
    "ebil": "entropy-based loss: uncertainty (nats) left about an original value given its release",
    "ctbil": "contingency-table loss: |original - released| cell counts, tables of <= max_dim columns",
    "cm": "Classification Metric: share of rows outside their group's majority label",
}


@dataclass(frozen=True)
class LossReport:
    """ILD beside the classic measures for one release (``None``: not applicable).

    ``ilssdm`` is SSE/SST of the numeric columns (z-scored); ``dm`` and ``ncp`` use the
    partition; ``cm`` needs a class ``label``. :meth:`normalized` puts every measure on
    0 (no loss) .. 1 (all lost), except ILSSDM: 1 is the column means released, and a release
    farther from the originals (noise) reads above 1; ``columns``, ``tables`` and ``ebil_max``
    are what it divides by.
    ``skipped``: the structural nulls of the measured columns (see the module docstring).

    >>> import polars as pl, polars_sdc
    >>> orig = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    >>> rep = orig.sdc.loss_report(pl.DataFrame({"x": [1.5, 1.5, 3.5, 3.5]}), on=["x"])
    >>> rep.ild, rep.ilssdm, rep.dm
    (0.2, 0.2, 8)
    """

    ild: float
    ilssdm: float | None
    dm: int
    ncp: float
    entropy_loss: float
    ebil: float
    ctbil: float
    cm: float | None
    rows: int
    columns: int = 1
    tables: int = 1
    ebil_max: float = 0.0
    skipped: int = 0

    MEASURES = ("ild", "ilssdm", "dm", "ncp", "entropy_loss", "ebil", "ctbil", "cm")

    def normalized(self) -> dict[str, float | None]:
        """Each measure on [0, 1], 0 = nothing lost, 1 = everything lost: DM as
        ``(DM - n) / (n^2 - n)`` (each record its own class .. one class), NCP divided by
        ``n`` x columns (Xu et al.'s GCP), EBIL by ``n sum_c H(V_c)`` (the release says nothing
        about the value), CTBIL by ``2 n`` per table (every cell moved); ILD, entropy loss and
        CM are shares already. ILSSDM is not a share: it is ``SSE / SST``, returned as it is, with 1
        the loss of releasing every value as its column mean; a release of group means stays in
        [0, 1] (the within-group part of the variance), but a noise release is not bounded (about
        ``(noise/100)^2`` for ``add_noise``: 2.25 at sdcMicro's default ``noise = 150``).

        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": [0, 0, 1, 1]})
        >>> loss_report(df, groups="g", on="x", k=2).normalized()["dm"]
        0.3333333333333333
        """
        n = self.rows

        def ratio(value: float, scale: float) -> float:
            return float(value) / scale if scale > 0 else 0.0

        return {
            "ild": self.ild,
            "ilssdm": self.ilssdm,
            "dm": ratio(self.dm - n, n * n - n),
            "ncp": ratio(self.ncp, n * self.columns),
            "entropy_loss": self.entropy_loss,
            "ebil": ratio(self.ebil, self.ebil_max),
            "ctbil": ratio(self.ctbil, 2.0 * n * self.tables),
            "cm": self.cm,
        }

    def to_frame(self) -> pl.DataFrame:
        """Columns ``measure``, ``value`` (Float64; null when not applicable), ``normalized``
        (:meth:`normalized`: 0 = no loss, 1 = all lost; ILSSDM: 1 = the column means, noise above)
        and ``meaning``.

        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": [0, 0, 1, 1]})
        >>> loss_report(df, groups="g", on="x", k=2).to_frame().head(3).select("measure", "value").rows()
        [('ild', 0.2), ('ilssdm', 0.2), ('dm', 8.0)]
        """
        norm = self.normalized()
        names = list(self.MEASURES)
        vals = [getattr(self, n) for n in names]
        return pl.DataFrame(
            {
                "measure": names,
                "value": [None if v is None else float(v) for v in vals],
                "normalized": [None if norm[n] is None else float(norm[n]) for n in names],
                "meaning": [MEANINGS[n] for n in names],
            },
            schema={"measure": pl.String, "value": pl.Float64, "normalized": pl.Float64, "meaning": pl.String},
        )

    def __repr__(self) -> str:
        nulls = f", {self.skipped} null values skipped" if self.skipped else ""
        lines = [f"LossReport({self.rows} rows{nulls})   value   normalized "
                 "(0 = no loss, 1 = all lost; ilssdm: 1 = column means)"]
        for n, v, z, m in self.to_frame().iter_rows():
            value = "n/a" if v is None else format(v, ".6g")
            norm = "" if z is None else format(z, ".4f")
            lines.append(f"  {n:<13} {value:>12} {norm:>8}  {m}")
        return "\n".join(lines)


def loss_report(
    original: pl.DataFrame,
    masked: Any = None,
    *,
    groups: Any = None,
    on: Any = None,
    dist: Any = None,
    weights: Any = None,
    exponent: float = 2,
    label: str | None = None,
    k: int | None = None,
    hierarchies: Mapping[str, Any] | None = None,
    max_dim: int = 2,
    progress: bool = False,
    ild_report: ILDReport | None = None,
) -> LossReport:
    """ILD (:func:`polars_sdc.loss.ild.ild`) and ILSSDM, DM, NCP, entropy loss, EBIL, CTBIL
    and CM for a release given as ``masked`` (row-aligned) or ``groups`` (representatives).
    The partition for DM/NCP/CM is ``groups`` or the equivalence classes of the release;
    ``progress=True`` shows ILD's bar (:func:`polars_sdc.loss.ild.ild_report`).
    ``ild_report``: the ILD report of this very release under the same ``dist`` / ``on`` /
    ``weights`` / ``exponent``, when it is at hand already (it is used, not computed again).
    Structural nulls: see the module docstring; ``skipped`` counts them.

    >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": [0, 0, 1, 1]})
    >>> r = loss_report(df, groups="g", on="x", k=2)
    >>> r.ild, r.dm
    (0.2, 8)
    """
    from ..aggregate import aggregate
    from . import ild as _ild
    from .sse import ilssdm_frame

    _check_one_release(masked, groups, "loss_report needs exactly one of `masked` (a release) or `groups` (a partition)")
    exclude = [groups] if isinstance(groups, str) else []
    blocks, _ = _ild.resolve_blocks(original.schema, dist, on, weights, exclude)
    cols = list(dict.fromkeys(c for b in blocks for c in b.columns))
    if ild_report is None:
        rep = _ild.ild_report(
            original, masked, groups=groups, dist=dist, on=on, weights=weights, exponent=exponent, progress=progress
        )
    elif ild_report.columns != tuple(b.label for b in blocks) or ild_report.exponent != exponent:
        raise SDCError(
            f"ild_report: measured on {list(ild_report.columns)} with exponent {ild_report.exponent:g}, "
            f"this report is on {[b.label for b in blocks]} with exponent {exponent:g}"
        )
    else:
        rep = ild_report
    from .nulls import null_counts

    skipped = sum(null_counts(original, cols).values())
    if groups is not None:
        part = _partition(original, groups, None)
        released = aggregate(original.select(cols), part, cols, keep_nulls=skipped > 0)
    else:
        released = _aligned(original, masked, cols).select(cols)
        part = _partition(released, None, cols)
    num = [c for c in cols if is_numeric(original.schema[c])]
    il = None
    if num:
        il = ilssdm_frame(original, num, groups=pl.Series(part) if groups is not None else None,
                          masked=released.select(num) if groups is None else None)
    cm = None
    if label is not None:
        cm = classification_metric(original, label, pl.Series(part))
    return LossReport(
        ild=rep.ild,
        ilssdm=il,
        dm=discernibility(original, pl.Series(part), k=k),
        ncp=ncp(original, pl.Series(part), on=cols, hierarchies=hierarchies),
        entropy_loss=entropy_loss(original, released, on=cols),
        ebil=ebil(original, released, cols),
        ctbil=ctbil(original, released, cols, max_dim=max_dim),
        cm=cm,
        rows=original.height,
        columns=len(cols),
        tables=sum(math.comb(len(cols), t) for t in range(1, min(max_dim, len(cols)) + 1)),
        ebil_max=_ebil_max(original, cols),
        skipped=skipped,
    )


def _ebil_max(original: pl.DataFrame, cols: Sequence[str]) -> float:
    """EBIL when the release says nothing about a value: ``sum_c n_c H(V_c)`` over each
    column's n_c non-null values (a kept structural null tells its value)."""
    def h(c: str) -> float:
        counts = original.get_column(c).drop_nulls().value_counts().get_column("count")
        return _entropy(counts.to_numpy().astype(np.float64), math.e)

    if not original.select(cols).null_count().sum_horizontal().item():
        return original.height * sum(h(c) for c in cols)
    return sum((original.height - original.get_column(c).null_count()) * h(c) for c in cols)
