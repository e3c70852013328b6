"""Targeted record swapping (sdcMicro 5.8.1 ``recordSwap``, J. Gussenbauer's C++ in
``src/recordSwap/``; the method census offices use for their geographic detail).

Households are swapped as whole units between the areas of a geographic ``hierarchy``
(coarsest first, e.g. region > district > municipality; an area at level ``h`` is a
combination of the first ``h + 1`` hierarchy values, so the levels nest). Swapping exchanges
the hierarchy values (and the ``carry_along`` columns) of two households for all their
members; every other column stays with its row.

1. **Risk.** For every person and level ``h``, ``count`` = persons with the same values of
   ``risk_variables`` in the same level-``h`` area; a household's risk at ``h`` is the
   largest ``1 / count`` of its members. A household is *at risk at level h* from the first
   (coarsest) level where ``count < k_anonymity`` for a member (``k_anonymity = 0``: none);
   it will be swapped with a household of another level-``h`` area. Instead of counts,
   ``risk`` gives one column of risks per level (household risk = members' maximum; at risk
   where it exceeds ``risk_threshold``, by default ``1 / k_anonymity``).
2. **Quota.** ``swaprate`` is the share of households to swap; a swap moves two, so
   ``floor`` or ``ceil`` (a coin) of ``H * swaprate / 2`` households are *selected*,
   distributed over the lowest-level areas in proportion to their households (fractions
   rounded down, the missing units given to randomly chosen areas).
3. **Swapping, coarsest level first.** At each level above the lowest, the households at
   risk there (by area, then id) are selected. At the lowest level each area selects its
   households at risk there plus, while its quota (minus its households already selected
   higher up) allows, households sampled with probability proportional to their risk
   (weighted sampling without replacement by the keys ``risk / Exp(1)``, Efraimidis &
   Spirakis). Each selected household gets the first *donor* in descending ``risk / Exp(1)``
   order at that level that is not yet swapped, lies in another area at that level and has
   the selected household's values of ``similar[0]``; if none, of ``similar[1]``, and so on
   (sdcMicro's fallback order); with no donor it stays unswapped and is reported (it may
   still be taken as a donor at a finer level later, as in sdcMicro). Both households of a
   swap are then done; each household is swapped at most once.

Randomness: every draw comes from :mod:`polars_sdc.rng`, keyed by household (the
``household`` column's value, or a household-level ``key`` column): streams
``swap_records/donor{h}`` (the donor keys of level ``h``), ``swap_records/select`` (the
sampling keys), ``swap_records/total`` (the coin) and ``swap_records/extra`` (areas getting
a rounded-up quota, keyed by their first household). Households are ordered by id and areas
by value, so the result does not depend on the order of the rows.

Differences from sdcMicro, each deliberate: a donor is always from another area at the
swap's level (sdcMicro also accepts a household of the same area that failed to find a
donor earlier); households of zero risk (``risk=`` columns) are never selected or used as
donors (sdcMicro's documented intent; its code drops all but one of them by a key
collision); ``similar=None`` (or an empty profile ``[]``) accepts any donor; ``similar``,
``carry_along`` and ``key`` must be household-level (constant within every household: a
person-level value cannot move with its household; sdcMicro warns and moves the first
member's value); nulls in ``risk_variables`` / ``similar`` are a category of their own
(sdcMicro refuses NA); the log file of households without donor is the ``swap_records_plan``
frame (and a warning). Not carried over: ``distributeDraws2`` (a risk-weighted quota, dead
code in sdcMicro 5.8.1), the sdcMicroObj method, and column indices instead of names.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .. import rng
from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError
from .._validation import check_int, check_real
from ..household import household_keys
from ._common import check_fraction, check_seed, seed_or_fresh, uniform

PLAN_COLUMNS = ("partner", "level", "role", "risk_level")


@dataclass(frozen=True)
class RecordSwapSpec:
    """The checked arguments of a record swap (see the module docstring)."""

    household: str
    hierarchy: tuple[str, ...]
    similar: tuple[tuple[str, ...], ...]
    swaprate: float
    k_anonymity: int
    risk_variables: tuple[str, ...]
    risk: tuple[str, ...]
    risk_threshold: float | None
    carry_along: tuple[str, ...]
    swapped_column: str | None
    seed: int | None
    key: str | None

    def household_level(self) -> dict[str, str]:
        """Columns that must be constant within every household, with their role."""
        out = {c: "hierarchy" for c in self.hierarchy}
        out.update({c: "similar" for prof in self.similar for c in prof if c not in out})
        out.update({c: "carry_along" for c in self.carry_along if c not in out})
        if self.key is not None and self.key != self.household and self.key not in out:
            out[self.key] = "key"
        return out


def _codable(schema: pl.Schema, cols: list[str], what: str) -> None:
    for c in cols:
        t = schema[c]
        if isinstance(t, (pl.Object, pl.Struct, pl.List, pl.Array)) or t == pl.Null:
            raise SDCError(f"column {c!r}: dtype {t} cannot be a `{what}` column; use a number, string, "
                           "categorical or date")


def _similar(schema: pl.Schema, similar: Any) -> tuple[tuple[str, ...], ...]:
    if similar is None:
        return ((),)
    if isinstance(similar, str) or (isinstance(similar, pl.Expr)):
        return (tuple(resolve_columns(schema, similar, what="similar")),)
    if not isinstance(similar, (list, tuple)):
        raise SDCError(f"`similar`: expected a column name, a list of names or a list of such lists, got "
                       f"{type(similar).__name__}")
    if not similar:
        return ((),)
    if all(isinstance(s, str) for s in similar):
        return (tuple(resolve_columns(schema, list(similar), what="similar")),)
    out = []
    for prof in similar:
        if isinstance(prof, str):
            prof = [prof]
        if not isinstance(prof, (list, tuple)):
            raise SDCError(f"`similar`: a profile must be a list of column names, got {prof!r}")
        out.append(tuple(resolve_columns(schema, list(prof), what="similar")) if prof else ())
    return tuple(out)


def record_swap_spec(
    schema: pl.Schema, *, household: str, hierarchy: ColumnSpec, similar: Any = None, swaprate: float = 0.05,
    k_anonymity: int = 3, risk_variables: ColumnSpec = None, risk: ColumnSpec = None,
    risk_threshold: float | None = None, carry_along: ColumnSpec = None, swapped_column: str | None = None,
    seed: int | None = None, key: str | None = None,
) -> RecordSwapSpec:
    """Every argument of :func:`swap_records_frame` checked against ``schema`` (done when a lazy
    step is planned, so a bad plan fails when it is written).

    >>> s = record_swap_spec(pl.Schema({"hid": pl.Int64, "region": pl.String}), household="hid",
    ...                      hierarchy="region", swaprate=1.5)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: swaprate must be a number in [0.0, 1.0], got 1.5
    """
    if not isinstance(household, str):
        raise SDCError(f"household must be a column name, got {household!r}")
    if household not in schema:
        raise SDCError(f"household column {household!r}: not in the frame (columns: {', '.join(schema.names())})")
    hier = resolve_columns(schema, hierarchy, what="hierarchy", default="error")
    sim = _similar(schema, similar)
    rate = check_fraction("swaprate", swaprate)
    k = check_int(k_anonymity, "k_anonymity", minimum=0)
    rv = [] if risk_variables is None else resolve_columns(schema, risk_variables, what="risk_variables")
    if risk is None:
        rk = []
    elif isinstance(risk, (list, tuple)):      # one column per level; a column may serve several levels
        rk = [c for r in risk for c in resolve_columns(schema, r, kind="numeric", what="risk")]
    else:
        rk = resolve_columns(schema, risk, kind="numeric", what="risk")
    if rk and rv:
        raise SDCError("give `risk_variables` (risk from counts) or `risk` (risk columns), not both")
    if rk and len(rk) != len(hier):
        raise SDCError(f"`risk`: {len(rk)} column(s) for {len(hier)} hierarchy level(s); "
                       "give one risk column per level")
    thr = None
    if risk_threshold is not None:
        if not rk:
            raise SDCError("risk_threshold is only used with `risk` columns (with counts, k_anonymity sets the rule)")
        thr = check_real(risk_threshold, "risk_threshold", minimum=0.0)
    carry = [] if carry_along is None else resolve_columns(schema, carry_along, what="carry_along")
    for c in hier + rv + rk + carry + [p for prof in sim for p in prof]:
        if c == household:
            raise SDCError(f"column {household!r}: the household column cannot also be a hierarchy, similar, "
                           "risk or carry_along column")
    for c in carry:
        if c in hier:
            raise SDCError(f"column {c!r}: in both `hierarchy` and `carry_along`; hierarchy columns move anyway")
    if swapped_column is not None:
        if not isinstance(swapped_column, str):
            raise SDCError(f"swapped_column must be a column name, got {swapped_column!r}")
        if swapped_column in schema:
            raise SDCError(f"swapped_column {swapped_column!r}: a column of that name is already in the frame")
    seed = check_seed(seed)
    if key is not None:
        if not isinstance(key, str):
            raise SDCError(f"key must be a column name, got {key!r}")
        if key not in schema:
            raise SDCError(f"key column {key!r}: not in the frame")
        if key in carry or key in hier:
            raise SDCError(f"key column {key!r}: is moved by the swap; the key identifies households and stays")
    _codable(schema, [household] + ([key] if key else []), "household / key")
    _codable(schema, hier, "hierarchy")
    _codable(schema, rv, "risk_variables")
    _codable(schema, [p for prof in sim for p in prof], "similar")
    return RecordSwapSpec(household, tuple(hier), sim, rate, k, tuple(rv), tuple(rk), thr, tuple(carry),
                          swapped_column, seed, key)


def _dense(s: pl.Series) -> np.ndarray:
    """Codes 0..U-1 of ``s`` in sorted-value order (nulls first), int64."""
    if isinstance(s.dtype, pl.Categorical):
        s = s.cast(pl.String)
    r = s.rank("dense")
    if s.null_count():
        r = r.fill_null(0)
    else:
        r = r - 1
    return r.cast(pl.Int64).to_numpy()


def _combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dense codes of the pairs ``(a, b)`` of non-negative codes, in lexicographic order
    (int64): ``a * (max b + 1) + b`` ranked by a presence table when its range is small (no
    sort), else by ``np.unique``."""
    if a.size == 0:
        return a.astype(np.int64)
    x = a * (int(b.max()) + 1) + b
    top = int(x.max()) + 1
    if top <= 4 * x.size + 1024:
        present = np.zeros(top, dtype=np.int64)
        present[x] = 1
        return (np.cumsum(present) - 1)[x]
    return np.unique(x, return_inverse=True)[1].astype(np.int64).reshape(-1)


