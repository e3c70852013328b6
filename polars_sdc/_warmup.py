"""Compile every kernel into Numba's cache ahead of use (``polars_sdc.warmup()``,
``polars-sdc warmup``): for Docker image builds, CI caches, notebook images and Spark
executors, so that no first call waits for the compiler.

Each method runs once on a tiny frame (60 rows), which compiles exactly the kernel
specialisations a call on real data uses (the method modules pass kernels one dtype per
argument); with the cache filled, a later process loads the machine code in well under a
second per method. MDAV (and MHM's kd-mdav leaves) run a brute-force kernel on small data
and a kd-tree kernel on large data (``kernels/mdav.py`` ``small_enough``); the ``-large``
entries run them on :data:`LARGE_ROWS` rows so that the kd-tree kernels are cached too. The cache is where Numba puts it: ``__pycache__`` next to the installed
kernels, or ``NUMBA_CACHE_DIR`` when set (a read-only install needs it; see
docs/first-run.md).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import polars as pl

from ._errors import SDCError
from ._signature import check_keywords

_NUM = ["a", "b", "c"]
_KEYS = ["sex", "region", "age"]
#: Rows of the frame of the ``-large`` warm-ups: MDAV on it (k = 3, 3 numeric columns and
#: one nominal) takes the kd-tree kernel, not the brute-force one.
LARGE_ROWS = 1200
#: Rows of the frame of the ``-wide`` warm-ups (11 numeric columns: the brute-force kernel
#: would take 1,200).
WIDE_ROWS = 1500


def tiny_frame(n: int = 60) -> pl.DataFrame:
    """The warm-up data: numeric a, b, c, income, integer age, string sex and region (one
    null), sampling weight w; fixed seed.

    >>> tiny_frame(4).columns
    ['a', 'b', 'c', 'age', 'income', 'sex', 'region', 'w']
    """
    rng = np.random.default_rng(0)
    region = rng.choice(["n", "s", "e", "w"], n).tolist()
    region[0] = None
    return pl.DataFrame({
        "a": rng.normal(size=n), "b": rng.normal(size=n) * 10, "c": rng.exponential(size=n),
        "age": rng.integers(16, 90, n), "income": rng.lognormal(10, 1, n),
        "sex": rng.choice(["f", "m"], n), "region": region, "w": rng.uniform(1, 50, n),
    })


def _ild(df: pl.DataFrame) -> Any:
    return df.sdc.ild(df.sdc.mdav(3, _NUM), on=_NUM)


def _bought(call: Callable[[], Any]) -> Any:
    """``call()`` with MDAV's kd-tree kernel compiled, not rented (kernels/rental.py: a first
    call on more rows than the brute-force kernel's may run that one instead)."""
    from .kernels import rental

    with rental.disabled():
        return call()


def _wide_frame() -> tuple[pl.DataFrame, list[str]]:
    """:func:`tiny_frame` of :data:`WIDE_ROWS` rows with numeric columns added up to MDAV's
    ``_WIDE`` (kernels/mdav.py: from that many columns the kd-tree kernel compiles its fused
    pass, another specialisation), and the numeric columns' names."""
    from .kernels.mdav import _WIDE

    df = tiny_frame(WIDE_ROWS)
    rng = np.random.default_rng(1)
    num = ["a", "b", "c", "age", "income", "w"]
    extra = [f"x{j}" for j in range(max(_WIDE - len(num), 0))]
    return df.with_columns(pl.Series(c, rng.normal(size=df.height)) for c in extra), num + extra


def _suppress(df: pl.DataFrame) -> Any:
    """Local suppression by both exact searches (masking/suppress.py ``SEARCH``: the
    per-record kernel is otherwise taken only where it saves more than its compile)."""
    from .masking import suppress as S

    df.sdc.suppress(3, _KEYS)
    old, S.SEARCH = S.SEARCH, "row"
    try:
        return df.sdc.suppress(3, _KEYS)
    finally:
        S.SEARCH = old


def _frequencies_many_keys(df: pl.DataFrame) -> Any:
    """Frequencies with missing keys on a key space too large for a counting array (eight
    keys of 20 values): the pairwise wildcard kernels of risk/frequencies.py."""
    rng = np.random.default_rng(0)
    wide = pl.DataFrame({f"k{j}": rng.integers(0, 20, df.height) for j in range(8)})
    wide = wide.with_columns(pl.when(pl.int_range(pl.len()) % 9 == j).then(None).otherwise(pl.col(f"k{j}"))
                             .alias(f"k{j}") for j in range(8))
    return wide.sdc.frequencies(wide.columns)


