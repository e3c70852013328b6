"""Integer columns beyond 2^53 for the translation-invariant loss measures (ILD with a p-norm,
SSE / SST / ILSSDM, NCP's ranges).

Those measures read only differences of values, but a float64 cast of an Int64 / UInt64 column
near 2^63 rounds its values to multiples of 2^10 (2^63 - 1, 2^63 - 2, .. all become 2^63): the
differences, and with them the loss, vanish. :func:`int_offsets` takes one exact integer offset
per such column (its minimum in the original) and :func:`centered` replaces the column, in the
original and in the release alike, by the exact difference ``x - offset`` as Float64 (computed
in Int128; a released Float64 column by two exact float steps), so the differences survive.
Columns whose values all lie within +-2^53 are left as they are (a float64 holds them exactly).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import polars as pl

_EXACT = 2**53
_WIDE = (pl.Int64, pl.UInt64)


def int_offsets(frame: pl.DataFrame, cols: Sequence[str]) -> dict[str, int]:
    """``{column: its minimum}`` for the Int64 / UInt64 ``cols`` holding a value beyond +-2^53.

    >>> int_offsets(pl.DataFrame({"x": [2**62, 2**62 + 1], "y": [1, 2]}), ["x", "y"])
    {'x': 4611686018427387904}
    """
    out = {}
    for c in cols:
        if frame.schema[c] in _WIDE:
            s = frame.get_column(c)
            lo, hi = s.min(), s.max()
            if lo is not None and max(abs(int(lo)), abs(int(hi))) > _EXACT:
                out[c] = int(lo)
    return out


def centered(frame: pl.DataFrame, offsets: Mapping[str, int]) -> pl.DataFrame:
    """``frame`` with each column of ``offsets`` replaced by ``x - offset`` as Float64 (exact
    differences, rounded once); integer columns through Int128, float columns as
    ``(x - float(offset)) - (offset - float(offset))``.

    >>> centered(pl.DataFrame({"x": [2**63 - 1, 2**63 - 4]}), {"x": 2**63 - 4})["x"].to_list()
    [3.0, 0.0]
    """
    exprs = []
    for c, off in offsets.items():
        if c not in frame.columns:
            continue
        dtype = frame.schema[c]
        if not dtype.is_numeric():
            continue                       # not a number: the distance's own check names it
        if dtype.is_integer():
            e = (pl.col(c).cast(pl.Int128) - pl.lit(off, dtype=pl.Int128)).cast(pl.Float64)
        else:
            head = float(off)
            rest = float(off - int(head)) if math.isfinite(head) else 0.0
            e = (pl.col(c).cast(pl.Float64) - head) - rest
        exprs.append(e.alias(c))
    return frame.with_columns(exprs) if exprs else frame