@dataclass
class _Households:
    """The frame seen per household (indices 0..H-1 in household-id order)."""

    hrow: np.ndarray        # household index of every row
    rep: np.ndarray         # a representative (the first) row of every household
    order: np.ndarray       # rows grouped by household (stable)
    starts: np.ndarray      # household i's rows: order[starts[i]:starts[i + 1]]


def _households(df: pl.DataFrame, household: str) -> _Households:
    hrow = _dense(df.get_column(household))
    order = np.argsort(hrow, kind="stable")
    H = int(hrow.max()) + 1 if hrow.size else 0
    starts = np.zeros(H + 1, dtype=np.int64)
    np.cumsum(np.bincount(hrow, minlength=H), out=starts[1:])
    return _Households(hrow, order[starts[:-1]], order, starts)


def _check_data(df: pl.DataFrame, spec: RecordSwapSpec) -> None:
    for c in (spec.household, *spec.hierarchy, *([spec.key] if spec.key else [])):
        n = df.get_column(c).null_count()
        if n:
            raise SDCError(f"column {c!r}: {n} null value(s); every person needs a household and an area")
    for c in spec.hierarchy:   # NaN is no area either (it made one area of all NaN rows)
        s = df.get_column(c)
        if s.dtype.is_float() and s.is_nan().any():
            raise SDCError(f"column {c!r}: {int(s.is_nan().sum())} NaN value(s); every person needs a household and "
                           "an area")
    for c in (spec.household, *([spec.key] if spec.key else [])):
        s = df.get_column(c)
        if s.dtype.is_float() and s.is_nan().any():
            raise SDCError(f"column {c!r}: {int(s.is_nan().sum())} NaN id(s); every person needs a household id "
                           "(NaN would make one household of all of them)")
    for c in spec.risk:
        s = df.get_column(c)
        if s.null_count():
            raise SDCError(f"column {c!r}: {s.null_count()} null value(s); a risk is needed in every row")
        x = s.cast(pl.Float64)
        if not x.is_finite().all():
            raise SDCError(f"column {c!r}: NaN or infinite risk; risks are finite numbers >= 0")
        if (x < 0).any():
            raise SDCError(f"column {c!r}: negative risk {x.min()}; risks are numbers >= 0")


