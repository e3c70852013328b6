"""polars_sdc.warmup() / polars-sdc warmup: every warm-up call runs, and a warmed cache
serves a later process without compiling (counted from Numba's compile events)."""
import os
import subprocess
import sys

import pytest

import polars_sdc
from polars_sdc import SDCError
from polars_sdc._warmup import WARMUPS, tiny_frame


def test_every_warmup_call_runs():
    seconds = polars_sdc.warmup(progress=False)
    assert list(seconds) == list(WARMUPS)
    assert all(s >= 0 for s in seconds.values())


def test_unknown_name_is_refused():
    with pytest.raises(SDCError, match="'nope'"):
        polars_sdc.warmup(["mdav", "nope"], progress=False)


def test_warmup_covers_the_methods():
    # the families a user calls; each has at least one warm-up entry
    for family in ("mdav", "mil", "anneal", "vmdav", "mhm-npn", "mhm-grid", "mhm-vgrid", "mhm-kd",
                   "mhm-kd-mdav", "univariate", "risk", "suda", "pram", "rank_swap", "add_noise", "laplace",
                   "reconstruct_gmm", "ild", "recode_utility"):
        assert family in WARMUPS
    assert tiny_frame().get_column("region").null_count() == 1  # the wildcard frequencies compile too


def test_large_entries_reach_the_kd_tree_kernels():
    # MDAV picks its brute-force kernel on small data; the -large warm-ups must take the
    # kd-tree kernel (mdav: 3 numeric + 1 nominal column; kd-mdav: one leaf of all rows)
    from polars_sdc._warmup import LARGE_ROWS
    from polars_sdc.kernels.mdav import small_enough

    assert "mdav-large" in WARMUPS and "mhm-kd-mdav-large" in WARMUPS
    assert small_enough(len(tiny_frame()), 3, 1, 3)
    assert not small_enough(LARGE_ROWS, 3, 1, 3) and not small_enough(LARGE_ROWS, 3, 0, 3)


COUNT = """
from numba.core import event
import polars as pl, polars_sdc
from polars_sdc._warmup import tiny_frame
df = tiny_frame()
with event.install_recorder("numba:compile") as rec:
    df.sdc.univariate(3, "income")
    df.sdc.pram("sex", seed=1)
ours = [ev for _, ev in rec.buffer if ev.is_start
        and ev.data["dispatcher"].py_func.__module__.startswith("polars_sdc.")]
print("COMPILED", len(ours))
"""


def test_cli_warmup_fills_the_cache_for_later_processes(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    cold = subprocess.run([sys.executable, "-c", COUNT], env=env, capture_output=True, text=True, timeout=900)
    assert cold.returncode == 0, cold.stderr
    assert int(cold.stdout.split("COMPILED")[1]) > 0  # an empty cache compiles
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "warmed")
    warm = subprocess.run([sys.executable, "-m", "polars_sdc", "warmup", "--only", "univariate,pram", "--no-progress"],
                          env=env, capture_output=True, text=True, timeout=900)
    assert warm.returncode == 0, warm.stderr
    assert "univariate" in warm.stdout and "pram" in warm.stdout and "warmed 2 methods" in warm.stdout
    after = subprocess.run([sys.executable, "-c", COUNT], env=env, capture_output=True, text=True, timeout=900)
    assert after.returncode == 0, after.stderr
    assert after.stdout.split("COMPILED")[1].strip() == "0", after.stdout
