"""Leftovers of the session-26 audit of the process face (tests/test_process_audit26.py):
local suppression on every key dtype risk accepts; invalid weights refused when the problem
is built; a repeated key in a CLI JSON option refused."""

import datetime as dt

import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc._errors import SDCError

# one risky value (the 4th row) and three equal rows: k = 2 suppresses exactly the 4th key value
_KEY_VALUES = {
    "date": (pl.Date, [dt.date(2020, 1, 1)] * 3 + [dt.date(2021, 5, 6)]),
    "datetime": (pl.Datetime("us"), [dt.datetime(2020, 1, 1, 3)] * 3 + [dt.datetime(2021, 5, 6, 7)]),
    "datetime_tz": (pl.Datetime("ms", "Europe/Paris"), [dt.datetime(2020, 1, 1, 3)] * 3 + [dt.datetime(2021, 5, 6)]),
    "time": (pl.Time, [dt.time(1, 2)] * 3 + [dt.time(3, 4)]),
    "duration": (pl.Duration("us"), [dt.timedelta(days=1)] * 3 + [dt.timedelta(days=2)]),
    "boolean": (pl.Boolean, [True, True, True, False]),
    "enum": (pl.Enum(["lo", "hi"]), ["lo", "lo", "lo", "hi"]),
    "categorical": (pl.Categorical, ["lo", "lo", "lo", "hi"]),
    "int8": (pl.Int8, [-128, -128, -128, 127]),
    "uint64": (pl.UInt64, [2**64 - 1] * 3 + [0]),
    "int16": (pl.Int16, [1, 1, 1, 2]),
    "uint8": (pl.UInt8, [255, 255, 255, 0]),
    "float32": (pl.Float32, [1.5, 1.5, 1.5, 2.5]),
}


@pytest.mark.parametrize("name", sorted(_KEY_VALUES))
@pytest.mark.parametrize("lazy", [False, True])
def test_suppress_accepts_every_key_dtype_risk_accepts(name, lazy):
    dtype, values = _KEY_VALUES[name]
    df = pl.DataFrame({"x": pl.Series(values, dtype=dtype), "other": [1, 2, 3, 4]})
    before = df.clone()
    df.sdc.risk(["x"])                                    # risk accepts the dtype ...
    frame = df.lazy() if lazy else df
    out = frame.sdc.suppress(2, ["x"])                   # ... and so does suppression
    if lazy:
        assert out.collect_schema() == df.schema
        out = out.collect()
    assert out.schema == df.schema                       # the dtype kept
    assert out["x"].to_list() == df["x"].to_list()[:3] + [None]     # the unique value released null
    assert out["other"].to_list() == [1, 2, 3, 4]
    assert out.sdc.k_anonymity(["x"]) >= 2
    assert df.equals(before)


def test_suppress_risky_date_key_kept_dtype():
    df = pl.DataFrame({"d": [dt.date(2020, 1, 1)] * 3 + [dt.date(2021, 1, 1)], "w": [10.0, 10.0, 10.0, 2.0]})
    out = df.sdc.suppress_risky(["d"], weight="w", threshold=0.2)
    assert out.schema == df.schema
    assert out["d"].to_list() == [dt.date(2020, 1, 1)] * 3 + [None]


def test_suppress_date_key_with_strata_and_household():
    df = pl.DataFrame({
        "hh": [1, 1, 2, 2, 3, 3, 4],
        "d": [dt.date(2020, 1, 1)] * 6 + [dt.date(2022, 1, 1)],
        "s": ["a"] * 7,
    })
    out = df.sdc.suppress(2, ["d"], by="s", household="hh")
    assert out.schema == df.schema
    assert out["d"].to_list() == [dt.date(2020, 1, 1)] * 6 + [None]


def test_suppress_refuses_a_nested_key_dtype_naming_it():
    df = pl.DataFrame({"x": [[1], [1], [2]]})
    with pytest.raises(SDCError, match="column 'x'.*cannot be a key"):
        df.sdc.suppress(2, ["x"])


# -- A2: invalid sampling weights refused when the problem is built --------------------------
_BAD_WEIGHTS = {
    "null": ([1.0, None, 2.0, 3.0], "column 'w': 1 null, NaN or infinite value(s)"),
    "nan": ([1.0, float("nan"), 2.0, 3.0], "column 'w': 1 null, NaN or infinite value(s)"),
    "inf": ([1.0, float("inf"), 2.0, 3.0], "column 'w': 1 null, NaN or infinite value(s)"),
    "zero": ([1.0, 0.0, 2.0, -3.0], "column 'w': 2 sampling weight(s) <= 0; weights must be > 0"),
}


@pytest.mark.parametrize("case", sorted(_BAD_WEIGHTS))
@pytest.mark.parametrize("lazy", [False, True])
def test_problem_refuses_invalid_weights_when_built(case, lazy):
    values, message = _BAD_WEIGHTS[case]
    df = pl.DataFrame({"a": [1, 1, 2, 2], "w": values})
    frame = df.lazy() if lazy else df
    with pytest.raises(SDCError) as built:
        frame.sdc.problem(keys="a", weight="w")
    assert str(built.value) == message
    # the same message the measures give (risk/weights.py's check)
    with pytest.raises(SDCError) as measured:
        df.sdc.risk(["a"], weight="w")
    assert str(measured.value) == message


def test_problem_integer_weights_accepted_and_lazy_stays_lazy():
    lf = pl.LazyFrame({"a": [1, 1, 2, 2], "w": [1, 2, 3, 4]})
    p = lf.sdc.problem(keys="a", weight="w")
    assert p.lazy and isinstance(p.release(), pl.LazyFrame)


# -- A3: a repeated key in a CLI JSON option refused (as in a recipe) -------------------------
@pytest.mark.parametrize("command, argv, option, key", [
    ("generalize", ["--hierarchies", '{"age": {"rule": "intervals", "widths": [10]}, "age": {"rule": "intervals", '
                    '"widths": [20]}}', "--k", "2", "--on", "age"], "--hierarchies", "age"),
    ("generalize", ["--hierarchies", '{"age": {"rule": "intervals", "widths": [10], "widths": [20]}}', "--k", "2",
                    "--on", "age"], "--hierarchies", "widths"),
    ("suppress", ["--k", "2", "--on", "age,sex", "--importance", '{"age": 1, "age": 2}'], "--importance", "age"),
])
def test_cli_json_option_refuses_a_repeated_key(tmp_path, capsys, command, argv, option, key):
    from polars_sdc import cli

    src, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    pl.DataFrame({"age": [21, 23, 25, 38], "sex": ["f", "f", "m", "m"]}).write_parquet(src)
    code = cli.main([command, str(src), str(out), *argv])
    err = capsys.readouterr().err
    assert code == 2
    assert option in err and f"{key!r} is given twice" in err, err
    assert not out.exists()


def test_recipe_json_refuses_a_repeated_key_with_the_same_words():
    from polars_sdc.process.recipe import read_recipe

    with pytest.raises(SDCError, match="'keys' is given twice in one object"):
        read_recipe('{"version": 1, "roles": {"keys": ["a"], "keys": ["b"]}, "steps": []}')
