"""Write notebooks/08_spark.ipynb (then execute it with tools/run_notebooks.py)."""
from pathlib import Path

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb = nbf.v4.new_notebook()
nb.cells = [
    md("""# Microaggregating a Parquet file on Spark

`polars_sdc.spark` runs the same methods on Spark DataFrames: a kd-tree built from a sample cuts
the table into blocks of at least k and at most `block_rows` records (Solanas et al.'s
tree blocking), and each block is microaggregated by the local `df.sdc.microaggregate` inside one
Spark task. Here: the CASC census file (1,080 rows, 13 integer columns) written to Parquet,
microaggregated on Spark in local mode with blocks of at most 300 rows, and compared with the
local run — on the same blocks (equal, record for record) and on the whole file at once (the
cost of blocking). The data is small so the notebook runs in the test suite; the 1e6 / 1e7
runs are in `benchmarks/bench_spark.py`.

Needs `pip install "polars_sdc[spark]"` and a Java 17 runtime."""),
    code("""import os, sys, tempfile, warnings
import numpy as np
import polars as pl
import matplotlib.pyplot as plt
import polars_sdc
from polars_sdc import datasets
from polars_sdc import spark as sdcs

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)   # the workers run this interpreter
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
from pyspark.sql import SparkSession

# local mode on two cores; small data, so few shuffle partitions, no code generation and
# the JVM's quick compiler only (each query would otherwise compile longer than it runs)
spark = (SparkSession.builder.master("local[2]").appName("polars_sdc notebook")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.shuffle.partitions", "2").config("spark.sql.codegen.wholeStage", "false")
         .config("spark.sql.adaptive.enabled", "false")
         .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")

census = datasets.census().with_row_index("id").with_columns(pl.col("id").cast(pl.Int64))
cols = ["AFNLWGT", "AGI", "EMCONTRB", "FEDTAX", "PTOTVAL", "STATETAX"]
tmp = tempfile.mkdtemp()
census.write_parquet(f"{tmp}/census.parquet")
sdf = spark.read.parquet(f"{tmp}/census.parquet")
sdf.printSchema()"""),
    md("""## Blocks, then MDAV inside each block

`plan_blocks` makes one pass for the column means and standard deviations (the z-scores of the
whole file), draws a sample, grows the kd-tree on the driver and counts the records of each
leaf; a leaf with fewer than k records joins its neighbour. `microaggregate` then runs MDAV per
block and the release is written back to Parquet."""),
    code("""k = 5
plan = sdcs.plan_blocks(sdf, k, cols, block_rows=300)
print(plan)
out = sdcs.microaggregate(sdf, k, cols, plan=plan, group_column="group", block_column="block")
out.write.mode("overwrite").parquet(f"{tmp}/released.parquet")
released = pl.read_parquet(f"{tmp}/released.parquet/*.parquet").sort("id")
released.select("id", *cols[:3], "group", "block").head()"""),
    md("""## The same blocks, locally: the same release

Each block, microaggregated by the local method with the whole file's z-scores (the Spark task
does exactly this), gives the same values for every record."""),
    code("""blocks = plan.blocks(census)        # the block of each row, computed locally from the plan
weights = {c: 1 / s**2 for c, s in zip(plan.features, plan.std)}   # the global z-scores
parts = [part.drop("b").sort(census.columns).sdc.microaggregate(k, cols, standardize=False, weights=weights)
         for part in census.with_columns(pl.Series("b", blocks)).partition_by("b")]
local_blocks = pl.concat(parts).sort("id")
print("Spark release == local release on the same blocks:", released.select(census.columns).equals(local_blocks))
print("every block's id agrees:", bool(np.array_equal(released["block"].to_numpy(), blocks)))
print("smallest group:", released.group_by("group").len()["len"].min(), "records (k =", k, ")")"""),
    md("""## What blocking costs

SSE/SST of the Spark release (computed on Spark by aggregations) against MDAV on the whole file
at once, and the disclosure risk of the release's quasi-identifiers on Spark (every combination
is shared by at least k records)."""),
    code("""spark_loss = sdcs.ilssdm(sdf, cols, masked=out, key="id")
global_loss = census.sdc.ilssdm(cols, masked=census.sdc.mdav(k, cols))
print(f"SSE/SST: Spark blocks {100 * spark_loss:.3f} %, global MDAV {100 * global_loss:.3f} % "
      f"({spark_loss / global_loss:.3f} x)")
risk = sdcs.risk(out.select(cols), cols)
{name: risk[name] for name in ("records", "k_anonymity", "sample_uniques", "global_risk")}"""),
    code("""z = census.select((pl.col(c) - pl.col(c).mean()) / pl.col(c).std(ddof=0) for c in cols[:2])
per_block = released.group_by("block").len().sort("block")
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
sc = ax1.scatter(z[cols[0]], z[cols[1]], c=blocks, s=6, cmap="tab10")
ax1.set(xlabel=f"{cols[0]} (z-score)", ylabel=f"{cols[1]} (z-score)",
        title="kd-tree blocks (colour = block)")
ax2.bar(per_block["block"].to_numpy(), per_block["len"].to_numpy())
ax2.axhline(300, color="k", ls="--", lw=1)
ax2.set(xlabel="block", ylabel="records", title="block sizes (limit 300 dashed)")
fig.tight_layout()"""),
    code("""spark.stop()"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbf.write(nb, Path(__file__).parent.parent / "notebooks" / "08_spark.ipynb")
