"""Numeric data compile none of the nominal code of V-MDAV and annealing (issue 27: compile
what is used). Their kernels take the nominal state as one argument that is None for numeric
data, and Numba prunes every ``if nom is not None`` branch on a None argument before typing;
a nominal helper compiled on numeric data would mean the split broke (first call: V-MDAV
45 -> 13 compilations, benchmarks/README.md, session 25). Runs in a fresh process with an
empty NUMBA_CACHE_DIR (a cached kernel compiles nothing, so would show nothing); the
annealing kernels run from a fixed partition (no MDAV / MIL compile)."""
import json
import os
import subprocess
import sys

import numpy as np

#: helpers and kernels that only nominal columns need (kernels/_common.py, vmdav.py, anneal.py)
NOMINAL = {"add_nominal", "point_query", "nominal_part", "level_counts", "mean_query", "vmdav_nominal",
           "_leftover_nominal", "_nominal_d2c", "_nominal_d2r", "_level_count", "_swap_q", "level_squares",
           "_centroid_nominal", "_count_levels"}

CHILD = """
import json
import numpy as np
from numba.core import event
from polars_sdc.microagg.vmdav import partition_vmdav
from polars_sdc.microagg import anneal as A

rng = np.random.default_rng(5)
X = rng.normal(size=(60, 3))
with event.install_recorder("numba:compile") as rec:
    labels = partition_vmdav(X, 3, 1.0)
    Xc = X - X.mean(axis=0)
    base = np.arange(60) // 3  # 20 groups of 3
    k, umax, S, G = 3, 5, 20, 20
    counts0 = np.bincount(base, minlength=S).astype(np.int64)
    mcap = np.maximum(counts0, umax).astype(np.int64)
    mstart = np.concatenate(([0], np.cumsum(mcap)[:-1])).astype(np.int64)
    nominal = (np.empty((0, 60), np.int32), np.empty(0, np.int64), np.empty(0))
    chain = A._Chain(Xc, base, nominal, counts0, mcap, mstart, S, G, None)
    chain.stage(Xc, (5, np.zeros(1, np.int64), 1e-12, k, umax, 3000, 0.5, 0.05), (1.0, 0.01), 7)
names = sorted({ev.data["dispatcher"].py_func.__qualname__ for _, ev in rec.buffer
                if ev.is_start and ev.data["dispatcher"].py_func.__module__.startswith("polars_sdc.")})
sse = float(sum(((Xc[chain.labels == g] - Xc[chain.labels == g].mean(axis=0)) ** 2).sum()
                for g in np.unique(chain.labels)))
print("RESULT " + json.dumps({"names": names, "vmdav": labels.tolist(), "anneal": chain.labels.tolist(),
                              "sse": chain.sse, "naive_sse": sse}))
"""


def test_numeric_data_compile_no_nominal_code(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    proc = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.split("RESULT ", 1)[1])
    names = set(out["names"])
    # the numeric kernels did compile here (an empty cache) ...
    assert {"vmdav_labels_codes", "_join_leftovers", "anneal_stage", "slot_neighbours", "group_sse"} <= names
    # ... and none of the nominal ones
    assert not names & NOMINAL, sorted(names & NOMINAL)
    # and they did their work: V-MDAV groups of k..2k-1 rows (the < k leftover rows may make up
    # to k - 1 groups larger); the annealed state's SSE is the SSE of its labels, its groups keep >= k rows
    sizes = sorted(out["vmdav"].count(g) for g in set(out["vmdav"]))
    assert sizes[0] >= 3 and sum(s > 5 for s in sizes) <= 2 and sum(sizes) == 60
    assert abs(out["sse"] - out["naive_sse"]) <= 1e-9 * out["naive_sse"]
    assert min(out["anneal"].count(g) for g in set(out["anneal"])) >= 3


#: MHM orderings (session 26): the kernels of the kd-mdav group walk and of the variable grid
MHM_CHILD = """
import json
import numpy as np
from numba.core import event
from polars_sdc.microagg.mhm import partition_mhm

X = np.random.default_rng(7).normal(size=(60, 3))
with event.install_recorder("numba:compile") as rec:
    vg = partition_mhm(X, 3, "vgrid")
    kdm = partition_mhm(X, 3, "kd-mdav")  # one leaf of 60 rows
stack, seen = [], []
for _, ev in rec.buffer:
    d = ev.data["dispatcher"]
    name = d.py_func.__module__.rsplit(".", 1)[-1] + "." + d.py_func.__qualname__
    if ev.is_start:
        seen.append((name, stack[-1] if stack else None, stack[0] if stack else name))
        stack.append(name)
    else:
        stack.pop()
print("RESULT " + json.dumps({"seen": seen, "kdm": kdm.tolist(), "vg": vg.tolist()}))
"""

#: allocations: each dtype / shape compiles an overload of its own inside every kernel
ALLOC = ("ol_np_empty", "ol_np_zeros", "np_arange", "impl_np_full", "_ol_array_allocate")


