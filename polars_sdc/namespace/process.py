"""``df.sdc.problem`` / ``lf.sdc.problem``: the SDC process (:mod:`polars_sdc.process`)."""
from __future__ import annotations

from typing import Any

from .._signature import delegates_to
from ..process.problem import Problem
from ._base import FrameOps


class ProcessMethods(FrameOps):
    """The SDC problem: roles declared once, steps with undo, log and recipes."""

    @delegates_to(Problem)
    def problem(self, **roles: Any) -> Problem:
        """An SDC problem on this frame (:class:`polars_sdc.process.Problem`): which columns
        are the ``keys`` (quasi-identifiers), the ``numeric`` variables, the sampling
        ``weight``, the ``household`` id, the ``strata``, the ``sensitive`` variable and the
        ``pram`` variables; each step (``.suppress(k=3)``, ``.pram(seed=1)``, ...) fills its
        parameters from these roles and returns a new problem (sdcMicro ``createSdcObj``).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": ["x", "x", "y"], "n": [1.0, 2.0, 30.0]})
        >>> p = df.sdc.problem(keys="a", numeric="n").top_bottom_code(columns="n", upper=10.0)
        >>> p.release()["n"].to_list(), p.undo().release()["n"].to_list()
        ([1.0, 2.0, 10.0], [1.0, 2.0, 30.0])
        """
        return Problem(self._frame, **roles)
