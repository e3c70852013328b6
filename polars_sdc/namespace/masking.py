"""``df.sdc`` / ``lf.sdc`` masking methods: PRAM, rank swapping, noise, interval recoding,
local suppression (sdcMicro's toolkit). Thin faces over :mod:`polars_sdc.masking`."""
from __future__ import annotations

from typing import Any

from .._columns import ColumnSpec
from ._base import FrameOps


class MaskingMethods(FrameOps):
    """PRAM, rank swapping, noise, interval recoding and local suppression."""

    def pram(
        self,
        on: ColumnSpec,
        *,
        pd: Any = 0.8,
        alpha: float = 0.5,
        by: ColumnSpec = None,
        seed: int | None = None,
        key: str | None = None,
        matrix: Any = None,
    ) -> Any:
        """PRAM (post-randomisation, sdcMicro ``pram``) of the categorical ``on`` columns: each
        category is released as another with the probabilities of ``alpha * P Q + (1 - alpha) I``
        (``P``: diagonal ~ U(pd, 1); ``Q``: its Bayes inverse; ``P Q`` keeps the frequencies in
        expectation), one matrix per column and ``by`` stratum, or a user ``matrix``. Row draws
        from ``polars_sdc.rng`` (stream ``pram/{column}``; keys = positions or ``key``). See
        :meth:`pram_matrix` for the matrices used.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"c": ["a", "b"] * 500})
        >>> out = df.sdc.pram("c", pd=0.9, seed=1)
        >>> out.height, sorted(out["c"].unique().to_list())
        (1000, ['a', 'b'])
        """
        from ..masking.pram import _args, pram_frame, pram_output_schema

        _args(self._schema(), on, by, key, alpha, seed, pd, matrix)
        return self._frame_op(
            lambda df: pram_frame(df, on, pd=pd, alpha=alpha, by=by, seed=seed, key=key, matrix=matrix),
            pram_output_schema(self._schema()),
        )

    def pram_matrix(
        self, on: ColumnSpec, *, pd: Any = 0.8, alpha: float = 0.5, by: ColumnSpec = None,
        seed: int | None = None, matrix: Any = None,
    ) -> Any:
        """The PRAM matrices ``pram`` uses with the same arguments: ``{column: [PramMatrix per
        stratum]}`` (``.levels``, ``.matrix``, ``.stratum``, ``.to_frame()``); a LazyFrame is
        collected.

        >>> import polars as pl, polars_sdc
        >>> m = pl.DataFrame({"c": ["a", "a", "b"]}).sdc.pram_matrix("c", pd=1.0, seed=1)["c"][0]
        >>> m.levels, m.matrix.tolist()
        (['a', 'b'], [[1.0, 0.0], [0.0, 1.0]])
        """
        from .._columns import resolve_columns
        from ..masking.pram import pram_matrix

        cols = resolve_columns(self._schema(), on, default="error")
        by_cols = [] if by is None else resolve_columns(self._schema(), by, what="by")
        return pram_matrix(self._collected(cols + by_cols), cols, pd=pd, alpha=alpha, by=by_cols or None,
                           seed=seed, matrix=matrix)

    def rank_swap(
        self,
        on: ColumnSpec = None,
        *,
        p: float | None = None,
        r0: float | None = None,
        k0: float | None = None,
        top: float | None = None,
        bottom: float | None = None,
        by: ColumnSpec = None,
        seed: int | None = None,
        key: str | None = None,
        preset: str | None = None,
    ) -> Any:
        """Rank swapping (Moore 1996; sdcMicro ``rankSwap``) of the numeric ``on`` columns: each
        value is swapped at most once, with one chosen uniformly among the free values whose
        rank is at most ``p * n`` above it (``p`` a fraction, default 0.05), so every column
        stays a permutation. Or ``r0`` (correlation kept) / ``k0`` (subset-mean preservation)
        set ``p`` as in sdcMicro; ``top`` / ``bottom`` fractions (default 0) are replaced by
        their mean and not swapped. ``preset="sdcmicro"``: sdcMicro's defaults (``R0 = 0.95``,
        5 % top and bottom coding) and its window (``< floor(n P)`` ranks; its ``P`` is a
        fraction in its C++ although documented as a percent: ``polars_sdc.masking.rank_swap``).
        ``by``: within each stratum (``n`` its values; a stratum with one value, or with
        ``p * n < 1``, is an error naming it). Draws: ``polars_sdc.rng`` stream
        ``rank_swap/{column}``, keys = positions or ``key``. Decimal columns swap exactly.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
        >>> sorted(df.sdc.rank_swap("x", p=0.25, seed=2)["x"].to_list())
        [1, 2, 3, 4, 5, 6, 7, 8]
        """
        from ..masking._common import check_seed
        from ..masking.rank_swap import _check_args, rank_swap_columns, rank_swap_frame, rank_swap_output_schema

        _, _, _, t, b = _check_args(p, r0, k0, top, bottom, preset)
        check_seed(seed)
        cols, by_cols = rank_swap_columns(self._schema(), on, by, key)
        return self._frame_op(
            lambda df: rank_swap_frame(df, cols, p=p, r0=r0, k0=k0, top=top, bottom=bottom, by=by_cols or None,
                                       seed=seed, key=key, preset=preset),
            rank_swap_output_schema(self._schema(), cols, t, b),
        )

    def add_noise(
        self,
        on: ColumnSpec = None,
        *,
        method: str = "additive",
        noise: float = 150.0,
        delta: float = 0.1,
        by: ColumnSpec = None,
        seed: int | None = None,
        key: str | None = None,
    ) -> Any:
        """Noise on the numeric ``on`` columns (Float64 out; sdcMicro ``addNoise``):
        ``"additive"`` (N(0, (noise% sd)^2) per column), ``"correlated"`` (N(0, noise% Sigma),
        Kim 1986), ``"correlated2"`` (``x sqrt(1-d^2) + d N(..)``, ``d = delta``) or ``"moments"``
        (correlated noise recoloured so released means and covariance equal the originals;
        exact linear relations between columns are kept). ``by``: per stratum (its sds,
        covariance, means; at least 2 rows each, ``p + 2`` for ``"moments"`` on ``p`` columns,
        else an error naming the stratum; ``"moments"`` refuses a frame of ``<= p + 1`` rows too:
        exact moments would pin the records). A constant column stays exactly constant. Normal draws from ``polars_sdc.rng`` stream ``add_noise/{column}``, keys =
        positions or ``key``.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [1.0, 3.0, 2.0, 5.0]})
        >>> out = df.sdc.add_noise(method="moments", seed=3)
        >>> [round(v, 9) for v in out.mean().row(0)], round(out.select(pl.cov("a", "b")).item(), 9)
        ([2.5, 2.75], 1.833333333)
        """
        from ..masking._common import check_seed, on_and_by
        from ..masking.noise import add_noise_frame, add_noise_output_schema, check_args

        check_args(method, noise, delta)
        check_seed(seed)
        cols, by_cols = on_and_by(self._schema(), on, by, key)
        return self._frame_op(
            lambda df: add_noise_frame(df, cols, method=method, noise=noise, delta=delta, by=by_cols or None,
                                       seed=seed, key=key),
            add_noise_output_schema(self._schema(), cols),
        )

    def recode_intervals(
        self,
        on: ColumnSpec,
        *,
        breaks: Any = None,
        n: int | None = None,
        method: str = "equal",
        right_closed: bool = True,
    ) -> Any:
        """Interval recoding (sdcMicro ``globalRecode``) of the numeric ``on`` columns into an
        Enum of interval labels ``"(a, b]"``: at ``breaks`` (a list, or ``{column: list}``;
        open end intervals beyond them), or ``n`` intervals, ``method="equal"`` (sdcMicro
        ``equidistant``: from min - 1 to max + 1, rounded) or ``"quantile"`` (``equalAmount``;
        tied quantiles merged). Native Polars ``bin_intervals``; on a LazyFrame, ``n=`` first
        collects a one-row min/max or quantile aggregate.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"age": [17, 25, 38, 52, 90]})
        >>> df.sdc.recode_intervals("age", breaks=[30, 60])["age"].to_list()
        ['(-inf, 30]', '(-inf, 30]', '(30, 60]', '(30, 60]', '(60, inf)']
        >>> df.sdc.recode_intervals("age", n=2)["age"].to_list()
        ['[16, 54]', '[16, 54]', '[16, 54]', '[16, 54]', '(54, 91]']
        """
        from ..masking.intervals import check_args, check_no_nan_inf, data_breaks_stats, recode_intervals_exprs

        cols = check_args(self._schema(), on, breaks, n, method)
        if not self._lazy:          # NaN / inf: an error now (a LazyFrame raises it at collect)
            for c in cols:
                if self._schema()[c].is_float():
                    check_no_nan_inf(self._frame.get_column(c))
        stats = data_breaks_stats(self._frame, cols, n, method)
        exprs = recode_intervals_exprs(cols, stats, breaks=breaks, n=n, method=method, right_closed=right_closed,
                                       schema=self._schema(), lazy=self._lazy)
        return self._frame.with_columns(exprs)

    def suppress(
        self,
        k: int,
        on: ColumnSpec,
        *,
        importance: Any = None,
        by: ColumnSpec = None,
        alpha: float = 1.0,
        combs: Any = None,
    ) -> Any:
        """Local suppression to k-anonymity (after sdcMicro ``localSuppression``): set few key
        values to null so that every record's key combination is shared by >= k records, a
        null matching any value with the ``alpha`` rule of ``frequencies``. ``importance``:
        one integer per key, 1 = keep longest (default: keys with more categories are
        suppressed first); ``by``: within strata; ``combs=[2, 3]``: for every subset of keys of
        those sizes. Greedy by rounds on exact wildcard counts (see
        :mod:`polars_sdc.masking.suppress`).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": ["x", "x", "x", "y"], "b": ["u", "u", "v", "v"]})
        >>> out = df.sdc.suppress(2, ["a", "b"])
        >>> out.rows(), out.sdc.k_anonymity(["a", "b"])
        ([('x', 'u'), ('x', 'u'), (None, 'v'), (None, 'v')], 2)
        """
        from .._columns import resolve_columns
        from ..masking.suppress import suppress_frame

        resolve_columns(self._schema(), on, kind="supported", default="error")
        return self._frame_op(
            lambda df: suppress_frame(df, k, on, importance=importance, by=by, alpha=alpha, combs=combs),
            self._schema(),
        )

    def suppress_risky(
        self,
        on: ColumnSpec,
        *,
        risk_above: float,
        weight: str | None = None,
        key_var: str | None = None,
        alpha: float = 1.0,
    ) -> Any:
        """Suppress key values in the records whose individual risk (sdcMicro ``indivRisk``,
        with ``weight`` the sampling weights) exceeds ``risk_above`` (after sdcMicro
        ``localSupp``): ``key_var`` in them, or by default their not yet suppressed key with the
        most categories, repeated until no record is above the threshold.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": ["x", "x", "x", "y"], "b": [1, 1, 1, 1], "w": [10.0, 10.0, 10.0, 2.0]})
        >>> df.sdc.suppress_risky(["a", "b"], weight="w", risk_above=0.2)["a"].to_list()
        ['x', 'x', 'x', None]
        """
        from ..masking.suppress import suppress_risky_frame
        from ..risk.frequencies import key_columns

        key_columns(self._schema(), on, weight)
        return self._frame_op(
            lambda df: suppress_risky_frame(df, on, risk_above=risk_above, weight=weight, key_var=key_var, alpha=alpha),
            self._schema(),
        )
