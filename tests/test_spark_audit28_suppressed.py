"""Spark reads a generalised release's suppressed records (``suppressed_as="*"``) as the local
measures do (audit 28): with ONE key they raise no kept class (the local
:func:`polars_sdc.risk.suppressed.frequency_keys`, run on the driver's combination table), so a
release of classes of 3 plus 3 suppressed records is 3-anonymous on Spark too (it read as
6-anonymous, sdcMicro's single-key all-missing rule); with two keys sdcMicro's multi-key rule, as
before. Tiny frames, record for record against local, with and without weights, a genuine null
beside the suppressed records, ``household=``. Needs pyspark and Java (else skipped, as
tests/test_spark.py)."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from test_spark import spark  # noqa: F401  (the session fixture)

import polars_sdc  # noqa: F401

ONE = pl.DataFrame({
    "rid": list(range(11)),
    "hh": [0, 0, 1, 2, 3, 3, 4, 5, 6, 7, 8],
    "age": ["a", "a", "a", "b", "b", "b", "*", "*", "*", None, "b"],
    "sex": ["f", "m", "f", "m", "*", "m", "*", "*", "*", "f", "f"],   # a lone '*' is a value
    "w": [2.0, 2.0, 3.0, 1.5, 4.0, 4.0, 5.0, 1.0, 2.5, 3.0, 2.0],
})


def _got(out) -> pl.DataFrame:
    return pl.from_arrow(out.toArrow()).sort("rid")


def test_spark_one_key_release_equals_local(spark):  # noqa: F811
    from polars_sdc import spark as sdcs

    sdf = spark.createDataFrame(ONE.to_arrow()).repartition(2)
    cases = [(["age"], "w"), (["age"], None), (["age", "sex"], "w"), (["age", "sex"], None)]
    for keys, weight in cases:
        want = ONE.sdc.individual_risk(keys, weight, suppressed_as="*")
        got = _got(sdcs.individual_risk(sdf, keys, weight, suppressed_as="*"))
        assert got["fk"].to_list() == want["fk"].to_list(), (keys, weight)
        np.testing.assert_allclose(got["Fk_pop"].to_numpy(), want["Fk"].to_numpy(), rtol=1e-13, atol=0)
        np.testing.assert_allclose(got["risk"].to_numpy(), want["risk"].to_numpy(), rtol=1e-12, atol=0)
        if weight is None:
            f = _got(sdcs.frequencies(sdf, keys, suppressed_as="*"))
            assert f["fk"].to_list() == ONE.sdc.frequencies(keys, suppressed_as="*")["fk"].to_list()
    # one key: the classes ('a': 3 records, 'b': 4, each + 1 for the null, sdcMicro's one-key
    # wildcard) read as such, the suppressed records and the null match every record (fk = n);
    # sdcMicro's single-key rule on the suppressed records gave 7 and 8 (the 3 added to each)
    fk = _got(sdcs.frequencies(sdf, ["age"], suppressed_as="*"))["fk"].to_list()
    assert fk == [4.0] * 3 + [5.0] * 3 + [11.0] * 4 + [5.0]
    s = sdcs.risk(sdf, ["age"], "w", suppressed_as="*", ks=(3, 5))
    local = ONE.sdc.risk(["age"], "w", suppressed_as="*", ks=(3, 5), suda=False).as_dict()
    assert s["k_anonymity"] == local["k_anonymity"] == 4
    for name, v in s.items():
        assert v == pytest.approx(local[name], rel=1e-12), name
    # household=: a household with a suppressed record matches every household, and counts no kept one
    for keys in (["age"], ["age", "sex"]):
        got = _got(sdcs.frequencies(sdf, keys, "w", household="hh", suppressed_as="*"))
        want = ONE.sdc.frequencies(keys, "w", household="hh", suppressed_as="*")
        assert got["fk"].to_list() == want["fk"].to_list(), keys
        assert got["Fk_pop"].to_list() == pytest.approx(want["Fk"].to_list(), rel=1e-13), keys
    g = sdcs.global_risk(sdf, ["age"], "w", household="hh", suppressed_as="*")
    assert g == pytest.approx(ONE.sdc.global_risk(["age"], "w", household="hh", suppressed_as="*"), rel=1e-12)
