"""``df.sdc`` / ``lf.sdc``: Laplace perturbation and the reconstruction of the distribution
(Hasegawa et al.).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from .._typing import ColumnSpec
from ._base import F, FrameOps

if TYPE_CHECKING:
    from ..reconstruct import GMMFit, IBTFit


class NoiseMethods(FrameOps[F]):
    """Laplace noise, Gaussian-mixture and IBT reconstruction."""

    # -- Laplace perturbation and reconstruction (Hasegawa et al.) ----------------------------
    def laplace_scale(self, on: ColumnSpec = None, *, k: int = 2, m: int = 1) -> dict[str, float]:
        """The Laplace scale ``phi`` per numeric ``on`` column that gives Pk-anonymity ``k``:
        ``phi = 2 m (b - a) / ln((N - 1)/(k - 1))`` from the column's observed range [a, b] and
        N rows (Hasegawa et al., section 5, after Igarashi et al.) — the phi ``laplace(k=...)``
        uses, to pass on to ``reconstruct_gmm(phi=...)``. A LazyFrame is collected (its ``on``
        columns only).

        Parameters
        ----------
        on
            Numeric columns (default: every numeric column).
        k
            The Pk-anonymity k (>= 2).
        m
            Attributes released together.

        Returns
        -------
        dict[str, float]
            ``{column: phi}``.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> from polars_sdc import datasets
        >>> round(datasets.adult().sdc.laplace_scale("age")["age"], 4)
        14.0508
        """
        from .._columns import resolve_columns
        from ..laplace import calibrate_phi

        cols = resolve_columns(self._schema(), on, kind="numeric", default="numeric")
        return calibrate_phi(self._collected(cols), cols, k, m=m)

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
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
    ) -> F:
        """Add Laplace(0, phi) noise to the numeric ``on`` columns (Hasegawa et al., eq. 1/2); they
        become Float64, everything else is kept; nulls stay null.

        Parameters
        ----------
        phi
            The scale: a number, ``{column: phi}`` or one per column (or give ``k``).
        on
            Numeric columns (default: every numeric column).
        k
            Calibrate ``phi = 2 m (b - a) / ln((N - 1)/(k - 1))`` for Pk-anonymity from each
            column's range.
        seed
            Fixes the noise: row ``i`` of column ``c`` gets
            ``polars_sdc.rng.laplace(seed, f"laplace/{c}", keys, phi)[i]``, the same in eager,
            lazy, streaming and Spark runs.
        clamp
            Clip noisy values to each column's observed range.
        m
            Attributes released together (with ``k``).
        key
            A unique id column (no nulls) keying the draws (default: row positions).
        household
            Household id column: household-level columns get one draw per household,
            broadcast to all members (:func:`polars_sdc.laplace.laplace_frame`).
        household_columns
            The household-level columns, declared instead of detected (each checked constant
            within every household; an error names the column and a household where it
            varies); the other columns are person-level. None: detected.

        Returns
        -------
        DataFrame or LazyFrame

        Examples
        --------

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0]})
        >>> df.sdc.laplace(1e-12, "x", seed=7)["x"].round(6).to_list()
        [1.0, 2.0, 3.0]
        """
        from .._validation import check_bool
        from ..laplace import laplace_columns, laplace_frame, laplace_output_schema

        check_bool(clamp, "clamp")        # clamp="no" would clip
        cols = laplace_columns(self._schema(), phi, on, seed=seed, key=key, household=household,
                               household_columns=household_columns, k=k, m=m)
        schema = laplace_output_schema(self._schema(), cols)
        return self._frame_op(lambda df: laplace_frame(df, phi, cols, k=k, seed=seed, clamp=clamp, m=m, key=key,
                                                       household=household, household_columns=household_columns), schema)

    def reconstruct_gmm(
        self,
        K: Any,
        on: ColumnSpec = None,
        phi: Any = None,
        *,
        method: Literal["exact", "gem"] = "exact",
        model: Literal["diagonal", "rotated"] = "diagonal",
        n_init: int = 4,
        seed: int | None = 0,
        max_iter: int = 2000,
        tol: float = 0.001,
        alpha: float = 0.001,
        init_iter: int = 20,
        criterion: Literal["bic", "loglik"] = "bic",
        hist_bins: int | None = None,
        prefit_bins: Any = "auto",
        accelerate: bool = True,
        var_floor: Any = "auto",
        progress: bool = False,
    ) -> GMMFit:
        """Fit the Gaussian mixture behind Laplace-perturbed ``on`` columns (Hasegawa et al.,
        eq. 9); a LazyFrame is collected.

        Parameters
        ----------
        K
            Components, or a range of them picked by ``criterion``.
        on
            The noisy numeric columns (default: every numeric column).
        phi
            The noise scale: a number, one per column, or ``{column: phi}``.
        method, model, n_init, seed, max_iter, tol, alpha, init_iter, criterion, hist_bins, prefit_bins, accelerate, var_floor, progress
            Options of :func:`polars_sdc.reconstruct.fit_gmm`: ``method`` ("exact" / "gem"),
            ``model`` ("diagonal" / "rotated"), restarts, seed, EM iterations and tolerance,
            the Dirichlet ``alpha``, the selection criterion, histogram speed-ups, the
            variance floor and a progress bar.

        Returns
        -------
        GMMFit

        Examples
        --------

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
        return reconstruct_gmm_frame(
            self._collected(cols), K, cols, phi, method=method, model=model, n_init=n_init, seed=seed,
            max_iter=max_iter, tol=tol, alpha=alpha, init_iter=init_iter, criterion=criterion, hist_bins=hist_bins,
            prefit_bins=prefit_bins, accelerate=accelerate, var_floor=var_floor, progress=progress,
        )

    def reconstruct_ibt(
        self, on: ColumnSpec, phi: Any, bins: Any, *, max_iter: int | None = 1000, tol: float = 0.001
    ) -> IBTFit:
        """The Iterative Bayesian Technique baseline (Hasegawa et al., 2.2.2) on one noisy column.

        Parameters
        ----------
        on
            The noisy column.
        phi
            The Laplace scale of its noise.
        bins
            Histogram edges, or a count.
        max_iter, tol
            Iteration cap (None: until ``tol``) and tolerance.

        Returns
        -------
        IBTFit
            The reconstructed histogram.

        Examples
        --------

        >>> import numpy as np, polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [0.0] * 500 + [1.0] * 500}).sdc.laplace(0.1, "x", seed=3)
        >>> np.round(df.sdc.reconstruct_ibt("x", 0.1, [-0.5, 0.5, 1.5]).probabilities, 1).tolist()
        [0.5, 0.5]
        """
        from .._columns import resolve_columns
        from ..reconstruct import reconstruct_ibt_frame

        cols = resolve_columns(self._schema(), on, kind="numeric", default="error")
        return reconstruct_ibt_frame(self._collected(cols), cols, phi, bins, max_iter=max_iter, tol=tol)