#: name -> the call that compiles its kernels (on :func:`tiny_frame`), in the order run.
WARMUPS: dict[str, Callable[[pl.DataFrame], Any]] = {
    "mdav": lambda df: df.sdc.mdav(3, _NUM + ["sex"]),
    "mdav-large": lambda df: _bought(lambda: tiny_frame(LARGE_ROWS).sdc.mdav(3, _NUM + ["sex"])),
    "mil": lambda df: df.sdc.mdav(3, _NUM, refine="mil"),
    "mil-nominal": lambda df: df.sdc.mdav(3, ["a", "sex"], refine="mil"),
    "anneal": lambda df: df.sdc.mdav(3, _NUM + ["sex"], refine="anneal",
                                     refine_options={"max_iter": 2000, "seed": 1}),
    "vmdav": lambda df: df.sdc.vmdav(3, _NUM),
    "vmdav-1d": lambda df: df.sdc.vmdav(3, "a"),
    **{f"mhm-{o}": (lambda o: lambda df: df.sdc.mhm(3, _NUM, order=o))(o)
       for o in ("npn", "grid", "vgrid", "kd", "kd-mdav")},
    # leaf_size 1,024: two leaves, so the kd split kernel compiles too (one leaf of 1,200 rows needs none)
    "mhm-kd-mdav-large": lambda df: tiny_frame(LARGE_ROWS).sdc.mhm(3, _NUM, order="kd-mdav", leaf_size=1024),
    # with a nominal column the orderings run their code paths, compiled apart from the numeric ones
    "mhm-nominal": lambda df: [df.sdc.mhm(3, _NUM + ["sex"], order=o) for o in ("npn", "grid", "kd", "kd-mdav")],
    "univariate": lambda df: df.sdc.univariate(3, "income"),
    "mil-1d": lambda df: df.sdc.univariate(3, "income", refine="mil"),
    "ilssdm": lambda df: df.sdc.ilssdm(_NUM, groups=df.sdc.partition(3, _NUM)),
    "ild": _ild,
    "risk": lambda df: df.sdc.risk(_KEYS, weight="w"),
    "suda": lambda df: df.sdc.suda(_KEYS),
    "pram": lambda df: df.sdc.pram("sex", seed=1),
    "rank_swap": lambda df: df.sdc.rank_swap(_NUM, p=0.05, seed=1),
    "add_noise": lambda df: df.sdc.add_noise(_NUM, seed=1),
    "laplace": lambda df: df.sdc.laplace(1.0, _NUM, seed=1),
    "reconstruct_gmm": lambda df: df.sdc.laplace(1.0, "a", seed=1).sdc.reconstruct_gmm(2, "a", phi=1.0),
    "recode_utility": lambda df: df.sdc.recode_utility("sex", ["region"], p=0.3),
    # numeric and nominal data compile separate specialisations of V-MDAV and annealing
    # (numeric data compiles none of the nominal code)
    "vmdav-nominal": lambda df: df.sdc.vmdav(3, _NUM + ["sex"]),
    "anneal-numeric": lambda df: df.sdc.mdav(3, _NUM, refine="anneal", refine_options={"max_iter": 2000, "seed": 1}),
    # so do MDAV's two kernels (numeric data: codes=None, kernels/mdav.py)
    "mdav-numeric": lambda df: df.sdc.mdav(3, _NUM),
    "mdav-large-numeric": lambda df: _bought(lambda: tiny_frame(LARGE_ROWS).sdc.mdav(3, _NUM)),
    # and so does the kd-tree kernel on many columns (p + mc >= _WIDE: its fused pass)
    "mdav-large-wide": lambda df: _bought(lambda: (lambda w, num: w.sdc.mdav(3, num[1:] + ["sex"]))(*_wide_frame())),
    "mdav-large-wide-numeric": lambda df: _bought(lambda: (lambda w, num: w.sdc.mdav(3, num))(*_wide_frame())),
    "suppress": _suppress,
    "frequencies-many-keys": _frequencies_many_keys,
}


@check_keywords
def warmup(methods: Sequence[str] | None = None, *, progress: Any = True) -> dict[str, float]:
    """Compile the kernels of ``methods`` (names of :data:`WARMUPS`; default all) into
    Numba's cache, each by one call on :func:`tiny_frame`, with a progress bar (``progress``);
    returns the seconds each took (compiling, or loading from the cache when already there).

    >>> import polars_sdc
    >>> seconds = polars_sdc.warmup(["univariate"], progress=False)
    >>> list(seconds)
    ['univariate']
    """
    from .progress import bar

    names = list(WARMUPS) if methods is None else list(methods)
    unknown = [m for m in names if m not in WARMUPS]
    if unknown:
        raise SDCError(f"warmup: unknown method(s) {', '.join(map(repr, unknown))}; known: {', '.join(WARMUPS)}")
    df = tiny_frame()
    out: dict[str, float] = {}
    with bar(progress, "warmup", total=len(names), unit="method") as pb:
        for name in names:
            pb.set_postfix(name)
            t = time.perf_counter()
            with pb.waiting():
                WARMUPS[name](df)
            out[name] = time.perf_counter() - t
            pb.advance(1)
    return out