def test_mhm_kd_mdav_and_vgrid_compile_only_their_walks(tmp_path):
    # kd-mdav on one leaf: no split kernel (one leaf needs none), no group means (numpy), no
    # start-row kernel (numpy for numeric data), no nominal code; the variable grid: its
    # builder, graph and block walk allocate nothing (every array comes from Python; the
    # builder's tables grow in Python), and no nominal code either
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    proc = subprocess.run([sys.executable, "-c", MHM_CHILD], env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.split("RESULT ", 1)[1])
    seen = [tuple(s) for s in out["seen"]]
    ours = {name.split(".", 1)[1] for name, _, _ in seen if name.startswith("path_order_")}
    # the kernels did compile here (an empty cache) ...
    assert {"_leaf_groups", "_npn_walk", "_vgrid_split", "_vgrid_links", "_block_walk", "_bfs_next"} <= ours, ours
    # ... and nothing else of the path orderings: no split, no start-row kernel, no nominal code
    assert ours <= {"_leaf_groups", "_npn_walk", "_vgrid_split", "_vgrid_links", "_locate", "_block_walk", "_bfs_next",
                    "_visit", "_nearest_in_block"}, ours
    # (MDAV's own kernel, mdav.mdav_labels_small, is the MDAV method's: its compile is not theirs)
    names = {name.split(".", 1)[1] for name, _, root in seen if not root.startswith("mdav.")}
    assert not names & (NOMINAL | {"_farthest_nominal", "_kd_next_leaf", "group_means", "group_sums", "_block_csr",
                                   "_d2", "nominal_row_dist"}), sorted(names)
    # no allocation compiled inside the vgrid kernels nor the kd-mdav group walk
    inside = {(name.split(".", 1)[1], parent) for name, parent, _ in seen if parent}
    for kernel in ("path_order_vgrid._vgrid_split", "path_order_vgrid._vgrid_links", "path_order_blocks._block_walk",
                   "path_order_kd._leaf_groups"):
        assert not [a for a, parent in inside if parent == kernel and a.startswith(ALLOC)], (kernel, sorted(inside))
    # and both did their work: groups of k .. 2k - 1 rows covering the 60 rows
    for labels in (out["kdm"], out["vg"]):
        sizes = [labels.count(g) for g in set(labels)]
        assert sum(sizes) == 60 and min(sizes) >= 3 and max(sizes) <= 5

#: MDAV's nominal code (kernels/mdav.py and the _common helpers only its nominal path calls)
MDAV_NOMINAL = {"add_nominal", "nominal_part", "mean_query", "_mean_gap", "_nominal_lower", "build"}

MDAV_CHILD = """
import json
import numpy as np
from numba.core import event
from polars_sdc.kernels import rental
from polars_sdc.kernels.mdav import small_enough
from polars_sdc.microagg.mdav import partition_mdav

X = np.random.default_rng(7).normal(size=(1500, 3))
assert not small_enough(1500, 3, 0, 3)  # the kd-tree kernel, not the brute-force one
with event.install_recorder("numba:compile") as rec, rental.disabled():  # bought, not rented (test_rental.py)
    labels = partition_mdav(X, 3)
names = sorted({ev.data["dispatcher"].py_func.__qualname__.split(".")[-1] for _, ev in rec.buffer
                if ev.is_start and ev.data["dispatcher"].py_func.__module__.startswith("polars_sdc.")})
kernel = sorted({str(ev.data["args"]) for _, ev in rec.buffer
                 if ev.is_start and ev.data["dispatcher"].py_func.__name__ == "_tree_rounds"})
print("RESULT " + json.dumps({"names": names, "kernel": kernel, "labels": labels.tolist(), "X": X.tolist()}))
"""


def test_numeric_mdav_on_large_data_compiles_no_nominal_code(tmp_path):
    # a numeric first call on more rows than small_enough takes compiles the kd-tree kernel with
    # codes=None, and none of the nominal helpers (session 26: 76 -> 26 compilations, 14 -> ~7 s)
    from naive import reference_mdav
    from polars_sdc.partition import canonical_ids

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    proc = subprocess.run([sys.executable, "-c", MDAV_CHILD], env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.split("RESULT ", 1)[1])
    names = set(out["names"])
    assert {"_tree_rounds", "_tree", "_refresh", "_fit_leaf", "_fit_inner", "_leaf_dists"} <= names
    # session 27: the searches, the scan and the removal are written into the kernel (no library
    # of their own), and the fused pass of wide data is not compiled for 3 columns; session 28:
    # the round kernel is driven from Python (no kernel holding all of it, no merge sort)
    assert not names & {"_nearest", "_farthest", "_remove", "_nearest_and_farthest", "mdav_labels_tree",
                        "_sort_list_nb", "_set_reference"}
    assert "mdav_labels_small" not in names
    assert len(out["kernel"]) == 1 and ", none," in out["kernel"][0], out["kernel"]
    assert not names & MDAV_NOMINAL, sorted(names & MDAV_NOMINAL)
    # and the partition is MDAV's
    X = np.array(out["X"])
    np.testing.assert_array_equal(canonical_ids(np.array(out["labels"])), canonical_ids(reference_mdav(X, 3)))
