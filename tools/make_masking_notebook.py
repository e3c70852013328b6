"""Write notebooks/07_masking.ipynb (then execute it with tools/run_notebooks.py)."""
from pathlib import Path

import nbformat as nbf

nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("""# The masking toolkit: suppression, PRAM, rank swapping, noise, intervals

Each method on Adult (categorical keys) or the census (numeric), with the risk before and after
(k-anonymity and frequencies with sdcMicro's alpha rule; sdcMicro's individual risk) and the
utility kept (SSE/SST, Cramér's V), one plot per method. Small and fast: it runs in the tests."""),
    code("""import numpy as np
import polars as pl
import matplotlib.pyplot as plt
import polars_sdc
from polars_sdc import datasets

adult = datasets.adult().with_columns(pl.col(pl.Enum, pl.Categorical).cast(pl.String).fill_null("?"))
census = datasets.census()
keys = ["workclass", "education", "marital-status", "race", "sex", "native-country"]
print(adult.height, "Adult rows; k-anonymity on", len(keys), "keys:", adult.sdc.k_anonymity(keys))"""),
    md("""## Local suppression: `df.sdc.suppress(k, keys)`
The fewest key values set to null (a null matches any value) so that every record shares its
key combination with at least k records."""),
    code("""rows = []
for k in (2, 3, 5):
    out = adult.sdc.suppress(k, keys)
    n = sum(int((out[c].is_null() & adult[c].is_not_null()).sum()) for c in keys)
    risk = round(out.sdc.global_risk(keys)["global_risk"], 5)
    rows.append((k, n, out.sdc.k_anonymity(keys, alpha=1.0), risk))
    if k == 3:
        per_key = out.select(pl.col(keys).null_count()).row(0)
print(pl.DataFrame(rows, schema=["k", "suppressed", "k after", "global risk after"], orient="row"))
print("global risk before:", round(adult.sdc.global_risk(keys)["global_risk"], 5))
plt.bar(keys, per_key); plt.xticks(rotation=30); plt.title("values suppressed per key, k = 3"); plt.tight_layout(); plt.show()"""),
    md("""## PRAM: `df.sdc.pram(on, pd, alpha)`
Frequencies are kept in expectation (the invariant matrix); which record has which category is not."""),
    code("""pr = adult.sdc.pram(["race", "marital-status"], pd=0.7, alpha=0.8, seed=1)
before = adult["marital-status"].value_counts().sort("marital-status")
after = pr["marital-status"].value_counts().sort("marital-status")
print("records changed:", int((pr["marital-status"] != adult["marital-status"]).sum()))
cv = lambda d: d.sdc.cramers_v(["race", "marital-status", "sex"])
print("Cramér's V before / after:"); print(cv(adult)); print(cv(pr))
x = np.arange(before.height)
plt.bar(x - 0.2, before["count"], 0.4, label="original"); plt.bar(x + 0.2, after["count"], 0.4, label="PRAM")
plt.xticks(x, before["marital-status"], rotation=30); plt.legend(); plt.title("marital-status frequencies"); plt.tight_layout(); plt.show()"""),
    md("""## Rank swapping: `df.sdc.rank_swap(on, p)`
Every column stays a permutation of the original; links between a record's values are broken."""),
    code("""cols = ["AGI", "FEDTAX", "PTOTVAL"]
for p in (0.01, 0.05, 0.2):
    sw = census.sdc.rank_swap(cols, p=p, seed=2)
    print(f"p={p}: SSE/SST {census.sdc.ilssdm(cols, masked=sw):.4f}, corr(AGI, FEDTAX) "
          f"{census.select(pl.corr('AGI', 'FEDTAX')).item():.4f} -> {sw.select(pl.corr('AGI', 'FEDTAX')).item():.4f}")
sw = census.sdc.rank_swap(cols, p=0.05, seed=2)
plt.scatter(census["AGI"], sw["AGI"], s=3); plt.xlabel("original AGI"); plt.ylabel("swapped AGI"); plt.title("rank swap p = 0.05"); plt.show()"""),
    md("""## Noise: `df.sdc.add_noise(method=...)`
"moments" recolours correlated noise so that means and the (singular) covariance are exact."""),
    code("""X = census.to_numpy()
for method in ("additive", "correlated", "correlated2", "moments"):
    Y = census.sdc.add_noise(method=method, noise=50, seed=3).to_numpy()
    dcov = np.abs(np.cov(Y.T) - np.cov(X.T)).max() / np.abs(np.cov(X.T)).max()
    print(f"{method:12s} SSE/SST {census.sdc.ilssdm(masked=pl.DataFrame(Y, schema=census.columns)):.4f}  "
          f"max rel. covariance change {f'{dcov:.1e}' if dcov > 1e-12 else '< 1e-12 (rounding)'}")
nz = census.sdc.add_noise(method="moments", noise=50, seed=3)
plt.scatter(census["PEARNVAL"], nz["PEARNVAL"], s=3); plt.xlabel("original"); plt.ylabel("moments noise"); plt.title("PEARNVAL"); plt.show()"""),
    md("""## Interval recoding: `df.sdc.recode_intervals(on, n= | breaks=)`"""),
    code("""for method in ("equal", "quantile"):
    r = adult.sdc.recode_intervals("age", n=5, method=method)
    print(method, "k-anonymity on age + sex:", r.sdc.k_anonymity(["age", "sex"]), "(before:", adult.sdc.k_anonymity(["age", "sex"]), ")")
vc = adult.sdc.recode_intervals("age", n=5, method="quantile")["age"].value_counts().sort("age")
plt.bar(vc["age"].cast(pl.String), vc["count"]); plt.title("age in 5 quantile intervals"); plt.show()"""),
]
nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
               "language_info": {"name": "python"}}
out = Path(__file__).parent.parent / "notebooks" / "07_masking.ipynb"
nbf.write(nb, out)
print("wrote", out)
