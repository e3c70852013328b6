"""Type aliases of the public API (for readers and type checkers; nothing is checked here)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Union

import polars as pl

#: Columns: one name, several names, or a Polars selector (``polars.selectors``); None means a
#: method's documented default (usually every numeric column).
ColumnSpec = Union[str, Sequence[str], pl.Expr, None]

#: Microaggregation partition methods (``df.sdc.microaggregate(method=...)``).
MethodName = Literal["mdav", "vmdav", "mhm", "univariate"]

#: MHM path orderings (``df.sdc.mhm(order=...)``).
OrderName = Literal["npn", "grid", "vgrid", "kd", "kd-mdav"]

#: Post-optimisations of a partition (``refine=``).
RefineName = Literal["mil"]