def _check_household_level(df: pl.DataFrame, spec: RecordSwapSpec, hh: _Households) -> None:
    rep_of_row = pl.Series(hh.rep[hh.hrow])
    for c, role in spec.household_level().items():
        s = df.get_column(c)
        bad = s.ne_missing(s.gather(rep_of_row))
        if bad.any():
            i = int(bad.arg_true()[0])
            j = int(hh.rep[hh.hrow[i]])
            raise SDCError(
                f"column {c!r}: not constant within household {spec.household} = {df[spec.household][i]!r} "
                f"({s[j]!r} and {s[i]!r}); `{role}` columns must be household-level")


@dataclass
class SwapResult:
    """Per household (id order): the partner index (-1: none), the level of the swap (-1),
    whether it was the selected side, whether no donor was found, its risk level (L: none)."""

    partner: np.ndarray
    swap_level: np.ndarray
    selected: np.ndarray
    failed: np.ndarray
    risk_level: np.ndarray


def _areas(df: pl.DataFrame, spec: RecordSwapSpec, hh: _Households) -> np.ndarray:
    """(levels, households): each household's area code at each level, prefix codes in
    lexicographic order (the hierarchy is household-level, checked)."""
    H, L = hh.rep.shape[0], len(spec.hierarchy)
    area = np.zeros((L, H), dtype=np.int64)
    prev = np.zeros(H, dtype=np.int64)
    rep_s = pl.Series(hh.rep)
    for h, c in enumerate(spec.hierarchy):
        prev = _combine(prev, _dense(df.get_column(c).gather(rep_s)))
        area[h] = prev
    return area


