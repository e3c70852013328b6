"""Write notebooks/01_microaggregation.ipynb (then execute it with benchmarks/run_notebooks.py)."""
from pathlib import Path

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb = nbf.v4.new_notebook()
nb.cells = [
    md("""# Microaggregation methods compared

Every method returns a *k-partition* (groups of at least k records); each record is then released as its
group's mean. The loss is SSE/SST on the z-scored data (0 = nothing lost, 1 = everything replaced by the
overall mean). Methods: classic **MDAV** and **V-MDAV** (thesis 2.3.4), **MHM** (seed 001: order the records
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
    code("""fig, ax = plt.subplots(figsize=(7, 4))
for (name,), part in loss.group_by("method", maintain_order=True):
    ax.plot(part["k"], part["SSE/SST %"], marker="o", label=name)
ax.set(xlabel="k (minimum group size)", ylabel="SSE/SST (%)", title="Census (1080 x 13): information loss against k")
ax.legend()
plt.tight_layout()"""),
    md("""## What the groups look like

A small two-dimensional sample, k = 4: every record is joined to its group's mean (the released value)."""),
    code("""import numpy as np

rng = np.random.default_rng(3)
pts = pl.DataFrame({"x": rng.normal(size=60), "y": rng.normal(size=60) + 0.6 * rng.normal(size=60)})
fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), sharex=True, sharey=True)
for ax, (name, opts) in zip(axes, [("MDAV", dict(method="mdav")), ("MHM, NPN order", dict(method="mhm", order="npn")),
                                  ("MDAV + MIL", dict(method="mdav", refine="mil"))]):
    out = pts.sdc.microaggregate(4, **opts, group_column="g")
    for (gx, gy, x, y) in zip(out["x"], out["y"], pts["x"], pts["y"]):
        ax.plot([x, gx], [y, gy], color="grey", lw=0.7)
    ax.scatter(pts["x"], pts["y"], c=out["g"], cmap="tab20", s=25, zorder=3)
    ax.scatter(out["x"], out["y"], marker="x", color="black", s=30, zorder=4)
    ax.set_title(f"{name}: SSE/SST = {100 * pts.sdc.ilssdm(groups=out['g']):.2f} %")
plt.tight_layout()"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbf.write(nb, Path(__file__).parent.parent / "notebooks" / "01_microaggregation.ipynb")
