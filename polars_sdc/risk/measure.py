"""One call for the disclosure risk of a release: ``df.sdc.risk(on=..., weight=...)``.

Per record (row order kept): ``fk``, ``Fk`` (:mod:`.frequencies`, missing values by the
``alpha`` rule), ``risk`` (individual risk, :mod:`.individual`), ``household_risk`` (with
``household=``), ``suda`` and ``dis_suda`` (:mod:`.suda`). Summary: number of records,
k-anonymity (smallest ``fk``), records violating k-anonymity for each k in ``ks`` (``fk < k``),
sample uniques (``fk == 1``), global risk and expected re-identifications (sdcMicro
``measure_risk``), records with an MSU and the largest DIS-SUDA score, and ARX's prosecutor,
journalist and marketer risk with the population-uniqueness estimates (:mod:`.arx`).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .._columns import ColumnSpec
from .._errors import SDCError
from .._validation import check_int
from ..progress import method_called
from .frequencies import check_alpha, key_columns


class RiskResult:
    """Result of :func:`measure_risk`: ``per_record`` (DataFrame, one row per record) and
    ``summary`` (DataFrame with columns ``measure``, ``value`` (numbers) and ``text`` (names:
    ``dankar_model``)); ``result["global_risk"]`` reads one summary value.

    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 1, 2, 3], "w": [10.0, 20.0, 5.0, 40.0]})
    >>> s = measure_risk(df, "a", weight="w", suda=False).summary
    >>> s.filter(pl.col("measure") == "dankar_model").row(0)
    ('dankar_model', None, 'zayatz')
    """

    def __init__(self, per_record: pl.DataFrame, summary: dict[str, object], keys: Sequence[str], suda=None):
        self.per_record = per_record
        self.suda = suda  # the SudaResult (per-key contributions), or None
        self._summary = summary
        self.keys = list(keys)

    @property
    def summary(self) -> pl.DataFrame:
        """One row per measure: ``value`` (Float64) for a number, ``text`` (String) for a name such
        as ``dankar_model`` (the population model Dankar et al.'s rule chose); the other is null.
        A number that does not exist (an estimate that failed) is NaN in ``value``, never text."""
        names, values, texts = [], [], []
        for name, v in self._summary.items():
            names.append(name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.floating, np.integer)):
                values.append(None)
                texts.append(None if v is None else str(v))
            else:
                values.append(float(v))
                texts.append(None)
        return pl.DataFrame(
            {"measure": names, "value": values, "text": texts},
            schema={"measure": pl.String, "value": pl.Float64, "text": pl.String},
        )

    def as_dict(self) -> dict[str, object]:
        """The summary as a dict (the population model chosen by Dankar's rule as a string).

        >>> import polars_sdc
        >>> r = polars_sdc.datasets.francdat().sdc.risk(on=["Key1", "Key2", "Key3", "Key4"], weight="w")
        >>> d = r.as_dict()
        >>> d["k_anonymity"], d["global_risk"], d["dankar_model"]   # sdcMicro: global risk 0.1208158
        (1, 0.12081575564999586, 'zayatz')
        """
        return dict(self._summary)

    def __getitem__(self, name: str) -> object:
        return self._summary[name]

    def __repr__(self) -> str:
        lines = [f"RiskResult on keys {', '.join(self.keys)}"]
        for k, v in self._summary.items():
            lines.append(f"  {k:<36} {v:.6g}" if isinstance(v, float) else f"  {k:<36} {v}")
        return "\n".join(lines)


@method_called("risk")  # the compile notice names risk, not the SUDA kernels it compiles
def measure_risk(
    df: pl.DataFrame,
    on: ColumnSpec,
    weight: str | None = None,
    *,
    alpha: float = 1.0,
    household: str | None = None,
    suda: bool = True,
    max_size: int | None = None,
    dis_fraction: float = 0.01,
    threshold: float = 0.1,
    population_size: float | None = None,
    ks: Sequence[int] = (2, 3, 5),
    alpha_rule: str = "safe",
    suppressed_as: str | None = None,
) -> RiskResult:
    """Every risk measure of a release at once (module docstring). ``suppressed_as``: the
    label a generalisation gave its suppressed records' keys (``"*"``): such records are read
    as every key missing (:mod:`polars_sdc.risk.suppressed`); None (default): values as written.

    >>> import polars as pl
    >>> r = measure_risk(pl.DataFrame({"a": [1, 1, 2, 3], "b": [0, 0, 0, 1]}), ["a", "b"])
    >>> r["k_anonymity"], r["records_violating_k2"], r["global_risk"]
    (1, 2, 0.75)
    >>> r.per_record.columns
    ['fk', 'Fk', 'risk', 'suda', 'dis_suda']
    """
    from .._validation import check_bool
    from .arx import arx_risk
    from .individual import frequencies_and_risk
    from .suda import suda as suda_scores

    check_bool(suda, "suda")              # suda="no" would compute SUDA

    from .suppressed import frequency_keys

    cols = key_columns(df, on, weight)
    a = check_alpha(alpha)
    if df.height == 0:
        raise SDCError("the frame is empty; there is no release to measure")
    raw = df
    df, counted = frequency_keys(df, cols, suppressed_as)   # the suppressed records' keys missing
    for k in ks:
        check_int(k, "ks: every k", minimum=1)
    if household is not None:
        from ..household import check_ids
        from .individual import check_household_for_risk

        check_household_for_risk(df.schema, household, cols, weight)
        check_ids(df.get_column(household), household)
    fk, Fk, r = frequencies_and_risk(df, counted, weight, a, alpha_rule)
    columns = {"fk": fk, "Fk": Fk, "risk": r}
    summary: dict[str, object] = frequency_summary(fk, r, ks)
    if household is not None:
        from .individual import household_risk

        h = household_risk(r, df.get_column(household))   # of the risk above: the frequencies once
        columns["household_risk"] = h
        summary["household_risk"] = float(h.mean())
        if suppressed_as is not None:
            summary["suppressed_records_exposed"] = exposed_suppressed_records(raw, cols, household, suppressed_as)
        summary["household_expected_reidentifications"] = float(h.sum())
    if suda:
        s = suda_scores(df, cols, max_size, dis_fraction)
        columns["suda"] = s.score
        columns["dis_suda"] = s.dis
        summary["records_with_msu"] = int((s.score > 0).sum())
        summary["dis_suda_max"] = float(s.dis.max())
        summary["dis_suda_mean"] = float(s.dis.mean())
    # ARX's models leave the suppressed records out (arx_risk); sdcMicro's read them as wildcards (above)
    summary.update(arx_risk(raw, cols, weight, threshold=threshold, population_size=population_size,
                            suppressed_as=suppressed_as))
    per_record = pl.DataFrame({k: pl.Series(k, v, dtype=pl.Float64) for k, v in columns.items()})
    return RiskResult(per_record, summary, cols, s if suda else None)


def exposed_suppressed_records(df: pl.DataFrame, on: Sequence[str], household: str, suppressed_as: str) -> int:
    """Records a generalisation suppressed (every key ``suppressed_as``) whose household-level
    keys are still shown by a housemate: a key constant within every household among the other
    records is household-level, and a suppressed record with a released housemate has its value
    on that housemate's record, next to the household id. 0 for a release of
    ``df.sdc.generalize(..., household=)``, which suppresses such a household whole.

    >>> d = pl.DataFrame({"hh": [1, 1, 2, 2], "region": ["N", "*", "S", "S"], "age": ["a", "*", "b", "b"]})
    >>> exposed_suppressed_records(d, ["region", "age"], "hh", "*")
    1
    """
    from ..household import household_level_columns
    from .suppressed import suppressed_rows

    starred = suppressed_rows(df, list(on), suppressed_as)
    if starred is None:
        return 0
    kept = df.filter(~starred)
    if kept.height == 0 or not household_level_columns(kept, household, list(on)):
        return 0
    return int(df.filter(starred).get_column(household).is_in(kept.get_column(household).unique().implode()).sum())


def frequency_summary(fk: Any, risk: Any, ks: Sequence[int] = (2, 3, 5), counts: Any = None) -> dict[str, object]:
    """The summary measures that need only each record's ``fk`` and individual ``risk``:
    ``records``, ``k_anonymity`` (smallest fk), ``records_violating_k<k>`` (fk < k) for each k in
    ``ks``, ``sample_uniques`` (fk = 1), ``global_risk`` (mean risk) and
    ``expected_reidentifications`` (their sum). ``counts``: each entry stands for that many
    records (with ``risk`` their mean risk): Spark passes one entry per distinct fk, so a
    measure added here reaches ``polars_sdc.spark.risk`` too.

    >>> frequency_summary(np.array([1.0, 2.0, 2.0]), np.array([1.0, 0.5, 0.5]), ks=(2,))
    {'records': 3, 'k_anonymity': 1, 'records_violating_k2': 1, 'sample_uniques': 1, 'global_risk': 0.6666666666666666, 'expected_reidentifications': 2.0}
    >>> frequency_summary(np.array([1.0, 2.0]), np.array([1.0, 0.5]), ks=(2,), counts=np.array([1, 2]))["global_risk"]
    0.6666666666666666
    """
    fk = np.asarray(fk, dtype=np.float64)
    risk = np.asarray(risk, dtype=np.float64)
    n = np.ones(fk.shape[0], dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
    records = int(n.sum())
    if records == 0:
        raise SDCError("the frame is empty; there is no release to measure")
    low = float(fk.min())
    summary: dict[str, object] = {"records": records, "k_anonymity": int(low) if low.is_integer() else low}
    for k in ks:
        summary[f"records_violating_k{k}"] = int(n[fk < k].sum())
    summary["sample_uniques"] = int(n[fk == 1].sum())
    expected = float(risk.sum()) if counts is None else float((risk * n).sum())
    summary["global_risk"] = float(risk.mean()) if counts is None else expected / records
    summary["expected_reidentifications"] = expected
    return summary
