"""``df.sdc.generalize``: ARX's optimal full-domain generalisation (the method group of
:mod:`polars_sdc.generalize`)."""
from __future__ import annotations

from typing import Any

from .._signature import delegates_to
from ..generalize.release import GeneralizationResult, generalize
from ._base import FrameOps


class GeneralizeMethods(FrameOps):
    """Generalisation hierarchies and the optimal full-domain search (ARX)."""

    @delegates_to(generalize)
    def generalize(self, hierarchies: Any, **options: Any) -> GeneralizationResult:
        """The optimal full-domain generalisation of the quasi-identifiers (the keys of
        ``hierarchies``) under k-anonymity, l-diversity (distinct, entropy, recursive) and
        t-closeness (equal or hierarchical ground distance) with a suppression limit, by ARX
        3.9.2's metrics (ARX's FLASH problem; Kohlmayer et al. 2012). A LazyFrame is collected
        (the search needs the whole frame); the result holds the released DataFrame,
        suppressed records' quasi-identifiers as ``"*"`` (or null: ``suppressed_as=None``).

        >>> import polars_sdc
        >>> from polars_sdc import datasets
        >>> df, hs = datasets.arx_adult()
        >>> r = df.sdc.generalize(hs, k=5, suppression_limit=0.04, metric="entropy_monotone")
        >>> r.transformation, r.suppressed, round(r.loss, 6)
        ([1, 0, 1, 1, 3, 2, 2, 0, 1], 906, 255559.854557)
        """
        return generalize(self._collected(), hierarchies, **options)

    @delegates_to(generalize)
    def generalize_release(self, hierarchies: Any, **options: Any) -> Any:
        """The released frame of :meth:`generalize` alone (the ``generalize`` step of a problem,
        a recipe and ``polars-sdc generalize``): a DataFrame, or a LazyFrame that stays lazy
        (one whole-frame step; the quasi-identifiers become String).

        >>> import polars as pl, polars_sdc
        >>> lf = pl.LazyFrame({"age": [21, 23, 25, 38]})
        >>> lf.sdc.generalize_release({"age": {"rule": "intervals", "widths": [10, 20], "start": 0}}, k=2).collect()["age"].to_list()
        ['20-39', '20-39', '20-39', '20-39']
        """
        from ..generalize.release import generalize_frame, release_schema

        schema = release_schema(self._schema(), hierarchies, options.get("sensitive"), options.get("on"))
        return self._frame_op(lambda df: generalize_frame(df, hierarchies, **options), schema)
