"""``df.sdc.problem`` / ``lf.sdc.problem``: the SDC process (:mod:`polars_sdc.process`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._typing import ColumnSpec
from ._base import F, FrameOps

if TYPE_CHECKING:
    from ..process.problem import Problem


class ProcessMethods(FrameOps[F]):
    """The SDC problem: roles declared once, steps with undo, log and recipes."""

    def problem(
        self,
        *,
        keys: ColumnSpec = None,
        numeric: ColumnSpec = None,
        weight: str | None = None,
        household: str | None = None,
        strata: ColumnSpec = None,
        sensitive: str | None = None,
        pram: ColumnSpec = None,
    ) -> Problem:
        """An SDC problem on this frame (:class:`polars_sdc.process.Problem`; sdcMicro
        ``createSdcObj``): each step (``.suppress(k=3)``, ``.pram(seed=1)``, ...) fills its
        parameters from these roles and returns a new problem.

        Parameters
        ----------
        keys
            The key (quasi-identifier) columns.
        numeric
            The numeric variables.
        weight
            The sampling-weight column.
        household
            The household id column.
        strata
            The strata columns.
        sensitive
            The sensitive variable.
        pram
            The variables to PRAM.

        Returns
        -------
        Problem

        Examples
        --------

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": ["x", "x", "y"], "n": [1.0, 2.0, 30.0]})
        >>> p = df.sdc.problem(keys="a", numeric="n").top_bottom_code(on="n", upper=10.0)
        >>> p.release()["n"].to_list(), p.undo().release()["n"].to_list()
        ([1.0, 2.0, 10.0], [1.0, 2.0, 30.0])
        """
        from ..process.problem import Problem

        return Problem(self._frame, keys=keys, numeric=numeric, weight=weight, household=household, strata=strata,
                       sensitive=sensitive, pram=pram)
