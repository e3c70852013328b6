import os

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, settings

import polars_sdc  # noqa: F401  (registers the namespaces)
from polars_sdc import SDCError

# No "compiling kernels" line on stderr in tests that check stderr (a cold cache compiles
# inside them); tests/test_compile_notice.py turns it on in its own processes.
os.environ.setdefault("POLARS_SDC_COMPILE_NOTICE", "0")

# Hypothesis profiles. "default": hypothesis' own behaviour (random examples, each test's own
# max_examples). "ci": the same examples on every run (derandomize), no example database, no
# deadline -- chosen automatically when the CI environment variable is set. "nightly": many
# more examples (each test's own max_examples times NIGHTLY_FACTOR) and larger inputs where a
# test asks `size(small, large)`; run by tools/nightly.py. Select one explicitly with
# HYPOTHESIS_PROFILE=name or pytest's --hypothesis-profile=name.
NIGHTLY_FACTOR = 10
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile(
    "nightly", max_examples=1000, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_profile = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else None)
if _profile:
    settings.load_profile(_profile)


def nightly() -> bool:
    """True when the heavy "nightly" hypothesis profile is active."""
    return settings().max_examples >= settings.get_profile("nightly").max_examples


def size(small: int, large: int) -> int:
    """An input-size bound for a property test: ``small`` normally, ``large`` in the nightly run."""
    return large if nightly() else small



def assert_one_line_sdc_error(exc: BaseException) -> None:
    """What a fuzz test accepts instead of a result: an SDCError whose message is one line
    (never another exception type, a traceback-like message or a crash)."""
    assert isinstance(exc, SDCError), f"{type(exc).__name__}: {exc}"
    assert "\n" not in str(exc).strip(), str(exc)


def assert_k_anonymous(out: pl.DataFrame, keys, k, alpha: float = 1.0, subsets=None, by=None) -> None:
    """Every key combination of ``out`` (on ``keys``, or on each of ``subsets``; within each
    stratum of ``by``) has a frequency >= ``k`` under the shared missing-value rule
    (``k_anonymity``, i.e. sdcMicro's freqCalc with ``alpha``)."""
    parts = out.partition_by(by) if by else [out]
    for sub in subsets or [keys]:
        for part in parts:
            assert part.sdc.k_anonymity(list(sub), alpha=alpha) >= k, sub


def assert_suppressed_release(df: pl.DataFrame, out: pl.DataFrame, keys, k, alpha: float = 1.0, subsets=None,
                              by=None) -> None:
    """``out`` is a local-suppression release of ``df``: the same rows, columns and dtypes; on
    the ``keys`` only nulls introduced (no value changed, no null filled); every other column
    untouched; and :func:`assert_k_anonymous`."""
    assert out.height == df.height and out.columns == df.columns and out.schema == df.schema
    for c in df.columns:
        if c in keys:
            kept = out[c].is_not_null()
            assert out[c].filter(kept).equals(df[c].filter(kept))
            assert (df[c].is_null() <= out[c].is_null()).all()
        else:
            assert out[c].equals(df[c])
    assert_k_anonymous(out, keys, k, alpha, subsets, by)


