"""``pl.col(c).sdc``: column-level expressions (z-score, representative, recoding, top/bottom
coding, Laplace noise).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from .._signature import deprecated
from .._typing import LabelOptions


@pl.api.register_expr_namespace("sdc")
class SDCExpr:
    """``pl.col(c).sdc``: column-level SDC expressions (``zscore``, ``representative``,
    ``recode``, ``top_bottom_code``, ``laplace``), usable in ``select`` / ``with_columns``.

    >>> import polars as pl, polars_sdc
    >>> pl.DataFrame({"x": [1.0, 2.0, 3.0]}).select(pl.col("x").sdc.zscore())["x"].to_list()
    [-1.224744871391589, 0.0, 1.224744871391589]
    """

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def zscore(self) -> pl.Expr:
        """``(x - mean) / std`` (population std) as Float64; a constant column gives 0.

        Returns
        -------
        Expr

        Examples
        --------
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

    @deprecated(renamed={"group": "groups"})
    def representative(self, groups: str | pl.Expr, *, ordinal: bool = False) -> pl.Expr:
        """The group's representative of this column: mean, or the lower median; use
        ``df.sdc.aggregate`` for the most frequent value of categories.

        Parameters
        ----------
        groups
            The group ids (column name or expression), as ``df.sdc.aggregate``'s ``groups``.
        ordinal
            The lower median instead of the mean.

        Returns
        -------
        Expr

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"g": [0, 0, 1], "x": [1, 2, 7]})
        >>> df.select(pl.col("x").sdc.representative("g"))["x"].to_list()
        [1.5, 1.5, 7.0]
        """
        x = self._expr
        if ordinal:
            return x.sort().get((pl.len() - 1) // 2).over(groups)
        return x.cast(pl.Float64).mean().over(groups)

    def recode(
        self,
        p: float,
        *,
        hierarchy: Any = None,
        ordinal: Any = False,
        sep: str = "|",
        other: str | None = None,
        max_label: int | None = 200,
        null_values: str | Sequence[str] | None = None,
    ) -> pl.Expr:
        """Minimum-frequency global recoding (Sano & Hattori, Fig. 1) of a String or Categorical
        column (dtype kept; th = column length * p), on the whole column even when streaming.
        An Enum's new categories cannot be declared in advance: cast it to Categorical first,
        or use ``df.sdc.recode``.

        Parameters
        ----------
        p
            Minimum share of a category, in (0, 1).
        hierarchy
            ``{category: parent}``: merge only siblings.
        ordinal
            ``[order]``: merge only neighbours.
        sep, other, max_label, null_values
            Labels and missing values as in ``df.sdc.recode``.

        Returns
        -------
        Expr

        Examples
        --------

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"c": ["農業"] * 5 + ["林業"] * 2 + ["製造業"] * 93})
        >>> df.select(pl.col("c").sdc.recode(p=0.05))["c"].unique(maintain_order=True).to_list()
        ['農業|林業', '製造業']
        """
        from ..recode import check_label_options, check_other_constraints, check_p

        label_options: LabelOptions = {"sep": sep, "other": other, "max_label": max_label, "null_values": null_values}
        check_p(p)
        other = check_label_options(label_options)[0].other
        if other is not None:
            try:
                name = self._expr.meta.output_name()
            except Exception:  # noqa: BLE001 - a multi-output expression has no single name
                name = str(self._expr)
            constrained = dict(hierarchy=hierarchy is not None, ordinal=ordinal is not False and ordinal is not None)
            check_other_constraints(other, name, **constrained)

        def run(s: pl.Series) -> pl.Series:
            from .._errors import SDCError
            from ..recode import recode_series

            if isinstance(s.dtype, pl.Enum):
                raise SDCError(
                    f"column {s.name!r}: an expression cannot declare the new Enum categories; "
                    "cast it to Categorical first or use df.sdc.recode"
                )
            return recode_series(s, p, hierarchy=hierarchy, ordinal=ordinal, **label_options)

        return self._expr.map_batches(run, return_dtype=pl.dtype_of(self._expr))

    def top_bottom_code(
        self,
        *,
        lower: float | None = None,
        upper: float | None = None,
        lower_p: float | None = None,
        upper_p: float | None = None,
        replacement: Literal["threshold", "mean"] = "threshold",
    ) -> pl.Expr:
        """Top/bottom coding of a numeric column (a native expression; sdcMicro ``topBotCoding``).

        Parameters
        ----------
        lower, upper, lower_p, upper_p, replacement
            As in ``df.sdc.top_bottom_code``.

        Returns
        -------
        Expr

        Examples
        --------

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [-50, 1, 5, 7, 90]})
        >>> df.select(pl.col("x").sdc.top_bottom_code(lower=0, upper=10))["x"].to_list()
        [0, 1, 5, 7, 10]
        """
        from ..recode.top_bottom import top_bottom_expr

        return top_bottom_expr(self._expr, lower=lower, upper=upper, lower_p=lower_p, upper_p=upper_p,
                               replacement=replacement)

    @deprecated(positional=("seed",))
    def laplace(
        self,
        phi: Any = None,
        *,
        seed: int | None = None,
        k: int | None = None,
        clamp: bool = False,
        m: int = 1,
        key: str | pl.Expr | None = None,
    ) -> pl.Expr:
        """This column plus Laplace(0, phi) noise, Float64. A whole-column step (never per
        streaming batch), so the same seed gives the same noise as ``df.sdc.laplace`` on that
        column.

        Parameters
        ----------
        phi
            The scale (one number), or give ``k``.
        seed
            Seed of the draws.
        k, clamp, m
            As in ``df.sdc.laplace``: calibrate phi for Pk-anonymity, clip to the observed
            range, attributes released together.
        key
            A column identifying the rows. Inside ``.over()`` / ``group_by().agg()`` rows are
            keyed by their position in the group, which would repeat one noise vector in
            every group: there a seeded call needs ``key`` and refuses to run without one.

        Returns
        -------
        Expr

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0]})
        >>> a = df.select(pl.col("x").sdc.laplace(2.0, seed=7))["x"]
        >>> a.equals(df.sdc.laplace(2.0, "x", seed=7)["x"])
        True
        """
        from .._errors import SDCError
        from .._validation import check_seed
        from ..laplace import check_phi_arg, laplace_series

        check_phi_arg(phi)
        check_seed(seed)
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
