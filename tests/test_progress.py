"""polars_sdc.progress: off by default, a real percentage between the chunks the Python layer
runs (strata, EM passes, ILD amounts), the same results with and without it, and the CLI's
bar only on a terminal (or with --progress)."""
from __future__ import annotations

import io
import re

import numpy as np
import polars as pl
import pytest

import polars_sdc
from polars_sdc import cli, datasets, progress
from polars_sdc.progress import Null, Progress, bar


class Recorder(Progress):
    """A plain bar into a buffer that records (done, total) after every report."""

    last: "Recorder | None" = None

    def __init__(self, desc, total=None, *, unit="it", file=None, plain=None):
        super().__init__(desc, total, unit=unit, file=io.StringIO(), plain=True)
        self.steps: list[tuple[float, float | None]] = []
        self.postfixes: list[str] = []
        type(self).last = self

    def advance(self, n=1.0):
        super().advance(n)
        self.steps.append((self.n, self.total))

    def set_total(self, total):
        super().set_total(total)
        self.steps.append((self.n, self.total))

    def set_postfix(self, text):
        super().set_postfix(text)
        self.postfixes.append(text)


@pytest.fixture
def recorder(monkeypatch):
    monkeypatch.setattr(progress, "Progress", Recorder)
    Recorder.last = None
    return Recorder


@pytest.fixture(scope="module")
def strata_frame():
    df = datasets.census().head(600).select("AGI", "FEDTAX", "PTOTVAL")
    return df.with_columns(r=pl.Series(["a"] * 300 + ["b"] * 200 + ["c"] * 100).shuffle(seed=3))


# -- the bar itself ------------------------------------------------------------------------------
def test_disabled_bar_is_a_silent_no_op(capsys):
    b = bar(False, "x", total=10)
    assert isinstance(b, Null) and not b.enabled
    with b, b.waiting("label"):
        b.advance(5)
        b.set_total(20)
        b.set_postfix("y")
    assert capsys.readouterr().err == ""
    with pytest.raises(polars_sdc.SDCError, match="progress must be True or False"):
        bar("yes", "x")


def test_plain_line_percentage_and_eta():
    out = io.StringIO()
    b = Progress("work", total=4, plain=True, file=out)
    b._t0 -= 10.0  # as if 10 s had passed
    b.advance(1)
    line = b.line()
    assert line.startswith("work  25% 10.") and ", ETA 30 s" in line  # 10 s for 1/4: 30 s left
    b.set_total(8)  # a revised estimate: the percentage follows
    assert " 12% " in b.line() and ", ETA 70 s" in b.line()
    b.set_postfix("stratum 2/3")
    assert b.line().endswith("stratum 2/3")
    b.close()
    text = out.getvalue()
    assert "\rwork  25%" in text and text.endswith("\r\x1b[K")  # drawn in place, erased at the end
    unknown = Progress("mdav", plain=True, file=io.StringIO())
    assert unknown.line().startswith("mdav ") and unknown.line().endswith(" s")  # elapsed time only
    unknown.close()


def test_tqdm_bar_when_installed():
    pytest.importorskip("tqdm")
    out = io.StringIO()
    with Progress("strata", total=4, unit="rows", file=out) as b:
        b.advance(2)
        b.refresh()
    assert "strata" in out.getvalue() and "50%" in out.getvalue()


def test_waiting_keeps_the_elapsed_time_moving():
    import threading

    out = io.StringIO()
    drawn = threading.Event()

    class Watch(io.StringIO):
        def write(self, text):
            if "partition" in text:
                drawn.set()
            return super().write(text)

    w = Watch()
    with Progress("mdav", plain=True, file=w) as b, b.waiting("partition"):
        assert drawn.wait(10)  # redrawn by the ticker thread while the caller is busy
    assert "mdav" in w.getvalue() and out.getvalue() == ""


# -- library calls ---------------------------------------------------------------------------------
def test_off_by_default(capsys, strata_frame):
    strata_frame.sdc.mdav(3, ["AGI", "FEDTAX"], by="r")
    strata_frame.sdc.ild(strata_frame.sdc.mdav(3, ["AGI"]), on=["AGI"])
    assert capsys.readouterr().err == ""