def _smallest_counts(df: pl.DataFrame, columns: Sequence[str], area: np.ndarray, hh: _Households) -> np.ndarray:
    """(households, levels): the smallest number, over a household's members, of persons with
    the member's values of ``columns`` in its level-h area (step 1 of the module docstring)."""
    L, H = area.shape
    mn = np.zeros((H, L), dtype=np.int64)
    rv = np.zeros(df.height, dtype=np.int64)
    for c in columns:
        rv = _combine(rv, _dense(df.get_column(c)))
    for h in range(L):
        g = _combine(rv, area[h][hh.hrow])
        cnt = np.bincount(g)[g][hh.order]
        if H:
            mn[:, h] = np.minimum.reduceat(cnt, hh.starts[:-1])
    return mn


#: The realised share of swapped households above which :func:`swap_households` warns that
#: the households at risk, not ``swaprate``, decided it: twice the rate and 10 points above it.
OVERSWAP_FACTOR, OVERSWAP_POINTS = 2.0, 0.10


def _warn_overswap(df: pl.DataFrame, spec: RecordSwapSpec, hh: _Households, res: SwapResult) -> None:
    """A UserWarning when far more households are swapped than ``swaprate`` asks (sdcMicro's
    rule: every household at risk is swapped, the rate is a floor) because many are at risk,
    naming the risk variables responsible: each with its number of values and the households
    at risk without it (a key with many levels, exact age, puts most households at risk)."""
    H, L = hh.rep.shape[0], len(spec.hierarchy)
    swapped = int((res.partner >= 0).sum())
    at_risk = int((res.risk_level < L).sum())
    share = swapped / H if H else 0.0
    if not H or share <= max(OVERSWAP_FACTOR * spec.swaprate, spec.swaprate + OVERSWAP_POINTS) \
            or at_risk <= H * spec.swaprate:
        return
    head = (f"swap_records: {swapped:,} of {H:,} households ({100 * share:.0f} %) swapped at swaprate "
            f"{spec.swaprate:g}: {at_risk:,} households are at risk and every one is swapped (sdcMicro's "
            "recordSwap: the rate is a floor)")
    if spec.risk:
        warnings.warn(f"{head}: their risk in {', '.join(map(repr, spec.risk))} exceeds risk_threshold (1 / "
                      "k_anonymity by default); raise risk_threshold or revise the risks", UserWarning, stacklevel=4)
        return
    area = _areas(df, spec, hh)
    named = []
    for c in spec.risk_variables:
        rest = [v for v in spec.risk_variables if v != c]
        left = int(((_smallest_counts(df, rest, area, hh) < spec.k_anonymity).any(axis=1)).sum())
        named.append((left, c, df.get_column(c).n_unique()))
    named.sort()
    who = "; ".join(f"{c!r} ({values:,} values; without it {left:,} households at risk)"
                    for left, c, values in named[:3])
    warnings.warn(f"{head}, a member's combination of risk_variables being shared by fewer than "
                  f"k_anonymity = {spec.k_anonymity} persons in its area. The risk variables responsible: {who}. "
                  "Recode them (e.g. age in bands), lower k_anonymity, or give risk_variables= without them",
                  UserWarning, stacklevel=4)


