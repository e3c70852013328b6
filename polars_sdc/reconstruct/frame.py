"""Frame faces of the reconstruction: the ``on`` columns of a DataFrame validated (numeric, no
nulls/NaN) and handed to :func:`.gmm.fit_gmm` / :func:`.ibt.fit_ibt`."""
from __future__ import annotations

from typing import Any

import polars as pl

from .._columns import ColumnSpec, numeric_matrix, resolve_columns
from .._errors import SDCError
from ..laplace import phi_vector
from .gmm import GMMFit, _k_values, fit_gmm
from .ibt import IBTFit, fit_ibt


def reconstruct_gmm_frame(df: pl.DataFrame, K: Any, on: ColumnSpec, phi: Any, **options: Any) -> GMMFit:
    """:func:`fit_gmm` on the ``on`` columns of a DataFrame (validated: numeric, no nulls/NaN)."""
    cols = resolve_columns(df, on, kind="numeric", default="numeric")
    ph = phi_vector(phi, cols)
    _k_values(K, df.height)
    Y = numeric_matrix(df, cols)
    return fit_gmm(Y, ph, K, columns=cols, **options)


def reconstruct_ibt_frame(df: pl.DataFrame, on: ColumnSpec, phi: Any, bins: Any, **options: Any) -> IBTFit:
    """:func:`fit_ibt` on one numeric column of a DataFrame."""
    cols = resolve_columns(df, on, kind="numeric", default="error")
    if len(cols) != 1:
        raise SDCError(f"reconstruct_ibt works on one column, got {len(cols)}: {cols}")
    ph = phi_vector(phi, cols)
    y = numeric_matrix(df, cols)[:, 0]
    return fit_ibt(y, float(ph[0]), bins, column=cols[0], **options)
