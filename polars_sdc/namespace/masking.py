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

        _args(self._schema(), on, by, key, alpha, seed)
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
