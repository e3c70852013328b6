"""polars-sdc anonymize: method options reach the method, the release's loss and risk are printed."""
import re

import polars as pl
import pytest

import polars_sdc
from polars_sdc import cli, datasets

ON = ["AFNLWGT", "AGI", "FEDTAX"]


@pytest.fixture
def census_csv(tmp_path):
    path = tmp_path / "census.csv"
    datasets.census().head(300).write_csv(path)
    return path


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("flags, method, options", [
    (["--method", "mhm", "--order", "kd-mdav"], "mhm", {"order": "kd-mdav"}),
    (["--method", "vmdav", "--gamma", "0.5"], "vmdav", {"gamma": 0.5}),
    (["--weights", "AGI=4", "--integers", "float"], "mdav", {"weights": {"AGI": 4.0}, "integers": "float"}),
    (["--refine", "mil"], "mdav", {"refine": "mil"}),
])
def test_options_reach_the_method_and_loss_is_printed(tmp_path, capsys, census_csv, flags, method, options):
    out_path = tmp_path / "out.parquet"
    code, out, err = run(capsys, "anonymize", census_csv, out_path, "--k", 4, "--on", ",".join(ON), *flags)
    assert code == 0, err
    df = pl.read_csv(census_csv)
    want = df.sdc.microaggregate(4, ON, method=method, **options)
    got = pl.read_parquet(out_path)
    assert got.equals(want)
    shown = float(re.search(r"SSE/SST ([0-9.]+) %", out).group(1))
    assert shown == pytest.approx(100 * df.sdc.ilssdm(ON, masked=got), abs=5e-5)
    risk = float(re.search(r"global risk ([0-9.e-]+) %", out).group(1))  # percent, as `risk` and the report
    assert risk == pytest.approx(100 * got.sdc.global_risk(ON)["global_risk"], rel=1e-3)


def test_version_and_option_errors(tmp_path, capsys, census_csv):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"polars-sdc {polars_sdc.__version__ if hasattr(polars_sdc, '__version__') else cli._version()}"
    out_path = tmp_path / "o.parquet"
    code, _, err = run(capsys, "anonymize", census_csv, out_path, "--k", 3, "--on", "AGI", "--order", "kd")
    assert code == 2 and "unknown option 'order' for method 'mdav'" in err and err.count("\n") == 1
    code, _, err = run(capsys, "anonymize", census_csv, out_path, "--k", 3, "--on", "AGI", "--weights", "AGI")
    assert code == 2 and "COL=WEIGHT" in err
    assert not out_path.exists()
