"""One contract for every public DataFrame / LazyFrame method: the lazy call collects (eagerly and
with the streaming engine) to the eager result, a declared lazy schema is the collected one, and
the caller's frame is never changed. A new public method must add its call here."""
import math
from dataclasses import is_dataclass

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc.namespace import SDCFrame, SDCLazyFrame

N = 40
_rng = np.random.default_rng(11)
FRAME = pl.DataFrame({
    "x": _rng.normal(size=N),
    "y": _rng.integers(0, 50, N),
    "z": _rng.normal(size=N) * 1e3,
    "c": pl.Series(_rng.choice(["a", "b", "c"], N)),
    "e": pl.Series(_rng.choice(["lo", "mid", "hi"], N), dtype=pl.Enum(["lo", "mid", "hi"])),
    "s": pl.Series(_rng.choice(["N", "S"], N)),
    "t": pl.Series(_rng.choice(["p", "q"], N)),
    "g": np.arange(N) // 4,
    "w": _rng.uniform(1, 30, N),
})
MASKED = FRAME.sdc.mdav(4, ["x", "z"])

# method name -> call on a namespace (df.sdc or lf.sdc)
CALLS = {
    "aggregate": lambda ns: ns.aggregate("g", ["x", "c"]),
    "cramers_v": lambda ns: ns.cramers_v(["c", "s", "t"]),
    "equivalence_classes": lambda ns: ns.equivalence_classes(["c", "s"]),
    "ild": lambda ns: ns.ild(MASKED, on=["x", "z"]),
    "ild_report": lambda ns: ns.ild_report(MASKED, on=["x", "z"]),
    "ilssdm": lambda ns: ns.ilssdm(["x", "z"], masked=MASKED),
    "information_amount": lambda ns: ns.information_amount(on=["x", "c"]),
    "k_anonymity": lambda ns: ns.k_anonymity(["c", "s"]),
    "laplace": lambda ns: ns.laplace(0.5, ["x", "y"], seed=3),
    "laplace_scale": lambda ns: ns.laplace_scale(["x", "z"], k=3),
    "loss_report": lambda ns: ns.loss_report(groups="g", on=["x", "c"], label="t", k=4),
    "mdav": lambda ns: ns.mdav(3, ["x", "z", "c"], by="s", group_column="gid"),
    "mhm": lambda ns: ns.mhm(3, ["x", "z"], order="kd-mdav", refine="mil"),
    "microaggregate": lambda ns: ns.microaggregate(4, ["x", "y", "e"], method="vmdav", ordinal=["e"]),
    "mil": lambda ns: ns.mil(4, ["x", "z"], groups="g"),
    "partition": lambda ns: ns.partition(3, ["x", "y"], method="mdav"),
    "recode": lambda ns: ns.recode(["c", "t"], 0.3),
    "recode_map": lambda ns: ns.recode_map(["c"], 0.3),
    "recode_utility": lambda ns: ns.recode_utility("t", ["c", "s"], 0.3),
    "reconstruct_gmm": lambda ns: ns.reconstruct_gmm(1, "x", phi=0.5, seed=0),
    "reconstruct_ibt": lambda ns: ns.reconstruct_ibt("x", 0.5, 10),
    "top_bottom_code": lambda ns: ns.top_bottom_code(["z"], lower_p=0.1, upper_p=0.9),
    "univariate": lambda ns: ns.univariate(3, "z", by="s", merge_small_strata=True),
    "vmdav": lambda ns: ns.vmdav(3, ["x", "z"], gamma=0.5),
    # disclosure risk
    "frequencies": lambda ns: ns.frequencies(["c", "s"], weight="w"),
    "global_risk": lambda ns: ns.global_risk(["c", "s"], weight="w"),
    "individual_risk": lambda ns: ns.individual_risk(["c", "s", "t"], weight="w"),
    "interval_disclosure": lambda ns: ns.interval_disclosure(MASKED, on=["x", "z"]),
    "l_diversity": lambda ns: ns.l_diversity(["c", "s"], "t"),
    "linkage_risk": lambda ns: ns.linkage_risk(MASKED, on=["x", "z"]),
    "risk": lambda ns: ns.risk(["c", "s", "t"], weight="w"),
    "suda": lambda ns: ns.suda(["c", "s", "t"]),
    "t_closeness": lambda ns: ns.t_closeness(["c", "s"], "t"),
    # masking
    "add_noise": lambda ns: ns.add_noise(["x", "z"], method="moments", noise=50, by="s", seed=1),
    "pram": lambda ns: ns.pram(["c", "t"], seed=1),
    "pram_matrix": lambda ns: ns.pram_matrix(["c"], seed=1),
    "rank_swap": lambda ns: ns.rank_swap(["x", "z"], p=0.2, by="s", seed=1),
    "recode_intervals": lambda ns: ns.recode_intervals("z", n=3),
    "suppress": lambda ns: ns.suppress(3, ["c", "s", "t"]),
    "suppress_risky": lambda ns: ns.suppress_risky(["c", "s", "t"], threshold=0.05, weight="w"),
    "swap_records": lambda ns: ns.swap_records(household="x", hierarchy=["s", "t"], similar=[["c"], []], swaprate=0.5,
                                               risk_variables=["e"], carry_along="y", swapped_column="xs", seed=1),
    "swap_records_plan": lambda ns: ns.swap_records_plan(household="x", hierarchy=["s"], swaprate=0.5, seed=1),

    # the SDC process: the release after two steps
    "problem": lambda ns: ns.problem(keys=["c", "s"], numeric=["x", "z"], strata="t")
    .suppress(k=3).rank_swap(p=0.2, seed=1).release(),

    # generalisation (ARX)
    "generalize": lambda ns: ns.generalize({"c": {"a": ["*"], "b": ["*"], "c": ["*"]},
                                            "s": {"N": ["*"], "S": ["*"]}}, k=3, suppression_limit=0.1),
    "generalize_release": lambda ns: ns.generalize_release({"c": {"a": ["ab", "*"], "b": ["ab", "*"], "c": ["c", "*"]},
                                                            "g": {"rule": "intervals", "widths": [8, 64]}}, k=3,
                                                           suppression_limit=0.1),
}


