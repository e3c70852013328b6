"""Local suppression: values suppressed and CPU time, side by side with sdcMicro 5.8.1's
published / test-suite numbers, for the two ways of ranking keys (docs/suppression.md).

- ``tiebreak`` (the default): the fewest suppressions per record, the ranking only decides
  between equally few;
- ``importance`` (sdcMicro's priority): a key of rank 1 is suppressed only when no set of
  less important keys reaches k.

Data: Adult (6 keys, ``?`` as missing), EU-SILC (6 keys), sdcMicro's ``testdata`` and
``testdata2`` (tests/data/, converted from the package's .RData files). sdcMicro's numbers
(R is not reachable here) come from its testthat suite (testdata2: 97, with strata 109) and
from the measurements quoted in issue 28 (Adult 3,115 / 4,528; testdata 293 / 500; EU-SILC
6,979 / 10,882).

    python benchmarks/bench_suppress.py
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer

import polars_sdc  # noqa: F401
from polars_sdc import datasets
from polars_sdc.masking.suppress import suppress_frame, suppressed_count

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
ADULT = ["workclass", "education", "marital-status", "race", "sex", "native-country"]
EUSILC = ["db040", "age", "rb090", "pb220a", "hsize", "pl030"]
TESTDATA = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]


def age_groups(df: pl.DataFrame) -> pl.DataFrame:
    """sdcMicro's test ``ageG = cut(age, 5)``: five equal-width right-closed intervals, the
    range widened by 1/1000 at both ends (R's ``cut.default``)."""
    age = df["age"].to_numpy().astype(float)
    lo, hi = age.min(), age.max()
    br = np.linspace(lo, hi, 6)
    br[0], br[-1] = lo - (hi - lo) / 1000, hi + (hi - lo) / 1000
    return df.with_columns(ageG=pl.Series([f"AG{i}" for i in np.searchsorted(br, age, side="left")]))


def run(name, df, keys, k, sdcmicro, **kw):
    suppress_frame(df.head(20), 1, keys, **kw)              # compile outside the timing
    t = timing.timed(lambda: suppress_frame(df, k, keys, **kw))
    out, cpu = t.result, t.cpu
    n = suppressed_count(df, out, keys)
    per = ", ".join(f"{c} {int(out[c].null_count() - df[c].null_count())}" for c in keys)
    mode = ", ".join(f"{a}={v!r}" for a, v in kw.items() if a != "by") or "tiebreak (default)"
    print(f"| {name} | {k} | {mode} | {n:,} | {sdcmicro} | {cpu:.2f} | {per} |")


def main() -> None:
    print("| data | k | ranking | ours | sdcMicro 5.8.1 | CPU s | per key |")
    print("|---|---|---|---|---|---|---|")
    adult = datasets.adult(missing="?")
    for k, ref in ((3, "3,115"), (5, "4,528")):
        run("Adult", adult, ADULT, k, ref)
        run("Adult", adult, ADULT, k, "", importance="categories")
    run("Adult", adult, ADULT, 3, "", importance={"sex": 1, "race": 1})
    eu = datasets.eusilc()
    for k, ref in ((3, "6,979"), (5, "10,882")):
        run("EU-SILC", eu, EUSILC, k, ref)
        run("EU-SILC", eu, EUSILC, k, "", importance="categories")
    run("EU-SILC", eu, EUSILC, 3, "", importance={"db040": 1, "rb090": 1})
    td = pl.read_parquet(DATA / "sdcmicro_testdata.parquet")
    for k, ref in ((3, "293"), (5, "500")):
        run("testdata", td, TESTDATA, k, ref)
        run("testdata", td, TESTDATA, k, "", importance="categories")
    td2 = age_groups(pl.read_parquet(DATA / "sdcmicro_testdata2.parquet"))
    run("testdata2", td2, TESTDATA, 2, "97")
    run("testdata2", td2, TESTDATA, 2, "", importance="categories")
    run("testdata2, by ageG", td2, TESTDATA, 2, "109", by="ageG")


if __name__ == "__main__":
    main()