def prepare(df: pl.DataFrame, spec: RecordSwapSpec, hh: _Households, seed: int) -> dict[str, Any]:
    """The kernel's inputs (see :func:`polars_sdc.kernels.record_swap.record_swap_partners`)
    from the frame: areas, risk levels, profiles, donor and sampling orders, quotas."""
    H, L = hh.rep.shape[0], len(spec.hierarchy)
    rep = hh.rep
    area = _areas(df, spec, hh)
    # risk per household and level
    prob = np.zeros((H, L))
    at_risk = np.zeros((H, L), dtype=np.bool_)
    sorted_starts = hh.starts[:-1]
    if spec.risk:
        for h, c in enumerate(spec.risk):
            x = df.get_column(c).cast(pl.Float64).to_numpy()[hh.order]
            prob[:, h] = np.maximum.reduceat(x, sorted_starts) if H else prob[:, h]
        thr = spec.risk_threshold
        if thr is None:
            thr = 1.0 / spec.k_anonymity if spec.k_anonymity > 0 else math.inf
        at_risk = prob > thr
    else:
        mn = _smallest_counts(df, spec.risk_variables, area, hh)
        prob[:] = 1.0 / mn
        at_risk[:] = mn < spec.k_anonymity
    level = np.where(at_risk.any(axis=1), at_risk.argmax(axis=1), L).astype(np.int64)
    # similarity profiles, per household
    P = len(spec.similar)
    simc = np.zeros((P, H), dtype=np.int64)
    for p, prof in enumerate(spec.similar):
        code = np.zeros(H, dtype=np.int64)
        for c in prof:
            code = _combine(code, _dense(df.get_column(c).gather(rep)))
        simc[p] = code
    # household keys and draws
    keycol = df.get_column(spec.key or spec.household).gather(rep)
    dup = keycol.filter(keycol.is_duplicated())
    if dup.len():
        raise SDCError(f"key column {spec.key!r}: value {dup[0]!r} is shared by two households; a key must "
                       "identify one household")
    hk = household_keys(keycol)
    idx = np.arange(H, dtype=np.int64)
    ncode = int(simc.max()) + 1 if H else 0
    dl = np.zeros((L, P, H), dtype=np.int64)
    bstart = np.zeros((L, P, ncode + 2), dtype=np.int64)
    elig = prob.T > 0
    pair_own = np.zeros((L, P, H), dtype=np.int64)      # (profile code, level-h area) pair of each household
    pair_free = np.zeros((L, P, H), dtype=np.int64)     # free eligible donors per pair
    bucket_free = np.zeros((L, P, ncode + 1), dtype=np.int64)
    for h in range(L):
        dkey = prob[:, h] / -np.log(uniform(seed, rng.stream("swap_records_donor", level=h), hk))
        ok = elig[h]
        for p in range(P):
            b = np.where(ok, simc[p], ncode)
            dl[h, p] = np.lexsort((idx, -dkey, b))
            np.cumsum(np.bincount(b, minlength=ncode + 1), out=bstart[h, p, 1:])
            pair_own[h, p] = _combine(simc[p], area[h])
            pair_free[h, p] = np.bincount(pair_own[h, p][ok], minlength=H)[:H]
            bucket_free[h, p] = np.bincount(simc[p][ok], minlength=ncode + 1)
    # levels above the lowest: households at risk there, by area then id
    forced_seq, forced_off = [], [0]
    for h in range(L - 1):
        ids = np.flatnonzero(level == h)
        forced_seq.append(ids[np.lexsort((ids, area[h, ids]))])
        forced_off.append(forced_off[-1] + ids.size)
    forced_seq = np.concatenate(forced_seq) if forced_seq else np.zeros(0, dtype=np.int64)
    # lowest level: per area, at risk (by id), then by descending sampling key
    last = area[L - 1]
    n_area = int(last.max()) + 1 if H else 0
    skey = prob[:, L - 1] / -np.log(uniform(seed, rng.stream("swap_records_select"), hk))
    klass = np.where(level == L - 1, 0, np.where(prob[:, L - 1] > 0, 1, 2)).astype(np.int64)
    last_seq = np.lexsort((idx, np.where(klass == 0, 0.0, -skey), klass, last))
    last_off = np.zeros(n_area + 1, dtype=np.int64)
    np.cumsum(np.bincount(last, minlength=n_area), out=last_off[1:])
    # quota per lowest area (sdcMicro distributeDraws)
    coin = uniform(seed, rng.stream("swap_records_total"), np.zeros(1, dtype=np.uint64))[0] < 0.5
    total = math.ceil(H * spec.swaprate / 2) if coin else math.floor(H * spec.swaprate / 2)
    size = np.bincount(last, minlength=n_area)
    share = size / H * total if H else np.zeros(0)
    draws = np.floor(share).astype(np.int64)
    excess = int(round(float((share - draws).sum())))
    if excess > 0:
        first = np.full(n_area, H, dtype=np.int64)
        np.minimum.at(first, last, idx)
        u = uniform(seed, rng.stream("swap_records_extra"), hk[first])
        draws[np.lexsort((np.arange(n_area), u))[:excess]] += 1
    inputs = dict(area=area, level=level, simc=simc, dl=dl, bstart=bstart, forced_seq=forced_seq.astype(np.int64),
                  forced_off=np.array(forced_off, dtype=np.int64), last_seq=last_seq.astype(np.int64),
                  last_off=last_off, last_class=klass, draws=draws, elig=elig, pair_own=pair_own,
                  pair_free=pair_free, bucket_free=bucket_free)
    return inputs


