"""``count=`` of the frequency rule: a combination table (one row per distinct key combination,
with its record count and summed weight) gives every combination the fk / Fk / risk its records
get, on every path of the rule (counting array, dense wildcard array, the joins and the pairwise
kernel). The Spark back end runs the rule this way (polars_sdc/spark/frequencies.py), so this is
what makes Spark equal local."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_sdc.risk import frequencies as freq
from polars_sdc.risk.frequencies import frequency_groups
from polars_sdc.risk.individual import frequencies_and_risk

KEYS = ["a", "b", "c"]
PATHS = ["default", "rows-pairwise", "rows-joins"]


def _frame(seed: int, n: int, missing: float, levels: int) -> pl.DataFrame:
    g = np.random.default_rng(seed)

    def key(values):
        return [None if g.random() < missing else v for v in values]

    return pl.DataFrame({
        "a": pl.Series(key(g.integers(0, levels, n).tolist()), dtype=pl.Int64),
        "b": pl.Series(key(g.choice(["x", "y", "z"], n).tolist()), dtype=pl.String),
        "c": pl.Series([float("nan") if v is not None and v == 2.0 else v
                        for v in key(g.integers(0, 4, n).astype(float).tolist())], dtype=pl.Float64),
        "w": g.uniform(0.5, 30.0, n),
    })


def _combinations(df: pl.DataFrame) -> pl.DataFrame:
    """One row per distinct key combination (NaN read as null, as Spark's table), its count and weight."""
    keys = df.select(pl.col("a"), pl.col("b"), pl.col("c").fill_nan(None), "w")
    return keys.group_by(KEYS, maintain_order=True).agg(pl.len().cast(pl.Float64).alias("n"), pl.col("w").sum())


def _per_row(df: pl.DataFrame, alpha: float, count: str | None) -> tuple[np.ndarray, np.ndarray]:
    index, fk, Fk = frequency_groups(df, KEYS, "w", alpha, count)
    return (fk, Fk) if index is None else (fk[index], Fk[index])


def _force(path: str, monkeypatch) -> None:
    if path != "default":
        monkeypatch.setattr(freq, "DENSE_CELLS", (1, 1))        # no counting array
    if path == "rows-joins":
        monkeypatch.setattr(freq, "PAIRWISE_LIMIT", 0)          # no pairwise kernel: joins per pattern
        monkeypatch.setattr(freq, "CROSS_LIMIT", 0)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("missing", [0.0, 0.15])
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_combination_table_counts_equal_the_records(path, missing, alpha, monkeypatch):
    _force(path, monkeypatch)
    df = _frame(3, 400, missing, 5)
    table = _combinations(df)
    assert table.height < df.height and (missing == 0 or table["a"].null_count())
    fk, Fk = _per_row(df, alpha, None)
    tfk, tFk = _per_row(table, alpha, "n")
    back = df.select(pl.col("a"), pl.col("b"), pl.col("c").fill_nan(None)).join(
        table.with_columns(pl.Series("fk", tfk), pl.Series("Fk", tFk)), on=KEYS, how="left",
        nulls_equal=True, maintain_order="left")
    assert back["fk"].to_list() == fk.tolist()
    np.testing.assert_allclose(back["Fk"].to_numpy(), Fk, rtol=1e-13, atol=0)
    # the risk, both alphas at once (the safe rule's floor at alpha = 1)
    r = frequencies_and_risk(df, KEYS, "w", alpha)[2]
    tr = frequencies_and_risk(table, KEYS, "w", alpha, count="n")[2]
    idx = df.select(pl.col("a"), pl.col("b"), pl.col("c").fill_nan(None)).join(
        table.with_row_index("i"), on=KEYS, how="left", nulls_equal=True, maintain_order="left")["i"].to_numpy()
    np.testing.assert_allclose(tr[idx], r, rtol=1e-12, atol=0)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 60), missing=st.sampled_from([0.0, 0.2, 0.6]),
       alpha=st.sampled_from([0.0, 0.5, 1.0]))
def test_counts_property_every_path(seed, n, missing, alpha):
    df = _frame(seed, n, missing, 3)
    table = _combinations(df)
    idx = df.select(pl.col("a"), pl.col("b"), pl.col("c").fill_nan(None)).join(
        table.with_row_index("i"), on=KEYS, how="left", nulls_equal=True, maintain_order="left")["i"].to_numpy()
    for path in PATHS:
        with pytest.MonkeyPatch.context() as mp:
            _force(path, mp)
            fk, Fk = _per_row(df, alpha, None)
            tfk, tFk = _per_row(table, alpha, "n")
        assert tfk[idx].tolist() == fk.tolist(), path
        np.testing.assert_allclose(tFk[idx], Fk, rtol=1e-12, atol=0, err_msg=path)