def test_microaggregation_reports_rows_of_finished_strata(recorder, strata_frame):
    on = ["AGI", "FEDTAX", "PTOTVAL"]
    got = strata_frame.sdc.mdav(3, on, by="r", refine="mil", progress=True)
    assert got.equals(strata_frame.sdc.mdav(3, on, by="r", refine="mil"))
    rec = recorder.last
    sizes = {"a": 300, "b": 200, "c": 100}
    order = strata_frame["r"].unique(maintain_order=True).to_list()  # strata in order of first appearance
    # each stratum: its rows grouped (MDAV), then as many units for MIL's share of its work
    expected = list(np.cumsum([2 * sizes[r] for r in order]).astype(float))
    advances = [n for n, _ in rec.steps]
    # MDAV's and MIL's kernels count while they run: the bar only moves forward, stops at the
    # end of every stratum and ends at 2 x 600 units
    assert advances == sorted(advances) and set(expected) <= set(advances) and advances[-1] == 1200
    assert all(total == 1200 for _, total in rec.steps)
    phases = [p for p in rec.postfixes if "sweep" not in p]
    assert phases == ["stratum 1/3: mdav", "stratum 1/3: mil", "stratum 2/3: mdav", "stratum 2/3: mil",
                      "stratum 3/3: mdav", "stratum 3/3: mil"]
    sweeps = [p for p in rec.postfixes if "sweep" in p]  # MIL reports every sweep, the last one changes nothing
    assert sweeps and all(re.fullmatch(r"stratum [123]/3: mil sweep \d+: \d+ changes", p) for p in sweeps)
    assert sweeps[-1].endswith(": 0 changes")
    # lazily: the same bar inside the one whole-frame step
    lazy = strata_frame.lazy().sdc.mdav(3, on, by="r", refine="mil", progress=True).collect()
    assert lazy.equals(got) and [n for n, _ in recorder.last.steps] == advances


def test_mdav_kernel_counts_rows_while_it_runs_without_the_gil():
    """The counter is written after every group with the GIL released, so another thread
    sees it move during one call (the bar's real percentage), and it ends at n."""
    from polars_sdc.microagg.mdav import partition_mdav

    X = np.random.default_rng(5).normal(size=(60_000, 3))
    partition_mdav(X[:100], 3)  # compile first
    labels, inside = _counts_while_running(lambda done: partition_mdav(X, 3, done=done), 60_000)
    assert np.array_equal(labels, partition_mdav(X, 3))
    assert all(v % 3 == 0 for v in inside)


def test_unstratified_mdav_bar_counts_rows(recorder, strata_frame):
    strata_frame.sdc.mdav(3, ["AGI", "FEDTAX"], progress=True)
    rec = recorder.last
    assert rec.total == 600 and rec.n == 600 and rec.desc == "mdav k=3"


def _counts_while_running(call, n):
    """The values another thread sees in a kernel's ``done`` counter during one call."""
    import threading

    done = np.zeros(1, dtype=np.int64)
    seen: list[int] = []
    finished = threading.Event()

    def poll():
        while not finished.is_set():
            seen.append(int(done[0]))
            finished.wait(0.0005)

    t = threading.Thread(target=poll)
    t.start()
    try:
        labels = call(done)
    finally:
        finished.set()
        t.join()
    assert done[0] == n
    inside = [v for v in seen if 0 < v < n]
    assert inside and inside == sorted(inside)
    return labels, inside


@pytest.mark.parametrize("method", ["vmdav", "npn", "grid", "kd", "kd-mdav", "vgrid"])
def test_vmdav_and_mhm_kernels_count_rows_without_the_gil(method):
    """V-MDAV counts rows grouped, the MHM orderings rows visited (n once the shortest path
    is done), written with the GIL released: another thread sees the counter move."""
    from polars_sdc.microagg.mhm import partition_mhm
    from polars_sdc.microagg.vmdav import partition_vmdav

    n = {"vmdav": 8_000, "npn": 8_000, "grid": 8_000, "vgrid": 150_000}.get(method, 200_000)
    X = np.random.default_rng(6).normal(size=(n, 3))

    def run(done=None):
        if method == "vmdav":
            return partition_vmdav(X, 3, 1.0, done=done)
        return partition_mhm(X, 3, method, done=done)

    run_small = partition_vmdav(X[:100], 3) if method == "vmdav" else partition_mhm(X[:100], 3, method)  # compile
    assert run_small.size == 100
    labels, inside = _counts_while_running(run, n)
    assert np.array_equal(labels, run())
    if method == "vmdav":  # after every group: groups have >= 3 rows
        u = np.unique(inside)
        assert np.all(np.diff(u) >= 3)


