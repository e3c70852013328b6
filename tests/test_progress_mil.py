"""MIL's progress (issue 16): a real percentage with an ETA — each planned round's first
sweep is counted group by group inside the 3-cycle kernel (GIL released), later sweeps
between kernel calls — off by default, the same result with and without it."""
from __future__ import annotations

import threading

import numpy as np
import polars as pl

from polars_sdc.microagg.mdav import partition_mdav
from polars_sdc.microagg.mil import refine_mil
from test_progress import Recorder, recorder, strata_frame  # noqa: F401  (fixtures)


def test_mil_counter_moves_during_one_call():
    X = np.random.default_rng(8).normal(size=(30_000, 3))
    lab = partition_mdav(X, 3)
    refine_mil(X[:300], partition_mdav(X[:300], 3), 3)  # compile first
    done = np.array([0.0, 500.0])  # share of the work x 500 units
    seen: list[float] = []
    finished = threading.Event()

    def poll():
        while not finished.is_set():
            seen.append(float(done[0]))
            finished.wait(0.0005)

    t = threading.Thread(target=poll)
    t.start()
    try:
        new = refine_mil(X, lab, 3, done=done)
    finally:
        finished.set()
        t.join()
    assert done[0] == 500.0 and np.array_equal(new, refine_mil(X, lab, 3))
    inside = [v for v in seen if 0 < v < 500]
    # several distinct values inside the call, never backwards; inside the first round's sweep
    # (3/4 of a third of the work) the kernel moved it group by group
    assert len(set(inside)) >= 3 and inside == sorted(inside), sorted(set(inside))[:10]
    assert any(0 < v < 0.75 * 500 / 3 for v in inside)
    one = np.zeros(1)  # one element: the share itself
    refine_mil(X[:90], partition_mdav(X[:90], 3), 3, done=one)
    assert one[0] == 1.0


def test_unstratified_mdav_mil_bar_counts_rows_then_mil(recorder, strata_frame):  # noqa: F811
    on = ["AGI", "FEDTAX", "PTOTVAL"]
    got = strata_frame.sdc.mdav(3, on, refine="mil", progress=True)
    assert got.equals(strata_frame.sdc.mdav(3, on, refine="mil"))
    rec = recorder.last
    assert rec.total == 1200 and rec.n == 1200 and rec.desc == "mdav + mil k=3"
    advances = [n for n, _ in rec.steps]
    assert advances == sorted(advances) and 600 in advances  # MDAV's rows, then MIL's share
    assert rec.postfixes[:2] == ["mdav", "mil"] and rec.postfixes[-1].endswith(": 0 changes")


def test_mil_frame_method_and_anneal_unchanged(recorder, strata_frame, capsys):  # noqa: F811
    """Off by default: nothing printed; refine="anneal" keeps its row bar."""
    strata_frame.sdc.mdav(3, ["AGI"], refine="mil")
    assert capsys.readouterr().err == ""
    strata_frame.sdc.mdav(3, ["AGI"], refine="anneal", refine_options={"max_iter": 2000}, progress=True)
    assert recorder.last.total == 600 and recorder.last.n == 600
    frame = strata_frame.with_columns(g=pl.Series(partition_mdav(strata_frame.select("AGI").to_numpy(), 3)))
    assert frame.sdc.mil(3, ["AGI"], groups="g").height == 600
