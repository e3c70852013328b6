"""Key frequencies that count households instead of records.

An intruder who links a released record to a person learns the whole household (the
household id is released), and the records of one household often share every household-level
key. So a key combination held by three members of one household is, for the household, unique.
``fk`` counted over households is the number of *distinct households* with at least one record
compatible with the record's key combination (a missing key value matches any value: sdcMicro
``freqCalc``'s wildcard rule with ``alpha = 1``); ``Fk`` is the sum of their household weights
(the members' common ``weight``: every member's weight must be finite and > 0, as for records,
``check_weights``; a weight that varies within a household is refused, as on Spark,
:func:`check_weight_per_household`, since "the first member's" would make ``Fk`` depend on the row
order).

Exact, by joins over the distinct (key combination, household) pairs: one join per pair of
missing-value patterns on the keys the two patterns share; records with every key missing are
compatible with everything and are added once, to every combination with a missing key and,
with one key, to every combination: with two or more keys they do not raise the count of a
complete combination (sdcMicro's ``addAllNAtoKeys = FALSE``, the record rule,
:func:`polars_sdc.risk.frequencies.all_missing_is_wildcard`), so a combination never counts
more households than records. A record of a generalised release whose keys are
all ``"*"`` (suppressed) is such a record, as in every frequency count
(:func:`polars_sdc.risk.frequencies.suppressed_as_missing`). ``alpha < 1`` (a fractional count of a
household) is not defined here and is refused when keys are missing.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from .._errors import SDCError

_P, _H, _W, _T = "__sdc_p", "__sdc_h", "__sdc_w", "__sdc_t"


def check_weight_per_household(df: pl.DataFrame, weight: str, household: str, index: np.ndarray) -> None:
    """:class:`SDCError` if ``weight`` varies within a household of ``household`` (``index``: its
    :func:`~polars_sdc.household.household_index`), naming the column and the smallest such
    household id; the wording of the Spark port (:mod:`polars_sdc.spark.frequencies`), which
    refuses it too. Counting households needs one weight per household: a "first member's"
    weight would make ``Fk`` depend on the row order.

    >>> df = pl.DataFrame({"hh": [1, 1, 2], "w": [10.0, 30.0, 5.0]})
    >>> check_weight_per_household(df, "w", "hh", np.array([0, 0, 1]))
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: column 'w': varies within household 1 of 'hh'; counting households needs one weight per household (with person weights that differ, the household's weight, and so Fk, would depend on the row order): give the household weight on every member
    """
    from ..household import _first_member

    if df.height == 0:
        return
    w = df.get_column(weight)
    differs = ~w.eq_missing(w.gather(_first_member(df, household, index)))
    if differs.any():
        hid = df.get_column(household).filter(differs).min()
        raise weight_varies_error(weight, hid, household)


def weight_varies_error(weight: str, hid: object, household: str) -> SDCError:
    """The one message (local and Spark) for a ``weight`` that varies within household ``hid``."""
    return SDCError(f"column {weight!r}: varies within household {hid!r} of {household!r}; counting households "
                    "needs one weight per household (with person weights that differ, the household's weight, "
                    "and so Fk, would depend on the row order): give the household weight on every member")


def household_frequencies(df: pl.DataFrame, on: Sequence[str], household: str, weight: str | None = None,
                          alpha: float = 1.0, suppressed_as: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``fk`` (distinct compatible households) and ``Fk`` (their weights' sum; ``fk`` without
    ``weight``) of every record, float64 in row order. With ``suppressed_as`` (a generalised
    release's label, e.g. ``"*"``) a record whose keys are all that label has every key missing.

    >>> df = pl.DataFrame({"hh": [1, 1, 2, 3], "size": [2, 2, 2, None], "w": [5.0, 5.0, 7.0, 1.0]})
    >>> fk, Fk = household_frequencies(df, ["size"], "hh", "w")
    >>> fk.tolist(), Fk.tolist()   # size 2: households 1, 2 and 3 (its null matches); the null: all 3
    ([3.0, 3.0, 3.0, 3.0], [13.0, 13.0, 13.0, 13.0])
    >>> star = pl.DataFrame({"hh": [1, 1, 2, 3], "a": ["x", "x", "y", "*"], "b": ["u", "u", "v", "*"]})
    >>> household_frequencies(star, ["a", "b"], "hh", suppressed_as="*")[0].tolist()   # household 3: matches all,
    [1.0, 1.0, 1.0, 3.0]
    >>> # not counted for complete combinations of two or more keys (the record rule: a class never
    >>> # holds more households than records)
    >>> household_frequencies(star, ["a", "b"], "hh")[0].tolist()      # not a generalised release: a value
    [1.0, 1.0, 1.0, 1.0]
    """
    from ..household import household_index
    from .suppressed import frequency_keys

    on = list(on)
    if household in on:
        raise SDCError(f"household column {household!r}: is also a key")
    idx, n_h = household_index(df, household)
    df, on = frequency_keys(df, on, suppressed_as)   # one key: the suppressed records raise no kept value
    hw = np.ones(n_h)
    if weight is not None:
        from .weights import check_weights

        check_weights(df, weight)     # as for records (and Spark): finite and > 0 on every member
        check_weight_per_household(df, weight, household, idx)
        first = np.full(n_h, idx.size, dtype=np.int64)
        np.minimum.at(first, idx, np.arange(idx.size, dtype=np.int64))
        hw = df.get_column(weight).cast(pl.Float64).to_numpy()[first]
    keys = df.select(pl.col(c).fill_nan(None) if df.schema[c].is_float() else pl.col(c) for c in on)
    m = len(on)
    if m > 64 and any(keys.get_column(c).null_count() for c in on):
        from .weights import check_missing_keys

        check_missing_keys(on)
    pattern = pl.sum_horizontal([pl.col(c).is_null().cast(pl.UInt64) * (1 << j) for j, c in enumerate(on)])
    if df.height == 0:
        return np.zeros(0), np.zeros(0)
    rows = keys.with_columns(pattern.alias(_P), pl.Series(_H, idx))
    if alpha != 1.0 and (rows.get_column(_P) > 0).any():
        raise SDCError("counting households with missing key values needs alpha = 1 (a household is in a "
                       "combination or not)")
    if not (rows.get_column(_P) > 0).any():     # no missing key: distinct households per combination
        pairs = rows.select(*on, _H).unique()
        agg = pairs.with_columns(pl.Series(_W, hw[pairs.get_column(_H).to_numpy()])).group_by(on).agg(
            pl.len().cast(pl.Float64).alias("fk"), pl.col(_W).sort().sum().alias("Fk"))
        j = rows.select(on).join(agg, on=on, how="left", nulls_equal=True, maintain_order="left")
        fk = j.get_column("fk").to_numpy()
        return fk, (j.get_column("Fk").to_numpy() if weight is not None else fk.copy())
    full = (1 << m) - 1
    pairs = rows.unique([*on, _H, _P])
    wild = pairs.filter(pl.col(_P) == full).get_column(_H).unique().to_numpy()
    is_wild = np.zeros(n_h, dtype=bool)
    is_wild[wild] = True
    src = pairs.filter(pl.Series(is_wild[pairs.get_column(_H).to_numpy()]).not_())
    targets = rows.select(*on, _P).unique(maintain_order=True).with_row_index(_T)
    found = []
    for p in targets.get_column(_P).unique().sort().to_list():
        tp = targets.filter(pl.col(_P) == p)
        present_p = [c for j, c in enumerate(on) if not p >> j & 1]
        for q in src.get_column(_P).unique().sort().to_list():
            sq = src.filter(pl.col(_P) == q)
            shared = [c for j, c in enumerate(on) if not q >> j & 1 and c in present_p]
            if shared:
                found.append(tp.select(_T, *shared).join(sq.select(*shared, _H), on=shared, how="inner")
                             .select(_T, _H))
            else:
                found.append(tp.select(_T).join(sq.select(_H), how="cross"))
    from .weights import all_missing_is_wildcard

    # a household with a record of every key missing counts for every combination with a missing
    # key, and for complete ones only with one key (sdcMicro's rule for records,
    # all_missing_is_wildcard): else a class could count more households than records. Complete
    # combinations (two or more keys) see such a household through its other records only.
    applies = (targets.get_column(_P) > 0).to_numpy() | all_missing_is_wildcard(m)
    if wild.size and not applies.all():
        tp = targets.filter(pl.Series(~applies))
        rest = pairs.filter(pl.Series(is_wild[pairs.get_column(_H).to_numpy()]) & (pl.col(_P) != full))
        for q in rest.get_column(_P).unique().sort().to_list():
            shared = [c for j, c in enumerate(on) if not q >> j & 1]
            found.append(tp.select(_T, *shared).join(rest.filter(pl.col(_P) == q).select(*shared, _H),
                                                      on=shared, how="inner").select(_T, _H))
    t = pl.concat(found).unique().sort(_T, _H) if found else pl.DataFrame(schema={_T: pl.UInt32, _H: pl.Int64})
    cnt = np.zeros(targets.height)
    wsum = np.zeros(targets.height)
    ti = t.get_column(_T).to_numpy().astype(np.int64)
    hwi = hw[t.get_column(_H).to_numpy().astype(np.int64)]
    order = np.lexsort((hwi, ti))   # each target's weights summed in increasing order: a sum that does not
    np.add.at(cnt, ti, 1.0)         # depend on the row order (Spark passes the distinct pairs, in any order)
    np.add.at(wsum, ti[order], hwi[order])
    cnt[applies] += wild.size
    wsum[applies] += np.sort(hw[wild]).sum()
    j = rows.select(*on, _P).join(targets, on=[*on, _P], how="left", nulls_equal=True, maintain_order="left")
    tix = j.get_column(_T).to_numpy().astype(np.int64)
    fk = cnt[tix]
    return fk, (wsum[tix] if weight is not None else fk.copy())
