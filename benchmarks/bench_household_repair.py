"""What the household repair after MIL / annealing costs (issue 24 (d)).

    python benchmarks/bench_household_repair.py              # EU-SILC, k = 3, MIL and annealing
    python benchmarks/bench_household_repair.py --refine mil

With ``household=``, MDAV (or MHM, V-MDAV) partitions the persons, every group with fewer than k
households is dissolved into its nearest groups (:func:`polars_sdc.microagg.blocks.household_repair`),
the refinement (MIL or annealing) then moves rows counting rows only, and the same repair runs
again after it; the refined partition is kept only if its SSE is not above the repaired input's.
This script measures, per block (null pattern) of EU-SILC's person incomes (``db030``, k = 3),
the SSE (z-scores, as the refinement sees them) of: the repaired partition (input of the
refinement), the refinement's raw result, that result repaired, and how many groups the repair
touches (groups below k households after the refinement, rows moved). The household incomes are
household-level (one row per household: k rows are k households), so no repair runs there; the
script checks that too.
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np

import polars_sdc
import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer
from polars_sdc.microagg import blocks

PERSON = ["py010n", "py050n", "py090n", "py100n", "py110n", "py120n", "py130n", "py140n"]
HH = ["hy040n", "hy050n", "hy070n", "hy080n", "hy090n", "hy110n", "hy130n", "hy145n"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--refine", choices=["mil", "anneal", "both"], default="both")
    ap.add_argument("--method", default="mdav")
    ap.add_argument("--columns", choices=["person", "household", "both"], default="both")
    args = ap.parse_args()
    df = polars_sdc.datasets.eusilc()
    warnings.simplefilter("ignore")
    original = blocks.household_repair
    calls: list[dict] = []

    def logged(X, labels, units, k):
        labels = np.asarray(labels, dtype=np.int64)
        out = original(X, labels, units, k)
        counts = blocks.households_per_group(labels, units)
        sizes = np.bincount(labels, minlength=counts.size)
        calls.append({"rows": labels.size, "groups": int((sizes > 0).sum()),
                      "below_k": int(((sizes > 0) & (counts < k)).sum()),
                      "rows_moved": int((out != labels).sum()),
                      "sse_in": blocks.sse(X, labels), "sse_out": blocks.sse(X, out)})
        return out

    blocks.household_repair = logged
    refiners = ["mil", "anneal"] if args.refine == "both" else [args.refine]
    sets = [("person incomes", PERSON), ("household incomes", HH)]
    sets = [s for s in sets if args.columns == "both" or s[0].startswith(args.columns)]
    for label, cols in sets:
        for refine in refiners:
            calls.clear()
            t = timing.timed(lambda: df.sdc.microaggregate(args.k, on=cols, method=args.method, refine=refine,
                                                           household="db030", group_column="g"))
            out, cpu = t.result, t.cpu
            hh = out.group_by("g").agg(h=__import__("polars").col("db030").n_unique())["h"].min()
            print(f"{label}, {args.method} + {refine}, k = {args.k}: {cpu:.1f} s CPU, "
                  f"{out['g'].n_unique()} groups, fewest households in a group {hh}")
            if not calls:
                print("  no repair (household-level columns: one row per household)")
            # the calls come in pairs per block: after the partition, after the refinement
            for i in range(0, len(calls) - 1, 2):
                part, ref = calls[i], calls[i + 1]
                if part["rows"] < 2 * args.k:
                    continue
                kept = ref["sse_out"] <= part["sse_out"]
                gain = part["sse_out"] - ref["sse_in"]
                cost = ref["sse_out"] - ref["sse_in"]
                print(f"  block of {part['rows']} rows: partition SSE {part['sse_in']:.2f} -> repaired "
                      f"{part['sse_out']:.2f} ({part['below_k']} of {part['groups']} groups below k, "
                      f"{part['rows_moved']} rows moved)")
                print(f"    {refine}: SSE {ref['sse_in']:.2f} (gain {gain:.2f}, {100 * gain / part['sse_out']:.2f} %), "
                      f"{ref['below_k']} of {ref['groups']} groups below k households; repaired "
                      f"{ref['sse_out']:.2f} (cost {cost:.3g} = {100 * cost / max(gain, 1e-12):.2g} % of the gain, "
                      f"{ref['rows_moved']} rows moved); {'kept' if kept else 'dropped (input kept)'}")
    blocks.household_repair = original


if __name__ == "__main__":
    main()
