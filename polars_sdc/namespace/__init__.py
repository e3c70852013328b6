"""The ``sdc`` namespaces on DataFrame, LazyFrame and Expr.

Every DataFrame / LazyFrame method is written once, in the method group of its area (a
mixin of :class:`~polars_sdc.namespace._base.FrameOps`, one module each): on a DataFrame it
runs now; on a LazyFrame it becomes one whole-frame ``map_batches`` step with a declared
schema and ``streamable=False`` (never run per streaming batch), so
``lf.sdc.m(...).collect()`` equals ``df.sdc.m(...)``. Method modules are imported inside the
methods, so importing polars_sdc loads no Numba.
"""
from __future__ import annotations

import polars as pl

from .._signature import check_keywords
from . import expr as _expr  # noqa: F401  (registers pl.col(c).sdc)
from .generalize import GeneralizeMethods
from .loss import LossMethods
from .masking import MaskingMethods
from .microagg import MicroaggMethods
from .noise import NoiseMethods
from .process import ProcessMethods
from .recode import RecodeMethods
from .risk import RiskMethods

#: every DataFrame / LazyFrame method group: a mixin of FrameOps (one per area, in this package)
FRAME_METHOD_GROUPS: tuple[type, ...] = (
    MicroaggMethods, LossMethods, RecodeMethods, NoiseMethods, RiskMethods, MaskingMethods, ProcessMethods,
    GeneralizeMethods,
)


@pl.api.register_dataframe_namespace("sdc")
@check_keywords
class SDCFrame(*FRAME_METHOD_GROUPS):
    """``df.sdc``: statistical disclosure control on a DataFrame."""


@pl.api.register_lazyframe_namespace("sdc")
@check_keywords
class SDCLazyFrame(*FRAME_METHOD_GROUPS):
    """``lf.sdc``: the same methods, lazily; frame results stay LazyFrames until collect."""


SDCExpr = check_keywords(_expr.SDCExpr, declared=False)
