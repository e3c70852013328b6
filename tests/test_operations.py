"""The declarations of polars_sdc.operations agree with the df.sdc methods (names, order of the
explicit parameters, defaults), so a default changed in one place fails here; an unknown keyword
on any namespace method names the method and the closest valid name."""
import inspect

import polars as pl
import pytest

import polars_sdc
from polars_sdc.namespace import SDCFrame, SDCLazyFrame
from polars_sdc.operations import KINDS, OPERATIONS, REQUIRED, ROLES

DECLARED = sorted(OPERATIONS)


@pytest.mark.parametrize("name", DECLARED)
@pytest.mark.parametrize("cls", [SDCFrame, SDCLazyFrame])
def test_declaration_agrees_with_the_namespace_signature(cls, name):
    op = OPERATIONS[name]
    params = list(inspect.signature(getattr(cls, op.method)).parameters.values())[1:]
    explicit = [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    declared = {o.name: o for o in op.options}
    for p in explicit:  # every parameter the method shows is declared, with the same default
        assert p.name in declared, f"{name}: parameter {p.name!r} of df.sdc.{name} is not declared"
        want = REQUIRED if p.default is p.empty else p.default
        assert declared[p.name].default == want, f"{name}.{p.name}: {declared[p.name].default!r} != {want!r}"
    # in the method's order, every option shown (tests/test_typing.py: names, kinds and defaults equal)
    shown = [p.name for p in explicit]
    assert [o.name for o in op.options] == shown


def test_every_option_is_described():
    for op in OPERATIONS.values():
        for o in op.options:
            assert o.kind in KINDS and o.help and not o.help.endswith("."), (op.name, o.name)
            assert o.role is None or o.role in ROLES
            if o.choices is not None and not o.required:
                assert o.default is None or o.default in o.choices, (op.name, o.name)


def test_defaults_are_read_from_the_module_functions():
    """Changing a module function's default changes the declaration: it is not a copy."""
    from polars_sdc.masking.add_noise import add_noise_frame
    from polars_sdc.microagg.vmdav import partition_vmdav

    assert OPERATIONS["add_noise"].option("noise").default == inspect.signature(add_noise_frame).parameters["noise"].default
    assert OPERATIONS["microaggregate"].option("gamma").default == inspect.signature(partition_vmdav).parameters["gamma"].default
    assert OPERATIONS["add_noise"].option("method").choices == ("additive", "correlated", "correlated2", "moments")


@pytest.mark.parametrize("call, method, hint", [
    (lambda ns: ns.risk("a", weights="w"), "risk", "weight"),
    (lambda ns: ns.suppress(2, "a", alfa=1.0), "suppress", "alpha"),
    (lambda ns: ns.vmdav(2, "x", gama=0.5), "vmdav", "gamma"),
    (lambda ns: ns.mdav(2, "x", refin="mil"), "mdav", "refine"),
    (lambda ns: ns.recode("c", 0.1, max_lable=30), "recode", "max_label"),
    (lambda ns: ns.pram("c", sed=1), "pram", "seed"),
    (lambda ns: ns.k_anonymity("a", alpah=1.0), "k_anonymity", "alpha"),
    (lambda ns: ns.laplace(1.0, "x", seeed=1), "laplace", "seed"),
    (lambda ns: ns.recode_map("c", 0.1, max_lab=30), "recode_map", "max_label"),
    (lambda ns: ns.recode_utility("c", "a", 0.1, metrc="f"), "recode_utility", "metric"),
    (lambda ns: ns.reconstruct_gmm(1, "x", phi=1.0, n_inits=2), "reconstruct_gmm", "n_init"),
    (lambda ns: ns.reconstruct_ibt("x", 1.0, 4, max_iters=3), "reconstruct_ibt", "max_iter"),
])
@pytest.mark.parametrize("lazy", [False, True])
def test_unknown_keyword_names_the_method_and_the_closest_name(call, method, hint, lazy):
    df = pl.DataFrame({"a": [1, 1, 2, 2], "x": [1.0, 2.0, 3.0, 4.0], "c": ["u", "u", "v", "v"], "w": [1.0] * 4})
    frame = df.lazy() if lazy else df
    with pytest.raises(polars_sdc.SDCError, match=rf"^{method}\(\) got an unexpected keyword argument .*did you mean '{hint}'\?"):
        call(frame.sdc)
    with pytest.raises(TypeError):  # also a TypeError, as Python's own
        call(frame.sdc)


@pytest.mark.parametrize("call, message", [
    (lambda ns: ns.microaggregate(2, "x", method="vmdav", gama=0.5), r"unknown option 'gama' for method 'vmdav'; did you mean 'gamma'\?"),
    (lambda ns: ns.partition(2, "x", refine_option={}), r"unknown option 'refine_option' for method 'mdav'; did you mean 'refine_options'\?"),
    (lambda ns: ns.partition(2, "x", method="mhm", leafsize=4), r"unknown option 'leafsize' for method 'mhm'; did you mean 'leaf_size'\?"),
])
def test_microaggregation_keywords_are_checked_per_partition_method(call, message):
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    for frame in (df, df.lazy()):
        with pytest.raises(polars_sdc.SDCError, match=message):
            call(frame.sdc)


def test_only_the_partition_methods_take_more_keywords():
    """Every other method has explicit parameters only; microaggregate and partition take the
    options of partition methods added to microagg.METHODS (checked by MicroaggSpec.build)."""
    for name in dir(SDCFrame):
        if name.startswith("_"):
            continue
        params = inspect.signature(getattr(SDCFrame, name)).parameters.values()
        assert any(p.kind == p.VAR_KEYWORD for p in params) == (name in ("microaggregate", "partition")), name


def test_the_guard_keeps_signatures_and_results():
    assert str(inspect.signature(SDCFrame.suppress)) == "(self, k: 'int', on: 'ColumnSpec', *, importance: 'Any' = None, by: 'ColumnSpec' = None, alpha: 'float' = 1.0, combs: 'Any' = None, tiebreak: 'Any' = None, household: 'str | None' = None, household_columns: 'Sequence[str] | None' = None, suppressed_as: 'str | None' = None) -> 'F'"
    df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0]})
    assert df.sdc.mdav(2, "x", refine="mil", refine_options={"max_sweeps": 3})["x"].to_list() == [1.5, 8.5, 1.5, 8.5]


