"""Global recoding: minimum-frequency merging of categories (Sano & Hattori, Fig. 1), its
hierarchy- and order-constrained variants, and top/bottom coding of numeric columns.

One concern per module:

- :mod:`.labels`  how merged categories are named (``sep="|"``, ``other=``, ``max_label=``)
  and which values are read as missing (``null_values=``);
- :mod:`.plan`    the merge plan of Fig. 1 on a frequency table (free, ordinal, hierarchy);
- :mod:`.frame`   the plan applied to Series and frames of every categorical dtype, the merge
  map, the lazy output schema;
- :mod:`.top_bottom`  top and bottom coding of numeric columns.

>>> import polars as pl
>>> s = pl.Series("industry", ["農業"] * 5 + ["林業"] * 2 + ["サービス業"] * 30
...               + ["不動産業"] * 13 + ["製造業"] * 50)
>>> recode_series(s, 0.05).value_counts(sort=True).rows()[-1]
('農業|林業', 7)
>>> recode_series(s, 0.05, sep="・").value_counts(sort=True).rows()[-1]   # the paper's label
('農業・林業', 7)
"""
from __future__ import annotations

from .frame import (
    recode_frame,
    recode_map_frame,
    recode_output_schema,
    recode_series,
    recode_table,
    with_recoded_count,
)
from .labels import DEFAULT_MAX_LABEL, DEFAULT_SEP, LABEL_OPTIONS, LabelSpec, check_label_options, check_null_values
from .plan import check_other_constraints, check_p, merge_plan, threshold
from .top_bottom import top_bottom_expr, top_bottom_frame_exprs

__all__ = [
    "DEFAULT_MAX_LABEL",
    "DEFAULT_SEP",
    "LABEL_OPTIONS",
    "LabelSpec",
    "check_label_options",
    "check_null_values",
    "check_other_constraints",
    "check_p",
    "merge_plan",
    "recode_frame",
    "recode_map_frame",
    "recode_output_schema",
    "recode_series",
    "recode_table",
    "threshold",
    "top_bottom_expr",
    "top_bottom_frame_exprs",
    "with_recoded_count",
]
