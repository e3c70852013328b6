"""Audit (session 26) of the SDC process, its recipes, the CLI and the release report: each test
failed before its fix. References are plain (tests/naive.py) or recomputed here record by record."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from naive import reference_freqcalc

import polars_sdc
from polars_sdc._errors import SDCError


def _strata_frame(seed: int) -> pl.DataFrame:
    g = np.random.default_rng(1)
    n = 60
    return pl.DataFrame({"a": g.choice(["x", "y", "z", "q"], n), "b": g.choice(["u", "v", "w"], n),
                         "c": g.integers(0, 4, n), "num": g.normal(10, 3, n),
                         "s": np.random.default_rng(seed).choice(["A", "B"], n)})


# -- a declared stratum is released with the data: the measures count it as a key -------------
@pytest.mark.parametrize("seed", [1, 3])
def test_log_and_sign_off_count_k_within_the_released_strata(seed):
    df = _strata_frame(seed)
    p = df.sdc.problem(keys=["a", "b", "c"], pram=["b"], strata="s")
    q = p.suppress(k=3).pram(pd=0.7, seed=3)
    for node, step in ((q.undo(), 1), (q, 2)):
        rows = node.release().select("a", "b", "c", "s").rows()
        fk, _ = reference_freqcalc(rows, [1.0] * len(rows), 1.0)
        # the smallest released class, the stratum counted (a null key matches any value)
        assert q.log["k_anonymity"][step] == fk.min()
        assert node.risk()["k_anonymity"] == fk.min()
    rows = q.release().select("a", "b", "c", "s").rows()
    fk, _ = reference_freqcalc(rows, [1.0] * len(rows), 1.0)
    verdict = q.sign_off().verdict
    if fk.min() >= 3:
        assert verdict.split(": ", 1)[1].startswith(f"{int(fk.min())}-anonymous")
    else:
        assert "NOT 3-anonymous" in verdict and f"smallest class {int(fk.min())}" in verdict
