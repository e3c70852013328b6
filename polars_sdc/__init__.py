"""polars_sdc: statistical disclosure control as a Polars extension.

Importing the package registers the ``sdc`` namespace on ``pl.DataFrame``, ``pl.LazyFrame``
and ``pl.Expr``; Numba kernels compile on first use only.

>>> import polars as pl, polars_sdc
>>> pl.DataFrame({"x": [1.0, 2.0, 9.0, 10.0]}).sdc.mdav(2, on="x")["x"].to_list()
[1.5, 1.5, 9.5, 9.5]
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._errors import SDCError
from ._signature import SDCDeprecationWarning
from .aggregate import aggregate
from .anonymity import equivalence_classes, k_anonymity
from .household import HouseholdWarning
from .namespace import SDCExpr, SDCFrame, SDCLazyFrame, sdc  # importing it registers the namespaces

if TYPE_CHECKING:  # for type checkers; at run time they load on first use (Numba, scipy)
    from . import datasets
    from .loss import dist
    from ._warmup import warmup
    from .loss.sse import sse, sst
    from .microagg.anneal import refine_anneal
    from .microagg.mdav import partition_mdav
    from .microagg.mhm import partition_mhm
    from .microagg.mil import mil_1d, refine_mil
    from .microagg.univariate import partition_univariate
    from .microagg.vmdav import partition_vmdav
    from .laplace import pk_phi
    from .process import Problem, read_recipe, run_recipe
    from .reconstruct import l1_accuracy
    from .risk.report import report
    from .standardize import zscore
    from .generalize.release import SuppressionLabelWarning

__all__ = ["SDCError", "SDCDeprecationWarning", "HouseholdWarning", "SuppressionLabelWarning", "aggregate", "equivalence_classes", "k_anonymity", "datasets", "dist", "l1_accuracy", "report",
           "Problem", "read_recipe", "run_recipe", "warmup", "sdc", "SDCFrame", "SDCLazyFrame", "SDCExpr",
           "sse", "sst", "zscore", "partition_mdav", "partition_vmdav", "partition_mhm", "partition_univariate",
           "refine_mil", "refine_anneal", "mil_1d", "pk_phi"]
__version__ = "0.1.0"

#: the array-level functions of the public API (and generalize's SuppressionLabelWarning): name ->
#: the module defining it (loaded on first use, so ``import polars_sdc`` loads no Numba); the
#: TYPE_CHECKING imports above mirror it
_LAZY = {
    "sse": "loss.sse", "sst": "loss.sse", "zscore": "standardize",
    "partition_mdav": "microagg.mdav", "partition_vmdav": "microagg.vmdav", "partition_mhm": "microagg.mhm",
    "partition_univariate": "microagg.univariate", "refine_mil": "microagg.mil", "mil_1d": "microagg.mil",
    "refine_anneal": "microagg.anneal", "pk_phi": "laplace",
    "SuppressionLabelWarning": "generalize.release",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    if name in ("datasets", "dist"):  # polars_sdc.dist: the distances of ILD, polars_sdc/loss/dist.py
        import importlib

        return importlib.import_module(".datasets" if name == "datasets" else ".loss.dist", __name__)
    if name in ("Problem", "read_recipe", "run_recipe"):  # the SDC process (polars_sdc.process)
        from . import process

        return getattr(process, name)
    if name == "l1_accuracy":  # imported on first use: scipy loads only then
        from .reconstruct import l1_accuracy

        return l1_accuracy
    if name == "warmup":  # compile every kernel into the cache (polars_sdc.warmup)
        from ._warmup import warmup

        return warmup
    if name == "report":  # the release report (risk.report); matplotlib loads only when it runs
        from .risk.report import report

        return report
    raise AttributeError(f"module 'polars_sdc' has no attribute {name!r}")