def public_methods(cls):
    return sorted(n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n)))


def test_every_public_method_has_a_contract_call():
    assert public_methods(SDCFrame) == public_methods(SDCLazyFrame)
    assert sorted(CALLS) == public_methods(SDCFrame)


def same(a, b):
    """Equal results: frames to the last bit but for float sums (1e-12), NaN equal to NaN,
    result objects by their frames or fields, containers element by element."""
    from polars.testing import assert_frame_equal

    if isinstance(a, pl.DataFrame):  # a result computed from a collected frame: sums may differ in the last bit
        assert_frame_equal(a, b, rel_tol=1e-12, abs_tol=1e-15)
        return True
    if isinstance(a, pl.Series):
        return isinstance(b, pl.Series) and a.equals(b)
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    if isinstance(a, np.ndarray):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
        return True
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if hasattr(a, "per_record") and hasattr(a, "summary"):
        return same(a.per_record, b.per_record) and same(a.summary, b.summary)
    if hasattr(a, "to_frame") and hasattr(b, "to_frame"):
        return same(a.to_frame(), b.to_frame())
    if is_dataclass(a):
        return all(same(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)
    return a == b


@pytest.mark.parametrize("name", sorted(CALLS))
def test_contract(name):
    check_contract(CALLS[name], FRAME)


def check_contract(call, frame):
    before = frame.clone()
    eager = call(frame.sdc)
    lazy = call(frame.lazy().sdc)
    assert frame.equals(before), "the input frame changed"
    if isinstance(lazy, pl.LazyFrame):
        declared = lazy.collect_schema()
        collected = lazy.collect()
        assert collected.schema == declared
        streamed = lazy.collect(engine="streaming")
        expect = eager.to_frame() if isinstance(eager, pl.Series) else eager
        assert collected.equals(expect)
        assert streamed.equals(expect)
    else:
        assert same(eager, lazy)
    assert frame.equals(before), "the input frame changed"


# -- household= (issue 24): the same contract with a household id, household-level columns ("hx",
# "hc") and structural nulls in a person-level column ("xn")
HOUSEHOLD_FRAME = FRAME.with_columns(
    hx=(pl.col("g") * 1.5).sin(), hc=pl.col("g").mod(3).cast(pl.String),
    xn=pl.when(pl.col("y") < 10).then(None).otherwise(pl.col("x")),
    hw=pl.col("w").max().over("g"),   # a household weight: counting households refuses a varying one
    hp=pl.min_horizontal(pl.col("g") // 3, 2),   # a partition of the households, >= 3 per group
)
HOUSEHOLD_CALLS = {
    "aggregate": lambda ns: ns.aggregate("hp", ["hx"], household="g", k=3),
    "add_noise": lambda ns: ns.add_noise(["hx", "xn", "z"], method="moments", seed=1, household="g"),
    "frequencies": lambda ns: ns.frequencies(["hc", "s"], weight="hw", household="g"),
    "k_anonymity": lambda ns: ns.k_anonymity(["hc", "s"], household="g"),
    "laplace": lambda ns: ns.laplace(0.5, ["hx", "xn"], seed=3, household="g"),
    "pram": lambda ns: ns.pram(["hc", "t"], seed=1, household="g"),
    "rank_swap": lambda ns: ns.rank_swap(["hx", "xn"], p=0.2, seed=1, household="g"),
    "recode": lambda ns: ns.recode(["hc", "t"], 0.3, household="g"),
    "recode_intervals": lambda ns: ns.recode_intervals(["hx", "z"], n=3, household="g"),
    "suppress": lambda ns: ns.suppress(3, ["hc", "s", "t"], household="g"),
    "suppress_risky": lambda ns: ns.suppress_risky(["hc", "s", "t"], threshold=0.05, weight="w", household="g"),
    "top_bottom_code": lambda ns: ns.top_bottom_code(["hx", "z"], upper_p=0.3, replacement="mean", household="g"),
}


@pytest.mark.parametrize("name", sorted(HOUSEHOLD_CALLS))
def test_contract_household(name):
    check_contract(HOUSEHOLD_CALLS[name], HOUSEHOLD_FRAME)
