"""The Spark back end: the same methods on Spark DataFrames, with Polars and the Numba
kernels doing the work inside each task (``pip install "polars_sdc[spark]"``).

- :func:`microaggregate`: distributed kd-tree blocking (every block >= k and <= ``block_rows``
  records of one stratum), then the local method per block (one ``mapInArrow`` task per block);
- :func:`laplace`: per-row noise from ``(seed, column, key)``, identical to the local
  generator whatever the partitioning or task retries;
- :func:`pram`, :func:`add_noise`, :func:`rank_swap`: the masking toolkit, equal to local
  ``df.sdc.pram`` / ``add_noise`` / ``rank_swap`` for the same seed and ``key`` column (counts
  and moments by aggregations; rank swapping one task per stratum);
- :func:`recode` / :func:`recode_map`: minimum-frequency recoding from one count aggregation;
- :func:`run_recipe`: a recipe's steps that have a Spark counterpart (:mod:`.recipe`);
- :func:`ilssdm`: SSE / SST by aggregations; :func:`frequencies`: fk / Fk per record (missing
  keys as wildcards, as locally); :func:`individual_risk`, :func:`global_risk`, :func:`risk`:
  sdcMicro's approximate individual risk and its sums, over the table of key combinations.

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
    "BlockPlan", "add_noise", "assign_blocks", "frequencies", "global_risk", "ilssdm", "individual_risk", "laplace",
    "microaggregate", "plan_blocks", "pram", "rank_swap", "recode", "recode_map", "risk", "run_recipe",
]