@pytest.mark.parametrize("method, extra", [("vmdav", {"gamma": 1.0}), ("mhm", {"order": "npn"}),
                                           ("mhm", {"order": "kd-mdav"})])
def test_unstratified_vmdav_and_mhm_bars_count_rows(recorder, strata_frame, method, extra):
    got = strata_frame.sdc.microaggregate(3, ["AGI", "FEDTAX"], method=method, progress=True, **extra)
    rec = recorder.last
    assert rec.total == 600 and rec.n == 600 and rec.desc == f"{method} k=3"
    assert got.equals(strata_frame.sdc.microaggregate(3, ["AGI", "FEDTAX"], method=method, **extra))


def test_unstratified_run_shows_elapsed_time(recorder, strata_frame):
    strata_frame.sdc.univariate(3, "AGI", progress=True)
    rec = recorder.last
    assert rec.total is None and rec.postfixes == ["univariate"] and rec.desc == "univariate k=3"
    with pytest.raises(polars_sdc.SDCError, match="progress must be True or False"):
        strata_frame.sdc.mdav(3, ["AGI"], progress=1)


@pytest.mark.parametrize("options", [{}, {"n_init": 1}, {"method": "gem", "max_iter": 60}])
def test_em_counts_every_pass_and_ends_at_100_percent(recorder, options):
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(-4, 1, 400), rng.normal(4, 1, 400)]
    noisy = pl.DataFrame({"x": x}).sdc.laplace(1.0, "x", seed=1)
    fit = noisy.sdc.reconstruct_gmm(2, "x", phi=1.0, progress=True, **options)
    same = noisy.sdc.reconstruct_gmm(2, "x", phi=1.0, **options)
    assert fit.loglik == same.loglik and np.array_equal(fit.means, same.means)
    rec = recorder.last
    done = [n for n, _ in rec.steps]
    assert done[-1] == fit.n_iter + fit.n_prefit  # one step per pass over the data
    assert rec.steps[-1] == (done[-1], done[-1])  # the estimate closes on the passes done: 100 %
    assert all(total is None or n <= total for n, total in rec.steps)
    assert rec.postfixes == ["K=2"]


def test_em_over_a_range_of_k(recorder):
    age = datasets.adult().select("age").head(3000).sdc.laplace(3.0, "age", seed=2)
    age.sdc.reconstruct_gmm(range(1, 4), "age", phi=3.0, progress=True, model="rotated", n_init=2)
    rec = recorder.last
    assert rec.postfixes == ["K=1", "K=2", "K=3"]
    assert rec.steps[-1][0] == rec.steps[-1][1] > 0


def test_ild_reports_each_information_amount(recorder):
    df = datasets.adult().head(400).select("age", "hours-per-week", "sex", "race")
    masked = df.sdc.mdav(4, ["age", "hours-per-week"]).sdc.recode("race", 0.1)
    rep = df.sdc.ild_report(masked, progress=True)
    assert rep == df.sdc.ild_report(masked)
    assert recorder.last.steps[-1] == (8.0, 8.0)  # 4 blocks x (original, release)
    # exponent 1 over a product distance: two more pairwise sums over distinct records
    assert df.sdc.ild(masked, exponent=1, progress=True) == df.sdc.ild(masked, exponent=1)
    assert recorder.last.steps[-1] == (10.0, 10.0)
    assert any("pairwise" in p for p in recorder.last.postfixes)


