"""``df.sdc`` / ``lf.sdc`` disclosure-risk methods (thin: validate, then delegate to
``polars_sdc.risk``)."""
from __future__ import annotations

from typing import Any

from .._columns import ColumnSpec
from ._base import FrameOps


class RiskMethods(FrameOps):
    """Disclosure-risk measures on a DataFrame or LazyFrame."""

    def frequencies(self, on: ColumnSpec, weight: str | None = None, alpha: float = 1.0) -> Any:
        """The frame with Float64 columns ``fk`` (sample frequency of the record's key
        combination) and ``Fk`` (sum of sampling weights over it) appended; missing key
        values match any value, weighted by ``alpha`` (sdcMicro ``freqCalc``).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": [1, 1, 2], "w": [10.0, 5.0, 3.0]})
        >>> df.sdc.frequencies("a", weight="w")["Fk"].to_list()
        [15.0, 15.0, 3.0]
        """
        from ..risk.frequencies import check_alpha, frequencies_frame, frequencies_output_schema, key_columns

        cols = key_columns(self._schema(), on, weight)
        check_alpha(alpha)
        schema = frequencies_output_schema(self._schema())
        return self._frame_op(lambda df: frequencies_frame(df, cols, weight, alpha), schema)
