"""The Spark back end: the same methods on Spark DataFrames, with Polars and the Numba
kernels doing the work inside each task (``pip install "polars_sdc[spark]"``).

Every function has the name, parameter names and parameter order of the local ``df.sdc``
method, the Spark DataFrame first (``sdcs.laplace(sdf, phi, on=..., key=...)`` as
``df.sdc.laplace(phi, on=..., key=...)``), then Spark's own keyword-only options
(``check_key``, ``block_rows``, ...); the local options a Spark port cannot honour are listed,
with the reason, in :data:`LOCAL_ONLY` (``tests/test_spark_signatures.py`` checks all of it
against the local signatures). ``sdcs.mdav`` / ``vmdav`` / ``mhm`` / ``univariate`` (every
method of :data:`polars_sdc.microagg.METHODS`) are :func:`microaggregate` with the method fixed.

- :func:`microaggregate`: distributed kd-tree blocking (every block >= k and <= ``block_rows``
  records of one stratum), then the local method per block (one ``mapInArrow`` task per block);
- :func:`laplace`: per-row noise from ``(seed, column, key)``, identical to the local
  generator whatever the partitioning or task retries;
- :func:`pram`, :func:`add_noise`, :func:`rank_swap`: the masking toolkit, equal to local
  ``df.sdc.pram`` / ``add_noise`` / ``rank_swap`` for the same seed and ``key`` column (counts
  and moments by aggregations; rank swapping one task per stratum);
- :func:`recode` / :func:`recode_map`: minimum-frequency recoding from one count aggregation
  (``household=``: household-level columns recoded on one row per household);
- :func:`run_recipe`: a recipe's steps that have a Spark counterpart (:mod:`.recipe`);
- :func:`ilssdm`: SSE / SST by aggregations; :func:`frequencies`: fk / Fk per record (missing
  keys as wildcards, as locally; ``household=``: distinct households); :func:`individual_risk`,
  :func:`global_risk`, :func:`risk`: sdcMicro's approximate individual risk and its sums, over
  the table of key combinations (``household=``: and the household risk ``1 - prod(1 - r)``).

Input and output are Spark DataFrames; only small metadata (split points, counts, sums)
reaches the driver. Importing this module does not import pyspark.
"""
from __future__ import annotations

from .blocking import BlockPlan, assign_blocks, plan_blocks
from .frequencies import frequencies, global_risk, individual_risk, risk
from .laplace import laplace
from .loss import ilssdm
from .masking import add_noise, pram, rank_swap
from .microaggregate import microaggregate
from .recipe import run_recipe
from .recode import recode, recode_map

__all__ = [
    "BlockPlan", "LOCAL_ONLY", "add_noise", "assign_blocks", "frequencies", "global_risk", "ilssdm", "individual_risk",
    "laplace", "microaggregate", "plan_blocks", "pram", "rank_swap", "recode", "recode_map", "risk", "run_recipe",
]


def _local_only() -> dict[str, dict[str, str]]:
    from importlib import import_module

    _f, _m = (import_module(f"{__name__}.{m}") for m in ("frequencies", "microaggregate"))

    from ..microagg import METHODS

    out = {"microaggregate": dict(_m.LOCAL_ONLY), "risk": dict(_f.LOCAL_ONLY)}
    out.update({name: dict(_m.LOCAL_ONLY) for name in METHODS})           # sdcs.mdav etc.
    # a generalised release (its suppression label) comes from the local generalize only
    label = {"suppressed_as": "the label of a generalised release's suppressed values: generalize has no Spark "
                              "counterpart, so a Spark frame holds no such release"}
    out.update({"pram": dict(label), "recode": dict(label)})
    return out


#: {function: {local option: why it has no Spark counterpart}}: the only local options a
#: Spark function lacks (passing one is a TypeError, or for microaggregation an SDCError)
LOCAL_ONLY: dict[str, dict[str, str]] = _local_only()


def __getattr__(name: str):  # noqa: ANN202 - sdcs.mdav etc.: the partition methods, with the method fixed
    from ..microagg import METHODS

    if name.startswith("_") or name not in METHODS:
        raise AttributeError(f"module 'polars_sdc.spark' has no attribute {name!r}")
    return _fixed_method(name)


def _fixed_method(name: str):  # noqa: ANN202
    """``microaggregate`` with ``method=name``; its signature: microaggregate's without
    ``method``, the method's own options (keyword-only) after ``merge_small_patterns``."""
    import inspect

    from ..microagg import METHODS

    meth = METHODS[name]
    own = inspect.signature(meth.partition).parameters

    def fixed(sdf, k, on=None, **options):  # noqa: ANN001, ANN202
        return microaggregate(sdf, k, on, method=name, **options)

    params = [p for p in inspect.signature(microaggregate).parameters.values()
              if p.name != "method" and p.kind != p.VAR_KEYWORD]
    at = [p.name for p in params].index("merge_small_patterns") + 1
    extra = [inspect.Parameter(o, inspect.Parameter.KEYWORD_ONLY, default=own[o].default) for o in meth.options()]
    fixed.__signature__ = inspect.Signature(params[:at] + extra + params[at:])  # type: ignore[attr-defined]
    fixed.__name__ = fixed.__qualname__ = name
    fixed.__doc__ = (f"{name} microaggregation of a Spark DataFrame: :func:`microaggregate` with method={name!r} "
                     f"(the local ``df.sdc.{name}``).")
    return fixed
