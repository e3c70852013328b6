"""Ski rental between MDAV's brute-force and kd-tree kernels (kernels/rental.py, kernels/mdav.py):
a first call beyond the brute-force kernel's size runs it instead of compiling the kd-tree kernel,
up to a budget kept across processes; then the kd-tree kernel compiles and is used from then on.
Same labels either way."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from polars_sdc.kernels import rental
from polars_sdc.kernels.rental import Rental, compiled_like, ready_like


def test_rental_accounting_adds_up_across_instances_and_variants(tmp_path):
    path = str(tmp_path / "k.rental.json")
    a = Rental(None, "numeric", budget=1.0, path=path)
    b = Rental(None, "nominal", budget=2.0, path=path)
    assert a.spent() == 0.0 and a.rents(False, 1.0) and not a.rents(False, 1.0 + 1e-9)
    a.pay(0.25)
    a.pay(0.5)
    b.pay(1.5)
    again = Rental(None, "numeric", budget=1.0, path=path)  # another process: reads the file
    assert again.spent() == pytest.approx(0.75) and b.spent() == pytest.approx(1.5)
    assert again.rents(False, 0.25) and not again.rents(False, 0.26)
    assert not again.rents(True, 0.0)  # the fast kernel ready: never rent
    a.pay(-3.0)  # a negative clock difference adds nothing
    assert a.spent() == pytest.approx(0.75)
    with rental.disabled():
        assert not again.rents(False, 0.0)
    assert again.rents(False, 0.0)


def test_rental_file_of_another_source_or_unreadable_counts_from_zero(tmp_path):
    path = tmp_path / "k.rental.json"
    path.write_text(json.dumps({"stamp": ["other", 1], "spent": {"numeric": 9.0}}))
    assert Rental(None, "numeric", 1.0, path=str(path)).spent() == 0.0
    path.write_text("{not json")
    r = Rental(None, "numeric", 1.0, path=str(path))
    assert r.spent() == 0.0
    r.pay(0.5)  # rewrites a broken file
    assert json.loads(path.read_text())["spent"] == {"numeric": 0.5}


def test_rental_in_an_unwritable_cache_keeps_its_own_count(tmp_path):
    # the file's folder cannot be made (its parent is a file: refused even to root, unlike a
    # read-only directory): the count stays in memory, nothing is written
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    r = Rental(None, "numeric", 1.0, path=str(blocker / "cache" / "k.rental.json"))
    r.pay(0.4)
    assert r.spent() == pytest.approx(0.4) and not r.rents(False, 0.7)
    assert [p.name for p in tmp_path.iterdir()] == ["not-a-folder"]


def test_rental_without_a_file_counts_in_memory():
    r = Rental(None, "numeric", 1.0, path=None)
    r.pay(0.6)
    assert r.spent() == pytest.approx(0.6) and not r.rents(False, 0.5)


def test_ready_like_matches_the_named_arguments_only():
    @njit
    def pick(x, opt):
        return x if opt is None else 2 * x

    assert not rental.ready_like(pick, opt=None)
    pick(np.zeros(2, dtype=np.int32), None)
    assert rental.ready_like(pick, opt=None) and not rental.ready_like(pick, opt=True)
    assert rental.ready_like(pick, x=np.zeros(3, dtype=np.int32)) and not rental.ready_like(pick, x=np.zeros(3))


def test_ready_like_is_per_signature():
    @njit
    def twice(x):
        return 2 * x

    a, b = np.zeros(3), np.zeros(3, dtype=np.int32)
    assert not ready_like(twice, x=a) and not ready_like(twice, x=b)
    assert not compiled_like(twice, x=a)
    twice(a)
    assert ready_like(twice, x=a) and not ready_like(twice, x=b)
    assert compiled_like(twice, x=a) and not compiled_like(twice, x=b)
    assert ready_like(twice.py_func, x=b)  # a plain function (NUMBA_DISABLE_JIT) never compiles
    assert compiled_like(twice.py_func, x=b)


def test_small_seconds_follows_the_brute_force_work():
    from polars_sdc.kernels.mdav import small_seconds

    assert small_seconds(10_000, 3, 0, 3) == pytest.approx(4 * small_seconds(5_000, 3, 0, 3))
    assert small_seconds(5_000, 3, 0, 6) == pytest.approx(small_seconds(5_000, 3, 0, 3) / 2)
    assert small_seconds(5_000, 3, 2, 3) > 3 * small_seconds(5_000, 3, 0, 3)


CHILD = """
import json, sys
import numpy as np
from numba.core import event
from polars_sdc.kernels import mdav as M
from polars_sdc.microagg.mdav import partition_mdav

