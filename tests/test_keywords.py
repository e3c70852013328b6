"""A misspelt keyword names the function and suggests the closest valid name (issue 29 item 1),
for every public function of ``polars_sdc`` (with ``polars_sdc.datasets`` and
``polars_sdc.dist``) and of ``polars_sdc.spark``, as for the ``df.sdc`` methods
(tests/test_operations.py): one guard, :func:`polars_sdc._signature.check_keywords`, that keeps
the real signatures. The guard raises before the function runs, so no data (and no Spark
session) is needed."""
from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import polars_sdc
from polars_sdc import spark as sdcs
from polars_sdc.microagg import METHODS

#: functions taking **options, which they check themselves (MicroaggSpec.build) or pass on to a
#: guarded function (assign_blocks -> plan_blocks)
FORWARDING = {"microaggregate", "assign_blocks", *METHODS}


def _functions(module, names) -> list[tuple[str, str]]:
    return [(module.__name__, n) for n in sorted(names)
            if inspect.isfunction(getattr(module, n)) or n in METHODS]


LOCAL = [*_functions(polars_sdc, polars_sdc.__all__), *_functions(polars_sdc.datasets, polars_sdc.datasets.__all__),
         *_functions(polars_sdc.dist, polars_sdc.dist.__all__)]
SPARK = _functions(sdcs, [*sdcs.__all__, *METHODS])


def _named(fn) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _misspelt(fn) -> tuple[str, str]:
    """(a misspelling, the parameter it misspells): the longest parameter name less its last
    letter (a one-letter name doubled)."""
    name = max(_named(fn), key=len)
    return (name[:-1] if len(name) > 2 else name * 2), name


def _cases():
    for module, name in LOCAL + SPARK:
        if name not in FORWARDING and _named(_function(module, name)):
            yield pytest.param(module, name, id=f"{module}.{name}")


def test_every_public_function_is_checked():
    # the test cannot pass vacuously: the array functions of the README and the Spark ports are here
    checked = {(m, n) for m, n in LOCAL + SPARK if n not in FORWARDING}
    assert {("polars_sdc", n) for n in ("refine_anneal", "refine_mil", "sse", "sst", "zscore", "partition_mdav",
                                        "mil_1d", "pk_phi", "aggregate", "k_anonymity", "report")} <= checked
    assert {("polars_sdc.spark", n) for n in ("laplace", "pram", "add_noise", "rank_swap", "ilssdm")} <= checked
    assert {("polars_sdc.datasets", "synthetic"), ("polars_sdc.loss.dist", "levenshtein")} <= checked
    assert len(LOCAL) >= 40


def _function(module: str, name: str):
    return getattr(__import__(module, fromlist=[name]), name)


NO_PARAMETERS = [(m, n) for m, n in LOCAL + SPARK if n not in FORWARDING and not _named(_function(m, n))]


@pytest.mark.parametrize("module, name", NO_PARAMETERS)
def test_a_function_without_parameters_says_so(module, name):
    fn = _function(module, name)
    assert {("polars_sdc.datasets", "census"), ("polars_sdc.loss.dist", "hamming")} <= set(NO_PARAMETERS)
    with pytest.raises(polars_sdc.SDCError, match=rf"^{fn.__name__}\(\) got an unexpected keyword argument 'seed' "
                                                  r"\(it takes no keyword arguments\)$"):
        fn(seed=1)


@pytest.mark.parametrize("module, name", list(_cases()))
def test_misspelt_keyword_names_the_function_and_the_closest_name(module, name):
    fn = _function(module, name)
    wrong, right = _misspelt(fn)
    with pytest.raises(polars_sdc.SDCError, match=rf"^{name}\(\) got an unexpected keyword argument '{wrong}'; "
                                                  rf"did you mean '{right}'\? \(it takes: .*\b{right}\b"):
        fn(**{wrong: 1})


def test_the_example_of_the_issue():
    X, labels = np.array([[1.0], [2.0], [9.0], [10.0]]), np.array([0, 0, 1, 1])
    with pytest.raises(TypeError, match=r"^refine_anneal\(\) .* 'chain'; did you mean 'chains'\?"):
        polars_sdc.refine_anneal(X, labels, 2, chain=2)
    with pytest.raises(polars_sdc.SDCError, match=r"^sse\(\) .* 'group'; did you mean 'groups'\?"):
        polars_sdc.sse(X, group=labels)
    assert polars_sdc.sse(X, groups=labels) == 1.0        # a valid keyword passes through


def test_the_guard_keeps_signatures_and_names():
    # inspect.signature, help() and pickling see the function itself (tests/test_typing.py: the types)
    import pickle

    assert str(inspect.signature(polars_sdc.zscore)) == "(X: 'np.ndarray', *, ddof: 'int' = 0) -> 'np.ndarray'"
    assert polars_sdc.zscore.__name__ == "zscore" and "z-score" in polars_sdc.zscore.__doc__.lower()
    assert pickle.loads(pickle.dumps(polars_sdc.sse)) is polars_sdc.sse
    assert str(inspect.signature(sdcs.laplace)).startswith("(sdf: 'Any', phi: 'Any' = None, on: 'ColumnSpec' = None, *")


def test_forwarded_options_are_checked_where_they_arrive():
    # assign_blocks passes its **options on to plan_blocks, which names itself and the closest name
    with pytest.raises(polars_sdc.SDCError, match=re.escape("plan_blocks() got an unexpected keyword argument "
                                                            "'block_row'; did you mean 'block_rows'?")):
        sdcs.assign_blocks(None, 3, ["x"], block_row=10)


def test_typed_options_are_checked_with_the_named_parameters():
    # Spark recode / recode_map take the label options as **options: Unpack[LabelOptions]: the
    # guard knows them too, so a valid one passes on and a misspelt one names the closest
    with pytest.raises(polars_sdc.SDCError, match=re.escape(
            "recode() got an unexpected keyword argument 'null_value'; did you mean 'null_values'? (it takes: "
            "sdf, on, p, hierarchy, ordinal, household, household_columns, sep, other, max_label, null_values)")):
        sdcs.recode(None, "c", 0.1, null_value="?")
    with pytest.raises(polars_sdc.SDCError, match=re.escape("recode_map() got an unexpected keyword argument "
                                                            "'max_labels'; did you mean 'max_label'?")):
        sdcs.recode_map(None, "c", 0.1, max_labels=10)
    with pytest.raises(polars_sdc.SDCError, match=re.escape("frequencies() got an unexpected keyword argument "
                                                            "'suppressed'; did you mean 'suppressed_as'?")):
        sdcs.frequencies(None, "c", suppressed="*")
