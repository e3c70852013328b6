"""A release report: disclosure risk before and after masking, against what masking cost.

``report(orig, masked, on=keys, numeric=cols, sensitive=col, weight=w)`` computes

- **risk before / after** on the keys (:func:`polars_sdc.risk.measure.measure_risk`: k-anonymity
  violations, global risk, expected re-identifications, SUDA2, ARX's models);
- **numeric disclosure** of the ``numeric`` columns: distance-based record linkage and interval
  disclosure (:mod:`.linkage`);
- **utility**: SSE/SST of the numeric columns (ILSSDM, thesis 2.4.1), relative change of means
  and standard deviations, largest change of a correlation;
- **sensitive attributes**: l-diversity (distinct, entropy) and t-closeness before and after;
- **plots** (matplotlib, imported only here, PNG inline): the risk–utility map (record-linkage
  risk against SSE/SST for ``method`` over ``ks``, with the release as a star), the per-key
  SUDA contributions before and after, and the distribution of individual risk.

A :class:`RiskReport` shows as HTML in a notebook (``_repr_html_``) and as text in a terminal;
``save(path)`` writes one self-contained HTML page.
"""
from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from .._columns import ColumnSpec, resolve_columns
from .._errors import SDCError

SECTIONS = ("summary", "risk", "numeric", "utility", "sensitive", "ru-map", "suda", "distribution")


def _frame(x, what: str) -> pl.DataFrame:
    if isinstance(x, pl.LazyFrame):
        return x.collect()
    if isinstance(x, pl.DataFrame):
        return x
    raise SDCError(f"{what}: expected a DataFrame or LazyFrame, got {type(x).__name__}")


def _fmt(v) -> str:
    if isinstance(v, float):
        return "nan" if v != v else f"{v:.6g}"
    return str(v)


class RiskReport:
    """Tables (polars DataFrames) and PNG plots of a release; see the module docstring."""

    def __init__(self, title: str, tables: dict[str, pl.DataFrame], plots: dict[str, bytes], notes: list[str]):
        self.title = title
        self.tables = tables
        self.plots = plots
        self.notes = notes

    def __repr__(self) -> str:
        out = [self.title, "=" * len(self.title)]
        for name, t in self.tables.items():
            out.append(f"\n{name}")
            with pl.Config(tbl_rows=60, tbl_hide_dataframe_shape=True, fmt_str_lengths=40):
                out.append(str(t))
        out.extend(f"note: {n}" for n in self.notes)
        out.append(f"plots: {', '.join(self.plots) or 'none'} (see .save(path) or the notebook view)")
        return "\n".join(out)

    def _table_html(self, t: pl.DataFrame) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in t.columns)
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in row) + "</tr>" for row in t.iter_rows()
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"

    def to_html(self) -> str:
        """One self-contained HTML page (tables and base64 PNG plots inline)."""
        parts = [
            "<!DOCTYPE html><html><head><meta charset='utf-8'>",
            f"<title>{html.escape(self.title)}</title>",
            "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
            "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #bbb;padding:3px 8px;"
            "text-align:right}th{background:#e8eef6}h1{color:#234}img{max-width:100%}</style>",
            f"</head><body><h1>{html.escape(self.title)}</h1>",
        ]
        for name, t in self.tables.items():
            sid = name.split(":")[0]
            parts.append(f"<section id='{sid}'><h2>{html.escape(name.split(':', 1)[-1].strip())}</h2>")
            parts.append(self._table_html(t))
            parts.append("</section>")
        for name, png in self.plots.items():
            data = base64.b64encode(png).decode("ascii")
            parts.append(f"<section id='{name}'><h2>{html.escape(_PLOT_TITLES.get(name, name))}</h2>")
            parts.append(f"<img class='plot' alt='{html.escape(name)}' src='data:image/png;base64,{data}'></section>")
        if self.notes:
            parts.append("<section id='notes'><h2>Notes</h2><ul>")
            parts.extend(f"<li>{html.escape(n)}</li>" for n in self.notes)
            parts.append("</ul></section>")
        parts.append("</body></html>")
        return "".join(parts)

    def _repr_html_(self) -> str:
        return self.to_html()

    def save(self, path: str | Path) -> Path:
        """Write the self-contained HTML page to ``path``; returns the path."""
        p = Path(path)
        p.write_text(self.to_html(), encoding="utf-8")
        return p


