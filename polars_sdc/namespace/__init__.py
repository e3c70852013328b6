"""The ``sdc`` namespaces on DataFrame, LazyFrame and Expr.

Every DataFrame / LazyFrame method is written once, in the method group of its area (a
mixin of :class:`~polars_sdc.namespace._base.FrameOps`, one module each, generic in the
frame type): on a DataFrame it runs now; on a LazyFrame it becomes one whole-frame
``map_batches`` step with a declared schema and ``streamable=False`` (never run per
streaming batch), so ``lf.sdc.m(...).collect()`` equals ``df.sdc.m(...)``. Method modules
are imported inside the methods, so importing polars_sdc loads no Numba.

:class:`SDCFrame` and :class:`SDCLazyFrame` name their method groups as explicit bases (no
starred tuple), parameterised by the frame type, so a type checker sees every method and
its return type; :func:`sdc` is the typed way to reach them (``df.sdc`` is invisible to
type checkers: Polars registers it at run time). See docs/typing.md.
"""
from __future__ import annotations

from typing import overload

import polars as pl

from .._signature import check_keywords
from .expr import SDCExpr
from .generalize import GeneralizeMethods
from .loss import LossMethods
from .masking import MaskingMethods
from .microagg import MicroaggMethods
from .noise import NoiseMethods
from .process import ProcessMethods
from .recode import RecodeMethods
from .risk import RiskMethods

#: every DataFrame / LazyFrame method group: a mixin of FrameOps (one per area, in this
#: package); a new group is added here and to the bases of SDCFrame and SDCLazyFrame
#: (tests/test_typing.py checks the three agree)
FRAME_METHOD_GROUPS: tuple[type, ...] = (
    MicroaggMethods, LossMethods, RecodeMethods, NoiseMethods, RiskMethods, MaskingMethods, ProcessMethods,
    GeneralizeMethods,
)


@pl.api.register_dataframe_namespace("sdc")
@check_keywords
class SDCFrame(
    MicroaggMethods[pl.DataFrame, pl.Series],
    LossMethods[pl.DataFrame],
    RecodeMethods[pl.DataFrame],
    NoiseMethods[pl.DataFrame],
    RiskMethods[pl.DataFrame],
    MaskingMethods[pl.DataFrame],
    ProcessMethods[pl.DataFrame],
    GeneralizeMethods[pl.DataFrame],
):
    """``df.sdc``: statistical disclosure control on a DataFrame (registered by
    ``import polars_sdc``; ``polars_sdc.sdc(df)`` is the same object, typed).

    >>> import polars as pl, polars_sdc
    >>> df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0, 5.0, 5.5]})
    >>> type(df.sdc).__name__, df.sdc.mdav(3, on="x").sdc.k_anonymity("x")
    ('SDCFrame', 3)
    """


@pl.api.register_lazyframe_namespace("sdc")
@check_keywords
class SDCLazyFrame(
    MicroaggMethods[pl.LazyFrame, pl.LazyFrame],
    LossMethods[pl.LazyFrame],
    RecodeMethods[pl.LazyFrame],
    NoiseMethods[pl.LazyFrame],
    RiskMethods[pl.LazyFrame],
    MaskingMethods[pl.LazyFrame],
    ProcessMethods[pl.LazyFrame],
    GeneralizeMethods[pl.LazyFrame],
):
    """``lf.sdc``: the same methods, lazily; frame results stay LazyFrames until collect.

    >>> import polars as pl, polars_sdc
    >>> lf = pl.LazyFrame({"x": [1.0, 9.0, 2.0, 8.0, 5.0, 5.5]})
    >>> out = lf.sdc.mdav(3, on="x")
    >>> type(out).__name__, out.collect()["x"].n_unique()
    ('LazyFrame', 2)
    """


check_keywords(SDCExpr)  # in place: SDCExpr stays the class Polars registered


@overload
def sdc(obj: pl.DataFrame) -> SDCFrame: ...
@overload
def sdc(obj: pl.LazyFrame) -> SDCLazyFrame: ...
@overload
def sdc(obj: pl.Expr) -> SDCExpr: ...
@check_keywords
def sdc(obj: pl.DataFrame | pl.LazyFrame | pl.Expr) -> SDCFrame | SDCLazyFrame | SDCExpr:
    """The ``sdc`` namespace of a DataFrame, LazyFrame or expression, typed: ``sdc(df)`` is
    ``df.sdc`` (the same object), but a type checker knows its methods, their parameters and
    return types (``sdc(df).mdav(...)`` is a DataFrame, ``sdc(lf).mdav(...)`` a LazyFrame),
    which it cannot know of ``df.sdc``, an attribute Polars registers at run time.

    Parameters
    ----------
    obj
        A DataFrame, LazyFrame or expression.

    Returns
    -------
    SDCFrame, SDCLazyFrame or SDCExpr
        Its ``sdc`` namespace.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_sdc import sdc
    >>> df = pl.DataFrame({"x": [1.0, 2.0, 9.0, 10.0]})
    >>> sdc(df).mdav(2, on="x")["x"].to_list()
    [1.5, 1.5, 9.5, 9.5]
    >>> sdc(df.lazy()).mdav(2, on="x").collect().equals(df.sdc.mdav(2, on="x"))
    True
    """
    if isinstance(obj, pl.DataFrame):
        return SDCFrame(obj)
    if isinstance(obj, pl.LazyFrame):
        return SDCLazyFrame(obj)
    if isinstance(obj, pl.Expr):
        return SDCExpr(obj)
    from .._errors import SDCError

    raise SDCError(f"sdc(): expected a polars DataFrame, LazyFrame or Expr, got {type(obj).__name__}")
