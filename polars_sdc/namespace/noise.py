"""``df.sdc`` / ``lf.sdc``: Laplace perturbation and the reconstruction of the distribution
(Hasegawa et al.).
"""
from __future__ import annotations

from typing import Any

from .._signature import delegates_to
from .._typing import ColumnSpec
from ..noise import laplace_frame
from ._base import FrameOps


class NoiseMethods(FrameOps):
    """Laplace noise, Gaussian-mixture and IBT reconstruction."""

    # -- Laplace perturbation and reconstruction (Hasegawa et al.) ----------------------------
    def laplace_scale(self, on: ColumnSpec = None, *, k: int = 2, m: int = 1) -> dict[str, float]:
        """The Laplace scale ``phi`` per numeric ``on`` column that gives Pk-anonymity ``k``:
        ``phi = 2 m (b - a) / ln((N - 1)/(k - 1))`` from the column's observed range [a, b] and
        N rows (Hasegawa et al., section 5, after Igarashi et al.) — the phi ``laplace(k=...)``
        uses, to pass on to ``reconstruct_gmm(phi=...)``. A LazyFrame is collected (its ``on``
        columns only).

        >>> import polars as pl, polars_sdc
        >>> from polars_sdc import datasets
        >>> round(datasets.adult().sdc.laplace_scale("age")["age"], 4)
        14.0508
        """
        from .._columns import resolve_columns
        from ..noise import calibrate_phi

        cols = resolve_columns(self._schema(), on, kind="numeric", default="numeric")
        return calibrate_phi(self._collected(cols), cols, k, m=m)

    @delegates_to(laplace_frame)
    def laplace(self, phi: Any = None, on: ColumnSpec = None, **options: Any) -> Any:
        """Add Laplace(0, phi) noise to the numeric ``on`` columns (Hasegawa et al., eq. 1/2); they
        become Float64, everything else is kept.

        ``phi``: a number, ``{column: phi}`` or one per column; or ``k`` to calibrate
        ``phi = 2 m (b - a) / ln((N - 1)/(k - 1))`` for Pk-anonymity from each column's range
        (``m``: attributes released together). ``seed`` fixes the noise: row ``i`` of column
        ``c`` gets ``polars_sdc.rng.laplace(seed, f"laplace/{c}", keys, phi)[i]``, keys = row
        positions or the values of the ``key`` column (unique, no nulls): the same in eager,
        lazy, streaming and Spark runs; ``clamp`` clips to the observed range. Nulls stay null;
        ``household``: household-level columns get one draw per household, broadcast to all
        members (:func:`polars_sdc.noise.laplace_frame`).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0]})
        >>> df.sdc.laplace(1e-12, "x", seed=7)["x"].round(6).to_list()
        [1.0, 2.0, 3.0]
        """
        from ..noise import laplace_columns, laplace_output_schema

        cols = laplace_columns(self._schema(), phi, on, seed=options.get("seed"), key=options.get("key"),
                               household=options.get("household"), household_columns=options.get("household_columns"))
        schema = laplace_output_schema(self._schema(), cols)
        return self._frame_op(lambda df: laplace_frame(df, phi, cols, **options), schema)

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

