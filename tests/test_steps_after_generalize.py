"""Every masking step of a problem after a ``generalize`` step keeps the generalisation's
suppressed records suppressed and never creates the label: the problem passes its
``suppressed_as`` to each step that reads keys (pram, recode, suppress, suppress_risky,
swap_records); the numeric steps cannot touch a generalised key (a String column now)."""
import polars as pl
import pytest

from polars_sdc import SDCError

# 2 z/w records below k = 3: suppressed whole ("*", "*"); the kept classes (x, u), (y, v)
DF = pl.DataFrame({
    "a": list("xxxxxxyyyyyyzz"), "b": list("uuuuuuvvvvvvww"),
    "n": [float(v) for v in (3, 9, 1, 7, 5, 11, 2, 8, 6, 4, 10, 12, 13, 14)],
    "hh": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7],
})
H = {"a": {"x": ["*"], "y": ["*"], "z": ["*"]}, "b": {"u": ["*"], "v": ["*"], "w": ["*"]}}
KEYS = ["a", "b"]


def _problem(df=DF, **roles):
    return df.sdc.problem(keys=KEYS, **roles).generalize(hierarchies=H, k=3, suppression_limit=0.2)


def _check_label_kept(before: pl.DataFrame, after: pl.DataFrame, label: str = "*") -> None:
    """The records with every key the label keep it; no other key value becomes the label."""
    star = before.select(pl.all_horizontal(pl.col(c).cast(pl.String) == label for c in KEYS)).to_series()
    for c in KEYS:
        b, a = before[c].cast(pl.String), after[c].cast(pl.String)
        assert a.filter(star).to_list() == b.filter(star).to_list(), c
        assert not (a.filter(~star) == label).fill_null(False).any(), c
        assert after.schema[c] == before.schema[c]


def test_the_fixture_suppresses_the_two_z_records():
    rel = _problem().release()
    assert rel.select(KEYS).rows()[12:] == [("*", "*")] * 2 and rel.select(KEYS).rows()[0] == ("x", "u")


@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical, pl.Enum(["x", "y", "z", "u", "v", "w", "*"])])
def test_pram_never_draws_the_label_nor_from_it(dtype):
    """pd = 0 and alpha = 1: PRAM moves categories often. As a value, "*" (2 of 14 records)
    was a source and a target: a suppressed record released as x or y, a released one as "*"."""
    p = _problem(pram=KEYS)
    before = p.release().with_columns(pl.col(KEYS).cast(dtype))
    moved = 0
    for seed in range(30):
        out = before.sdc.pram(KEYS, pd=0.0, alpha=1.0, seed=seed, suppressed_as="*")
        _check_label_kept(before, out)
        moved += int((out["a"].cast(pl.String) != before["a"].cast(pl.String)).sum())
    assert moved > 0                                     # PRAM did move the released categories
    # the problem passes its label by itself, eagerly and lazily alike
    q = p.pram(pd=0.0, alpha=1.0, seed=3)
    assert q.steps[-1].arguments["suppressed_as"] == "*"
    _check_label_kept(p.release(), q.release())
    lazy = DF.lazy().sdc.problem(keys=KEYS, pram=KEYS).generalize(hierarchies=H, k=3, suppression_limit=0.2)
    assert lazy.pram(pd=0.0, alpha=1.0, seed=3).release().collect().equals(q.release())


def test_pram_with_a_user_matrix_excludes_the_label_from_the_levels():
    rel = _problem().release()
    swap = [[0.0, 1.0], [1.0, 0.0]]                     # x <-> y; "*" is no level
    out = rel.sdc.pram("a", matrix=swap, seed=1, suppressed_as="*")
    assert out["a"].to_list() == ["y"] * 6 + ["x"] * 6 + ["*"] * 2
    with pytest.raises(SDCError, match="3 x 3"):          # read as written, "*" is a third level
        rel.sdc.pram("a", matrix=swap, seed=1)


def test_recode_never_merges_the_label():
    """p = 0.2 (th = 2.8): "*" (2 records) was the rarest category and merged with another,
    giving a suppressed record a released-looking label ("*|x")."""
    p = _problem()
    rel = p.release()
    assert "*" not in rel.sdc.recode(KEYS, p=0.2)["a"].to_list()          # as written: merged
    q = p.recode(on=KEYS, p=0.2)
    assert q.steps[-1].arguments["suppressed_as"] == "*"
    _check_label_kept(rel, q.release())
    assert q.release().equals(rel)                        # x and y (6 each) are above th: nothing merges
    # a rare released category still merges; the label stays out of it
    df = DF.with_columns(a=pl.Series(list("xxxxxxyyyyyqzz")))
    r = df.sdc.problem(keys=KEYS).generalize(hierarchies={**H, "a": {**H["a"], "q": ["*"]}}, k=1,
                                             suppression_limit=0.0)
    rel2 = r.release().with_columns(pl.when(pl.col("a") == "z").then(pl.lit("*")).otherwise(pl.col("a")).alias("a"),
                                    pl.when(pl.col("b") == "w").then(pl.lit("*")).otherwise(pl.col("b")).alias("b"))
    out = rel2.sdc.recode(KEYS, p=0.1, suppressed_as="*")
    _check_label_kept(rel2, out)
    assert out["a"].to_list()[11] == out["a"].to_list()[6] != "y"          # q merged with y