def swap_households(df: pl.DataFrame, spec: RecordSwapSpec) -> tuple[_Households, SwapResult]:
    """Run the swap: per household, its partner and the level of the swap."""
    if df.height == 0:
        e = np.zeros(0, dtype=np.int64)
        return _Households(e, e, e, np.zeros(1, dtype=np.int64)), SwapResult(e, e, e.astype(bool), e.astype(bool), e)
    _check_data(df, spec)
    hh = _households(df, spec.household)
    _check_household_level(df, spec, hh)
    inputs = prepare(df, spec, hh, seed_or_fresh(spec.seed))
    from ..kernels.record_swap import record_swap_partners

    partner, swap_level, selected, failed = record_swap_partners(**inputs)
    res = SwapResult(partner, swap_level, selected, failed, inputs["level"])
    nf = int(failed.sum())
    if nf:
        warnings.warn(f"swap_records: no donor found for {nf} household(s) selected for swapping; they are "
                      "released unswapped (swap_records_plan lists them with a null partner)", UserWarning,
                      stacklevel=3)
    _warn_overswap(df, spec, hh, res)
    return hh, res


def swap_records_frame(
    df: pl.DataFrame, *, household: str, hierarchy: ColumnSpec, similar: Any = None, swaprate: float = 0.05,
    k_anonymity: int = 3, risk_variables: ColumnSpec = None, risk: ColumnSpec = None,
    risk_threshold: float | None = None, carry_along: ColumnSpec = None, swapped_column: str | None = None,
    seed: int | None = None, key: str | None = None, suppressed_as: str | None = None,
) -> pl.DataFrame:
    """Targeted record swapping (sdcMicro 5.8.1 ``recordSwap``; see the module docstring):
    whole households exchange their ``hierarchy`` values (and ``carry_along`` columns).

    ``household``: the household id column. ``hierarchy``: the geographic columns, coarsest
    first (constant within households). ``similar``: a donor must share the selected
    household's values of these household-level columns; a list of lists is tried in order
    (sdcMicro's fallback); None: any donor. ``swaprate``: share of households swapped (a swap
    moves two). ``k_anonymity``: households with a member whose ``risk_variables`` combination
    has fewer than k persons in its area at a level are always swapped across that level (0:
    off). ``risk`` (one column per level) and ``risk_threshold``: user risks instead of counts.
    ``swapped_column``: a new column with the id of the household each row's household was
    swapped with (its own id if not swapped; sdcMicro's ``return_swapped_id``). ``seed`` /
    ``key``: the draws, keyed by household id (or a household-level ``key`` column).
    ``suppressed_as``: on a generalised release, the label of its suppressed values (``"*"``):
    a moved column (``hierarchy``, ``carry_along``) holding it is refused
    (:func:`check_no_label_moves`).

    >>> df = pl.DataFrame({"hid": [1, 1, 2, 3, 3, 4], "region": ["a", "a", "a", "b", "b", "b"]})
    >>> out = swap_records_frame(df, household="hid", hierarchy="region", swaprate=1.0, k_anonymity=0,
    ...                          swapped_column="with", seed=1)
    >>> out.rows()
    [(1, 'b', 4), (1, 'b', 4), (2, 'b', 3), (3, 'a', 2), (3, 'a', 2), (4, 'a', 1)]
    """
    spec = record_swap_spec(df.schema, household=household, hierarchy=hierarchy, similar=similar, swaprate=swaprate,
                            k_anonymity=k_anonymity, risk_variables=risk_variables, risk=risk,
                            risk_threshold=risk_threshold, carry_along=carry_along, swapped_column=swapped_column,
                            seed=seed, key=key)
    return apply_swap(check_no_label_moves(df, spec, suppressed_as), spec)


