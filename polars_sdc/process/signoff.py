"""The sign-off summary of a problem, built from its log: a verdict in plain words, the steps
with their parameters, what each variable lost, and the risk before and after with one line
of explanation per measure and the threshold that matters. Percent everywhere.

>>> import polars as pl, polars_sdc
>>> df = pl.DataFrame({"a": ["x", "x", "x", "y", "y", "z"], "b": ["u", "u", "v", "v", "v", "v"]})
>>> s = df.sdc.problem(keys=["a", "b"]).suppress(k=2).sign_off()
>>> s.verdict
'2-anonymous on 2 keys with nulls as wildcards; expected re-identifications 4 -> 2; 2 values suppressed, 0 PRAM changes'
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from .problem import Problem

#: measure -> (label, explanation, unit); "percent" values are shown x 100 with "%"
MEASURES = {
    "k_anonymity": ("k-anonymity", "smallest number of records sharing a key combination (a null matches any value)", ""),
    "sample_uniques": ("sample uniques", "records whose key combination no other record shares", ""),
    "expected_reidentifications": ("expected re-identifications",
                                   "sum of the individual risks (sdcMicro): records an intruder is expected to identify", ""),
    "global_risk": ("global risk", "mean individual risk of re-identification (sdcMicro)", "percent"),
    "household_risk": ("household risk", "mean probability that a household has a re-identified member", "percent"),
    "l_diversity": ("l-diversity", "fewest distinct sensitive values in a key class", ""),
}


def _number(v: Any, unit: str = "") -> str:
    if v is None:
        return "n/a"
    if unit == "percent":
        return f"{100 * v:.4g} %"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    if isinstance(v, float):
        return f"{v:,.4g}" if abs(v) >= 1 else f"{v:.4g}"
    return f"{v:,}"


@dataclass(frozen=True)
class SignOff:
    """The summary (see the module docstring): ``verdict`` (one line), ``steps``, ``risk``
    (measure, before, after, meaning, threshold), ``variables`` (per variable with a role:
    suppressed, changed, share changed, SSE/SST, largest change of a category share) and
    ``association`` (Cramér's V of key pairs before and after); the HTML page adds
    :meth:`figures`."""

    verdict: str
    steps: pl.DataFrame
    risk: pl.DataFrame
    variables: pl.DataFrame
    association: pl.DataFrame
    log: pl.DataFrame | None = None
    #: per categorical variable (keys, PRAM, sensitive) and category: count and share before and after
    frequencies: pl.DataFrame | None = None
    #: the individual risk of every record before and after (for the figure; empty without keys)
    record_risk: tuple[Any, Any] = ((), ())

    def figures(self) -> dict[str, tuple[bytes, str, str]]:
        """The figures as PNG: {title: (png, x label, y label)} — individual risk before and
        after on a log axis, the risk–utility path of the steps, and what each variable lost
        (matplotlib, imported only here)."""
        import io

        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
        import numpy as np

        out: dict[str, tuple[bytes, str, str]] = {}

        def done(fig: Any, ax: Any, title: str) -> None:
            ax.set_title(title)
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
            plt.close(fig)
            out[title] = (buf.getvalue(), ax.get_xlabel(), ax.get_ylabel())

        before, after = (np.asarray(r, dtype=float) for r in self.record_risk)
        if before.size:
            fig, ax = plt.subplots(figsize=(6.5, 3.6))
            lo = max(min(before[before > 0].min(initial=1.0), after[after > 0].min(initial=1.0)), 1e-12)
            edges = np.logspace(np.log10(lo), 0, 40)
            ax.hist(np.clip(before, lo, 1), bins=edges, histtype="step", linewidth=1.8, label="original")
            ax.hist(np.clip(after, lo, 1), bins=edges, histtype="stepfilled", alpha=0.45, label="release")
            ax.set_xscale("log")
            ax.set_xlabel("individual risk of re-identification (log scale)")
            ax.set_ylabel("records")
            ax.legend(title=None, frameon=False)
            done(fig, ax, "Individual risk before and after")
        log = self.log
        if log is not None and "expected_reidentifications" in log.columns and log["sse_sst"].is_not_null().any():
            fig, ax = plt.subplots(figsize=(6.5, 3.6))
            x = 100 * log["sse_sst"].fill_null(0.0).to_numpy()
            y = log["expected_reidentifications"].to_numpy()
            ax.plot(x, y, marker="o", color="0.3")
            for i, (xi, yi, op) in enumerate(zip(x, y, log["operation"])):
                ax.annotate(f"{i}. {op}", (xi, yi), textcoords="offset points", xytext=(6, 4), fontsize=9)
            ax.set_xlabel("numeric information loss, SSE/SST (%)")
            ax.set_ylabel("expected re-identifications")
            span = max(float(x.max()), 1.0)
            ax.set_xlim(-0.05 * span, 1.3 * span)
            ax.margins(y=0.15)
            done(fig, ax, "Risk and utility after each step")
        v = self.variables.filter(pl.col("changed_share").is_not_null())
        if v.height:
            fig, ax = plt.subplots(figsize=(6.5, 0.5 + 0.32 * v.height))
            names = v["variable"].to_list()
            share = 100 * v["changed_share"].to_numpy()
            n_sup, n_chg = v["suppressed"].to_numpy(), v["changed"].to_numpy()
            sup = share * n_sup / np.maximum(n_sup + n_chg, 1)
            ax.barh(names, sup, label="suppressed")
            ax.barh(names, share - sup, left=sup, label="changed")
            ax.invert_yaxis()
            ax.set_xlabel("values suppressed or changed (% of the variable's values)")
            ax.set_ylabel("variable")
            ax.legend(frameon=False)
            done(fig, ax, "What each variable lost")
        return out

    def to_text(self) -> str:
        """Plain text for a terminal."""
        out = [self.verdict, "", "Steps"]
        out += [f"  {s}. {op}({', '.join(f'{k}={v!r}' for k, v in json.loads(p).items())})"
                for s, op, p in self.steps.iter_rows()] or ["  (none)"]
        out += ["", "Risk on the keys             before          after  threshold / meaning"]
        for m, b, a, meaning, threshold in self.risk.iter_rows():
            unit = next((u for lab, _, u in MEASURES.values() if lab == m), "")
            out.append(f"  {m:<27} {_number(b, unit):>9} {_number(a, unit):>14}  {threshold + '; ' if threshold else ''}{meaning}")
        out += ["", "Variables       role       suppressed   changed  changed %  SSE/SST %  largest share change %"]
        for row in self.variables.iter_rows(named=True):
            out.append(
                f"  {row['variable']:<13} {row['role']:<9} {row['suppressed']:>11,} {row['changed']:>9,} "
                f"{_pct(row['changed_share']):>10} {_pct(row['sse_sst']):>10} {_pct(row['largest_share_change']):>23}")
        if self.association.height:
            out += ["", "Cramér's V of key pairs   before   after"]
            out += [f"  {a} x {b}".ljust(26) + f" {_v(x):>7} {_v(y):>7}" for a, b, x, y in self.association.iter_rows()]
        return "\n".join(line.rstrip() for line in out) + "\n"

    def to_html(self) -> str:
        """One self-contained HTML page."""
        headers = {"share_before": "share before", "share_after": "share after",
                   "changed_share": "changed %", "sse_sst": "SSE/SST %", "largest_share_change": "largest share change %",
                   "a": "key", "b": "key"}

        def table(df: pl.DataFrame, fmt: dict[str, Any]) -> str:
            head = "".join(f"<th>{html.escape(headers.get(c, c))}</th>" for c in df.columns)
            rows = "".join(
                "<tr>" + "".join(f"<td>{html.escape(fmt.get(c, str)(v))}</td>" for c, v in zip(df.columns, r)) + "</tr>"
                for r in df.iter_rows())
            return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"

        units = {lab: u for lab, _, u in MEASURES.values()}
        risk = self.risk.with_columns(
            pl.struct("measure", "before").map_elements(lambda s: _number(s["before"], units.get(s["measure"], "")),
                                                        return_dtype=pl.String).alias("before"),
            pl.struct("measure", "after").map_elements(lambda s: _number(s["after"], units.get(s["measure"], "")),
                                                       return_dtype=pl.String).alias("after"),
        ) if self.risk.height else self.risk
        pct = {c: _pct for c in ("changed_share", "sse_sst", "largest_share_change")}
        style = ("body{font-family:sans-serif;max-width:70em;margin:2em auto}table{border-collapse:collapse;margin:1em 0}"
                 "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}.verdict{font-size:1.2em;font-weight:bold}")
        parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>Release sign-off</title><style>{style}</style>"
                 f"</head><body><h1>Release sign-off</h1><p class='verdict'>{html.escape(self.verdict)}</p>",
                 "<h2>Steps</h2>", table(self.steps, {}), "<h2>Risk on the keys</h2>", table(risk, {}),
                 "<h2>Variables</h2>", table(self.variables, pct)]
        if self.association.height:
            parts += ["<h2>Cramér's V of key pairs</h2>", table(self.association, {"before": _v, "after": _v})]
        if self.frequencies is not None and self.frequencies.height:
            parts += ["<h2>Categories before and after</h2>",
                      table(self.frequencies, {"share_before": _pct, "share_after": _pct})]
        import base64

        for title, (png, _, _) in self.figures().items():
            data = base64.b64encode(png).decode("ascii")
            parts.append(f"<h2>{html.escape(title)}</h2><img class='plot' alt='{html.escape(title)}' "
                         f"src='data:image/png;base64,{data}'>")
        return "".join(parts) + "</body></html>\n"

    def _repr_html_(self) -> str:
        return self.to_html()

    def __str__(self) -> str:
        return self.to_text()

    def save(self, path: str | Path) -> Path:
        """Write ``path`` (.html/.htm: the page; else the text)."""
        p = Path(path)
        p.write_text(self.to_html() if p.suffix.lower() in (".html", ".htm") else self.to_text(), encoding="utf-8")
        return p


def _pct(v: Any) -> str:
    return "" if v is None else f"{100 * v:.3g} %"


def _v(v: Any) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def _share_change(before: pl.Series, after: pl.Series) -> float | None:
    """Largest relative change of a category's share (non-null values; categories compared
    as text): max |share after - share before| / share before over the categories before."""
    b = before.drop_nulls().cast(pl.String)
    a = after.drop_nulls().cast(pl.String)
    if b.len() == 0 or a.len() == 0:
        return None
    sb = b.value_counts(name="n").with_columns(share=pl.col("n") / b.len())
    sa = a.value_counts(name="n").with_columns(share=pl.col("n") / a.len())
    j = sb.join(sa, on=b.name, how="left", suffix="_after").with_columns(pl.col("share_after").fill_null(0.0))
    return float(j.select(((pl.col("share_after") - pl.col("share")).abs() / pl.col("share")).max()).item())


def sign_off(problem: Problem) -> SignOff:
    """The sign-off summary of ``problem`` (its log, its utility and the original)."""
    from ..utility.association import cramers_v_pair

    log = problem.log
    roles = problem.roles
    first, last = log.row(0, named=True), log.row(log.height - 1, named=True)
    steps = log.filter(pl.col("step") > 0).select("step", "operation", "parameters")
    pram_changes = int(log.filter(pl.col("operation") == "pram")["changed"].sum())
    suppressed = int(log["suppressed"].sum())
    parts = []
    risk_rows = []
    if roles.keys:
        k = last["k_anonymity"]
        nk = len(roles.keys)
        if k >= 2:
            parts.append(f"{_number(k)}-anonymous on {nk} keys with nulls as wildcards")
        else:
            parts.append(f"not k-anonymous: {last['sample_uniques']:,} sample uniques on {nk} keys")
        parts.append(f"expected re-identifications {first['expected_reidentifications']:.3g} -> "
                     f"{last['expected_reidentifications']:.3g}")
        target = [json.loads(p).get("k") for op, p in zip(log["operation"], log["parameters"]) if op == "suppress"]
        for name, (label, meaning, _) in MEASURES.items():
            if name not in log.columns:
                continue
            threshold = ""
            if name == "k_anonymity" and target:
                threshold = f">= {target[-1]} (the k of the suppression)"
            elif name == "sample_uniques":
                threshold = "0 for any k >= 2"
            risk_rows.append((label, float(first[name]), float(last[name]), meaning, threshold))
    parts.append(f"{suppressed:,} values suppressed, {pram_changes:,} PRAM changes")
    utility = problem.utility()
    original, release = problem.original(), problem.data()
    original = original.collect() if isinstance(original, pl.LazyFrame) else original
    if last.get("sse_sst") is not None and roles.numeric:
        parts.append(f"numeric SSE/SST {100 * last['sse_sst']:.3g} %")
    shares = []
    for row in utility.iter_rows(named=True):
        c = row["variable"]
        if c not in original.columns:
            shares.append((None, None))
            continue
        n = int(original.get_column(c).is_not_null().sum())
        # a key / PRAM / sensitive variable is categorical whatever its dtype; one recoded into
        # other categories (a new dtype: intervals) has no share to compare
        categorical = row["role"] != "numeric" and original.schema[c] == release.schema[c]
        share = _share_change(original.get_column(c), release.get_column(c)) if categorical else None
        shares.append(((row["changed"] + row["suppressed"]) / n if n else None, share))
    variables = utility.with_columns(
        pl.Series("changed_share", [s[0] for s in shares], dtype=pl.Float64),
        pl.Series("largest_share_change", [s[1] for s in shares], dtype=pl.Float64),
    ).select("variable", "role", "suppressed", "changed", "changed_share", "sse_sst", "largest_share_change")
    pairs = [(a, b, cramers_v_pair(original, a, b), cramers_v_pair(release, a, b))
             for a, b in combinations(roles.keys, 2)]
    association = pl.DataFrame(pairs, schema={"a": pl.String, "b": pl.String, "before": pl.Float64,
                                              "after": pl.Float64}, orient="row")
    risk = pl.DataFrame(risk_rows, schema={"measure": pl.String, "before": pl.Float64, "after": pl.Float64,
                                           "meaning": pl.String, "threshold": pl.String}, orient="row")
    frequencies = _frequencies(original, release, [r["variable"] for r in utility.iter_rows(named=True)
                                                   if r["role"] != "numeric" and r["variable"] in original.columns])
    record_risk: tuple[Any, Any] = ((), ())
    if roles.keys:
        record_risk = (problem._root().risk().per_record["risk"].to_numpy(), problem.risk().per_record["risk"].to_numpy())
    return SignOff("; ".join(parts), steps, risk, variables, association, log, frequencies, record_risk)


def _frequencies(original: pl.DataFrame, release: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """Per column and category (as text; a null is "(missing)"): count and share before and
    after, in the order of the categories before, then the new ones."""
    parts = []
    for c in columns:
        def counts(s: pl.Series, side: str) -> pl.DataFrame:
            t = s.cast(pl.String).fill_null("(missing)").value_counts(name=side, sort=False)
            return t.rename({c: "category"}).with_columns(pl.col(side).cast(pl.Int64))

        b = counts(original.get_column(c), "before").sort("before", "category", descending=[True, False])
        a = counts(release.get_column(c), "after")
        t = b.join(a, on="category", how="full", coalesce=True, maintain_order="left_right")
        t = t.with_columns(pl.col("before", "after").fill_null(0))
        parts.append(t.select(pl.lit(c).alias("variable"), "category", "before", "after",
                              share_before=pl.col("before") / original.height, share_after=pl.col("after") / release.height))
    if not parts:
        return pl.DataFrame(schema={"variable": pl.String, "category": pl.String, "before": pl.Int64, "after": pl.Int64,
                                    "share_before": pl.Float64, "share_after": pl.Float64})
    return pl.concat(parts)