# -- the command line ------------------------------------------------------------------------------------
class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_cli_bar_only_on_a_terminal(tmp_path, capsys, monkeypatch, strata_frame):
    src, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    strata_frame.write_parquet(src)
    argv = ["anonymize", str(src), str(out), "--k", "3", "--on", "AGI,FEDTAX", "--by", "r"]
    # a pipe or a captured stream (CI logs): nothing on stderr
    assert cli.main(argv) == 0
    assert capsys.readouterr().err == ""
    # forced with --progress: a bar of the 600 rows (tqdm redraws at most every 0.2 s)
    assert cli.main(argv + ["--progress"]) == 0
    err = capsys.readouterr().err
    assert "mdav k=3" in err and "/600" in err
    monkeypatch.setattr(progress, "Progress", Recorder)
    assert cli.main(argv + ["--progress"]) == 0
    assert Recorder.last.steps[-1] == (600.0, 600.0) and Recorder.last.postfixes[-1] == "stratum 3/3: mdav"
    monkeypatch.undo()
    # a terminal: on by default, unless CI is set
    monkeypatch.delenv("CI", raising=False)
    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    assert progress.stderr_is_terminal()
    assert cli.main(argv) == 0 and "mdav k=3" in term.getvalue()
    monkeypatch.setenv("CI", "true")
    term2 = _Terminal()
    monkeypatch.setattr("sys.stderr", term2)
    assert not progress.stderr_is_terminal()
    assert cli.main(argv) == 0 and term2.getvalue() == ""
    assert cli.main(argv + ["--no-progress"]) == 0 and term2.getvalue() == ""


def test_cli_loss_progress(tmp_path, capsys):
    df = datasets.adult().head(300).select("age", "sex")
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    df.write_parquet(a)
    df.sdc.mdav(3, ["age"]).write_parquet(b)
    assert cli.main(["loss", str(a), str(b), "--on", "age,sex", "--measure", "ild", "--progress"]) == 0
    assert "ILD" in capsys.readouterr().err
    assert cli.main(["loss", str(a), str(b), "--on", "age,sex", "--measure", "ild"]) == 0
    assert capsys.readouterr().err == ""


def test_plain_line_without_tqdm(monkeypatch, capsys, strata_frame):
    """Without tqdm the bar is one line on stderr, rewritten in place and erased at the end."""
    monkeypatch.setattr(progress, "_tqdm", lambda: None)
    monkeypatch.setattr(progress, "PLAIN_INTERVAL", 0.0)  # draw every report
    strata_frame.sdc.mdav(3, ["AGI"], by="r", progress=True)
    err = capsys.readouterr().err
    assert "\rmdav k=3 100% " in err and "stratum 3/3: mdav" in err and err.endswith("\r\x1b[K")


def test_anneal_reports_its_stages(recorder, strata_frame):
    on = ["AGI", "FEDTAX"]
    opts = {"max_iter": 20_000, "stages": 4}
    got = strata_frame.sdc.mdav(3, on, refine="anneal", refine_options=opts, progress=True)
    assert got.equals(strata_frame.sdc.mdav(3, on, refine="anneal", refine_options=opts))
    assert recorder.last.postfixes == ["mdav", "anneal"] + [f"anneal stage {s}/4" for s in range(1, 5)]


def test_ild_pairwise_kernel_reports_its_share_while_it_runs():
    """The pairwise sum writes the share of pairs done with the GIL released: a thread sees
    it move inside one call, and the bar's unit ends complete."""
    import threading

    from polars_sdc.loss.ild import _pairwise

    rng = np.random.default_rng(2)
    num = rng.normal(size=(6000, 3))
    counts = np.ones(6000)
    blocks = [(2, 2.0, 1.0), (1, 1.0, 1.0)]
    _pairwise(counts[:50], num[:50], blocks, [], 1.0)  # compile first
    b = Progress("ILD", 1, plain=True, file=io.StringIO())
    seen: list[float] = []
    finished = threading.Event()
    with b.waiting("pairwise", counter="share"):
        share = polars_sdc.progress.active_counter()

        def poll():
            while not finished.is_set():
                seen.append(float(share[0]))
                finished.wait(0.0005)

        t = threading.Thread(target=poll)
        t.start()
        try:
            got = _pairwise(counts, num, blocks, [], 1.0)
        finally:
            finished.set()
            t.join()
    b.close()
    assert got == _pairwise(counts, num, blocks, [], 1.0)  # the counter changes nothing
    inside = [v for v in seen if 0.0 < v < 1.0]
    assert inside and inside == sorted(inside) and share[0] == 1.0 and b.n == 1.0
    assert polars_sdc.progress.active_counter() is None