def check_no_label_moves(df: pl.DataFrame, spec: RecordSwapSpec, suppressed_as: str | None) -> pl.DataFrame:
    """``df`` when no column the swap moves holds the generalisation's suppression label; else
    an :class:`SDCError` naming it: a swap would give the suppressed household its partner's
    real value (un-suppressing it) and the partner the label.

    >>> df = pl.DataFrame({"hid": [1, 2], "region": ["a", "*"]})
    >>> spec = record_swap_spec(df.schema, household="hid", hierarchy="region", k_anonymity=0)
    >>> check_no_label_moves(df, spec, "*")
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: column 'region': 1 record holds the suppression label '*' of a generalised release; swapping it would un-suppress that household's value and give its partner the label (swap other columns, or swap before generalising)
    """
    from ..risk.suppressed import _label_mask, check_suppressed_as

    label = check_suppressed_as(suppressed_as)
    if label is None:
        return df
    for c in (*spec.hierarchy, *spec.carry_along):
        m = _label_mask(df, c, label)
        n = 0 if m is None else int(m.sum())
        if n:
            raise SDCError(f"column {c!r}: {n} record{'s' if n > 1 else ''} hold{'' if n > 1 else 's'} the "
                           f"suppression label {label!r} of a generalised release; swapping it would un-suppress "
                           "that household's value and give its partner the label (swap other columns, or swap "
                           "before generalising)")
    return df


def apply_swap(df: pl.DataFrame, spec: RecordSwapSpec) -> pl.DataFrame:
    """The frame with the swap of ``spec`` applied (row order, other columns and dtypes kept)."""
    hh, res = swap_households(df, spec)
    if df.height == 0:
        out = df
        if spec.swapped_column:
            out = out.with_columns(pl.col(spec.household).alias(spec.swapped_column))
        return out
    H = hh.rep.shape[0]
    target = np.where(res.partner >= 0, res.partner, np.arange(H))
    src = pl.Series(hh.rep[target[hh.hrow]])
    cols = [df.get_column(c).gather(src) for c in (*spec.hierarchy, *spec.carry_along)]
    if spec.swapped_column:
        cols.append(df.get_column(spec.household).gather(src).alias(spec.swapped_column))
    return df.with_columns(cols)


