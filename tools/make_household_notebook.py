"""Write notebooks/09_households.ipynb and execute it in place (real outputs).

    python tools/make_household_notebook.py            # write and execute
    python tools/make_household_notebook.py --no-run   # write only
"""
import sys
from pathlib import Path

import nbformat as nbf

nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("""# A household survey, step by step: EU-SILC with `household=`

EU-SILC (the sdcMicro tutorial data, `polars_sdc.datasets.eusilc()`) holds 14,827 persons in
6,000 households `db030`, with the person weight `rb050`. Some columns describe the **household**
(the same on every member's record: its size `hsize`, the region `db040`, the household incomes
`hy040n`..`hy145n`), others the **person** (`age`, sex `rb090`, activity `pl030`, citizenship
`pb220a`, the person incomes `py010n`..`py140n`, null for the 2,720 children: *structural* nulls).

An intruder attacks a household: the id links its members, so a value masked on one member and left
visible on a housemate's record is not masked, and a "group of 3" made of three members of one
household protects nobody. This walk-through releases the file with `household="db030"` at each
step (docs/households.md, docs/households-microaggregation.md, docs/record-swapping.md) and shows
what the plain per-person call would have leaked."""),
    code("""import warnings
import numpy as np
import polars as pl
import matplotlib.pyplot as plt
import polars_sdc
from polars_sdc.household import HouseholdWarning, household_level_columns

plt.rcParams["figure.dpi"] = 80
silc = polars_sdc.datasets.eusilc()
keys = ["db040", "hsize", "age", "rb090", "pl030", "pb220a"]
hy = ["hy040n", "hy050n", "hy070n", "hy080n", "hy090n", "hy110n", "hy130n", "hy145n"]
py = ["py010n", "py050n", "py090n", "py100n", "py110n", "py120n", "py130n", "py140n"]
print(silc.height, "persons in", silc["db030"].n_unique(), "households")
print("household-level:", household_level_columns(silc, "db030", keys + hy + py))
print("children's structural nulls in py010n:", silc["py010n"].null_count())"""),
    md("""## 1. Risk: persons and households

`df.sdc.risk(keys, weight=, household=)` gives each person's individual risk (sdcMicro's
`measure_risk`, from the weighted key frequencies) and the **household risk**: the probability
that at least one member of the household is re-identified, `1 - prod(1 - r_i)` over its members,
which every member carries (sdcMicro's `hier_risk`). A household is as weak as its weakest member,
and with more members it has more chances to be found."""),
    code("""risk0 = silc.sdc.risk(keys, weight="rb050", household="db030", suda=False)
for m in ("k_anonymity", "sample_uniques", "global_risk", "expected_reidentifications",
          "household_risk", "household_expected_reidentifications"):
    print(f"{m:38s} {risk0[m]:.4g}")
pr0 = risk0.per_record.with_columns(hsize=silc["hsize"])
fig, ax = plt.subplots(figsize=(6, 4.5))
sc = ax.scatter(pr0["risk"], pr0["household_risk"], c=pr0["hsize"], s=4, cmap="viridis")
lim = [pr0["risk"].min(), 1]
ax.plot(lim, lim, "k--", lw=0.8, label="household risk = individual risk")
ax.set_xscale("log"); ax.set_yscale("log")
ax.set_xlabel("individual risk (person)"); ax.set_ylabel("household risk (every member carries it)")
ax.set_title("EU-SILC before masking: a household is at least as exposed as its members")
fig.colorbar(sc, ax=ax, label="household size"); ax.legend(loc="upper left"); plt.show()"""),
    md("""## 2. Age into bands: `recode_intervals`

Age is the most identifying person key; five-year detail is rarely needed in a public file.
Bands of 15 years (the children's band `(-inf, 15]` is exactly the persons with structural
null incomes)."""),
    code("""silc1 = silc.sdc.recode_intervals("age", breaks=[15, 30, 45, 60, 75])
risk1 = silc1.sdc.risk(keys, weight="rb050", household="db030", suda=False)
print("k-anonymity", risk0["k_anonymity"], "->", risk1["k_anonymity"], "| sample uniques",
      risk0["sample_uniques"], "->", risk1["sample_uniques"], "| expected re-identifications",
      round(risk0["expected_reidentifications"], 1), "->", round(risk1["expected_reidentifications"], 1))
bands = silc1["age"].value_counts().sort("age")
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.bar(bands["age"].cast(pl.String), bands["count"])
ax.set_xlabel("age band"); ax.set_ylabel("persons"); ax.set_title("age recoded into 15-year bands"); plt.show()"""),
    md("""## 3. Targeted record swapping of regions (before anything blanks a region)

`swap_records` (sdcMicro's `recordSwap`) exchanges the region of whole households with a household
of another region: every household with a member whose age band x sex is shared by fewer than 3
persons of its region is swapped, the rest sampled up to `swaprate`, donors of the same size
(`similar="hsize"`), the household weight `db090` carried along. Every other column stays with its
household, so all tables without geography are exactly the original ones.

Swapping comes **before** suppression, for two reasons: the hierarchy must be complete
(`swap_records` refuses a suppressed, null region), and it changes a key (`db040`), so a
k-anonymity reached by suppression first would not survive it."""),
    code("""args = dict(household="db030", hierarchy=["db040"], similar="hsize", swaprate=0.05, k_anonymity=3,
            risk_variables=["age", "rb090"], carry_along="db090", seed=1)
try:
    silc1.sdc.suppress(3, keys, household="db030").sdc.swap_records(**args)
except polars_sdc.SDCError as e:
    print("swapping after suppression:", e)
silc2 = silc1.sdc.swap_records(swapped_column="partner", **args)
moved = silc2.filter(pl.col("db030") != pl.col("partner"))
silc2 = silc2.drop("partner")
print("households swapped:", moved["db030"].n_unique(), "of", silc["db030"].n_unique(), "| persons:", moved.height)
print("region totals of persons unchanged:",
      silc["db040"].value_counts().sort("db040").equals(silc2["db040"].value_counts().sort("db040")))
reg = pl.DataFrame({"original": silc["db040"], "swapped": silc2["db040"], "income": silc["eqIncome"]})
med = lambda col: reg.group_by(pl.col(col).alias("region")).agg(pl.col("income").median()).sort("region")
orig, after = med("original"), med("swapped")
share = moved.group_by("db040").agg(pl.col("db030").n_unique()).join(
    silc.group_by("db040").agg(pl.col("db030").n_unique().alias("n")), on="db040", how="right").fill_null(0).sort("db040")
x = np.arange(orig.height)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
ax1.bar(x - 0.2, orig["income"], 0.4, label="original regions"); ax1.bar(x + 0.2, after["income"], 0.4, label="swapped regions")
ax1.set_xticks(x, orig["region"], rotation=40, ha="right"); ax1.set_xlabel("region"); ax1.set_ylabel("median equivalised income")
ax1.set_title("income by region, before / after swapping"); ax1.legend(loc="lower right")
ax2.bar(np.arange(share.height), share["db030"] / share["n"] * 100)
ax2.set_xticks(np.arange(share.height), share["db040"], rotation=40, ha="right")
ax2.set_xlabel("region"); ax2.set_ylabel("% of households swapped"); ax2.set_title("households swapped per region")
plt.tight_layout(); plt.show()"""),
    md("""## 4. PRAM on a person-level key

PRAM changes categories at random with a transition matrix that keeps the frequencies in
expectation (sdcMicro's `pram`, invariant matrix). `pl030` (activity) is a person-level column, so
`household=` changes nothing for it: it is drawn per person (a household-level column would get
one draw per household). Nulls (the children) stay null. Like swapping, PRAM changes a key, so it
runs before the suppression."""),
    code("""silc3 = silc2.sdc.pram("pl030", pd=0.8, alpha=0.5, seed=1, household="db030")
print("records changed:", int((silc3["pl030"] != silc2["pl030"]).sum()),
      "| nulls before / after:", silc2["pl030"].null_count(), silc3["pl030"].null_count())
b = silc2["pl030"].drop_nulls().value_counts().sort("pl030")
a = silc3["pl030"].drop_nulls().value_counts().sort("pl030")
x = np.arange(b.height)
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.bar(x - 0.2, b["count"], 0.4, label="before PRAM"); ax.bar(x + 0.2, a["count"], 0.4, label="after PRAM")
ax.set_xticks(x, b["pl030"].cast(pl.String)); ax.set_xlabel("pl030 (activity code)"); ax.set_ylabel("persons")
ax.set_title("PRAM keeps the activity frequencies"); ax.legend(); plt.show()"""),
    md("""## 5. Local suppression with `household=`: all members or none

`suppress(3, keys)` blanks the fewest key values so that every key combination is shared by >= 3
records. `hsize` and `db040` are household-level: blanked on one member only, the value is still
on the housemate's record next to the same `db030`. With `household="db030"` a suppression of a
household-level key is carried to the whole household (and the rule runs again until nothing
changes). The plain call warns (`HouseholdWarning`) for exactly this reason."""),
    code("""def partly(out, col):
    \"\"\"(households with a suppressed `col`, of which only some members are suppressed)\"\"\"
    g = out.with_columns(s=pl.col(col).is_null() & silc3[col].is_not_null()).group_by("db030").agg(
        some=pl.col("s").any(), every=pl.col("s").all())
    return int(g["some"].sum()), int((g["some"] & ~g["every"]).sum())

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    per_person = silc3.sdc.suppress(3, keys)
print("plain call warns:", str(w[0].message)[:160], "...")
silc4 = silc3.sdc.suppress(3, keys, household="db030")
for name, out in (("per person", per_person), ("household=", silc4)):
    print(f"{name:11s} k = {out.sdc.k_anonymity(keys)}; households with suppressed hsize / of them only partly:",
          partly(out, "hsize"), "; db040:", partly(out, "db040"))
new = lambda out: [int((out[c].is_null() & silc3[c].is_not_null()).sum()) for c in keys]
x = np.arange(len(keys))
fig, ax = plt.subplots(figsize=(7, 3.8))
ax.bar(x - 0.2, new(per_person), 0.4, label="per person (leaks through housemates)")
ax.bar(x + 0.2, new(silc4), 0.4, label='household="db030" (all members or none)')
ax.set_xticks(x, keys); ax.set_xlabel("key"); ax.set_ylabel("values suppressed")
ax.set_title("local suppression to k = 3"); ax.legend(); plt.show()"""),
    md("""Carrying a suppression to the whole household costs more values on the household-level keys
(every member of the household loses them): the price of the suppression being real.

## 6. Household incomes: microaggregation at household level

The eight household incomes are the same on every member's record. Plain MDAV groups the members
of one household together (they are identical), so a "group of 3" is often one household and its
mean *is* that household's income vector. With `household="db030"` the incomes are microaggregated
on one row per household and broadcast back: every group spans >= 3 households, and no household
gets its vector back unchanged unless >= 3 households share it in the original."""),
    code("""hh0 = silc.unique("db030", maintain_order=True)
common = hh0.join(hh0.group_by(hy).len(), on=hy, nulls_equal=True).filter(pl.col("len") >= 3)["db030"]

def unchanged(out):
    \"\"\"ids of the households whose income vector is released unchanged\"\"\"
    same = pl.all_horizontal([out[c] == silc[c] for c in hy])
    return silc.filter(same)["db030"].unique()

with warnings.catch_warnings():
    warnings.simplefilter("ignore", HouseholdWarning)   # the plain call warns: household-level columns
    plain = silc4.sdc.mdav(3, on=hy, group_column="g")
silc5 = silc4.sdc.mdav(3, on=hy, household="db030", group_column="g")
rows = []
for name, out in (("per person", plain), ('household="db030"', silc5)):
    span = out.group_by("g").agg(pl.col("db030").n_unique())["db030"]
    u = unchanged(out)
    rows.append((name, out["g"].n_unique(), int((span == 1).sum()), int(span.min()), u.len(), len(set(u.to_list()) - set(common.to_list()))))
tab = pl.DataFrame(rows, schema=["call", "groups", "one-household groups", "min households/group",
                                 "households unchanged", "of them not shared by >= 3"], orient="row")
print(tab); print("households whose income vector >= 3 households share in the original:", common.len())
silc5 = silc5.drop("g")
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.bar(tab["call"], tab["of them not shared by >= 3"] / silc["db030"].n_unique() * 100, color=["tab:red", "tab:green"])
ax.set_xlabel("MDAV k = 3 on the household incomes"); ax.set_ylabel("% of households")
ax.set_title("households whose own (unshared) income vector is released"); plt.show()"""),
    md("""## 7. Person incomes with structural nulls

The person incomes are null for every child. Microaggregation groups rows with the same null
pattern together (here: the 2,720 children, null in all eight, and the adults), partitions each
pattern on its non-null columns and keeps the nulls; with `household=` every group still spans
>= 3 households. `add_noise` (every method) keeps them too: `"moments"` noise is exact on the
non-null means and variances."""),
    code("""silc6 = silc5.sdc.mdav(3, on=py, household="db030", group_column="g")
span = silc6.group_by("g").agg(pl.col("db030").n_unique(), pl.col("py010n").is_null().n_unique().alias("patterns"))
print("nulls kept:", [silc6[c].null_count() for c in py[:3]], "| fewest households in a group:", span["db030"].min(),
      "| null patterns per group (max):", span["patterns"].max())
noisy = silc5.sdc.add_noise(py, method="moments", seed=2, household="db030")
print("add_noise moments: nulls", noisy["py010n"].null_count(), "| mean py010n", round(silc["py010n"].mean(), 2),
      "->", round(noisy["py010n"].mean(), 2), "| sd", round(silc["py010n"].std(), 2), "->", round(noisy["py010n"].std(), 2))
silc6 = silc6.drop("g")
adults = silc["py010n"].is_not_null()
fig, ax = plt.subplots(figsize=(6, 4.5))
ax.scatter(silc.filter(adults)["py010n"], noisy.filter(adults)["py010n"], s=3, alpha=0.4, label="add_noise (moments)")
ax.scatter(silc.filter(adults)["py010n"], silc6.filter(adults)["py010n"], s=3, alpha=0.4, label='mdav k = 3, household=')
ax.set_xlabel("original employee income py010n"); ax.set_ylabel("released py010n")
ax.set_title("person income (adults; the children stay null)"); ax.legend(); plt.show()"""),
    md("""## 8. The release and its risk

The release is the chain above: age bands, record swapping, PRAM, suppression with
`household=`, the household incomes at household level, the person incomes with their nulls.
Risk after, on the same keys, weight and households (a suppressed value matches any value)."""),
    code("""release = silc6
risk9 = release.sdc.risk(keys, weight="rb050", household="db030", suda=False)
print(pl.DataFrame({"measure": ["k_anonymity", "sample_uniques", "expected_reidentifications", "household_risk"],
                    "before": [float(risk0[m]) for m in ("k_anonymity", "sample_uniques", "expected_reidentifications", "household_risk")],
                    "after": [float(risk9[m]) for m in ("k_anonymity", "sample_uniques", "expected_reidentifications", "household_risk")]}))
bins = np.logspace(np.floor(np.log10(risk9.per_record["risk"].min())), 0, 41)
fig, ax = plt.subplots(figsize=(7, 4))
ax.hist(risk0.per_record["risk"], bins=bins, histtype="step", lw=1.5, label="individual risk, original")
ax.hist(risk9.per_record["risk"], bins=bins, histtype="step", lw=1.5, label="individual risk, release")
ax.hist(risk0.per_record["household_risk"], bins=bins, histtype="step", ls="--", label="household risk, original")
ax.hist(risk9.per_record["household_risk"], bins=bins, histtype="step", ls="--", label="household risk, release")
ax.set_xscale("log"); ax.set_xlabel("re-identification risk"); ax.set_ylabel("persons")
ax.set_title("risk before and after the household-aware release"); ax.legend(fontsize=8); plt.show()"""),
]
nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
               "language_info": {"name": "python"}}
out = Path(__file__).parent.parent / "notebooks" / "09_households.ipynb"
nbf.write(nb, out)
print("wrote", out)
if "--no-run" not in sys.argv:
    from nbclient import NotebookClient

    nb = nbf.read(out, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(out.parent)}}).execute()
    nbf.write(nb, out)
    print("executed", out)
