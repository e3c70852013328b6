"""A recipe (:mod:`polars_sdc.process.recipe`) on a Spark DataFrame: the steps that have a
Spark counterpart run through it with the recipe's roles filled in, exactly as locally; a
step without one is refused, naming it and its line, before any Spark job.

With the same seed and ``key`` column, PRAM, rank swapping, noise and Laplace give the local
release row for row (the per-row generator); microaggregation on Spark partitions per block
(:func:`polars_sdc.spark.microaggregate`), so its groups may differ from the local ones.
"""
from __future__ import annotations

import inspect
from typing import Any

from .._errors import SDCError
from .._signature import check_keywords



def spark_steps() -> list[str]:
    """The recipe steps with a Spark counterpart: the declared operations
    (:data:`polars_sdc.operations.OPERATIONS`) that :mod:`polars_sdc.spark` has a function for,
    under the same name, in declaration order.

    >>> spark_steps()
    ['pram', 'rank_swap', 'add_noise', 'laplace', 'recode', 'microaggregate']
    """
    from .. import spark as sdcs
    from ..operations import steps

    return [op.name for op in steps() if op.name in sdcs.__all__]


@check_keywords
def run_recipe(recipe: Any, sdf: Any) -> Any:
    """The Spark DataFrame ``sdf`` with the recipe's steps applied (see the module docstring);
    the recipe, its columns and every step's Spark counterpart are checked first.

    >>> run_recipe('[[steps]]\\noperation = "suppress"\\nk = 3\\n', None)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: recipe line 2: step 'suppress' has no Spark counterpart (on Spark: pram, rank_swap, add_noise, laplace, recode, microaggregate); run it locally (polars_sdc.run_recipe)
    """
    from ..operations import OPERATIONS
    from ..process.problem import Roles, step_arguments
    from ..process.recipe import read_recipe

    r = read_recipe(recipe)
    on_spark = spark_steps()
    for i, (name, _) in enumerate(r.steps):
        if name not in on_spark:
            raise SDCError(f"{r.where(i, 'operation')}: step {name!r} has no Spark counterpart (on Spark: "
                           f"{', '.join(on_spark)}); run it locally (polars_sdc.run_recipe)")
    from . import _common

    # the frame is checked by each step's function (its columns: none read before the refusals)
    _common.require_pyspark()
    from .. import spark as sdcs

    schema = _common.polars_schema(sdf)
    r.check_columns(schema)
    roles = Roles.build(schema, **r.roles)
    plan = []
    for i, (name, options) in enumerate(r.steps):
        fn = getattr(sdcs, name)
        params = inspect.signature(fn).parameters
        open_ended = any(p.kind == p.VAR_KEYWORD for p in params.values())
        local_only = sdcs.LOCAL_ONLY.get(name, {})
        for key in options:
            if key in local_only:
                raise SDCError(f"{r.where(i, key)}: {name} option {key!r} has no Spark counterpart: {local_only[key]}")
            if key not in params and not open_ended:
                raise SDCError(f"{r.where(i, key)}: {name} option {key!r} has no Spark counterpart "
                               f"(polars_sdc.spark.{name} takes: {', '.join(list(params)[1:])})")
        try:
            arguments = step_arguments(OPERATIONS[name], roles, options)
            if OPERATIONS[name].random and "key" in params:   # per-row draws: a key column, checked up front
                _common.need_key(arguments.get("key"), name)
        except SDCError as exc:
            raise SDCError(f"{r.where(i, '')} ({name}): {exc}") from None
        plan.append((fn, arguments))
    for fn, arguments in plan:
        sdf = fn(sdf, **arguments)
    return sdf
