"""The release report / sign-off with structural nulls in the sensitive variable (EU-SILC's pl030,
economic status, is empty for the children): a null is not a sensitive value. The verdict said
"pl030: l-diversity 0 -> 0" (a class of children, all null, had l = 0 and was the smallest);
now l is the smallest number of distinct values among each class's records that have a value,
and the verdict says so and how many nulls were left out."""
import polars as pl

import polars_sdc  # noqa: F401

EUSILC = "/work/shared/data/eusilc.csv"
KEYS = ["db040", "age", "rb090"]


def _smallest_l(frame, keys, s):
    """Brute force: per class (exact key values) the distinct non-null sensitive values, the
    smallest over the classes with at least one."""
    counts = {}
    for row in frame.select(*keys, s).rows():
        *key, v = row
        if v is not None:
            counts.setdefault(tuple(key), set()).add(v)
    return float(min(len(v) for v in counts.values()))


def _eusilc():
    df = pl.read_csv(EUSILC, infer_schema_length=None).select("db030", *KEYS, "pl030")
    return df, df.with_columns(age=pl.col("age") // 10 * 10)


def test_report_l_counts_values_not_nulls():
    df, m = _eusilc()
    nulls = df["pl030"].null_count()
    assert nulls == 2720
    r = polars_sdc.report(df, m, on=KEYS, sensitive="pl030")
    want_before, want_after = _smallest_l(df, KEYS, "pl030"), _smallest_l(m, KEYS, "pl030")
    assert (r.facts["l_before"], r.facts["l_after"]) == (want_before, want_after)
    assert want_after > 0 and want_before >= 1
    assert (f"pl030: l-diversity {want_before:g} -> {want_after:g} (distinct values per class among the records "
            f"with a value; 2,720 null values not counted)") in r.verdict
    assert any("not sensitive values" in n for n in r.notes)
    sens = r.table("sensitive")
    assert sens["l (distinct values per class, smallest)"].to_list() == [want_before, want_after]


def test_sign_off_and_problem_log():
    df, _ = _eusilc()
    p = df.sdc.problem(keys=KEYS, sensitive="pl030").recode_intervals(on="age", breaks=[15, 30, 45, 60, 75])
    rel = p.release()
    want = _smallest_l(rel, KEYS, "pl030")
    assert p.log["l_diversity"][-1] == want
    v = p.sign_off().verdict
    assert f"-> {want:g} (distinct values per class among the records with a value" in v
    assert "l-diversity 0 -> 0" not in v


def test_every_sensitive_value_null_and_no_null():
    df = pl.DataFrame({"a": ["x", "x", "y", "y"], "s": pl.Series([None] * 4, dtype=pl.String)})
    r = polars_sdc.report(df, df, on=["a"], sensitive="s")
    assert r.facts["l_before"] is None and r.facts["l_after"] is None
    assert "s: l-diversity no sensitive value (every one null) -> no sensitive value (every one null)" in r.verdict
    # without nulls the verdict is as before: no note, no parenthesis
    full = df.with_columns(s=pl.Series(["p", "q", "p", "p"]))
    r = polars_sdc.report(full, full, on=["a"], sensitive="s")
    assert "s: l-diversity 1 -> 1." in r.verdict and "not counted" not in r.verdict
    # a class holding one value and nulls: l 1 (the null is not a second value)
    mixed = df.with_columns(s=pl.Series(["p", None, "p", "q"]))
    r = polars_sdc.report(mixed, mixed, on=["a"], sensitive="s")
    assert r.facts["l_before"] == 1.0 and "1 null value not counted" in r.verdict
