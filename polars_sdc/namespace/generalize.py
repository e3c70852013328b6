"""``df.sdc.generalize``: ARX's optimal full-domain generalisation (the method group of
:mod:`polars_sdc.generalize`)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._typing import ColumnSpec
from ._base import F, FrameOps

if TYPE_CHECKING:
    from ..generalize.release import GeneralizationResult


class GeneralizeMethods(FrameOps[F]):
    """Generalisation hierarchies and the optimal full-domain search (ARX)."""

    def generalize(
        self,
        hierarchies: Mapping[str, Any],
        k: int = 2,
        suppression_limit: float = 0.0,
        metric: str = "loss",
        sensitive: str | None = None,
        l_diversity: int | None = None,
        t_closeness: float | None = None,
        on: ColumnSpec = None,
    ) -> GeneralizationResult:
        """The optimal full-domain generalisation of the quasi-identifiers under k-anonymity,
        distinct l-diversity and t-closeness with a suppression limit, by ARX 3.9.2's metrics
        (ARX's FLASH problem; Kohlmayer et al. 2012). A LazyFrame is collected (the search
        needs the whole frame).

        Parameters
        ----------
        hierarchies
            ``{column: hierarchy}``, each a :class:`polars_sdc.generalize.Hierarchy`, an ARX
            hierarchy CSV path or a mapping.
        k
            Every released class has >= k records.
        suppression_limit
            At most ``floor(suppression_limit * n)`` records suppressed (their
            quasi-identifiers released as ``"*"``).
        metric
            ARX's metric minimised: ``"loss"`` (ARX ``createLossMetric()``),
            ``"discernibility"``, ``"discernibility_star"``, ``"entropy"`` (non-uniform
            entropy), ``"entropy_monotone"``, ``"precision"``, ``"precision_monotone"``.
        sensitive
            The sensitive column (with ``l_diversity`` / ``t_closeness``).
        l_diversity
            Distinct l-diversity of ``sensitive`` in every class.
        t_closeness
            t-closeness of ``sensitive`` in every class.
        on
            The quasi-identifiers among the hierarchies' columns (default: all of them but
            ``sensitive``).

        Returns
        -------
        GeneralizationResult
            The transformation, the released DataFrame, the suppressed count and the loss.

        Examples
        --------

        >>> import polars_sdc
        >>> from polars_sdc import datasets
        >>> df, hs = datasets.arx_adult()
        >>> r = df.sdc.generalize(hs, k=5, suppression_limit=0.04, metric="entropy_monotone")
        >>> r.transformation, r.suppressed, round(r.loss, 6)
        ([1, 0, 1, 1, 3, 2, 2, 0, 1], 906, 255559.854557)
        """
        from ..generalize.release import generalize

        return generalize(self._collected(), hierarchies, k=k, suppression_limit=suppression_limit, metric=metric,
                          sensitive=sensitive, l_diversity=l_diversity, t_closeness=t_closeness, on=on)
