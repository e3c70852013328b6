"""swap_records warns when the households at risk, not swaprate, decide how many are swapped
(audit 28). sdcMicro's recordSwap swaps every household at risk (a member whose combination of
risk_variables is shared by fewer than k_anonymity persons in its area): the rate is a floor.
A problem fills risk_variables from its keys; with exact age among them most of EU-SILC is at
risk, and 9,707 of 14,827 persons got a new region at swaprate 0.05, silently. Now a
UserWarning gives the realised share and names the risk variables responsible (each with its
number of values and the households at risk without it)."""
from __future__ import annotations

import re
import warnings

import pytest

import polars_sdc  # noqa: F401
from polars_sdc import datasets

KEYS = ["age", "rb090", "pb220a", "hsize"]


@pytest.fixture(scope="module")
def silc():
    return datasets.eusilc()


def _swap(frame, **kw):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = frame.sdc.swap_records(household="db030", hierarchy="db040", swaprate=0.05, seed=1, **kw)
    return out, [str(w.message) for w in seen if issubclass(w.category, UserWarning)]


def test_exact_age_among_the_risk_variables_warns_naming_it(silc):
    out, msgs = _swap(silc, risk_variables=KEYS)
    assert int((out["db040"] != silc["db040"]).sum()) == 9707
    assert len(msgs) == 1
    m = msgs[0]
    assert m.startswith("swap_records: 3,564 of 6,000 households (59 %) swapped at swaprate 0.05: 2,599 households "
                        "are at risk and every one is swapped")
    names = re.findall(r"'(\w+)' \(([\d,]+) values; without it ([\d,]+) households at risk\)", m)
    assert names[0] == ("age", "99", "89")              # the one responsible first
    assert [n[0] for n in names] == ["age", "hsize", "rb090"]
    # a problem whose keys are the risk variables: the same warning
    p = silc.sdc.problem(keys=KEYS, household="db030")
    with pytest.warns(UserWarning, match=r"The risk variables responsible: 'age' \(99 values"):
        p.swap_records(hierarchy="db040", swaprate=0.05, seed=1)


def test_no_warning_when_the_rate_decides(silc):
    out, msgs = _swap(silc, risk_variables=["rb090", "hsize"])
    assert msgs == []
    out, msgs = _swap(silc.with_columns(agegroup=(silc["age"] // 20)), risk_variables=["agegroup", "rb090"])
    assert msgs == []
    _, msgs = _swap(silc, risk_variables=KEYS, k_anonymity=0)       # no risk: the quota alone
    assert msgs == []
