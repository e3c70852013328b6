"""Write notebooks/06_risk.ipynb (then execute it with tools/run_notebooks.py)."""
from pathlib import Path

import nbformat as nbf

nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("""# Disclosure risk of Adult before and after masking

How safe is a release? The key (quasi-identifier) columns a snooper could know are age,
workclass, education, marital status, occupation, race, sex and native country. We measure the
risk of the original Adult file, mask it (MDAV on capital gain and capital loss, age recoded to
10-year bands, Laplace noise on hours per week) and measure again: sdcMicro's individual and global
risk, SUDA2, ARX's prosecutor / journalist / marketer risk, l-diversity of the income, record
linkage on the numeric columns, and the risk–utility map."""),
    code("""import polars as pl
import polars_sdc as sdc
from polars_sdc import datasets

adult = datasets.adult()
keys = ["age", "workclass", "education", "marital-status", "occupation", "race", "sex", "native-country"]
num = ["capital-gain", "capital-loss", "hours-per-week"]
before = adult.sdc.risk(on=keys)
before.summary.head(12)"""),
    md("## Mask: microaggregation, recoding, noise"),
    code("""masked = (
    adult.sdc.mdav(5, on=["capital-gain", "capital-loss"])
    .sdc.laplace(on="hours-per-week", k=2, seed=7)
    .with_columns((pl.col("age") // 10 * 10).alias("age"))
)
after = masked.sdc.risk(on=keys)
b, a = before.as_dict(), after.as_dict()
pl.DataFrame({"measure": [k for k in b if not isinstance(b[k], str)],
              "before": [float(b[k]) for k in b if not isinstance(b[k], str)],
              "after": [float(a[k]) for k in b if not isinstance(b[k], str)]})"""),
    md("""The same in two pictures: how the records' individual risk moved, and how many records sit in
classes smaller than k. Only age of the keys was coarsened, so the other seven keys still single
out many records: the release is not k-anonymous on them (local suppression or recoding of those
keys would be next: `07_masking`)."""),
    code("""import numpy as np
import matplotlib.pyplot as plt

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
bins = np.logspace(-4.5, 0, 46)
ax1.hist(before.per_record["risk"], bins=bins, histtype="step", lw=1.5, label="original")
ax1.hist(after.per_record["risk"], bins=bins, histtype="step", lw=1.5, label="masked")
ax1.set_xscale("log")
ax1.set(xlabel="individual risk (1 / class size, no weights)", ylabel="records",
        title="Individual risk before and after masking")
ax1.legend()
ks = [2, 3, 5]
x = np.arange(len(ks))
ax2.bar(x - 0.2, [b[f"records_violating_k{k}"] for k in ks], 0.4, label="original")
ax2.bar(x + 0.2, [a[f"records_violating_k{k}"] for k in ks], 0.4, label="masked")
ax2.set_xticks(x, [f"k = {k}" for k in ks])
ax2.set(xlabel="k", ylabel="records in classes smaller than k", title="Records violating k-anonymity")
ax2.legend()
plt.tight_layout()"""),
    md("## Which keys make records unique? (SUDA2 contributions, percent of the total score)"),
    code("""before.suda.attribute_contributions().join(
    after.suda.attribute_contributions(), on="variable", suffix="_after")"""),
    md("## Sensitive attribute and numeric columns"),
    code("""print("l-diversity of income (distinct), before/after:",
      adult.sdc.l_diversity(keys, "income")["l_diversity"].min(),
      masked.sdc.l_diversity(keys, "income")["l_diversity"].min())
print("record linkage on the numeric columns:", round(adult.sdc.linkage_risk(masked, on=num), 4))
print("interval disclosure (k = 0.05):", round(adult.sdc.interval_disclosure(masked, on=num), 4))"""),
    md("""## The report: risk against utility
One page with the tables above, the risk–utility map (record linkage against SSE/SST for MDAV over
k = 3, 5, 10, this release as a star), the SUDA contributions and the distribution of individual
risk. `rep.save("release_report.html")` writes it as a self-contained HTML page."""),
    code("""rep = sdc.report(adult, masked, on=keys, numeric=num, sensitive="income")
rep"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbf.write(nb, Path(__file__).parent.parent / "notebooks" / "06_risk.ipynb")