def test_suppress_risky_reads_the_suppressed_records_as_wildcards_and_keeps_their_label():
    """As values, the two ("*", "*") records were a class of 2 (risk 0.5 > 0.4): their "*"
    was nulled (the label lost). Read as every key missing (fk = 14) they are not risky."""
    p = _problem()
    rel = p.release()
    assert rel.sdc.suppress_risky(KEYS, threshold=0.4)["a"].to_list()[12:] == [None, None]
    q = p.suppress_risky(threshold=0.4)
    assert q.steps[-1].arguments["suppressed_as"] == "*"
    assert q.release().equals(rel)
    _check_label_kept(rel, rel.sdc.suppress_risky(KEYS, threshold=0.1, suppressed_as="*"))


def test_swap_records_refuses_to_move_a_suppressed_records_label():
    """Swapping a household's generalised key would give a suppressed household a real value and
    its partner "*": refused, naming the column; a swap of other columns runs."""
    df = DF.with_columns(region=pl.Series(list("pppqqqpqqppqqq")).cast(pl.String))
    hhlevel = df.with_columns(pl.col("a").first().over("hh"), pl.col("b").first().over("hh"))
    p = _problem(hhlevel, household="hh")
    with pytest.raises(SDCError, match=r"'a'.*suppression label '\*'"):
        p.release().sdc.swap_records(household="hh", hierarchy="a", swaprate=1.0, k_anonymity=0, seed=1,
                                     suppressed_as="*")
    region = p.release().with_columns(pl.col("region").first().over("hh"))
    out = region.sdc.swap_records(household="hh", hierarchy="region", swaprate=1.0, k_anonymity=0, seed=1,
                                  suppressed_as="*")
    _check_label_kept(region, out)


@pytest.mark.parametrize("step, options", [
    ("rank_swap", {"on": ["n"], "p": 0.3, "seed": 1}),
    ("add_noise", {"on": ["n"], "noise": 50.0, "seed": 1}),
    ("laplace", {"on": ["n"], "phi": 2.0, "seed": 1}),
    ("recode_intervals", {"on": ["n"], "breaks": [5.0, 10.0]}),
    ("top_bottom_code", {"on": ["n"], "upper": 10.0}),
    ("microaggregate", {"on": ["n"], "k": 3}),
])
def test_numeric_steps_leave_the_generalised_keys_alone(step, options):
    p = _problem(numeric=["n"])
    q = p.apply(step, **options)
    assert q.release().select(KEYS).equals(p.release().select(KEYS))
    key_options = {k: (["a"] if isinstance(v, list) else v) for k, v in options.items()}
    with pytest.raises(SDCError, match="'a'"):           # a generalised key is text now: refused
        p.apply(step, **key_options)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["x", "y", "z", "*"]), st.sampled_from(["u", "v", "*"]),
                          st.integers(0, 4)), min_size=2, max_size=30),
       st.integers(0, 2**31 - 1), st.booleans())
def test_pram_and_recode_keep_every_label_property(rows, seed, households):
    """Any frame with labels anywhere (whole records, single cells): PRAM and recode with
    suppressed_as leave every label where it is and create none; the other values stay in the
    released categories (pram) or their merged labels (recode)."""
    df = pl.DataFrame(rows, schema=["a", "b", "hh"], orient="row")
    hh = {"household": "hh", "household_columns": []} if households else {}
    out = df.sdc.pram(KEYS, pd=0.0, alpha=1.0, seed=seed, suppressed_as="*", **hh)
    rec = df.sdc.recode(KEYS, p=0.3, suppressed_as="*", **hh)
    for c in KEYS:
        star = df[c] == "*"
        for o in (out, rec):
            assert (o[c] == "*").to_list() == star.to_list(), c
        assert set(out[c].filter(~star).to_list()) <= set(df[c].filter(~star).to_list())
    assert out.select("hh").equals(df.select("hh")) and rec.select("hh").equals(df.select("hh"))
