"""The compile notice (polars_sdc.progress.watch_compiles): one line on stderr when a call
compiles kernels -- at once when a progress bar is shown, else after COMPILE_NOTICE_AFTER
seconds of compiling -- and none when the kernels come from the cache. Each case runs in a
fresh process with its own empty NUMBA_CACHE_DIR, on the small SST kernel (total_ss)."""
import os
import subprocess
import sys

import pytest

from polars_sdc.progress import compile_notice

NOTICE = compile_notice("loss")  # kernels/sse.py: the loss measures

# {after}: COMPILE_NOTICE_AFTER; {bar}: whether a plain progress bar is open during the call
CHILD = """
import io, sys
import numpy as np
import polars_sdc.progress as progress
progress.COMPILE_NOTICE_AFTER = {after}
from polars_sdc.kernels.sse import total_ss
X = np.arange(12.0).reshape(6, 2)
if {bar}:
    out = io.StringIO()
    with progress.Progress("sst", 1, plain=True, file=out) as b:
        value = total_ss(X)
        b.advance(1)
    print("BAR", repr(out.getvalue()))
else:
    value = total_ss(X)
print("VALUE", value)
"""


def _run(tmp_path, after: float, bar: bool, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    env.pop("POLARS_SDC_COMPILE_NOTICE", None)
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, "-c", CHILD.format(after=after, bar=bar)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "VALUE 140.0" in proc.stdout  # 2 columns, each 25 + 9 + 1 + 1 + 9 + 25 about its mean
    return proc


def test_notice_after_threshold_without_bar_then_silent_from_cache(tmp_path):
    first = _run(tmp_path, after=0.0, bar=False)
    assert first.stderr.count(NOTICE) == 1, first.stderr
    assert list((tmp_path / "numba-cache").rglob("*.nbi")), "the kernel was not cached in NUMBA_CACHE_DIR"
    again = _run(tmp_path, after=0.0, bar=False)  # loaded from the cache: nothing compiles
    assert NOTICE not in again.stderr, again.stderr


def test_no_notice_below_threshold_without_bar(tmp_path):
    proc = _run(tmp_path, after=600.0, bar=False)
    assert NOTICE not in proc.stderr, proc.stderr


def test_notice_at_once_with_a_bar_and_the_bar_says_compiling(tmp_path):
    proc = _run(tmp_path, after=600.0, bar=True)  # the threshold does not apply with a bar
    bar_text = proc.stdout.split("BAR ", 1)[1].split("\nVALUE", 1)[0]
    assert bar_text.count(NOTICE) == 1, bar_text
    assert "compiling kernels (first use)" in bar_text, bar_text


def test_notice_can_be_silenced(tmp_path):
    proc = _run(tmp_path, after=0.0, bar=False, env_extra={"POLARS_SDC_COMPILE_NOTICE": "0"})
    assert NOTICE not in proc.stderr, proc.stderr


@pytest.mark.parametrize("kernel, expected", [
    ("path_order_npn._npn_path", "mhm"), ("path_order_kd._kd_walk", "mhm"),
    ("hansen_mukherjee._hm_path", "mhm"),
    ("hansen_mukherjee.hm_shortest_path_1d", "univariate"), ("sse.total_ss", "loss"), ("mdav.mdav_labels_tree", "mdav"),
    ("mdav.mdav_labels_small", "mdav"),
])
def test_kernel_names(kernel, expected):
    from polars_sdc.progress import kernel_name

    # a compile event names a compiled kernel: every example here is a Numba dispatcher
    import importlib

    mod, fn = kernel.split(".")
    assert hasattr(getattr(importlib.import_module(f"polars_sdc.kernels.{mod}"), fn), "py_func"), kernel
    assert kernel_name(kernel) == expected


def test_kernel_names_table_names_real_kernels():
    """KERNEL_NAMES' keys: a kernel module, or "module.function" of a compiled (Numba) kernel --
    never a Python dispatcher (mdav.mdav_labels_codes picks mdav_labels_small / _tree and is not
    compiled itself, so a compile event never carries its name)."""
    import importlib

    from polars_sdc.progress import KERNEL_NAMES

    for key in KERNEL_NAMES:
        mod, _, fn = key.partition(".")
        module = importlib.import_module(f"polars_sdc.kernels.{mod}")
        if fn:
            assert hasattr(getattr(module, fn), "py_func"), f"{key}: not a compiled kernel"
    from polars_sdc.kernels import mdav

    assert not hasattr(mdav.mdav_labels_codes, "py_func")   # the dispatcher the notice test named before


def test_watch_names_each_method_once_per_call_and_restores_the_bar(monkeypatch):
    # the listener's state machine, driven directly (no Numba): nested compiles are one
    # event; a second burst of the same method (a call compiling in several bursts) is not
    # announced again, another method is; the bar's status is restored after compiling
    import io

    from polars_sdc.progress import Progress, _CompileWatch

    monkeypatch.delenv("POLARS_SDC_COMPILE_NOTICE", raising=False)  # conftest silences it
    out = io.StringIO()
    watch = _CompileWatch()
    with Progress("mdav k=3", 10, plain=True, file=out) as b:
        b.set_postfix("partition")
        watch.start("mdav.mdav_labels_tree")
        watch.start("")  # a nested compile (a callee)
        assert b.postfix == "compiling kernels (first use): 0 compiled"
        watch.end(True)
        assert b.postfix == "compiling kernels (first use): 1 compiled"
        watch.end(True)
        assert b.postfix == "partition" and watch.depth == 0
        watch.ended = float("-inf")  # a new burst
        watch.start("mdav.mdav_labels_tree")
        watch.end(True)
        watch.ended = float("-inf")
        watch.start("path_order_kd._kd_walk")
        watch.end(True)
    text = out.getvalue()
    assert text.count(compile_notice("mdav")) == 1, text
    assert text.count(compile_notice("mhm")) == 1, text


KD_MDAV_CHILD = """
import numpy as np
import polars_sdc.progress as progress
progress.COMPILE_NOTICE_AFTER = 0.0
from polars_sdc.microagg.mhm import partition_mhm
labels = partition_mhm(np.random.default_rng(3).normal(size=(300, 2)), 3, "kd-mdav")
print("GROUPS", len(set(labels.tolist())))
"""


def test_mhm_kd_mdav_notice_names_mhm_though_mdav_compiles_first(tmp_path):
    # kd-mdav on one leaf calls MDAV's own dispatcher from Python before any MHM kernel
    # compiles: the notice names the method called (progress.method_called), not "mdav"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    env.pop("POLARS_SDC_COMPILE_NOTICE", None)
    proc = subprocess.run([sys.executable, "-c", KD_MDAV_CHILD], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.split("GROUPS")[1]) >= 60  # 300 rows in groups of 3 .. 5
    assert proc.stderr.count(compile_notice("mhm")) == 1, proc.stderr
    assert compile_notice("mdav") not in proc.stderr, proc.stderr


def test_method_called_names_the_burst_and_starts_a_new_one(monkeypatch):
    import io

    from polars_sdc.progress import Progress, _CompileWatch, method_called

    monkeypatch.delenv("POLARS_SDC_COMPILE_NOTICE", raising=False)
    out = io.StringIO()
    watch = _CompileWatch()
    with Progress("mhm", 10, plain=True, file=out):
        with method_called("mhm"), method_called("mdav"):  # the outermost block names the call
            watch.start("mdav.mdav_labels_small")
            watch.end(True)
        with method_called("risk"):  # right after (no gap): another method, a new burst
            watch.start("suda._unique_bits")
            watch.end(True)
    text = out.getvalue()
    assert text.count(compile_notice("mhm")) == 1 and text.count(compile_notice("risk")) == 1, text
    assert compile_notice("mdav") not in text and compile_notice("suda") not in text, text
