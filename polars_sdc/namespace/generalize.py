"""``df.sdc.generalize``: ARX's optimal full-domain generalisation (the method group of
:mod:`polars_sdc.generalize`)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from .._typing import ColumnSpec
from .._signature import deprecated
from ._base import F, FrameOps

if TYPE_CHECKING:
    from ..generalize.release import GeneralizationResult


#: the options after ``k`` once given by position, in their old order (keyword-only now, as the
#: other methods' options; docs/naming.md)
_MOVED = ("suppression_limit", "metric", "sensitive", "l_diversity", "t_closeness", "on", "l_kind", "c",
          "t_distance", "suppressed_as", "household", "household_columns")


class GeneralizeMethods(FrameOps[F]):
    """Generalisation hierarchies and the optimal full-domain search (ARX)."""

    @deprecated(positional=_MOVED)
    def generalize(
        self,
        hierarchies: Mapping[str, Any],
        k: int = 2,
        *,
        suppression_limit: float = 0.0,
        metric: str = "loss",
        sensitive: str | None = None,
        l_diversity: float | None = None,
        t_closeness: float | None = None,
        on: ColumnSpec = None,
        l_kind: Literal["distinct", "entropy", "entropy_grassberger", "recursive"] = "distinct",
        c: float | None = None,
        t_distance: Literal["equal", "hierarchical"] = "equal",
        suppressed_as: str | None = "*",
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
    ) -> GeneralizationResult:
        """The optimal full-domain generalisation of the quasi-identifiers (the keys of
        ``hierarchies``) under k-anonymity, l-diversity (distinct, entropy, recursive) and
        t-closeness (equal or hierarchical ground distance) with a suppression limit, by ARX
        3.9.2's metrics (ARX's FLASH problem; Kohlmayer et al. 2012). A LazyFrame is collected
        (the search needs the whole frame); the result holds the released DataFrame,
        suppressed records' quasi-identifiers as ``"*"`` (or null: ``suppressed_as=None``).

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
        l_kind
            The l-diversity: ``"distinct"`` (ARX ``DistinctLDiversity``), ``"entropy"``
            (``EntropyLDiversity``, Shannon), ``"entropy_grassberger"`` or ``"recursive"``
            (``RecursiveCLDiversity`` with ``c``).
        c
            The ``c`` of recursive (c, l)-diversity.
        t_distance
            ``"equal"`` (``EqualDistanceTCloseness``) or ``"hierarchical"``
            (``HierarchicalDistanceTCloseness`` with ``hierarchies[sensitive]``).
        suppressed_as
            What suppressed records' quasi-identifiers become: ``"*"`` (ARX) or None (null).
        household
            The household id column: every released class holds records of at least ``k``
            distinct households (as ``df.sdc.mdav(k, household=)``), not k records.
        household_columns
            The household-level quasi-identifiers, declared instead of detected (each
            checked constant within every household; an error names the column and a
            household where it varies); a household with a suppressed member is suppressed
            whole when one is. None: detected (a key constant in most but not all
            households gets a ``HouseholdWarning``).

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
        options = _options(locals())
        from ..generalize.release import generalize

        return generalize(self._collected(), hierarchies, **options)

    @deprecated(positional=_MOVED)
    def generalize_release(
        self,
        hierarchies: Mapping[str, Any],
        k: int = 2,
        *,
        suppression_limit: float = 0.0,
        metric: str = "loss",
        sensitive: str | None = None,
        l_diversity: float | None = None,
        t_closeness: float | None = None,
        on: ColumnSpec = None,
        l_kind: Literal["distinct", "entropy", "entropy_grassberger", "recursive"] = "distinct",
        c: float | None = None,
        t_distance: Literal["equal", "hierarchical"] = "equal",
        suppressed_as: str | None = "*",
        household: str | None = None,
        household_columns: Sequence[str] | None = None,
    ) -> F:
        """The released frame of :meth:`generalize` alone (the ``generalize`` step of a problem,
        a recipe and ``polars-sdc generalize``): a DataFrame, or a LazyFrame that stays lazy
        (one whole-frame step; the quasi-identifiers become String).

        Parameters
        ----------
        hierarchies, k, suppression_limit, metric, sensitive, l_diversity, t_closeness, on, l_kind, c, t_distance, suppressed_as, household, household_columns
            As in :meth:`generalize`.

        Returns
        -------
        DataFrame or LazyFrame
            The released frame.

        Examples
        --------
        >>> import polars as pl, polars_sdc
        >>> lf = pl.LazyFrame({"age": [21, 23, 25, 38]})
        >>> lf.sdc.generalize_release({"age": {"rule": "intervals", "widths": [10, 20], "start": 0}}, k=2).collect()["age"].to_list()
        ['20-39', '20-39', '20-39', '20-39']
        """
        options = _options(locals())
        from ..generalize.release import generalize_frame, release_schema
        from ..household import check_household_column

        schema = release_schema(self._schema(), hierarchies, sensitive, on)
        check_household_column(self._schema(), household)  # a lazy plan fails when written
        from ..generalize.hierarchy import hierarchy_mapping
        from ..generalize.release import check_options

        check_options(self._schema(), hierarchy_mapping(hierarchies), **options)
        return self._frame_op(lambda df: generalize_frame(df, hierarchies, **options), schema)


def _options(arguments: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of a method call to pass on (all but ``self`` and ``hierarchies``)."""
    return {n: v for n, v in arguments.items() if n not in ("self", "hierarchies")}
