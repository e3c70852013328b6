"""``df.sdc.risk(..., household=)`` computes the frequencies once (it computed them a second time
for the household risk), and still gives sdcMicro's EU-SILC numbers; the household-id checks are
the ones of ``individual_risk`` and of every household path (one function, one message; a NaN id
is refused as in counting)."""
from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError, datasets
from polars_sdc.risk import individual

KEYS = ["db040", "age", "rb090", "pb220a", "hsize", "pl030"]


def _counting(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = individual.frequency_groups

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(individual, "frequency_groups", counted)
    return calls


@pytest.mark.parametrize("alpha, passes", [(1.0, 1), (0.5, 2)])   # alpha < 1: the safe floor at alpha = 1
def test_household_risk_counts_the_frequencies_once(monkeypatch, alpha, passes):
    df = datasets.eusilc()
    calls = _counting(monkeypatch)
    r = df.sdc.risk(KEYS, "rb050", alpha=alpha, household="db030", suda=False)
    assert len(calls) == passes
    calls.clear()
    alone = df.sdc.individual_risk(KEYS, "rb050", alpha=alpha, household="db030")
    assert len(calls) == passes
    np.testing.assert_array_equal(r.per_record["household_risk"].to_numpy(), alone["household_risk"].to_numpy())
    if alpha == 1.0:   # sdcMicro 5.8.1 measure_risk (data/README.md)
        assert r["global_risk"] == pytest.approx(0.003877252, rel=1e-6)
        assert r["household_risk"] == pytest.approx(0.01343237, rel=1e-6)
        assert r["household_expected_reidentifications"] == pytest.approx(199.1618, rel=1e-6)


def test_household_checks_are_individual_risks(monkeypatch):
    df = datasets.eusilc().head(50)
    bad = df.with_columns(df["db030"].scatter([3, 7], None))
    nan = df.with_columns(df["db030"].cast(pl.Float64).scatter([4], float("nan")))   # was accepted: one "household"
    for frame, household, message in ((df, "rb050", "column 'rb050': is a key or the weight"),
                                      (df, "age", "column 'age': is a key or the weight"),
                                      (bad, "db030", "household column 'db030': 2 null id(s); every person"),
                                      (nan, "db030", "household column 'db030': NaN id(s); every person")):
        calls = _counting(monkeypatch)
        with pytest.raises(SDCError, match=re.escape(message)) as a:
            frame.sdc.risk(KEYS, "rb050", household=household, suda=False)
        with pytest.raises(SDCError) as b:
            frame.sdc.individual_risk(KEYS, "rb050", household=household)
        assert str(a.value) == str(b.value)
        assert not calls           # refused before any counting


def test_arx_estimates_are_the_same_in_every_run():
    # the population estimates summed over the classes in a hash group_by's order: last-ulp
    # differences between two runs on the same frame (seen on EU-SILC); now the classes are sorted
    from polars_sdc.risk.arx import arx_risk

    df = datasets.eusilc()
    runs = [arx_risk(df, KEYS, "rb050") for _ in range(8)]
    for r in runs[1:]:
        assert {k: v for k, v in r.items() if v == v} == {k: v for k, v in runs[0].items() if v == v}