# a new partition method reaching Python, the CLI, recipes and Spark: tests/test_method_registry.py


@pytest.mark.parametrize("call, method, hint", [
    (lambda: pl.col("x").sdc.laplace(1.0, seeed=1), "laplace", "seed"),
    (lambda: pl.col("c").sdc.recode(0.1, max_lable=30), "recode", "max_label"),
    (lambda: pl.col("x").sdc.top_bottom_code(uper=3), "top_bottom_code", "upper"),
])
def test_unknown_keyword_on_the_expression_namespace(call, method, hint):
    with pytest.raises(polars_sdc.SDCError, match=rf"^{method}\(\) got an unexpected keyword argument .*did you mean '{hint}'\?"):
        call()
    assert pl.DataFrame({"c": ["a", "b", "b"]}).select(pl.col("c").sdc.recode(0.5, sep="+"))["c"].to_list() == ["a+b"] * 3


@pytest.mark.parametrize("refine, option, hint", [("mil", "max_sweep", "max_sweeps"), ("anneal", "chain", "chains"),
                                                  ("anneal", "p_swp", "p_swap")])
def test_unknown_refine_option_names_the_refiner_and_the_closest_name(refine, option, hint):
    df = pl.DataFrame({"x": [1.0, 9.0, 2.0, 8.0]})
    with pytest.raises(polars_sdc.SDCError, match=rf"unknown refine option '{option}' for refine='{refine}'; "
                                                  rf"did you mean '{hint}'\? It takes: "):
        df.sdc.mdav(2, "x", refine=refine, refine_options={option: 1})
    with pytest.raises(polars_sdc.SDCError, match=rf"for refine='{refine}'; it takes: "):    # nothing close: no guess
        df.lazy().sdc.mdav(2, "x", refine=refine, refine_options={"zzz": 1})