def swap_records_output_schema(schema: pl.Schema, spec: RecordSwapSpec) -> pl.Schema:
    """The input schema, plus the ``swapped_column`` (the household column's dtype)."""
    out = dict(schema)
    if spec.swapped_column:
        out[spec.swapped_column] = schema[spec.household]
    return pl.Schema(out)


def swap_plan_schema(schema: pl.Schema, spec: RecordSwapSpec) -> pl.Schema:
    """Schema of :func:`swap_records_plan`."""
    levels = pl.Enum(list(spec.hierarchy))
    return pl.Schema({spec.household: schema[spec.household], "partner": schema[spec.household], "level": levels,
                      "role": pl.Enum(["selected", "donor"]), "risk_level": levels})


def swap_records_plan(
    df: pl.DataFrame, *, household: str, hierarchy: ColumnSpec, similar: Any = None, swaprate: float = 0.05,
    k_anonymity: int = 3, risk_variables: ColumnSpec = None, risk: ColumnSpec = None,
    risk_threshold: float | None = None, seed: int | None = None, key: str | None = None,
) -> pl.DataFrame:
    """The swaps :func:`swap_records_frame` makes with the same arguments, one row per
    household involved (sorted by id): ``partner`` (the household it was swapped with; null:
    selected but no donor was found, sdcMicro's log file), ``level`` (the hierarchy column
    across which it was swapped), ``role`` (``"selected"``, or ``"donor"`` for the household
    found for it) and ``risk_level`` (the coarsest level where it was at risk; null: none).

    >>> df = pl.DataFrame({"hid": [1, 1, 2, 3, 3, 4], "region": ["a", "a", "a", "b", "b", "b"]})
    >>> swap_records_plan(df, household="hid", hierarchy="region", swaprate=0.5, k_anonymity=0, seed=1).rows()
    [(1, 4, 'region', 'donor', None), (4, 1, 'region', 'selected', None)]
    """
    spec = plan_spec(df.schema, household=household, hierarchy=hierarchy, similar=similar, swaprate=swaprate,
                     k_anonymity=k_anonymity, risk_variables=risk_variables, risk=risk,
                     risk_threshold=risk_threshold, seed=seed, key=key)
    return plan_frame(df, spec)


def plan_spec(schema: pl.Schema, **options: Any) -> RecordSwapSpec:
    """:func:`record_swap_spec` for :func:`swap_records_plan` (whose columns the household
    column must not be named like)."""
    if options.get("household") in PLAN_COLUMNS:
        raise SDCError(f"household column {options['household']!r}: rename it; the plan has a column of that name")
    return record_swap_spec(schema, **options)


def plan_frame(df: pl.DataFrame, spec: RecordSwapSpec) -> pl.DataFrame:
    """:func:`swap_records_plan` for a checked ``spec``."""
    schema = swap_plan_schema(df.schema, spec)
    hh, res = swap_households(df, spec)
    if df.height == 0:
        return pl.DataFrame(schema=schema)
    L = len(spec.hierarchy)
    ids = np.flatnonzero((res.partner >= 0) | res.failed)
    hid = df.get_column(spec.household).gather(pl.Series(hh.rep[ids]))
    part = res.partner[ids]
    partner = df.get_column(spec.household).gather(pl.Series(hh.rep[np.maximum(part, 0)]))
    names = np.array(spec.hierarchy, dtype=object)
    lvl = np.where(res.failed[ids], res.risk_level[ids], res.swap_level[ids])
    rl = res.risk_level[ids]
    return pl.DataFrame({
        spec.household: hid,
        "partner": partner.scatter(np.flatnonzero(part < 0), None) if (part < 0).any() else partner,
        "level": pl.Series([names[v] if 0 <= v < L else spec.hierarchy[-1] for v in lvl], dtype=schema["level"]),
        "role": pl.Series(np.where(res.selected[ids] | res.failed[ids], "selected", "donor"), dtype=schema["role"]),
        "risk_level": pl.Series([names[v] if v < L else None for v in rl], dtype=schema["risk_level"]),
    })