# -- running on several CPUs (pytest-xdist; pyproject.toml's addopts say "-n auto") ----------------
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """The number of workers of ``-n auto``: one per available CPU for a run of the whole suite or
    of a folder; none (one process, as without xdist) for a run that names test files or tests --
    there a second worker's start-up and its own Numba compiles cost more than they save.
    ``-n N`` forces N workers, ``-n 0`` one process; PYTEST_XDIST_AUTO_NUM_WORKERS=N sets what
    auto means (docs/speed.md)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").isdigit():
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    if not _whole_suite(config):
        return 0
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _whole_suite(config) -> bool:
    """A run of the whole suite (no arguments: the testpaths) or of a folder, not of named files or tests."""
    return config.args_source != pytest.Config.ArgsSource.ARGS or any(
        os.path.isdir(arg.split("::")[0]) for arg in config.args)


# Compiling the kernels once, before the workers start. On a cold Numba cache each worker (and
# each Spark Python worker and notebook process) compiles a kernel it needs that is not yet
# cached, so kernels both workers need at the start compile twice or more. In a run of the
# whole suite on several workers (tests/test_warmup.py runs every warm-up call anyway) the
# controller first runs polars_sdc.warmup() in two processes, one half of the methods each,
# writing the cache the workers then load; not when the cache already holds the kernels, and
# never for a run of named files. POLARS_SDC_TEST_PREWARM=0 turns it off, =1 forces it.
# The halves: about equal compile time (90 s of CPU in all, cold; benchmarks/README.md, "Session
# 27"): MDAV, MIL and annealing (which share kernels) in one, every other warm-up in the other.
FIRST_HALF = ("mdav", "mdav-large", "mil", "mil-nominal", "anneal", "mil-1d", "anneal-numeric", "mdav-numeric",
              "mdav-large-numeric", "mdav-large-wide", "mdav-large-wide-numeric", "ilssdm", "ild")


def prewarm_halves() -> tuple[list[str], list[str]]:
    """The two lists of :data:`polars_sdc._warmup.WARMUPS` names the two warm-up processes run."""
    from polars_sdc._warmup import WARMUPS

    return [m for m in WARMUPS if m in FIRST_HALF], [m for m in WARMUPS if m not in FIRST_HALF]


def _kernels_cached() -> bool:
    """True when Numba's cache (NUMBA_CACHE_DIR, else __pycache__ beside the kernels) holds an
    index for a few kernels of each half (compiled late in it): a warm cache, nothing to prepare."""
    from polars_sdc.kernels import anneal, compiled_or_cached, laplace_em, mdav, suda

    return all(compiled_or_cached(k) for k in (mdav._tree_rounds, anneal.anneal_stage, laplace_em.em_pass,
                                                suda._msu_scores))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    config = session.config
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    want = os.environ.get("POLARS_SDC_TEST_PREWARM")
    workers = len(config.getoption("tx", None) or []) if config.getoption("dist", "no") != "no" else 0
    if want != "1" and (want == "0" or workers < 2 or config.option.collectonly or not _whole_suite(config)
                        or _kernels_cached()):
        return
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(polars_sdc.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])]))
    code = "import sys, polars_sdc; polars_sdc.warmup(sys.argv[1:], progress=False)"
    procs = [subprocess.Popen([sys.executable, "-c", code, *half], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for half in prewarm_halves()]
    for proc in procs:              # a failure only means the workers compile what they need themselves
        err = proc.communicate()[1]
        if proc.returncode:
            print(f"tests/conftest.py: the kernel warm-up failed ({err.strip().splitlines()[-1:]})")


def _work_unit(nodeid: str) -> str:
    """What one worker runs as a whole: the Spark tests (one JVM, started once: the files
    test_spark*.py and, in other files, the tests named test_spark_*), each notebook (its own
    interpreter), and otherwise a file -- its tests share kernels and module fixtures, which
    two workers would both compile cold (Numba's disk cache only helps the later one)."""
    path = nodeid.split("::")[0]
    if os.path.basename(path).startswith("test_spark") or "::test_spark_" in nodeid:
        return "spark"
    return nodeid if os.path.basename(path) == "test_notebook_figures.py" else path


#: files with one long test (test_readme.py: the README and every docs page in one namespace):
#: early, not last with one worker idle
HEAVY_FILES = ("test_readme.py",)


def _heavy_first(item) -> int:
    """The long units first (the Spark tests, the notebooks, the README and docs pages, the
    files of :data:`HEAVY_FILES`), so no worker ends the run alone with one of them."""
    unit = _work_unit(item.nodeid)
    return 0 if unit == "spark" else 1 if unit == item.nodeid else 2 if unit.endswith(HEAVY_FILES) else 3


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ByWorkUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return _work_unit(nodeid)

    config.option.loadscopereorder = False  # keep the order of the collection (heavy units first)
    return ByWorkUnit(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the order the workers are given the units in
        items.sort(key=_heavy_first)
    # a test's own @settings(max_examples=...) overrides the profile; in the nightly profile
    # scale it up instead, so every property test runs NIGHTLY_FACTOR times as many examples
    if not nightly():
        return
    for item in items:
        fn = getattr(item, "obj", None)
        inner = getattr(getattr(fn, "hypothesis", None), "inner_test", None)
        own = getattr(inner, "_hypothesis_internal_use_settings", None) or getattr(
            fn, "_hypothesis_internal_use_settings", None)
        if own is None:
            continue
        scaled = settings(own, max_examples=own.max_examples * NIGHTLY_FACTOR, deadline=None)
        for target in (fn, inner):
            if target is not None and hasattr(target, "_hypothesis_internal_use_settings"):
                target._hypothesis_internal_use_settings = scaled


def small_hierarchy(draw, name: str, n_values: int) -> list[list[str]]:
    """A random generalisation hierarchy (hypothesis ``draw``) of ``n_values`` values
    ``name0, name1, ...``: 1-3 levels of merged labels, then ``*`` -- for the brute-force checks
    of the lattice search (tests/test_generalize*.py)."""
    from hypothesis import strategies as st

    vals = [f"{name}{i}" for i in range(n_values)]
    levels = [vals]
    cur = list(range(n_values))
    for j in range(draw(st.integers(1, 3)) - 1):
        n_cur = max(cur) + 1          # merge labels: each label id maps to a coarser id
        to = draw(st.lists(st.integers(0, max(0, n_cur - 2)), min_size=n_cur, max_size=n_cur))
        cur = [to[x] for x in cur]
        levels.append([f"{name}L{j + 1}_{x}" for x in cur])
    levels.append(["*"] * n_values)
    return levels


@pytest.fixture
def sunk_frames(monkeypatch):
    """The type of every frame the CLI writes (``cli._sink`` spied on, then called): a command
    that keeps the pipeline lazy sinks one LazyFrame."""
    from polars_sdc import cli

    seen = []
    real = cli._sink

    def spy(frame, path, fmt=None):
        seen.append(type(frame))
        return real(frame, path, fmt)

    monkeypatch.setattr(cli, "_sink", spy)
    return seen


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
