"""polars_sdc: statistical disclosure control as a Polars extension.

Importing the package registers the ``sdc`` namespace on ``pl.DataFrame``, ``pl.LazyFrame``
and ``pl.Expr``; Numba kernels compile on first use only.

>>> import polars as pl, polars_sdc
>>> pl.DataFrame({"x": [1.0, 2.0, 9.0, 10.0]}).sdc.mdav(2, on="x")["x"].to_list()
[1.5, 1.5, 9.5, 9.5]
"""
from __future__ import annotations

from . import namespace as _namespace  # noqa: F401  (registers the namespaces)
from ._errors import SDCError
from .aggregate import aggregate
from .anonymity import equivalence_classes, k_anonymity
from .household import HouseholdWarning

__all__ = ["SDCError", "HouseholdWarning", "aggregate", "equivalence_classes", "k_anonymity", "datasets", "dist", "l1_accuracy", "report",
           "Problem", "read_recipe", "run_recipe", "warmup"]
__version__ = "0.1.0"


def __getattr__(name: str):
    if name in ("datasets", "dist"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
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
