"""The ``sdc`` namespaces on DataFrame, LazyFrame and Expr: argument handling and delegation.

Every frame method is written once (on :class:`_FrameMethods`). On a DataFrame it runs
now; on a LazyFrame it becomes a whole-frame ``map_batches`` step with a declared schema
and ``streamable=False`` (never run per streaming batch), so ``lf.sdc.m(...).collect()``
equals ``df.sdc.m(...)``. Method modules are imported inside the methods, so importing
polars_sdc loads no Numba.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from .._columns import ColumnSpec
from ._base import FrameOps
from .masking import MaskingMethods
from .microagg import MicroaggMethods
from .risk import RiskMethods


class _FrameMethods(FrameOps):
    """Methods shared by ``DataFrame.sdc`` and ``LazyFrame.sdc``."""

    # -- checking a release -----------------------------------------------------------
    def equivalence_classes(self, on: ColumnSpec = None, alpha: float = 1.0) -> Any:
        """Each distinct combination of the ``on`` values with its row count, smallest first.

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2]}).sdc.equivalence_classes("a").rows()
        [(2, 1), (1, 2)]
        """
        from ..anonymity import equivalence_classes, quasi_identifier_columns

        cols = quasi_identifier_columns(self._schema(), on)
        schema = equivalence_classes(pl.DataFrame(schema=self._schema()), cols, alpha).schema
        return self._frame_op(lambda df: equivalence_classes(df, cols, alpha), schema)

    def k_anonymity(self, on: ColumnSpec = None, alpha: float = 1.0) -> int:
        """The size of the smallest equivalence class on ``on`` (a LazyFrame is collected).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": [1, 1, 2, 2, 2]}).sdc.k_anonymity("a")
        2
        """
        from ..anonymity import k_anonymity, quasi_identifier_columns

        cols = quasi_identifier_columns(self._schema(), on)
        return k_anonymity(self._collected(cols), cols, alpha)

    # -- information loss -------------------------------------------------------------
    def ilssdm(
        self,
        on: ColumnSpec = None,
        *,
        groups: str | pl.Series | None = None,
        masked: pl.DataFrame | pl.LazyFrame | None = None,
        standardize: bool = True,
    ) -> float:
        """SSE / SST of the ``on`` columns (thesis 2.4.1): for a partition (``groups``) whose
        groups are replaced by their means, or for a row-aligned ``masked`` release.

        Columns are z-scored with the original's mean and standard deviation unless
        ``standardize=False``.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
        >>> df.sdc.ilssdm("x", groups=pl.Series([0, 0, 1, 1]), standardize=False)
        0.2
        """
        from ..loss.sse import ilssdm_frame

        return ilssdm_frame(self._collected(), on, groups=groups, masked=masked, standardize=standardize)

    def ild(
        self,
        masked: pl.DataFrame | pl.LazyFrame | None = None,
        *,
        dist: Any = None,
        groups: str | pl.Series | None = None,
        on: ColumnSpec = None,
        weights: Any = None,
        exponent: float = 2,
    ) -> float:
        """ILD = (I(A) - I(A_hat)) / I(A) (Akiyama & Wada 2.2, thesis 3.1), I = sum_ij d(x_i, x_j)^exponent,
        for a row-aligned ``masked`` release or for ``groups`` replaced by their representatives.

        ``dist``: a mapping column (or tuple of columns) -> distance (a name such as
        ``"euclidean"``, ``"discrete"``, ``"levenshtein_norm"``, or a ``polars_sdc.dist``
        distance) combined by the product distance with ``weights`` (None, ``"amount"`` =
        1 / the column's own I, or a mapping); default Euclidean / discrete per column.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1, 2, 3, 4], "g": [0, 0, 1, 1]})
        >>> df.sdc.ild(groups="g")
        0.2
        """
        from ..loss.ild import ild, needed_columns

        cols = needed_columns(self._schema(), dist, on, weights, groups)
        return ild(self._collected(cols), masked, groups=groups, dist=dist, on=on, weights=weights, exponent=exponent)

    def ild_report(
        self,
        masked: pl.DataFrame | pl.LazyFrame | None = None,
        *,
        dist: Any = None,
        groups: str | pl.Series | None = None,
        on: ColumnSpec = None,
        weights: Any = None,
        exponent: float = 2,
    ) -> Any:
        """ILD per column and overall with I(A) and I(A_hat): an ``ILDReport`` (``.ild``,
        ``.by_column``, ``.to_frame()``); arguments as :meth:`ild`.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1, 2, 3, 4], "c": ["a", "a", "b", "c"]})
        >>> rep = df.sdc.ild_report(groups=pl.Series([0, 0, 1, 1]))
        >>> rep.by_column
        {'x': 0.2, 'c': 0.2}
        """
        from ..loss.ild import ild_report, needed_columns

        cols = needed_columns(self._schema(), dist, on, weights, groups)
        return ild_report(
            self._collected(cols), masked, groups=groups, dist=dist, on=on, weights=weights, exponent=exponent
        )

    def information_amount(
        self, dist: Any = None, *, on: ColumnSpec = None, weights: Any = None, exponent: float = 2
    ) -> float:
        """I(A) = sum_i sum_j d(x_i, x_j)^exponent (thesis 3.1.2) under ``dist`` (as in :meth:`ild`).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"x": [1, 2, 3, 4]}).sdc.information_amount()
        40.0
        """
        from ..loss.ild import information_amount, needed_columns

        cols = needed_columns(self._schema(), dist, on, weights, None)
        return information_amount(self._collected(cols), dist, on=on, weights=weights, exponent=exponent)

    def loss_report(
        self,
        masked: pl.DataFrame | pl.LazyFrame | None = None,
        *,
        groups: str | pl.Series | None = None,
        on: ColumnSpec = None,
        dist: Any = None,
        weights: Any = None,
        exponent: float = 2,
        label: str | None = None,
        k: int | None = None,
        hierarchies: Any = None,
        max_dim: int = 2,
    ) -> Any:
        """ILD beside ILSSDM, DM (with ``k``), NCP (``hierarchies``), entropy loss, EBIL, CTBIL
        (tables of up to ``max_dim`` columns) and CM (with a class ``label``): a ``LossReport``.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": [0, 0, 1, 1]})
        >>> df.sdc.loss_report(groups="g", k=2).dm
        8
        """
        from ..loss.classic import loss_report
        from ..loss.ild import needed_columns

        cols = needed_columns(self._schema(), dist, on, weights, groups)
        if label is not None and label not in cols:
            cols.append(label)
        return loss_report(
            self._collected(cols), masked, groups=groups, on=on, dist=dist, weights=weights, exponent=exponent,
            label=label, k=k, hierarchies=hierarchies, max_dim=max_dim,
        )

    # -- global recoding and model-based utility (Sano & Hattori) -------------------------------
    def recode(
        self,
        columns: ColumnSpec,
        p: float,
        *,
        sep: str = "・",
        hierarchy: Any = None,
        ordinal: Any = None,
    ) -> Any:
        """Minimum-frequency global recoding (Sano & Hattori, Fig. 1) of categorical ``columns``:
        with th = rows * p, the least frequent category merges with the second least (or
        all tied least frequent ones merge) until every count exceeds th or one is left.

        Labels join with ``sep``; nulls stay null; String/Categorical keep their dtype and an
        Enum gets the new category set (on a LazyFrame it comes back Categorical: the new
        categories are known only from the data). Ties: lowest position (Enum order, else
        first appearance). ``hierarchy={col: {category: parent}}`` merges only siblings;
        ``ordinal=[enum cols]`` or ``{col: order}`` merges only neighbours.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"c": ["農業"] * 5 + ["林業"] * 2 + ["製造業"] * 93})
        >>> df.sdc.recode("c", p=0.05)["c"].value_counts(sort=True).rows()
        [('製造業', 93), ('農業・林業', 7)]
        """
        from ..recode import check_p, recode_frame, recode_output_schema

        check_p(p)
        schema = recode_output_schema(self._schema(), columns, lazy=self._lazy, hierarchy=hierarchy, ordinal=ordinal)
        enum_as = pl.Categorical if self._lazy else None
        return self._frame_op(
            lambda df: recode_frame(
                df, columns, p, sep=sep, hierarchy=hierarchy, ordinal=ordinal, enum_as=enum_as
            ),
            schema,
        )

    def recode_map(
        self,
        columns: ColumnSpec,
        p: float,
        *,
        sep: str = "・",
        hierarchy: Any = None,
        ordinal: Any = None,
    ) -> pl.DataFrame:
        """What :meth:`recode` merges: one row per observed category with ``column``,
        ``original``, ``recoded``, ``count`` and ``recoded_count`` (a LazyFrame is collected).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"c": ["x", "y", "x", "z"]}).sdc.recode_map("c", 0.3)["recoded"].to_list()
        ['x', 'y・z', 'y・z']
        """
        from .._columns import resolve_columns
        from ..recode import recode_map_frame

        cols = resolve_columns(self._schema(), columns, kind="categorical", what="columns", default="error")
        return recode_map_frame(self._collected(cols), cols, p, sep=sep, hierarchy=hierarchy, ordinal=ordinal)

    def recode_utility(
        self,
        target: str,
        inputs: ColumnSpec,
        p: float,
        *,
        metric: str | None = "recall",
        sep: str = "・",
        test_size: float | None = None,
        seed: int = 0,
        l2: float = 1e-4,
        undefined: str = "skip",
    ) -> Any:
        """Model-based information loss of recoding the ``inputs`` (Sano & Hattori, eq. 6):
        metric of a multinomial logit predicting the original ``target`` from the original
        inputs minus the same from the recoded inputs. ``metric`` is precision, recall
        (the paper's choice), f or accuracy; ``None`` returns a report of all four.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": ["u"] * 12 + ["v"] * 10 + ["w"] * 8,
        ...                    "y": ["a"] * 12 + ["b"] * 10 + ["a"] * 5 + ["b"] * 3})
        >>> round(df.sdc.recode_utility("y", "x", p=0.3), 6)
        0.031674
        """
        from .._columns import resolve_columns
        from ..utility import recode_utility

        schema = self._schema()
        cols = resolve_columns(schema, target, what="target", default="error") + resolve_columns(
            schema, inputs, what="inputs", default="error"
        )
        return recode_utility(
            self._collected(list(dict.fromkeys(cols))), target, inputs, p, metric=metric, sep=sep,
            test_size=test_size, seed=seed, l2=l2, undefined=undefined,
        )

    def cramers_v(self, columns: ColumnSpec = None) -> pl.DataFrame:
        """Cramér's V (Sano & Hattori, eq. 7) for every pair of ``columns`` (default: every
        String/Categorical/Enum column) as a matrix frame (a LazyFrame is collected).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "u", "v", "v"]}).sdc.cramers_v()["a"].to_list()
        [1.0, 1.0]
        """
        from .._columns import is_categorical, resolve_columns
        from ..utility import cramers_v

        schema = self._schema()
        if columns is None:
            columns = [c for c, t in schema.items() if is_categorical(t)]
        cols = resolve_columns(schema, columns, kind="supported", what="columns", default="error")
        return cramers_v(self._collected(cols), cols)

    def top_bottom_code(
        self,
        columns: ColumnSpec,
        *,
        lower: float | None = None,
        upper: float | None = None,
        lower_p: float | None = None,
        upper_p: float | None = None,
        replacement: str = "threshold",
    ) -> Any:
        """Top/bottom coding of numeric ``columns``: values above ``upper`` (or the top
        ``upper_p`` share) and below ``lower`` (or the bottom ``lower_p`` share) become the
        threshold, or with ``replacement="mean"`` the mean of the coded values. Native
        expressions, so a LazyFrame stays lazy and streams.

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"x": [1, 5, 7, 90]}).sdc.top_bottom_code("x", upper=10)["x"].to_list()
        [1, 5, 7, 10]
        """
        from ..recode import top_bottom_frame_exprs

        exprs = top_bottom_frame_exprs(
            self._schema(), columns, lower=lower, upper=upper, lower_p=lower_p, upper_p=upper_p,
            replacement=replacement,
        )
        return self._frame.with_columns(exprs)

    # -- Laplace perturbation and reconstruction (Hasegawa et al.) ----------------------------
    def laplace(
        self,
        phi: Any = None,
        on: ColumnSpec = None,
        *,
        k: int | None = None,
        seed: int | None = None,
        clamp: bool = False,
        m: int = 1,
        key: str | None = None,
    ) -> Any:
        """Add Laplace(0, phi) noise to the numeric ``on`` columns (Hasegawa et al., eq. 1/2); they
        become Float64, everything else is kept.

        ``phi``: a number, ``{column: phi}`` or one per column; or ``k`` to calibrate
        ``phi = 2 m (b - a) / ln((N - 1)/(k - 1))`` for Pk-anonymity from each column's range
        (``m``: attributes released together). ``seed`` fixes the noise: row ``i`` of column
        ``c`` gets ``polars_sdc.rng.laplace(seed, f"laplace/{c}", keys, phi)[i]``, keys = row
        positions or the values of the ``key`` column (unique, no nulls): the same in eager,
        lazy, streaming and Spark runs; ``clamp`` clips to the observed range.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0]})
        >>> df.sdc.laplace(1e-12, "x", seed=7)["x"].round(6).to_list()
        [1.0, 2.0, 3.0]
        """
        from .._columns import resolve_columns
        from ..masking._common import resolve_on
        from ..noise import _check_seed, check_phi_arg, laplace_frame, laplace_on, laplace_output_schema

        check_phi_arg(phi)
        _check_seed(seed)
        cols = resolve_on(self._schema(), laplace_on(on, phi), key, kind="numeric", default="numeric")
        schema = laplace_output_schema(self._schema(), cols)
        return self._frame_op(
            lambda df: laplace_frame(df, phi, cols, k=k, seed=seed, clamp=clamp, m=m, key=key), schema
        )

    def reconstruct_gmm(self, K: Any, on: ColumnSpec = None, phi: Any = None, **options: Any) -> Any:
        """Fit the Gaussian mixture behind Laplace-perturbed ``on`` columns (Hasegawa et al., eq. 9):
        a :class:`polars_sdc.reconstruct.GMMFit` (a LazyFrame is collected).

        ``K``: components, or a range picked by BIC; ``phi``: the noise scale (number, per
        column, mapping). Options of :func:`polars_sdc.reconstruct.fit_gmm`: ``method``
        ("exact" / "gem"), ``model`` ("diagonal" / "rotated"), ``n_init``, ``seed``,
        ``max_iter``, ``tol``, ``alpha``, ``criterion``, ``hist_bins``, ``prefit_bins``.

        >>> import numpy as np, polars as pl, polars_sdc
        >>> rng = np.random.default_rng(0)
        >>> x = np.r_[rng.normal(-4, 1, 300), rng.normal(4, 1, 300)]
        >>> noisy = pl.DataFrame({"x": x}).sdc.laplace(1.0, "x", seed=1)
        >>> fit = noisy.sdc.reconstruct_gmm(2, "x", phi=1.0)
        >>> np.round(np.sort(fit.means)).tolist()
        [-4.0, 4.0]
        """
        from .._columns import resolve_columns
        from ..reconstruct import reconstruct_gmm_frame

        cols = resolve_columns(self._schema(), on, kind="numeric", default="numeric")
        return reconstruct_gmm_frame(self._collected(cols), K, cols, phi, **options)

    def reconstruct_ibt(self, on: ColumnSpec, phi: Any, bins: Any, **options: Any) -> Any:
        """The Iterative Bayesian Technique baseline (Hasegawa et al., 2.2.2) on one noisy column: a
        :class:`polars_sdc.reconstruct.IBTFit` histogram on ``bins`` (edges or a count).

        >>> import numpy as np, polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [0.0] * 500 + [1.0] * 500}).sdc.laplace(0.1, "x", seed=3)
        >>> np.round(df.sdc.reconstruct_ibt("x", 0.1, [-0.5, 0.5, 1.5]).probabilities, 1).tolist()
        [0.5, 0.5]
        """
        from .._columns import resolve_columns
        from ..reconstruct import reconstruct_ibt_frame

        cols = resolve_columns(self._schema(), on, kind="numeric", default="error")
        return reconstruct_ibt_frame(self._collected(cols), cols, phi, bins, **options)


        quasi_identifiers(self._schema(), on, by)


# every DataFrame / LazyFrame method group: a mixin of FrameOps (one per area, in this package)
FRAME_METHOD_GROUPS: tuple[type, ...] = (MicroaggMethods, _FrameMethods, RiskMethods, MaskingMethods)


@pl.api.register_dataframe_namespace("sdc")
class SDCFrame(*FRAME_METHOD_GROUPS):
    """``df.sdc``: statistical disclosure control on a DataFrame."""


@pl.api.register_lazyframe_namespace("sdc")
class SDCLazyFrame(*FRAME_METHOD_GROUPS):
    """``lf.sdc``: the same methods, lazily; frame results stay LazyFrames until collect."""


@pl.api.register_expr_namespace("sdc")
class SDCExpr:
    """``pl.col(c).sdc``: column-level SDC expressions."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def zscore(self) -> pl.Expr:
        """``(x - mean) / std`` (population std) as Float64; a constant column gives 0.

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"x": [1, 3]}).select(pl.col("x").sdc.zscore())["x"].to_list()
        [-1.0, 1.0]
        """
        x = self._expr.cast(pl.Float64)
        # |x| beyond 2^+-100: rescale by a power of two first (exact), so the variance neither
        # overflows (|x| ~ 1e154) nor underflows (|x| ~ 1e-162) and zeroes the column
        e = x.abs().max().log(2).floor()
        x = pl.when(e.is_finite() & ((e > 100) | (e < -100))).then(x * pl.lit(2.0).pow(-e)).otherwise(x)
        std = x.std(ddof=0)
        return pl.when(std > 0).then((x - x.mean()) / std).otherwise(0.0)

    def representative(self, group: str | pl.Expr, *, ordinal: bool = False) -> pl.Expr:
        """The group's representative of this column: mean, or with ``ordinal=True`` the lower
        median; use :meth:`DataFrame.sdc.aggregate` for the most frequent value of categories.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"g": [0, 0, 1], "x": [1, 2, 7]})
        >>> df.select(pl.col("x").sdc.representative("g"))["x"].to_list()
        [1.5, 1.5, 7.0]
        """
        x = self._expr
        if ordinal:
            return x.sort().get((pl.len() - 1) // 2).over(group)
        return x.cast(pl.Float64).mean().over(group)

    def recode(
        self,
        p: float,
        *,
        sep: str = "・",
        hierarchy: Any = None,
        ordinal: Any = False,
    ) -> pl.Expr:
        """Minimum-frequency global recoding (Sano & Hattori, Fig. 1) of a String or Categorical
        column (dtype kept; th = column length * p), on the whole column even when streaming.
        ``hierarchy={category: parent}`` merges only siblings; ``ordinal=[order]`` only
        neighbours. An Enum's new categories cannot be declared in advance: cast it to
        Categorical first, or use ``df.sdc.recode``.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"c": ["農業"] * 5 + ["林業"] * 2 + ["製造業"] * 93})
        >>> df.select(pl.col("c").sdc.recode(p=0.05))["c"].unique(maintain_order=True).to_list()
        ['農業・林業', '製造業']
        """
        from ..recode import check_p

        check_p(p)

        def run(s: pl.Series) -> pl.Series:
            from .._errors import SDCError
            from ..recode import recode_series

            if isinstance(s.dtype, pl.Enum):
                raise SDCError(
                    f"column {s.name!r}: an expression cannot declare the new Enum categories; "
                    "cast it to Categorical first or use df.sdc.recode"
                )
            return recode_series(s, p, sep=sep, hierarchy=hierarchy, ordinal=ordinal)

        return self._expr.map_batches(run, return_dtype=pl.dtype_of(self._expr))

    def top_bottom_code(
        self,
        *,
        lower: float | None = None,
        upper: float | None = None,
        lower_p: float | None = None,
        upper_p: float | None = None,
        replacement: str = "threshold",
    ) -> pl.Expr:
        """Top/bottom coding of a numeric column (native expression; see
        :meth:`DataFrame.sdc.top_bottom_code`).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [-50, 1, 5, 7, 90]})
        >>> df.select(pl.col("x").sdc.top_bottom_code(lower=0, upper=10))["x"].to_list()
        [0, 1, 5, 7, 10]
        """
        from ..recode import top_bottom_expr

        return top_bottom_expr(
            self._expr, lower=lower, upper=upper, lower_p=lower_p, upper_p=upper_p, replacement=replacement
        )

    def laplace(
        self,
        phi: Any = None,
        seed: int | None = None,
        *,
        k: int | None = None,
        clamp: bool = False,
        m: int = 1,
        key: str | pl.Expr | None = None,
    ) -> pl.Expr:
        """This column plus Laplace(0, phi) noise, Float64 (see :meth:`DataFrame.sdc.laplace`;
        ``k`` calibrates phi for Pk-anonymity). A whole-column step (never per streaming
        batch), so the same seed gives the same noise as ``df.sdc.laplace`` on that column.
        Inside ``.over()`` / ``group_by().agg()`` rows are keyed by their position in the group,
        which would repeat one noise vector in every group: there a seeded call needs ``key=``
        (a column identifying the rows) and refuses to run without one.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0]})
        >>> a = df.select(pl.col("x").sdc.laplace(2.0, seed=7))["x"]
        >>> a.equals(df.sdc.laplace(2.0, "x", seed=7)["x"])
        True
        """
        from .._errors import SDCError
        from ..noise import _check_seed, check_phi_arg, laplace_series

        check_phi_arg(phi)
        _check_seed(seed)
        if phi is not None and not isinstance(phi, (int, float)):
            raise SDCError(f"phi of an expression must be one number, got {phi!r}")
        name = self._expr.meta.output_name(raise_if_undetermined=False)

        def run(s: pl.Series, keys: pl.Series | None = None) -> pl.Series:
            col = name or s.name
            if keys is None and seed is not None and name is not None and s.name != name:
                raise SDCError(
                    f"column {col!r}: a seeded laplace inside .over() / group_by().agg() would repeat the same "
                    "noise in every group (rows are keyed by their position in the group); pass key= a column "
                    "that identifies the rows"
                )
            return laplace_series(s, phi, seed, k=k, clamp=clamp, m=m, keys=keys, name=col)

        if key is None:
            return self._expr.map_batches(run, return_dtype=pl.Float64)
        key_expr = pl.col(key) if isinstance(key, str) else key
        return pl.map_batches([self._expr, key_expr], lambda ss: run(ss[0], ss[1]), return_dtype=pl.Float64)
