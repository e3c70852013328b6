"""Audit 27b: the household risk measures on a LazyFrame name a missing household column
(an SDCError, as eagerly and as k_anonymity / frequencies do), not Polars' ColumnNotFoundError
from the collect; the CLI prints that message."""
from __future__ import annotations

import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.cli import main

DF = pl.DataFrame({"hid": [1, 1, 2, 3], "region": ["a", "a", "b", "b"], "sex": [1, 2, 1, 2]})


@pytest.mark.parametrize("method", ["risk", "global_risk"])
@pytest.mark.parametrize("lazy", [False, True])
def test_a_missing_household_column_is_named(method, lazy):
    frame = DF.lazy() if lazy else DF
    with pytest.raises(SDCError, match="household column 'nope': not in the frame"):
        getattr(frame.sdc, method)(["region", "sex"], household="nope")


def test_the_cli_names_it_too(tmp_path, capsys):
    path = tmp_path / "in.parquet"
    DF.write_parquet(path)
    assert main(["risk", str(path), "--on", "region,sex", "--household", "nope"]) == 2
    err = capsys.readouterr().err
    assert "household column 'nope': not in the frame" in err and "ColumnNotFoundError" not in err


def test_household_risk_lazy_equals_eager():
    a = DF.sdc.global_risk(["region", "sex"], household="hid")
    b = DF.lazy().sdc.global_risk(["region", "sex"], household="hid")
    assert a == b and "household_risk" in str(a)
