"""Write notebooks/10_generalization.ipynb and execute it in place (real outputs).

    python tools/make_generalization_notebook.py            # write and execute
    python tools/make_generalization_notebook.py --no-run   # write only
"""
import sys
from pathlib import Path

import nbformat as nbf

nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("""# ARX's full-domain generalisation in Polars: Adult with ARX's hierarchies

ARX (Prasser & Kohlmayer) releases a table by **full-domain generalisation**: every quasi-identifier
has a hierarchy (age 39 -> 35-39 -> 30-39 -> 20-39 -> `*`), a *transformation* picks one level per
column, and the search returns the transformation that satisfies the privacy models with at most a
given share of records suppressed and loses the least information. `df.sdc.generalize` does the same
with ARX 3.9.2's definitions (docs/generalization.md); this notebook runs it on ARX's own Adult files
(30,162 records, nine hierarchies, 12,960 transformations)."""),
    code("""import matplotlib.pyplot as plt
import polars as pl
import polars_sdc
from polars_sdc import datasets, plot

plt.rcParams["figure.dpi"] = 80
df, hs = datasets.arx_adult()
print(df.shape)
print(hs["age"])
print(hs["marital-status"].to_frame().head(4))"""),
    md("""## 1. The optimal transformation: k = 5, at most 1 % suppressed, ARX's loss metric

The result holds the release (every quasi-identifier as labels of its chosen level; the records of
classes that still fail k-anonymity suppressed: their quasi-identifiers become `*`), the chosen level
per column, the metric value and the records suppressed. ARX 3.9.2 returns the same transformation
`[0, 3, 1, 1, 2, 2, 1, 1, 0]`, loss 0.36240672301036203 and 294 suppressed records."""),
    code("""r = df.sdc.generalize(hs, k=5, suppression_limit=0.01)
print(r)
print("levels:", r.levels)
r.frame.head(5)"""),
    md("""## 2. The lattice

One point per transformation: its height (the sum of its levels) against its loss where the search
computed it, else the lower bound that let the search skip it; green passes the models, red fails,
grey was never decided (pruned by the bound or by monotonicity). The star is the optimum."""),
    code("""ax = plot.generalization_lattice(r)
plt.show()
print(r.lattice.group_by("status").len().sort("status"))"""),
    md("""## 3. Loss against the suppression limit

Allowing more records to be suppressed buys less generalisation: the loss of the optimum falls as
the limit grows, and the records actually suppressed rise (never above the limit)."""),
    code("""limits = [0.0, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.07, 0.1]
runs = [df.sdc.generalize(hs, k=5, suppression_limit=lim) for lim in limits]
trade = pl.DataFrame({"limit": limits, "loss": [x.loss for x in runs], "suppressed": [x.suppressed for x in runs],
                      "transformation": [str(x.transformation) for x in runs]})
print(trade)
pct = [100 * x for x in limits]
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
ax.plot(pct, trade["loss"], "o-", color="tab:blue")
ax.set_xlabel("suppression limit (% of records)"); ax.set_ylabel("ARX loss (0 = original, 1 = all *)")
ax.set_title("loss of the optimal transformation")
ax2.plot(pct, trade["suppressed"], "s-", color="tab:red", label="records suppressed")
ax2.plot(pct, [int(x * df.height) for x in limits], "k:", label="the limit")
ax2.set_xlabel("suppression limit (% of records)"); ax2.set_ylabel("records")
ax2.set_title("records suppressed by the optimum"); ax2.legend()
fig.suptitle("Adult, k = 5: generalisation against suppression"); plt.show()"""),
    md("""## 4. Risk before and after

Told that the frame is a generalised release (`suppressed_as=r.suppressed_as`, here `"*"`), the risk
measures read a record whose every key is `*` (a suppressed record) as a record with every key
missing, as sdcMicro reads a record after local suppression: it matches everybody and does not raise
the frequency of the kept records (without it, `*` would be read as a genuine code). The kept
classes hold at least 5 records each, so nobody is unique any more."""),
    code("""qi = list(r.levels)
before = df.sdc.risk(qi, suda=False)
after = r.frame.sdc.risk(qi, suda=False, suppressed_as=r.suppressed_as)
measures = ["k_anonymity", "sample_uniques", "records_violating_k5", "expected_reidentifications",
            "global_risk", "prosecutor_highest"]
print(pl.DataFrame({"measure": measures, "before": [float(before[m]) for m in measures],
                    "after": [float(after[m]) for m in measures]}))
fig, ax = plt.subplots(figsize=(7, 4))
bins = [1, 2, 3, 5, 10, 20, 50, 100, 1000, 40000]
ax.hist(before.per_record["fk"], bins=bins, histtype="step", lw=1.5, label="original")
ax.hist(after.per_record["fk"], bins=bins, histtype="step", lw=1.5, label="generalised (k = 5, 1 %)")
ax.set_xscale("log"); ax.set_xlabel("class size fk (records sharing the key combination)")
ax.set_ylabel("records"); ax.set_title("Adult: the size of each record's class"); ax.legend(); plt.show()"""),
    md("""## 5. Beyond k: l-diversity and t-closeness on occupation

With occupation as the sensitive attribute (the other eight as quasi-identifiers, as ARX's tests set
Adult up): entropy l-diversity, recursive (c, l)-diversity and t-closeness with the hierarchical
ground distance of occupation's own hierarchy. Each result equals ARX's JUnit expectation."""),
    code("""for name, models in [("entropy l = 5", dict(l_diversity=5, l_kind="entropy")),
                     ("recursive (4, 5)", dict(l_diversity=5, l_kind="recursive", c=4.0)),
                     ("hierarchical t = 0.2, k = 5", dict(k=5, t_closeness=0.2, t_distance="hierarchical"))]:
    x = df.sdc.generalize(hs, sensitive="occupation", metric="entropy_monotone", **models)
    print(f"{name:28s} {x.transformation}  entropy {x.loss:.2f}")"""),
    md("""## 6. As a step of the SDC process, and the report

`generalize` is a step of a problem, of a recipe and of the command line
(`polars-sdc generalize IN OUT --hierarchies age=adult_hierarchy_age.csv,...`); the sign-off report
shows the chosen levels, the records suppressed and the metric."""),
    code("""keys = ["sex", "age", "race", "marital-status", "education"]
p = df.sdc.problem(keys=keys).generalize(hierarchies={c: hs[c] for c in keys}, k=5, suppression_limit=0.01)
rep = p.sign_off()
print(rep.verdict)
rep.table("generalization")"""),
]
nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
               "language_info": {"name": "python"}}
out = Path(__file__).parent.parent / "notebooks" / "10_generalization.ipynb"
nbf.write(nb, out)
print("wrote", out)
if "--no-run" not in sys.argv:
    from nbclient import NotebookClient

    nb = nbf.read(out, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(out.parent)}}).execute()
    nbf.write(nb, out)
    print("executed", out)
