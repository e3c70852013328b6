"""Model-based information loss of a recoded release (Sano & Hattori, eq. 6).

``IL = M(x_i, f(X_sub)) - M(x_i, f_G(X_sub,G))`` where ``f`` is a multinomial logit
(:mod:`.logit`) predicting the original target ``x_i`` from original inputs and ``f_G`` the
same model on the recoded inputs (the target is never recoded); ``M`` is a metric of
:mod:`.metrics`. Rows are grouped with Polars first, so the model sees distinct patterns only.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Unpack

import numpy as np
import polars as pl

from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError
from .._typing import LabelOptions
from .logit import fit_multinomial_onehot
from .metrics import METRICS, classification_metrics


@dataclass(frozen=True)
class UtilityReport:
    """Metrics of the original-input model, the recoded-input model and IL = original -
    recoded (eq. 6) for one target, input set and p; ``n`` rows used, ``skipped`` rows left
    out for a null in the target or an input (``df.sdc.recode_utility(..., metric=None)``).

    >>> import polars_sdc
    >>> adult = polars_sdc.datasets.adult()
    >>> rep = adult.sdc.recode_utility(target="occupation", inputs=["education", "sex"], p=0.05, metric=None)
    >>> rep.il["recall"], rep.to_frame().columns      # the README's IL of the macro recall
    (0.017218935568800303, ['metric', 'original', 'recoded', 'il'])
    """

    target: str
    inputs: tuple[str, ...]
    p: float
    n: int
    original: dict = field(repr=False)
    recoded: dict = field(repr=False)
    il: dict = field(repr=False)
    skipped: int = 0

    def to_frame(self) -> pl.DataFrame:
        """One row per metric: ``metric``, ``original``, ``recoded``, ``il`` (eq. 6).

        >>> import polars as pl
        >>> df = pl.DataFrame({"x": ["u"] * 12 + ["v"] * 10 + ["w"] * 8,
        ...                    "y": ["a"] * 12 + ["b"] * 10 + ["a"] * 5 + ["b"] * 3})
        >>> recode_utility(df, "y", "x", 0.3, metric=None).to_frame()["metric"].to_list()
        ['precision', 'recall', 'f', 'accuracy']
        """
        return pl.DataFrame(
            {
                "metric": list(METRICS),
                "original": [self.original[m] for m in METRICS],
                "recoded": [self.recoded[m] for m in METRICS],
                "il": [self.il[m] for m in METRICS],
            }
        )

    def __repr__(self) -> str:
        ils = ", ".join(f"{m}={self.il[m]:.4f}" for m in METRICS)
        nulls = f", {self.skipped} rows with nulls skipped" if self.skipped else ""
        return f"UtilityReport({self.target} ~ {' + '.join(self.inputs)}, p={self.p}, n={self.n}{nulls}: IL {ils})"


def _codes(values: pl.Series, levels: list[str]) -> np.ndarray:
    index = {lab: i for i, lab in enumerate(levels)}
    return np.fromiter((index[v] for v in values.to_list()), dtype=np.int64, count=values.len())


def _patterns(table: pl.DataFrame, target: str, inputs: list[str], classes: list[str], levels: dict[str, list[str]], split: str | None):
    """One-hot positions (U, m), class counts (U, K), split flag (U,) and the number of
    design columns for the distinct patterns of a small grouped table (one row per distinct
    (split, inputs, target) with its count ``__len__``)."""
    t = _codes(table.get_column(target), classes)
    cols = [_codes(table.get_column(c), levels[c]) for c in inputs]
    flag = table.get_column(split).to_numpy().astype(np.int64) if split else np.zeros(table.height, np.int64)
    keys = np.column_stack([flag, *cols]) if cols else flag[:, None]
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    C = np.zeros((uniq.shape[0], len(classes)))
    np.add.at(C, (inverse, t), table.get_column("__len__").to_numpy().astype(np.float64))
    idx = np.full((uniq.shape[0], len(inputs)), -1, dtype=np.int64)
    off = 0
    for j, c in enumerate(inputs):
        code = uniq[:, j + 1]
        idx[:, j] = np.where(code > 0, off + code - 1, -1)
        off += len(levels[c]) - 1
    return idx, C, uniq[:, 0].astype(bool), off


def model_metrics(
    df: pl.DataFrame,
    target: str,
    inputs: Sequence[str],
    *,
    test: pl.Series | None = None,
    l2: float = 1e-4,
    tol: float = 1e-7,
    undefined: str = "skip",
    classes: list[str] | None = None,
) -> dict[str, float]:
    """Metrics (section 4.4) of a multinomial logit predicting ``target`` from categorical
    ``inputs`` (in-sample, or fitted on rows with ``test`` False and scored on rows with it True).

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": ["u", "u", "v", "v"] * 5, "y": ["a", "a", "b", "a"] * 5})
    >>> model_metrics(df, "y", ["x"])["accuracy"]
    0.75
    """
    inputs = list(inputs)
    split = None
    frame = df.select(target, *inputs)
    if test is not None:
        split = "__test__"
        frame = frame.with_columns(test.alias(split))
    keys = ([split] if split else []) + [target, *inputs]
    table = frame.group_by(keys).agg(pl.len().alias("__len__"))
    table = table.with_columns(pl.col(c).cast(pl.String) for c in [target, *inputs])
    if classes is None:
        classes = sorted(table.get_column(target).unique().to_list())
    levels = {c: sorted(table.get_column(c).unique().to_list()) for c in inputs}
    idx, C, is_test, width = _patterns(table, target, inputs, classes, levels, split)
    train = ~is_test
    fit = fit_multinomial_onehot(idx[train], width, C[train], l2=l2, tol=tol)
    rows = is_test if split else train
    pred = np.argmax(fit.decision_onehot(idx[rows]), axis=1)  # ties: lowest class index
    Cr = C[rows]
    K = len(classes)
    G = np.zeros((K, K))
    np.add.at(G.T, pred, Cr)  # G[a, pred_u] += C[u, a]
    return classification_metrics(G, undefined=undefined)


def recode_utility(
    df: pl.DataFrame,
    target: str,
    inputs: ColumnSpec,
    p: float,
    *,
    metric: str | None = "recall",
    test_size: float | None = None,
    seed: int = 0,
    l2: float = 1e-4,
    undefined: str = "skip",
    **label_options: Unpack[LabelOptions],
) -> float | UtilityReport:
    """Model-based information loss of minimum-frequency recoding (Sano & Hattori, eq. 6).

    Rows with a null in ``target`` or ``inputs`` are dropped (complete cases, as R's
    ``multinom``); the inputs are recoded with ``p`` on those rows (th = rows * p); the
    target keeps its original categories. Both models are scored in-sample (as in the paper)
    or, with ``test_size``, fitted on a random split (``seed``) and scored on the rest.
    ``metric`` in precision / recall / f / accuracy gives that IL as a float; ``None`` gives
    a :class:`UtilityReport` with every metric. The paper recommends recall. The rows left out
    for a null are counted: the float's ``.skipped``, the report's ``skipped``. The label
    options (:class:`~polars_sdc._typing.LabelOptions`): ``sep``, ``other`` and ``max_label`` name the merged groups (``other`` pools them, which changes
    the recoded model); ``null_values`` (e.g. ``["?"]``) are read as missing in the target and
    the inputs before the complete cases are taken.

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": ["u"] * 12 + ["v"] * 10 + ["w"] * 8,
    ...                    "y": ["a"] * 12 + ["b"] * 10 + ["a"] * 5 + ["b"] * 3})
    >>> recode_utility(df, "y", "x", 0.3, metric=None).to_frame()["recoded"].round(4).to_list()
    [0.8611, 0.8529, 0.8331, 0.8333]
    >>> round(recode_utility(df, "y", "x", 0.3), 6)   # w merges into v: (1 + 10/13)/2 - (12/17 + 1)/2
    0.031674
    """
    from ..recode import check_label_options, check_p, recode_frame

    check_p(p)
    missing = sorted(check_label_options(label_options)[1])
    names = {k: v for k, v in label_options.items() if k != "null_values"}
    if metric is not None and metric not in METRICS:
        raise SDCError(f"metric must be one of {', '.join(METRICS)} or None, got {metric!r}")
    target = resolve_columns(df, target, kind="categorical", what="target", default="error")[0]
    inputs = resolve_columns(df, inputs, kind="categorical", what="inputs", default="error")
    if target in inputs:
        raise SDCError(f"column {target!r}: the target cannot also be an input")
    data = df.select(target, *inputs)
    if missing:
        data = data.with_columns(
            pl.when(pl.col(c).cast(pl.String).is_in(missing)).then(None).otherwise(pl.col(c)).alias(c)
            for c in data.columns
        )
    data = data.drop_nulls()
    if data.height == 0:
        raise SDCError(f"column {target!r}: no complete rows among the target and the inputs")
    classes = sorted(data.get_column(target).cast(pl.String).unique().to_list())
    if len(classes) < 2:
        raise SDCError(f"column {target!r}: the target has a single category; nothing to predict")
    test = None
    if test_size is not None:
        if not (0.0 < float(test_size) < 1.0):
            raise SDCError(f"test_size must be strictly between 0 and 1, got {test_size!r}")
        n_test = int(round(data.height * float(test_size)))
        if n_test < 1 or n_test >= data.height:
            raise SDCError(f"test_size {test_size} leaves an empty train or test set of {data.height} rows")
        mask = np.zeros(data.height, dtype=bool)
        mask[np.random.default_rng(seed).permutation(data.height)[:n_test]] = True
        test = pl.Series("__test__", mask)
    recoded = recode_frame(data, inputs, p, enum_as=pl.Categorical, **names)
    opts = dict(test=test, l2=l2, undefined=undefined, classes=classes)
    m0 = model_metrics(data, target, inputs, **opts)
    m1 = model_metrics(recoded, target, inputs, **opts)
    il = {m: m0[m] - m1[m] for m in METRICS}
    if metric is not None:
        from ..loss.nulls import Measured

        return Measured(il[metric], df.height - data.height)
    return UtilityReport(target, tuple(inputs), float(p), data.height, m0, m1, il, df.height - data.height)