_PLOT_TITLES = {
    "ru-map": "Risk–utility map",
    "suda": "SUDA contributions per key",
    "distribution": "Distribution of individual risk",
}


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


def report(
    orig,
    masked,
    on: ColumnSpec,
    numeric: ColumnSpec = None,
    sensitive: str | None = None,
    weight: str | None = None,
    *,
    method: str = "mdav",
    ks: Sequence[int] = (3, 5, 10),
    alpha: float = 1.0,
    title: str = "Disclosure risk and utility of a release",
) -> RiskReport:
    """Risk before/after, numeric disclosure, utility and the risk–utility map of a release
    (module docstring). ``orig`` and ``masked`` hold the same records in the same order.

    >>> import polars as pl
    >>> o = pl.DataFrame({"a": [1, 1, 2, 2, 3, 3], "x": [1.0, 2.0, 3.0, 4.0, 5.0, 9.0]})
    >>> rep = report(o, o.sdc.mdav(2, on="x"), on="a", numeric="x", ks=(2,))
    >>> sorted(rep.plots)
    ['distribution', 'ru-map', 'suda']
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from .diversity import l_diversity_values, t_closeness_values
    from .linkage import interval_disclosure, linkage_risk
    from .measure import measure_risk

    o = _frame(orig, "orig")
    m = _frame(masked, "masked")
    if o.height != m.height:
        raise SDCError(f"masked frame: {m.height} rows but the original has {o.height}; they must be the same records")
    from .frequencies import key_columns

    keys = key_columns(o, on)
    key_columns(m, keys)
    nums = resolve_columns(o, numeric, kind="numeric", what="numeric", default="error") if numeric is not None else []
    if sensitive is not None and sensitive in keys:
        raise SDCError(f"column {sensitive!r}: is both a key (`on`) and the sensitive column")
    notes: list[str] = []
    tables: dict[str, pl.DataFrame] = {}

    before = measure_risk(o, keys, weight, alpha=alpha)
    after = measure_risk(m, keys, weight if weight in m.columns else None, alpha=alpha)
    b, a = before.as_dict(), after.as_dict()
    shown = [k for k in b if k in a and not isinstance(b[k], str)]
    tables["risk: Risk on the keys before and after masking"] = pl.DataFrame(
        {"measure": shown, "before": [float(b[k]) for k in shown], "after": [float(a[k]) for k in shown]}
    )
    summary = {
        "records": float(o.height),
        "keys": float(len(keys)),
        "k-anonymity before": float(b["k_anonymity"]),
        "k-anonymity after": float(a["k_anonymity"]),
        "global risk before": float(b["global_risk"]),
        "global risk after": float(a["global_risk"]),
    }

    ru_points = []
    o_all, m_all = o, m
    if nums:
        # structural nulls (a child's income) and suppressed values: the measures over records
        # use the records complete on the numeric columns in both frames; means and standard
        # deviations use each column's non-null values; the report says what it skipped
        complete = pl.all_horizontal(pl.col(c).is_not_null() for c in nums)
        ok = o.select(complete).to_series() & m.select(complete).to_series()
        skipped = o.height - int(ok.sum())
        if skipped:
            nulls = int(sum(o[c].null_count() for c in nums))
            notes.append(f"numeric: {skipped} of {o.height} records hold a null in a numeric column ({nulls} null "
                         f"value(s) in the original); record linkage, interval disclosure, SSE/SST, the correlations "
                         f"and the risk–utility map use the {o.height - skipped} complete records, means and "
                         "standard deviations each column's non-null values")
            summary["numeric records skipped (null)"] = float(skipped)
            summary["numeric values skipped (null)"] = float(skipped * len(nums))
            o, m = o.filter(ok), m.filter(ok)
        if o.height < 2:
            raise SDCError(f"numeric: {o.height} record(s) without a null in {nums!r}; record linkage needs at least 2")
    if nums:
        link = linkage_risk(o, m, nums)
        idr = interval_disclosure(o, m, nums)
        tables["numeric: Disclosure risk of the numeric columns"] = pl.DataFrame(
            {"measure": ["record linkage (share re-linked)", "interval disclosure (k = 0.05)"], "value": [link, idr]}
        )
        summary["record linkage"] = link
        X = o.select(nums).cast(pl.Float64)
        Y = m.select(nums).cast(pl.Float64)
        loss = o.select(nums).sdc.ilssdm(nums, masked=m.select(nums))
        Xa = o_all.select(nums).cast(pl.Float64)
        Ya = m_all.select(nums).cast(pl.Float64)
        mean_chg = [abs(Ya[c].mean() - Xa[c].mean()) / (abs(Xa[c].mean()) or 1.0) for c in nums]
        sd_chg = [abs((Ya[c].std() or 0.0) - (Xa[c].std() or 0.0)) / ((Xa[c].std() or 1.0)) for c in nums]
        if len(nums) > 1:
            cx = np.corrcoef(X.to_numpy(), rowvar=False)
            cy = np.corrcoef(Y.to_numpy(), rowvar=False)
            corr = float(np.nanmax(np.abs(cx - cy)))
        else:
            corr = 0.0
        tables["utility: Utility of the numeric columns"] = pl.DataFrame(
            {
                "measure": ["SSE/SST (ILSSDM)", "largest relative change of a mean",
                            "largest relative change of a standard deviation", "largest change of a correlation"],
                "value": [loss, max(mean_chg), max(sd_chg), corr],
            }
        )
        summary["SSE/SST"] = loss
        # risk-utility map: the chosen method over ks
        for k in ks:
            if k > o.height:
                continue
            mk = o.select(nums).sdc.microaggregate(k, on=nums, method=method)
            ru_points.append((k, o.select(nums).sdc.ilssdm(nums, masked=mk), linkage_risk(o, mk, nums)))
        tables["ru-map: Risk–utility map points (" + method + ")"] = pl.DataFrame(
            {"k": [p[0] for p in ru_points], "SSE/SST": [p[1] for p in ru_points],
             "record linkage": [p[2] for p in ru_points]},
            schema={"k": pl.Int64, "SSE/SST": pl.Float64, "record linkage": pl.Float64},
        )
    else:
        notes.append("no numeric columns given: record linkage, utility and the risk–utility map are left out")

    o, m = o_all, m_all
    if sensitive is not None:
        rows = []
        for label, frame in (("before", o), ("after", m)):
            rows.append({
                "release": label,
                "l (distinct)": float(l_diversity_values(frame, keys, sensitive, "distinct").min()),
                "l (entropy)": float(l_diversity_values(frame, keys, sensitive, "entropy").min()),
                "t (closeness)": float(t_closeness_values(frame, keys, sensitive).max()),
            })
        tables["sensitive: Sensitive attribute " + sensitive] = pl.DataFrame(rows)

    tables = {"summary: Summary": pl.DataFrame({"measure": list(summary), "value": list(summary.values())}), **tables}

    plots: dict[str, bytes] = {}
    if ru_points:
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot([p[1] for p in ru_points], [p[2] for p in ru_points], "o-", label=f"{method}, k = {list(ks)}")
        for k, x, y in ru_points:
            ax.annotate(f"k={k}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.plot([summary["SSE/SST"]], [summary["record linkage"]], "r*", markersize=14, label="this release")
        ax.set_xlabel("information loss (SSE/SST)")
        ax.set_ylabel("disclosure risk (record linkage)")
        ax.legend()
        ax.grid(alpha=0.3)
        plots["ru-map"] = _png(fig)
    sb = before.suda.attribute_contributions()
    sa = after.suda.attribute_contributions()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    x = np.arange(len(keys))
    ax.bar(x - 0.2, sb["contribution"].to_numpy(), 0.4, label="before")
    ax.bar(x + 0.2, sa["contribution"].to_numpy(), 0.4, label="after")
    from ..plot import literal

    ax.set_xticks(x, [literal(k) for k in keys], rotation=30, ha="right")   # "$x^$" is a name, not mathtext
    ax.set_ylabel("% of total SUDA score")
    ax.legend()
    plots["suda"] = _png(fig)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    bins = np.linspace(0, 1, 41)
    ax.hist(before.per_record["risk"].to_numpy(), bins=bins, alpha=0.6, label="before")
    ax.hist(after.per_record["risk"].to_numpy(), bins=bins, alpha=0.6, label="after")
    ax.set_yscale("log")
    ax.set_xlabel("individual risk")
    ax.set_ylabel("records")
    ax.legend()
    plots["distribution"] = _png(fig)
    return RiskReport(title, tables, plots, notes)