step = sys.argv[1]
X = np.random.default_rng(11).normal(size=(1500, 3))
assert not M.small_enough(1500, 3, 0, 3)
r = M.tree_rental(False)
out = {"spent_before": r.spent(), "path": r.path}
if step == "buy":  # whatever was spent, the next estimate no longer fits
    r.budget = r.spent() + 0.5 * M.small_seconds(1500, 3, 0, 3)
with event.install_recorder("numba:compile") as rec:
    labels = partition_mdav(X, 3)
out["compiled"] = sorted({ev.data["dispatcher"].py_func.__name__ for _, ev in rec.buffer if ev.is_start})
out["tree_sigs"] = len(M._tree_rounds.signatures)
out["small_sigs"] = len(M.mdav_labels_small.signatures)
out["spent_after"] = r.spent()
out["labels"] = labels.tolist()
print("RESULT " + json.dumps(out))
"""


def _child(step, env):
    proc = subprocess.run([sys.executable, "-c", CHILD, step], env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.split("RESULT ", 1)[1])


def test_first_call_rents_then_buys_across_processes_with_the_same_labels(tmp_path):
    from naive import reference_mdav
    from polars_sdc.partition import canonical_ids

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    X = np.random.default_rng(11).normal(size=(1500, 3))
    want = canonical_ids(reference_mdav(X, 3))
    # 1. empty cache: the brute-force kernel runs, the kd-tree kernel is not compiled, the
    #    seconds spent are written beside Numba's cache
    first = _child("rent", env)
    assert first["spent_before"] == 0.0 and first["spent_after"] > 0.0
    # the kernel's own compile (~1-3 s) is not rent: its estimated run time is (1,500 x 3: ~2 ms)
    assert first["spent_after"] < 0.1
    assert "mdav_labels_small" in first["compiled"] and "_tree_rounds" not in first["compiled"]
    assert first["tree_sigs"] == 0 and os.path.exists(first["path"])
    np.testing.assert_array_equal(canonical_ids(np.array(first["labels"])), want)
    # 2. a new process reads what the first spent; over the budget it compiles the kd-tree kernel
    second = _child("buy", env)
    assert second["spent_before"] == pytest.approx(first["spent_after"])
    assert "_tree_rounds" in second["compiled"] and second["small_sigs"] == 0
    assert second["spent_after"] == pytest.approx(second["spent_before"])  # buying spends nothing
    np.testing.assert_array_equal(canonical_ids(np.array(second["labels"])), want)
    # 3. from then on every process loads the kd-tree kernel from the cache (no compile, no rent)
    third = _child("rent", env)
    assert third["compiled"] == [] and third["tree_sigs"] == 1 and third["small_sigs"] == 0
    assert third["spent_after"] == pytest.approx(third["spent_before"])
    np.testing.assert_array_equal(canonical_ids(np.array(third["labels"])), want)


def test_large_first_call_buys_at_once(monkeypatch):
    # an estimate over the whole budget (here: the budget set to 0) compiles the kd-tree kernel
    # at once; a given leaf size always takes it (tests of the tree)
    from polars_sdc.kernels import mdav as M

    X = np.random.default_rng(3).normal(size=(1200, 2))
    r = M.tree_rental(False)
    monkeypatch.setattr(r, "budget", 0.0)
    before = r.spent()
    got = M.mdav_labels(X, 3)
    assert len(M._tree_rounds.signatures) >= 1 and r.spent() == before
    np.testing.assert_array_equal(got, M.mdav_labels(X, 3, leaf=64))


PAYER = """
import sys
from polars_sdc.kernels.rental import Rental
r = Rental(None, "numeric", budget=1e9, path=sys.argv[1])
for _ in range(200):
    r.pay(0.001)
"""


def test_processes_paying_at_once_add_up(tmp_path):
    # the read-add-write of the file is under a lock: four processes x 200 payments of 1 ms = 0.8 s
    path = str(tmp_path / "k.rental.json")
    procs = [subprocess.Popen([sys.executable, "-c", PAYER, path]) for _ in range(4)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert Rental(None, "numeric", 1.0, path=path).spent() == pytest.approx(0.8)
