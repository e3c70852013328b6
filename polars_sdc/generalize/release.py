"""``generalize``: ARX's optimal full-domain generalisation with suppression, in Polars.

Every quasi-identifier gets a :class:`~polars_sdc.generalize.hierarchy.Hierarchy`; the search
(:mod:`polars_sdc.generalize.lattice.search`) finds the combination of levels (the
transformation) that satisfies k-anonymity, optionally an l-diversity (distinct, entropy,
recursive) and a t-closeness (equal or hierarchical ground distance) on one sensitive column
(:mod:`polars_sdc.generalize.criteria`), with at most ``floor(suppression_limit * n)``
records suppressed, and loses the least by the chosen ARX metric
(:mod:`polars_sdc.generalize.metrics`). The release has every quasi-identifier as a String
column of labels at its chosen level; the records of classes that still fail the models are
suppressed: **all their quasi-identifiers become ``"*"``** (as ARX's output shows them; null
with ``suppressed_as=None``), which the risk measures read as every key missing
(:func:`polars_sdc.risk.frequencies.suppressed_as_missing`). A null quasi-identifier (a
structural null: EU-SILC's pl030 of a child) stays null at every level and is a value of its
own in the classes, so a released class of k records is k-anonymous also under the risk
measures' rule (a missing key matches every value: fk only grows). Other columns, the row
order and the row count are unchanged. :func:`generalize_frame` is the release alone (the
``generalize`` step of a problem, a recipe and ``polars-sdc generalize``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .._errors import SDCError
from .._columns import resolve_columns
from .._typing import ColumnSpec
from .._validation import check_int, check_real
from .._signature import deprecated, warn_at_caller
from .criteria import L_KINDS, T_DISTANCES, HierarchyTree, Models
from .hierarchy import Hierarchy, as_hierarchy, hierarchy_mapping
from .lattice.search import Problem, SearchResult, search
from .metrics import METRICS, ColumnTables, Metric

SUPPRESSED = "*"


class SuppressionLabelWarning(UserWarning):
    """A generalisation on ONE quasi-identifier released its suppressed records as null
    (``suppressed_as=None``): the risk measures read a null of a single key as sdcMicro's
    wildcard, which raises every kept class; only a label tells the suppressed records apart.
    Attributed to the line that called ``df.sdc.generalize`` (or ``collect()`` of a lazy
    ``generalize_release``); ``polars_sdc.SuppressionLabelWarning`` at the top level.

    >>> import warnings, polars as pl, polars_sdc
    >>> df = pl.DataFrame({"age": [21, 23, 25, 31, 33, 35, 47]})
    >>> hs = {"age": {"rule": "intervals", "widths": [10], "start": 0}}
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     r = df.sdc.generalize(hs, k=3, suppression_limit=0.2, suppressed_as=None)
    >>> r.frame["age"].to_list(), w[0].category is polars_sdc.SuppressionLabelWarning
    (['20-29', '20-29', '20-29', '30-39', '30-39', '30-39', None], True)
    """


@dataclass(frozen=True, eq=False)
class GeneralizationResult:
    """The optimal full-domain generalisation (ARX ``ARXResult.getGlobalOptimum()``;
    ``df.sdc.generalize``), e.g.

    >>> import polars as pl, polars_sdc
    >>> df = pl.DataFrame({"age": [21, 23, 35, 37, 52, 55]})
    >>> h = {"age": {a: [f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in df["age"]}}
    >>> g = df.sdc.generalize(h, k=2)
    >>> g.levels, g.frame["age"].to_list(), g.suppressed
    ({'age': 1}, ['20-29', '20-29', '30-39', '30-39', '50-59', '50-59'], 0)

    - ``frame``: the release (quasi-identifiers as String labels; suppressed records' as
      ``"*"``, or null with ``suppressed_as=None``).
    - ``levels``: the chosen level per quasi-identifier (ARX's transformation, in ``on`` order).
    - ``metric`` and ``loss``: the metric's name and its value at the optimum (ARX's
      ``getHighestScore()``).
    - ``suppressed``: records suppressed; ``max_suppressed``: the limit ``floor(limit * n)``.
    - ``checked``: transformations grouped by the search (of ``lattice.height`` in all);
      ``ties``: the optimal level vectors found, equal in loss up to 1e-12 relative (the first
      is ``levels``; every passing transformation of that loss, except, with a monotone metric,
      generalisations of a tied optimum: they are pruned and not listed).
    - ``lattice``: one row per transformation (levels, ``height``, ``status`` "anonymous" /
      "not anonymous" / "unknown" (pruned), ``checked``, ``loss`` where computed, ``bound``,
      ``optimal``), for a plot; a quasi-identifier's level column is named after it, with
      ``_level`` appended when that name is one of these columns (``level_columns``).
    - ``heights``: the height of each quasi-identifier's hierarchy.
    - ``outliers``: Boolean per row, True where the record is suppressed (a kept record whose
      every label is ``"*"`` at the top level looks the same in ``frame``).
    """

    frame: pl.DataFrame
    levels: dict[str, int]
    metric: str
    loss: float
    suppressed: int
    max_suppressed: int
    checked: int
    ties: tuple[tuple[int, ...], ...]
    lattice: pl.DataFrame
    outliers: pl.Series
    #: the label of the suppressed records' quasi-identifiers (None: null); the risk measures
    #: read a record whose every key is this label as every key missing (``suppressed_as=``)
    suppressed_as: str | None = SUPPRESSED
    #: the height of each quasi-identifier's hierarchy (its levels are 0..height)
    heights: dict[str, int] | None = None
    #: the privacy models the release satisfies (``k``, ``sensitive``, ``l_diversity``, ``l_kind``,
    #: ``c``, ``t_closeness``, ``t_distance`` and the sensitive column's hierarchy,
    #: ``sensitive_hierarchy``, for the hierarchical distance): the sign-off measures t by them
    models: dict[str, Any] | None = None

    @property
    def level_columns(self) -> dict[str, str]:
        """The column of ``lattice`` that holds each quasi-identifier's level: its name, or with
        ``_level`` appended when it is named like a column of the lattice (``height``,
        ``status``, ``checked``, ``loss``, ``bound``, ``optimal``)."""
        return level_column_names(list(self.levels))

    def __repr__(self) -> str:
        lv = ", ".join(f"{c}={j}" for c, j in self.levels.items())
        return (f"GeneralizationResult({lv}; {self.metric}={self.loss:.10g}, suppressed "
                f"{self.suppressed} of at most {self.max_suppressed}, {self.checked} of "
                f"{self.lattice.height} transformations checked)")

    @property
    def transformation(self) -> list[int]:
        """The levels as a list (ARX's ``getTransformation()``)."""
        return list(self.levels.values())


def _codes(df: pl.DataFrame, col: str, h: Hierarchy) -> np.ndarray:
    """The hierarchy row of each record's value; a null (a structural missing value, e.g.
    EU-SILC's pl030 of a child) is the extra row ``h.n_values``: kept null at every level."""
    s = df.get_column(col)
    null = s.is_null()
    s = _as_labels(s, col)
    idx = {v: i for i, v in enumerate(h.values)}
    mapped = s.replace_strict(list(idx), list(idx.values()), default=None, return_dtype=pl.Int32)
    bad_rows = mapped.is_null() & ~null
    if bad_rows.any():
        bad = s.filter(bad_rows).unique(maintain_order=True)
        raise SDCError(f"column {col!r}: value {bad[0]!r} is not in its hierarchy"
                       + (f" ({bad.len()} values are not)" if bad.len() > 1 else ""))
    return mapped.fill_null(h.n_values).to_numpy()


def _values(df: pl.DataFrame, col: str) -> list[object] | None:
    """The distinct non-null values of a column (what a hierarchy rule is built from)."""
    if col not in df.columns:
        return None
    return df.get_column(col).drop_nulls().unique(maintain_order=True).to_list()


def _as_labels(s: pl.Series, col: str) -> pl.Series:
    """A column's values as the strings a hierarchy lists (Boolean lower case, whole floats as
    integers, dates ISO, datetimes at midnight as their date)."""
    if s.dtype == pl.Boolean:
        return s.cast(pl.String).str.to_lowercase()
    if isinstance(s.dtype, pl.Decimal):  # whole values as integers ("21", as a rule labels them), others as written
        return s.cast(pl.String).str.replace(r"^(-?\d+)\.0*$", "${1}").str.replace(r"^-0$", "0")
    if s.dtype.is_float():
        if not s.is_finite().all() or not (s == s.round(0)).all():
            raise SDCError(f"column {col!r}: {s.dtype} values must be whole numbers to match a hierarchy")
        if s.len() and s.abs().max() >= 2.0**63:   # beyond Int64: Python's integers, as the hierarchy's labels
            from .hierarchy import _label

            return pl.Series(s.name, [_label(v) for v in s.to_list()], dtype=pl.String)
        return s.cast(pl.Int64).cast(pl.String)
    if isinstance(s.dtype, pl.Datetime):
        d = s.dt.date()
        if not (s.dt.truncate("1d") == s).all():
            raise SDCError(f"column {col!r}: datetimes with a time of day; a date hierarchy lists days "
                           "(truncate them with .dt.truncate('1d') or give a hierarchy of their strings)")
        return d.cast(pl.String)
    try:
        return s.cast(pl.String)
    except pl.exceptions.PolarsError:
        raise SDCError(f"column {col!r}: {s.dtype} values have no text a hierarchy can list; cast the column "
                       "to a type with one (integers, strings, dates)") from None


def label_text(s: pl.Series) -> pl.Series:
    """A column's values as text, as a hierarchy labels them where it can (whole floats as
    integers, Boolean lower case, datetimes at midnight as their date; see :func:`_as_labels`),
    else as written: what a value compares as against a generalised (String) release, so a key
    kept at level 0 counts as unchanged.

    >>> label_text(pl.Series([21.0, 1.5])).to_list(), label_text(pl.Series([21.0, 38.0])).to_list()
    (['21.0', '1.5'], ['21', '38'])
    """
    if s.dtype == pl.String:
        return s
    try:
        return _as_labels(s, s.name)
    except (SDCError, pl.exceptions.PolarsError):
        return s.cast(pl.String)


def _tables(hs: list[Hierarchy], codes: np.ndarray, n: int) -> ColumnTables:
    """The metrics' tables; a column with nulls gets one more row (code ``h.n_values``) whose
    label is its own at every level (null is never generalised, so it loses nothing), outside
    the domain R the loss metric divides by (the hierarchy's rows)."""
    gen, n_labels, counts0, domain = [], [], [], []
    for c, h in enumerate(hs):
        has_null = bool(np.any(codes[:, c] == h.n_values))
        rows = []
        nl = []
        for j in range(h.height + 1):
            labs = h.levels[j]
            ids: dict[str, int] = {}
            row = [ids.setdefault(v, len(ids)) for v in labs] + ([len(ids)] if has_null else [])
            rows.append(np.array(row, dtype=np.int64))
            nl.append(len(ids) + has_null)
        gen.append(np.stack(rows))
        n_labels.append(np.array(nl, dtype=np.int64))
        counts0.append(np.bincount(codes[:, c], minlength=h.n_values + has_null).astype(np.int64))
        domain.append(h.n_values)
    return ColumnTables(gen, n_labels, counts0, n, domain)


def prepare(df: pl.DataFrame, on: list[str], hs: list[Hierarchy], sensitive: str | None,
            household: str | None = None, declared: Sequence[str] | None = None
            ) -> tuple[Problem, np.ndarray, np.ndarray]:
    """The problem of the search, per record its distinct tuple, and the (n, d) hierarchy-row
    codes of the records. With ``household``, a tuple also holds the household (so a class's
    households are its tuples' distinct households), and when a quasi-identifier is
    household-level (detected, or ``declared``: :func:`polars_sdc.household.split_columns`)
    households are suppressed whole."""
    n = df.height
    codes = np.stack([_codes(df, c, h) for c, h in zip(on, hs)], axis=1).astype(np.int64)
    tables = _tables(hs, codes, n)
    cols = [codes[:, c] for c in range(codes.shape[1])]
    s = q = None
    if sensitive is not None:
        sv = df.get_column(sensitive)
        sc = sv.rank("dense").fill_null(0).cast(pl.Int64).to_numpy()  # null: code 0, no sensitive value
        cols.append(sc)
    from ..kernels.lattice import dense_ids

    radix = [h.n_values + 1 for h in hs] + ([int(cols[-1].max()) + 1] if sensitive is not None else [])
    if household is not None:
        from ..household import household_index

        hh, n_h = household_index(df, household)
        cols.append(hh)
        radix.append(max(n_h, 1))
    if float(np.prod(np.array(radix, dtype=np.float64))) < 2.0**62:
        key = np.zeros(n, dtype=np.int64)
        for a, r in zip(cols, radix):
            key *= r
            key += a
        tup, first, m = dense_ids(key)
    else:
        frame = pl.DataFrame({f"c{i}": a for i, a in enumerate(cols)})
        tup = frame.select(pl.struct(frame.columns).rank("dense").cast(pl.Int64) - 1).to_series().to_numpy()
        m = int(tup.max()) + 1
        first = np.full(m, -1, dtype=np.int64)
        first[tup[::-1]] = np.arange(n - 1, -1, -1)
    T = np.ascontiguousarray(codes[first].astype(np.int32))
    w = np.bincount(tup, minlength=m).astype(np.float64)
    h = cols[-1][first] if household is not None else None
    whole = False
    if household is not None:
        from ..household import split_columns, warn_nearly_household_level

        level, person = split_columns(df, household, on, declared)
        if declared is None:    # detected: a key constant in most households is likely a data error
            warn_nearly_household_level(df, household, person)
        whole = bool(level)
    if sensitive is not None:
        s_all = cols[len(hs)]
        S = int(s_all.max()) + 1
        s = s_all[first]
        counts_s = np.bincount(s_all, minlength=S).astype(np.float64)
        counts_s[0] = 0.0                              # q over the records with a sensitive value
        q = counts_s / max(counts_s.sum(), 1.0)
    return Problem(T=T, w=w, s=s, q=q, tables=tables, n=n, h=h, whole_households=whole), tup, codes


def _sensitive_tree(df: pl.DataFrame, sensitive: str, h: Hierarchy, problem: Problem) -> HierarchyTree:
    """The sensitive column's hierarchy as the tree of hierarchical t-closeness, indexed by the
    sensitive codes of :func:`prepare` (dense ranks, 0 kept for null)."""
    sv = df.get_column(sensitive)
    if sv.null_count():
        raise SDCError(f"column {sensitive!r}: {sv.null_count()} null value(s); hierarchical t-closeness needs "
                       "every sensitive value in its hierarchy")
    pairs = pl.DataFrame({"code": sv.rank("dense").cast(pl.Int64), "value": _as_labels(sv, sensitive)}).unique("code")
    row_of = {v: i for i, v in enumerate(h.values)}
    S = problem.q.size
    leaf = np.zeros(S, dtype=np.int64)
    for code, value in pairs.iter_rows():
        if value not in row_of:
            raise SDCError(f"column {sensitive!r}: value {value!r} is not in its hierarchy")
        leaf[code] = row_of[value]
    return HierarchyTree.build(_level_ids(h), leaf, np.rint(problem.q * problem.n))


def _level_ids(h: Hierarchy) -> list[np.ndarray]:
    """Per level, the label id of every hierarchy row (ids in order of first appearance)."""
    ids = []
    for j in range(h.height + 1):
        seen: dict[str, int] = {}
        ids.append(np.array([seen.setdefault(v, len(seen)) for v in h.levels[j]], dtype=np.int64))
    return ids


def grassberger_l_values(df: pl.DataFrame, on: Sequence[str], sensitive: str,
                         suppressed_as: str | None = None) -> np.ndarray:
    """Per record: the entropy l of its class by Grassberger's estimator, ``exp(G(N) - 1/N sum_v
    n_v G(n_v))`` over the class's non-null sensitive values (ARX ``EntropyLDiversity`` with
    ``EntropyEstimator.GRASSBERGER``: ``generalize(l_kind="entropy_grassberger")`` guarantees it
    is at least l); NaN for a generalised release's suppressed records and for a class without a
    sensitive value. The plug-in (Shannon) l of the same class differs (Grassberger corrects its
    bias): a sign-off that reads a Grassberger model by Shannon's l reports another number.

    >>> df = pl.DataFrame({"k": [1] * 10, "s": list("aabbccdddd")})
    >>> round(float(grassberger_l_values(df, ["k"], "s")[0]), 4)   # Shannon's: 3.7893
    3.6985
    """
    from ..risk.diversity import _class_ids, _released
    from .criteria import grassberger

    n = df.height
    out = np.full(n, np.nan)
    kept = _released(df, list(on), suppressed_as)
    sel = np.arange(n) if kept is None else np.flatnonzero(kept)
    if sel.size == 0:
        return out
    part = df if kept is None else df.filter(pl.Series(kept))
    g = _class_ids(part, list(on))
    frame = pl.DataFrame({"g": g, "s": part.get_column(sensitive)}).filter(pl.col("s").is_not_null())
    if frame.height == 0:
        return out
    counts = frame.group_by("g", "s").len()
    c = counts.get_column("len").to_numpy().astype(np.int64)
    cls = counts.get_column("g").to_numpy()
    n_cls = int(g.max()) + 1
    N = np.bincount(cls, weights=c, minlength=n_cls).astype(np.int64)
    total = np.bincount(cls, weights=c * grassberger(c), minlength=n_cls)
    has = N > 0
    val = np.full(n_cls, np.nan)
    val[has] = np.exp(grassberger(N[has]) - total[has] / N[has])
    out[sel] = val[g]
    return out


def model_t_values(df: pl.DataFrame, on: Sequence[str], sensitive: str, t_distance: str = "equal",
                   hierarchy: Hierarchy | None = None, suppressed_as: str | None = None) -> np.ndarray:
    """Per record: the t of its class by the ground distance of :func:`generalize`'s t-closeness
    (ARX's ``EqualDistanceTCloseness``, or ``HierarchicalDistanceTCloseness`` with the sensitive
    column's ``hierarchy``), against the distribution of every record of ``df``; a generalised
    release's suppressed records (every key ``suppressed_as``) are in no class (NaN). What a
    sign-off reads after a t-closeness ``generalize`` step, so it measures the t the model
    guaranteed (the risk measures' ``t_closeness`` reads a numeric column by the ordered distance).

    >>> df = pl.DataFrame({"k": [1, 1, 2, 2, 2, 2], "s": ["a", "a", "b", "c", "c", "b"]})
    >>> h = Hierarchy([["a", "b", "c"], ["ab", "ab", "c"], ["*", "*", "*"]])
    >>> model_t_values(df, ["k"], "s", "hierarchical", h).tolist()   # by the equal distance: 2/3 and 1/3
    [0.5, 0.5, 0.25, 0.25, 0.25, 0.25]
    """
    from ..risk.diversity import _class_ids, _released, t_closeness_values

    if t_distance != "hierarchical":
        return t_closeness_values(df, list(on), sensitive, ordered=False, suppressed_as=suppressed_as)
    if hierarchy is None:
        raise SDCError("t_distance='hierarchical' needs the sensitive column's hierarchy")
    n = df.height
    out = np.full(n, np.nan)
    if n == 0:
        return out
    sv = df.get_column(sensitive)
    if sv.null_count():
        raise SDCError(f"column {sensitive!r}: {sv.null_count()} null value(s); hierarchical t-closeness needs "
                       "every sensitive value in its hierarchy")
    labels = _as_labels(sv, sensitive)
    row_of = {v: i for i, v in enumerate(hierarchy.values)}
    mapped = labels.replace_strict(list(row_of), list(row_of.values()), default=None, return_dtype=pl.Int64)
    if mapped.null_count():
        bad = labels.filter(mapped.is_null())[0]
        raise SDCError(f"column {sensitive!r}: value {bad!r} is not in its hierarchy")
    code = mapped.to_numpy()
    R = hierarchy.n_values
    tree = HierarchyTree.build(_level_ids(hierarchy), np.arange(R, dtype=np.int64),
                               np.bincount(code, minlength=R).astype(np.float64))
    kept = _released(df, list(on), suppressed_as)
    sel = np.arange(n) if kept is None else np.flatnonzero(kept)
    if sel.size == 0:
        return out
    g = _class_ids(df if kept is None else df.filter(pl.Series(kept)), list(on))
    n_cls = int(g.max()) + 1
    sizes = np.bincount(g, minlength=n_cls).astype(np.float64)
    emd = np.empty(n_cls)
    order = np.argsort(g, kind="stable")
    gs, cs = g[order], code[sel][order]
    starts = np.searchsorted(gs, np.arange(n_cls + 1))
    step = max(1, 4_000_000 // max(R, 1))
    from .criteria import hierarchical_emd

    for a in range(0, n_cls, step):
        b = min(n_cls, a + step)
        rows = slice(starts[a], starts[b])
        counts = np.bincount((gs[rows] - a) * R + cs[rows], minlength=(b - a) * R).reshape(b - a, R)
        emd[a:b] = hierarchical_emd(counts.astype(np.float64), sizes[a:b], tree)
    out[sel] = emd[g]
    return out


#: the columns of ``GeneralizationResult.lattice`` besides one level column per quasi-identifier
LATTICE_COLUMNS = ("height", "status", "checked", "loss", "bound", "optimal")


def level_column_names(on: Sequence[str]) -> dict[str, str]:
    """The column of each quasi-identifier's level in the lattice frame: its own name, or with
    ``_level`` appended (until unique) when it is named like a column of the frame
    (:data:`LATTICE_COLUMNS`: a key called ``status`` or ``height`` must not overwrite them).

    >>> level_column_names(["age", "status"])
    {'age': 'age', 'status': 'status_level'}
    """
    taken = set(LATTICE_COLUMNS) | set(on)
    out = {}
    for c in on:
        name = c
        if c in LATTICE_COLUMNS:
            while name in taken:
                name += "_level"
            taken.add(name)
        out[c] = name
    return out


def _int_dtype(top: int) -> Any:
    """The smallest signed integer dtype holding 0..top (a level or a height)."""
    return np.int8 if top <= 127 else np.int16 if top <= 32767 else np.int32 if top < 2**31 else np.int64


def _lattice_frame(on: list[str], res: SearchResult) -> pl.DataFrame:
    L = res.nodes
    checked = np.zeros(L.shape[0], dtype=bool)
    checked[res.checked] = True
    status = np.array(["unknown", "anonymous", "not anonymous"])[np.where(res.status < 0, 2, res.status)]
    optimal = np.zeros(L.shape[0], dtype=bool)
    if res.best is not None:
        optimal = np.all(L == res.best, axis=1)
    names = level_column_names(on)
    level_dtype = _int_dtype(int(L.max()) if L.size else 0)
    height = L.sum(axis=1)
    data: dict[str, Any] = {names[c]: L[:, i].astype(level_dtype) for i, c in enumerate(on)}
    data.update(height=height.astype(np.int16 if int(height.max(initial=0)) <= 32767 else np.int64), status=status,
                checked=checked, loss=res.losses, bound=res.bounds, optimal=optimal)
    return pl.DataFrame(data).with_columns(pl.col("loss").fill_nan(None))


def check_options(
    schema: pl.Schema, hierarchies: Mapping[str, Any], *, k: Any = 2, suppression_limit: Any = 0.0,
    metric: Any = "loss", sensitive: str | None = None, l_diversity: Any = None, t_closeness: Any = None,
    on: ColumnSpec = None, l_kind: Any = "distinct", c: Any = None, t_distance: Any = "equal",
    suppressed_as: Any = "*", household: str | None = None, household_columns: Any = None,
) -> tuple[list[str], int, float, Any, Any, Any, Any]:
    """The checks of :func:`generalize` that need no data (the quasi-identifiers and their
    hierarchies' presence, k, the suppression limit, the metric, the privacy models, the
    household role), on ``schema``: :func:`generalize` runs them first, and a LazyFrame step
    (``lf.sdc.generalize_release``) when it is planned. Returns the quasi-identifiers, ``k``,
    the limit, ``l_diversity``, ``c``, ``t_closeness`` (as checked) and the declared
    household-level columns.

    >>> check_options(pl.Schema({"age": pl.Int64}), {"age": {"rule": "intervals", "widths": [10]}}, k=0)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: k must be >= 1, got 0
    """
    on = quasi_identifiers(schema, hierarchies, sensitive, on)
    if not on:
        raise SDCError("no quasi-identifier left (every hierarchy's column is the sensitive one)")
    k = check_int(k, "k", minimum=1)
    limit = check_real(suppression_limit, "suppression_limit", minimum=0.0, maximum=1.0)
    if metric not in METRICS:
        raise SDCError(f"metric must be one of {', '.join(METRICS)}; got {metric!r}")
    if (l_diversity is not None or t_closeness is not None) and sensitive is None:
        raise SDCError("l_diversity / t_closeness need a `sensitive` column")
    if sensitive is not None:
        if sensitive not in list(schema):
            raise SDCError(f"column {sensitive!r}: not in the frame")
        if sensitive in on:
            raise SDCError(f"column {sensitive!r}: is both a quasi-identifier and the sensitive column")
        if l_diversity is not None or t_closeness is not None:
            from ..risk.diversity import check_sensitive_dtype

            check_sensitive_dtype(sensitive, schema[sensitive])   # one the log and the sign-off can measure
    if l_kind not in L_KINDS:
        raise SDCError(f"l_kind must be one of {', '.join(L_KINDS)}; got {l_kind!r}")
    if t_distance not in T_DISTANCES:
        raise SDCError(f"t_distance must be one of {', '.join(T_DISTANCES)}; got {t_distance!r}")
    if l_diversity is not None:
        if l_kind in ("entropy", "entropy_grassberger"):
            l_diversity = check_real(l_diversity, "l_diversity", minimum=1.0)
        else:  # a whole float (the CLI's and a recipe's number) is the integer it holds
            if isinstance(l_diversity, float) and l_diversity.is_integer():
                l_diversity = int(l_diversity)
            l_diversity = check_int(l_diversity, "l_diversity", minimum=1)
    if l_kind == "recursive" and l_diversity is not None:
        if c is None:
            raise SDCError("l_kind='recursive' needs c (recursive (c, l)-diversity: r_1 < c (r_l + ... + r_m))")
        c = check_real(c, "c", minimum=0.0, low_open=True)
    elif c is not None:
        raise SDCError("c is the parameter of recursive (c, l)-diversity; give l_kind='recursive' and l_diversity")
    if t_closeness is not None:
        t_closeness = check_real(t_closeness, "t_closeness", minimum=0.0, maximum=1.0)
    if suppressed_as is not None and not (isinstance(suppressed_as, str) and suppressed_as):
        # "" too: every reader of the release (risk, log, sign-off) refuses an empty label
        raise SDCError(f"suppressed_as must be a string (e.g. '*'; not empty) or None (null); got {suppressed_as!r}")
    from ..household import check_household_columns

    declared = check_household_columns(schema, household, household_columns)
    if household is not None:
        from ..household import check_household_column

        check_household_column(schema, household, on, what="household")
        if household == sensitive:
            raise SDCError(f"household column {household!r}: is also the sensitive column")
    return on, k, limit, l_diversity, c, t_closeness, declared


@deprecated(positional=("suppression_limit", "metric", "sensitive", "l_diversity", "t_closeness", "on", "l_kind",
                        "c", "t_distance", "suppressed_as", "household", "household_columns"))
def generalize(
    df: pl.DataFrame,
    hierarchies: Mapping[str, Any],
    k: int = 2,
    *,
    suppression_limit: float = 0.0,
    metric: str = "loss",
    sensitive: str | None = None,
    l_diversity: float | None = None,
    t_closeness: float | None = None,
    on: ColumnSpec = None,
    l_kind: str = "distinct",
    c: float | None = None,
    t_distance: str = "equal",
    suppressed_as: str | None = SUPPRESSED,
    household: str | None = None,
    household_columns: Sequence[str] | None = None,
) -> GeneralizationResult:
    """The optimal full-domain generalisation of the quasi-identifiers (the keys of
    ``hierarchies``, each a :class:`Hierarchy`, an ARX hierarchy CSV path or a mapping) that
    satisfies k-anonymity (and ``l_diversity`` / ``t_closeness`` on ``sensitive``) with at most
    ``floor(suppression_limit * n)`` records suppressed,
    minimising ARX's ``metric`` (``"loss"``: ARX ``createLossMetric()``; ``"discernibility"``,
    ``"discernibility_star"``, ``"entropy"`` (non-uniform entropy), ``"entropy_monotone"``,
    ``"precision"``, ``"precision_monotone"``; see :mod:`polars_sdc.generalize.metrics`).
    ``on`` selects the quasi-identifiers among the hierarchies' columns (default: all of them
    but ``sensitive``, as ARX's tests set up Adult).

    ``l_kind``: ``"distinct"`` (ARX ``DistinctLDiversity``), ``"entropy"``
    (``EntropyLDiversity``, Shannon), ``"entropy_grassberger"`` (its Grassberger estimator) or
    ``"recursive"`` (``RecursiveCLDiversity`` with ``c``); ``t_distance``: ``"equal"``
    (``EqualDistanceTCloseness``) or ``"hierarchical"`` (``HierarchicalDistanceTCloseness``
    with the sensitive column's hierarchy, ``hierarchies[sensitive]``); definitions in
    :mod:`polars_sdc.generalize.criteria`. A null sensitive value is no sensitive value (the
    sign-off's rule): l and t are measured on a class's records with a value, and a class whose
    values are all null fails them. ``suppressed_as``: what suppressed records'
    quasi-identifiers become, ``"*"`` (ARX's output) or None (null, as sdcMicro's local
    suppression); the risk measures read either as a record whose every key is missing
    (``"*"`` when told ``suppressed_as="*"``, as the result's ``suppressed_as`` says). A
    release in which a record that is **kept** shows the label in every quasi-identifier (ARX
    hierarchies end in ``"*"``: every key generalised to its top) is refused with an
    :class:`SDCError` naming the columns and the label: the frame could not tell that record
    from a suppressed one (ARX keeps an outlier flag, a frame has none) and every reader of the
    label would count it suppressed; give a label no level uses (``"(suppressed)"``) or None.

    ``household``: the household id column of a survey file (persons in households). Every
    released class then holds records of at least ``k`` distinct **households** (not k
    members of a few households: ``df.sdc.mdav(k, household=)``'s rule, DESIGN "Households"),
    a class with fewer is suppressed like any failing class (the suppression limit still
    counts records), and the search finds the least-loss transformation under that rule
    (households per class only grow when classes merge, so the problem stays monotone). When a
    quasi-identifier is household-level (constant within every household: the region, the
    household size), a household with a suppressed member is suppressed **whole** (else the
    housemates' records would show the suppressed person's value next to the shared household
    id), and what is left of each class must pass again, until nothing changes; the limit counts
    these records too and the search stays exact. The household id itself is never generalised.
    ``household_columns``: the household-level quasi-identifiers declared instead of detected
    (checked constant within every household; the others person-level; the one validation of
    every ``household=`` method, :func:`polars_sdc.household.check_household_columns`);
    detected, a key constant in most but not all households gets a
    :class:`polars_sdc.household.HouseholdWarning` (the whole-household rule does not see it).

    >>> import polars as pl
    >>> from polars_sdc.generalize import Hierarchy
    >>> df = pl.DataFrame({"zip": ["13053", "13068", "13068", "14850", "14853", "14853"],
    ...                    "age": [28, 29, 21, 50, 55, 47]})
    >>> hs = {"zip": Hierarchy.masking(df["zip"]), "age": Hierarchy.intervals(df["age"], (10, 20), start=0)}
    >>> r = generalize(df, hs, k=3)
    >>> r.levels, r.suppressed
    ({'zip': 2, 'age': 2}, 0)
    >>> r.frame.rows()[:2]
    [('130**', '20-39'), ('130**', '20-39')]
    >>> hh = df.with_columns(hh=pl.Series([1, 1, 1, 2, 2, 2]))          # two households of three
    >>> generalize(hh, hs, k=2, household="hh").frame.rows()[:1]         # each class: both households
    [('1****', '*', 1)]
    """
    hierarchies = hierarchy_mapping(hierarchies)
    on, k, limit, l_diversity, c, t_closeness, declared = check_options(
        df.schema, hierarchies, k=k, suppression_limit=suppression_limit, metric=metric, sensitive=sensitive,
        l_diversity=l_diversity, t_closeness=t_closeness, on=on, l_kind=l_kind, c=c, t_distance=t_distance,
        suppressed_as=suppressed_as, household=household, household_columns=household_columns)
    hs = [as_hierarchy(hierarchies[col], col, _values(df, col)) for col in on]
    s_hier = None
    if t_closeness is not None and t_distance == "hierarchical":
        if sensitive not in hierarchies:
            raise SDCError(f"t_distance='hierarchical' needs the hierarchy of the sensitive column {sensitive!r} "
                           "in hierarchies")
        s_hier = as_hierarchy(hierarchies[sensitive], sensitive, _values(df, sensitive))
    n = df.height
    if n == 0:
        raise SDCError("the frame has no rows")
    problem, tup, codes = prepare(df, on, hs, sensitive if (l_diversity is not None or t_closeness is not None)
                                  else None, household, declared)
    tree = _sensitive_tree(df, sensitive, s_hier, problem) if s_hier is not None else None
    models = Models(k=k, l=l_diversity, t=t_closeness, l_kind=l_kind, c=c, tree=tree)
    max_out = int(np.floor(limit * n))
    met = Metric(metric, problem.tables)
    res = search(problem, models, met, max_out)
    lattice = _lattice_frame(on, res)
    if res.best is None:
        raise SDCError(f"no transformation satisfies the models with at most {max_out} records suppressed "
                       "(even the most general one); raise suppression_limit or weaken the models"
                       + _why_no_transformation(df, n, k, sensitive, l_diversity, t_closeness, household))
    levels = {c: int(j) for c, j in zip(on, res.best)}
    cls = res.classes
    out_rec = cls.out[cls.inv[tup]]
    _check_label_unambiguous(on, hs, levels, codes, out_rec, suppressed_as)
    out_s = pl.Series("_out", out_rec, dtype=pl.Boolean)
    idx = pl.Series("_i", np.arange(n))
    exprs = []
    for i, (c, h) in enumerate(zip(on, hs)):
        labels = pl.Series(c, list(h.levels[levels[c]]) + [None, suppressed_as], dtype=pl.String)
        row = np.where(out_rec, h.n_values + 1, codes[:, i])   # a null (code n_values) stays null
        exprs.append(labels.gather(pl.Series(row, dtype=pl.UInt32)).alias(c))
    del idx, out_s
    frame = df.with_columns(exprs)
    if suppressed_as is None and len(on) == 1 and cls.n_out:
        _warn_one_key_nulls(frame, on[0], int(cls.n_out), k)
    return GeneralizationResult(frame=frame, levels=levels, metric=metric, loss=float(res.loss),
                                suppressed=int(cls.n_out), max_suppressed=max_out,
                                checked=int(res.checked.size), ties=tuple(res.ties), lattice=lattice,
                                outliers=pl.Series("suppressed", out_rec, dtype=pl.Boolean),
                                suppressed_as=suppressed_as, heights={c: h.height for c, h in zip(on, hs)},
                                models={"k": k, "sensitive": sensitive, "l_diversity": l_diversity, "l_kind": l_kind,
                                        "c": c, "t_closeness": t_closeness, "t_distance": t_distance,
                                        "sensitive_hierarchy": s_hier})


def _check_label_unambiguous(on: list[str], hs: list[Hierarchy], levels: dict[str, int], codes: np.ndarray,
                             out_rec: np.ndarray, suppressed_as: str | None) -> None:
    """Refuse a release in which a record that is **kept** shows ``suppressed_as`` in every
    quasi-identifier (a hierarchy's top label ``"*"`` at the chosen levels, ARX's usual top):
    the frame alone could not tell it from a suppressed record, and every reader of the label
    (the risk measures, l-diversity, the report, a problem's later steps, ``--suppressed-as``)
    would count it as suppressed. ARX tells the two apart by its outlier bit; a Polars frame
    carries no such bit, so the label must. A null label (``suppressed_as=None``) is not read
    as a label and needs no check."""
    if suppressed_as is None:
        return
    hit = ~out_rec
    for i, (c, h) in enumerate(zip(on, hs)):
        is_label = np.array([v == suppressed_as for v in h.levels[levels[c]]] + [False], dtype=np.bool_)
        hit = hit & is_label[codes[:, i]]
        if not hit.any():
            return
    lv = ", ".join(f"{c} {j}" for c, j in levels.items())
    cols = ", ".join(repr(c) for c in on)
    raise SDCError(f"suppressed_as={suppressed_as!r}: column{'s' if len(on) > 1 else ''} {cols} "
                   f"{'all use' if len(on) > 1 else 'uses'} the label {suppressed_as!r} at the chosen levels "
                   f"({lv}), so {int(hit.sum())} released record(s) would show {suppressed_as!r} in every "
                   "quasi-identifier and read as suppressed (ARX tells them apart by its outlier flag; a frame "
                   "cannot); give suppressed_as a label no hierarchy level uses (e.g. '(suppressed)') or None (null)")

def _warn_one_key_nulls(frame: pl.DataFrame, column: str, suppressed: int, k: int) -> None:
    """The :class:`SuppressionLabelWarning` of a one-key release with null-suppressed records:
    what the risk measures will read (sdcMicro's one-key rule, alpha = 1: a value's frequency
    is its records plus every null), so the gap to the release's own classes is in view. The
    nulls are not read otherwise: the frame cannot tell them from the user's own (structural)
    nulls, which sdcMicro reads so."""
    col = frame.get_column(column)
    nulls = col.null_count()
    counts = col.drop_nulls().value_counts(name="_n").get_column("_n")
    smallest = (f"; its smallest class, {int(counts.min())} records, reads as {int(counts.min()) + nulls}"
                if counts.len() else "")
    warn_at_caller(
        f"column {column!r}: the only quasi-identifier, with {suppressed} record(s) suppressed as null "
        f"(suppressed_as=None): the risk measures read a null of a single key as sdcMicro's wildcard, which "
        f"matches every value, so every kept class also counts the {nulls} null record(s){smallest} "
        f"(the release itself is {k}-anonymous). Keep a label (suppressed_as='*', the default) and measure with "
        "it (suppressed_as='*'; --suppressed-as '*') to read the release's own classes",
        SuppressionLabelWarning)


def _why_no_transformation(df: pl.DataFrame, n: int, k: int, sensitive: str | None, l_diversity: Any,
                           t_closeness: Any, household: str | None) -> str:
    """The evident cause when not even the most general transformation passes (for the error)."""
    if household is not None:
        n_h = df.get_column(household).n_unique()
        if k > n_h:
            return f": k={k} is above the {n_h} households of column {household!r}"
    if k > n:
        return f": k={k} is above the {n} records"
    if sensitive is not None and (l_diversity is not None or t_closeness is not None):
        sv = df.get_column(sensitive)
        if sv.null_count() == n:
            return f": column {sensitive!r} (sensitive) has no value, every one is null"
        distinct = sv.drop_nulls().n_unique()
        if l_diversity is not None and distinct < l_diversity:
            return (f": column {sensitive!r} (sensitive) has {distinct} distinct value(s), "
                    f"l_diversity={l_diversity:g} needs at least {math.ceil(l_diversity)}")
    return ""


def quasi_identifiers(schema: pl.Schema, hierarchies: Mapping[str, Any], sensitive: str | None,
                      on: ColumnSpec) -> list[str]:
    """The quasi-identifiers of a generalisation: ``on`` resolved (each with a hierarchy), or every
    hierarchy's column but the sensitive one; each must be a column of ``schema``."""
    if on is None:
        cols = [c for c in hierarchies if c != sensitive]
    else:
        cols = resolve_columns(schema, on, kind="any", what="quasi-identifier", default="error")
        for col in cols:
            if col not in hierarchies:
                raise SDCError(f"column {col!r}: no hierarchy given for it")
    for col in cols:
        if col not in schema:
            raise SDCError(f"column {col!r}: not in the frame (columns: {', '.join(schema)})")
    return cols


def release_schema(schema: pl.Schema, hierarchies: Any, sensitive: str | None = None, on: ColumnSpec = None) -> pl.Schema:
    """The schema of :func:`generalize_frame`'s release: the quasi-identifiers become String."""
    cols = quasi_identifiers(schema, hierarchy_mapping(hierarchies), sensitive, on)
    return pl.Schema({c: (pl.String if c in cols else t) for c, t in schema.items()})


def generalize_frame(df: pl.DataFrame, hierarchies: Any, **options: Any) -> pl.DataFrame:
    """The released frame of :func:`generalize` (its ``frame``): the step of a problem, a
    recipe and ``polars-sdc generalize``.

    >>> import polars as pl
    >>> df = pl.DataFrame({"age": [21, 23, 25, 38]})
    >>> generalize_frame(df, {"age": {"rule": "intervals", "widths": [10, 20], "start": 0}}, k=2)["age"].to_list()
    ['20-39', '20-39', '20-39', '20-39']
    """
    return generalize(df, hierarchies, **options).frame
