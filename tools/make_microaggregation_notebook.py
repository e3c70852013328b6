"""Write notebooks/01_microaggregation.ipynb (then execute it with tools/run_notebooks.py)."""
from pathlib import Path

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb = nbf.v4.new_notebook()
nb.cells = [
    md("""# Microaggregation methods compared

Every method returns a *k-partition* (groups of at least k records); each record is then released as its
group's mean. The loss is SSE/SST on the z-scored data (0 = nothing lost, 1 = everything replaced by the
overall mean). Methods: classic **MDAV** and **V-MDAV** (thesis 2.3.4), **MHM** (Suzaki et al.: order the records
along a path, then cut the path optimally by the Hansen–Mukherjee shortest path) with several orderings, and
**MIL** post-optimisation (thesis 4.2) on top of MDAV."""),
    code("""import polars as pl
import matplotlib.pyplot as plt
import polars_sdc
from polars_sdc import datasets

census = datasets.census()
methods = {
    "MDAV": dict(method="mdav"),
    "V-MDAV (gamma = 1)": dict(method="vmdav"),
    "MHM, NPN order": dict(method="mhm", order="npn"),
    "MHM, kd-mdav order": dict(method="mhm", order="kd-mdav"),
    "MDAV + MIL": dict(method="mdav", refine="mil"),
}
ks = [2, 3, 4, 5, 6, 8, 10, 12, 15]
rows = []
for name, opts in methods.items():
    for k in ks:
        g = census.sdc.partition(k, **opts)
        rows.append({"method": name, "k": k, "SSE/SST %": 100 * census.sdc.ilssdm(groups=g)})
loss = pl.DataFrame(rows)
loss.filter(pl.col("k").is_in([3, 4, 5, 10])).pivot("k", index="method", values="SSE/SST %")"""),
    code("""from matplotlib.ticker import MaxNLocator

fig, ax = plt.subplots(figsize=(7, 4))
for (name,), part in loss.group_by("method", maintain_order=True):
    ax.plot(part["k"], part["SSE/SST %"], marker="o", label=name)
ax.xaxis.set_major_locator(MaxNLocator(integer=True))
ax.set(xlabel="k (minimum group size)", ylabel="SSE/SST (%)", ylim=(0, None),
       title="Census (1080 x 13): information loss against k")
ax.legend(title="method")
plt.tight_layout()"""),
    md("""## What the groups look like

A small two-dimensional sample, k = 4: every record is joined to its group's mean (the released value)."""),
    code("""import numpy as np
from polars_sdc import plot

rng = np.random.default_rng(3)
pts = pl.DataFrame({"x": rng.normal(size=60), "y": rng.normal(size=60) + 0.6 * rng.normal(size=60)})
fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), sharex=True, sharey=True)
for ax, (name, opts) in zip(axes, [("MDAV", dict(method="mdav")), ("MHM, NPN order", dict(method="mhm", order="npn")),
                                  ("MDAV + MIL", dict(method="mdav", refine="mil"))]):
    g = pts.sdc.partition(4, **opts)
    plot.groups_2d(pts, "x", "y", g, ax=ax, title=f"{name}: SSE/SST = {100 * pts.sdc.ilssdm(groups=g):.2f} %")
    ax.set(xlabel="x (standard units)", ylabel="y (standard units)")
plt.tight_layout()"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbf.write(nb, Path(__file__).parent.parent / "notebooks" / "01_microaggregation.ipynb")
