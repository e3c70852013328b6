"""A release report a supervisor can sign: what was done, what it protects, what it cost.

``report(orig, masked, on=keys, numeric=cols, sensitive=col, weight=w, steps=log)`` compares the
original and the masked file (same records, same order) and shows, in this order:

1. **verdict** — one sentence computed from the data: the k-anonymity reached on the keys,
   expected re-identifications before -> after (the sum of the individual risks; the *global
   risk* is their mean, sdcMicro ``measure_risk``), the values suppressed and changed, the
   numeric SSE/SST; ``rep.facts`` holds the numbers behind it;
2. **steps** — the optional ``steps=`` log (one row per step; see :data:`STEP_COLUMNS`);
3. **variables** — per column: values suppressed (non-missing -> missing) and changed
   (non-missing -> another value), counted from ``orig`` against ``masked``;
4. **risk** before / after on the keys, each measure with its unit, the threshold that
   matters and one line of meaning; a measure without a value says why;
5. **utility** — numeric columns: SSE/SST (ILSSDM), means, standard deviations, correlations,
   record linkage and interval disclosure; categorical columns (the keys and the sensitive
   column): frequency tables before / after, the largest relative change of a category share,
   Cramér's V of every key pair before / after (Sano & Hattori, eq. 7);
6. **sensitive attribute** — l-diversity and t-closeness before / after;
7. **plots** — individual risk per record on a log axis (before vs after), the keys' shares
   of the SUDA score (summing to 100 %), the risk–utility path of the steps (from a log with
   per-step effects and risk) and the risk–utility map of the numeric columns.

Units: shares, probabilities, risks and relative changes in percent; counts as counts;
coefficients (correlation, Cramér's V, t-closeness, l) as plain numbers.

A :class:`RiskReport` shows as HTML in a notebook (``_repr_html_``), as plain text in a terminal
(``repr``/``print``) and ``save(path)`` writes one self-contained HTML page.
"""
from __future__ import annotations

import base64
import html
import io
import math
import re
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .._columns import ColumnSpec, is_categorical, resolve_columns
from .._errors import SDCError
from .._signature import check_keywords

SECTIONS = ("summary", "steps", "variables", "risk", "numeric", "utility", "categorical", "frequencies",
            "association", "sensitive", "distribution", "suda", "steps-map", "losses", "ru-map")

#: The columns of a ``steps=`` log: ``step`` (String, the method name, e.g. "suppress") and
#: ``parameters`` (String, the options as text, e.g. "k=3, on=db040,age") are required; any
#: further column (counts such as ``suppressed`` / ``changed``, risks, ...) is shown, one row per
#: step in the order applied. A problem object's log (``operation`` + JSON ``parameters``, an
#: integer ``step``, row 0 the original) is read as it is (docs/report.md).
STEP_COLUMNS = ("step", "parameters")


def _frame(x, what: str) -> pl.DataFrame:
    if isinstance(x, pl.LazyFrame):
        return x.collect()
    if isinstance(x, pl.DataFrame):
        return x
    raise SDCError(f"{what}: expected a DataFrame or LazyFrame, got {type(x).__name__}")


def _num(v: Any) -> str:
    """A number for people: thousands separators, about three significant digits, never
    scientific notation; integers exactly."""
    if v is None:
        return "n/a"
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return "n/a"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0:
            return "0"
        if v.is_integer() and abs(v) < 1e15:
            return f"{int(v):,}"
        a = abs(v)
        if a >= 100:
            return f"{v:,.0f}"
        if a >= 10:
            return f"{v:.1f}"
        if a >= 1:
            return f"{v:.2f}"
        digits = min(-math.floor(math.log10(a)) + 2, 12)
        shown = f"{v:.{digits}f}"
        return "0" if float(shown) == 0 else shown  # below 1e-12: a rounding residue, never "-0.000000000000"
    return str(v)


def _with_unit(v: Any, unit: str | None) -> str:
    s = _num(v)
    if s == "n/a" or not unit:
        return s
    return f"{s} %" if unit == "%" else f"{s} {unit}"


def _mpl(text: str) -> str:
    """Text for a matplotlib label: a ``$`` is a dollar sign, not mathtext."""
    return str(text).replace("$", r"\$")


def _display(t: pl.DataFrame, reason_in_meaning: bool = False) -> tuple[list[str], list[list[str]]]:
    """Header and cell strings of a table: ``before``/``after``/``value`` cells carry the row's
    ``unit``; a missing one shows "n/a" and the row's ``why no value`` (in the cell, or after the
    ``meaning`` with ``reason_in_meaning``); those two helper columns are not shown themselves."""
    hidden = {"unit", "why no value"}
    cols = [c for c in t.columns if c not in hidden]
    rows = []
    for r in t.iter_rows(named=True):
        cells = []
        for c in cols:
            v = r[c]
            if c in ("before", "after", "value") and "unit" in r:
                s = _with_unit(v, r["unit"])
                if s == "n/a" and r.get("why no value") and not reason_in_meaning:
                    s = f"n/a: {r['why no value']}"
            elif c == "meaning" and reason_in_meaning and r.get("why no value"):
                s = f"{v} — no value: {r['why no value']}"
            elif v is None and "unit" not in r and r.get("why no value"):
                s = r["why no value"].split(" (")[0]       # e.g. "no released class"
            elif v is None:
                s = ""
            else:
                s = _num(v) if not isinstance(v, str) else v
            cells.append(s)
        rows.append(cells)
    return cols, rows


_LONG = ("meaning",)
_LEFT = ("what matters", "parameters", "per variable (suppressed / changed)")


def _text_table(t: pl.DataFrame, max_rows: int = 30) -> str:
    """Aligned plain text; a ``meaning`` column goes on an indented line under its row, and the
    reason for a missing value goes there too (the cell says n/a)."""
    cols, rows = _display(t)
    reasons = t.get_column("why no value").to_list() if "why no value" in t.columns else [None] * t.height
    long_idx = [i for i, c in enumerate(cols) if c in _LONG]
    extra = []
    for r, why in zip(rows, reasons):
        lines = [r[i] for i in long_idx if r[i]]
        if why:
            lines.append(f"no value: {why}")
        extra.append(lines)
        for i, v in enumerate(r):
            if v.startswith("n/a: "):
                r[i] = "n/a"
    keep = [i for i in range(len(cols)) if i not in long_idx]
    cols = [cols[i] for i in keep]
    rows = [[r[i] for i in keep] for r in rows]
    more = len(rows) - max_rows
    rows = rows[:max_rows]
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    widths = [min(w, 60) for w in widths]

    def line(cells: Sequence[str]) -> str:
        out = []
        for i, (s, w) in enumerate(zip(cells, widths)):
            s = s if len(s) <= w else s[: w - 1] + "…"
            out.append(s.ljust(w) if i == 0 or cols[i] in _LEFT or not _numberish(s) else s.rjust(w))
        return "  " + "  ".join(out).rstrip()

    text = [line(cols), "  " + "  ".join("-" * w for w in widths)]
    for r, lines in zip(rows, extra):
        text.append(line(r))
        text.extend(f"      {x}" for x in lines)
    if more > 0:
        text.append(f"  ... {more} more row(s) (see .tables or the HTML page)")
    return "\n".join(text)


_NUMBER = re.compile(r"^-?\d[\d,]*(\.\d+)?( %)?$")


def _numberish(s: str) -> bool:
    """A cell that is one number (with its unit): right-aligned."""
    return bool(_NUMBER.match(s)) or s == "n/a"


class RiskReport:
    """A release report (module docstring): ``verdict`` (str), ``facts`` (the numbers behind
    it), ``tables`` (``{"id: Title": DataFrame}``), ``plots`` (``{id: PNG bytes}``), ``notes``,
    ``risk_before`` / ``risk_after`` (:class:`~polars_sdc.risk.measure.RiskResult`) and
    ``figure_problems`` (what :func:`polars_sdc.plot.unlabelled_axes` found per plot: empty).

    >>> import polars as pl, polars_sdc
    >>> fr = polars_sdc.datasets.francdat()
    >>> keys = ["Key1", "Key2", "Key3", "Key4"]
    >>> rep = polars_sdc.report(fr, fr.sdc.suppress(3, keys), on=keys)
    >>> rep.verdict.startswith("3-anonymous on 4 keys")
    True
    """

    def __init__(self, title: str, tables: dict[str, pl.DataFrame], plots: dict[str, bytes], notes: list[str],
                 *, verdict: str = "", facts: dict[str, Any] | None = None, intros: dict[str, str] | None = None,
                 risk_before: Any = None, risk_after: Any = None,
                 figure_problems: dict[str, list[str]] | None = None):
        self.title = title
        self.tables = tables
        self.plots = plots
        self.notes = notes
        self.verdict = verdict
        self.facts = dict(facts or {})
        self.intros = dict(intros or {})
        self.risk_before = risk_before
        self.risk_after = risk_after
        self.figure_problems = dict(figure_problems or {})

    def table(self, section: str) -> pl.DataFrame:
        """The table of a section by its id (``"risk"``, ``"variables"``, ``"freq-age"``, ...).

        >>> import polars as pl, polars_sdc
        >>> fr = polars_sdc.datasets.francdat()
        >>> keys = ["Key1", "Key2", "Key3", "Key4"]
        >>> rep = polars_sdc.report(fr, fr.sdc.suppress(2, keys), on=keys)
        >>> rep.table("risk").filter(pl.col("measure") == "Sample uniques").select("before", "after").row(0)
        (4.0, 0.0)
        """
        for name, t in self.tables.items():
            if name.split(":", 1)[0] == section:
                return t
        raise SDCError(f"section {section!r}: not in this report (it has {', '.join(self._ids())})")

    def _ids(self) -> list[str]:
        return [n.split(":", 1)[0] for n in self.tables]

    def text(self, section: str | None = None) -> str:
        """The plain-text view: the whole report (as ``repr``), or one section by its id
        (``"verdict"``, ``"steps"``, ``"variables"``, ``"risk"``, ``"numeric"``, ``"utility"``,
        ``"categorical"``, ``"freq-<variable>"``, ``"association"``, ``"sensitive"``, ``"ru-map"``).

        >>> import polars as pl, polars_sdc
        >>> fr = polars_sdc.datasets.francdat()
        >>> keys = ["Key1", "Key2", "Key3", "Key4"]
        >>> print(polars_sdc.report(fr, fr.sdc.suppress(2, keys), on=keys).text("verdict"))  # doctest: +ELLIPSIS
        Verdict: NOT 3-anonymous on 4 keys with missing values as wildcards: 6 records in classes smaller than 3 ...
        """
        if section is None:
            return repr(self)
        if section == "verdict":
            return "Verdict: " + self.verdict
        return self._section_text(section)

    def _section_text(self, only: str | None = None) -> str:
        out = []
        for name, t in self.tables.items():
            sid, head = (name.split(":", 1) + [""])[:2]
            if sid == "summary" or (only is not None and sid != only):
                continue
            out.append(f"\n{head.strip() or sid}")
            if self.intros.get(sid):
                out.append("  " + self.intros[sid])
            out.append(_text_table(t, max_rows=12 if sid.startswith("freq-") else 40))
        if only is not None:
            if not out:
                raise SDCError(f"section {only!r}: not in this report (it has verdict, {', '.join(self._ids())})")
            return "\n".join(out).lstrip("\n")
        return "\n".join(out)

    def __repr__(self) -> str:
        out = [self.title, "=" * len(self.title), "", "Verdict: " + self.verdict, self._section_text()]
        if self.notes:
            out.append("\nNotes")
            out.extend(f"  - {n}" for n in self.notes)
        out.append(f"\nplots: {', '.join(_PLOT_TITLES.get(p, p) for p in self.plots) or 'none'} "
                   "(see .save(path) or the notebook view)")
        return "\n".join(out)

    @staticmethod
    def _table_html(t: pl.DataFrame, max_rows: int | None = None) -> str:
        cols, rows = _display(t, reason_in_meaning=True)
        more = len(rows) - max_rows if max_rows is not None else 0
        if more > 0:
            rows = rows[:max_rows]
        head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
        body = "".join(
            "<tr>" + "".join(
                "<td class='" + ("num" if _numberish(v) and c not in _LEFT else "txt") + f"'>{html.escape(v)}</td>"
                for c, v in zip(cols, row)
            ) + "</tr>" for row in rows
        )
        tail = f"<p class='more'>... {more} more row(s)</p>" if more > 0 else ""
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{tail}"

    _CSS = ("{r}{{font-family:sans-serif;max-width:1150px;color:#222}}"
            "{r} table{{border-collapse:collapse;margin:0.5em 0;max-width:100%}}"
            "{r} td,{r} th{{border:1px solid #bbb;padding:3px 8px}}{r} th{{background:#e8eef6}}"
            "{r} td.num{{text-align:right;white-space:nowrap}}{r} td.txt{{text-align:left;max-width:38em}}"
            "{r} h1{{color:#234}}{r} .verdict{{font-size:1.15em;background:#f3f6ea;border-left:5px solid #6a3;"
            "padding:0.6em 1em}}{r} .intro{{color:#444}}"
            "{r} .freq{{display:inline-block;vertical-align:top;margin-right:1.5em}}{r} img{{max-width:100%}}")

    def to_html(self) -> str:
        """One self-contained HTML page (tables and base64 PNG plots inline).

        >>> import polars as pl, polars_sdc
        >>> fr = polars_sdc.datasets.francdat()
        >>> keys = ["Key1", "Key2", "Key3", "Key4"]
        >>> polars_sdc.report(fr, fr.sdc.suppress(2, keys), on=keys).to_html()[:15]
        '<!DOCTYPE html>'
        """
        return ("<!DOCTYPE html><html><head><meta charset='utf-8'>"
                f"<title>{html.escape(self.title)}</title><style>body{{margin:2em}}</style></head><body>"
                + self._fragment() + "</body></html>")

    def _repr_html_(self) -> str:
        """The notebook view: the same content in one ``div``, its styles scoped to it."""
        return self._fragment()

    def _fragment(self) -> str:
        parts = [
            f"<div class='sdc-report'><style>{self._CSS.format(r='.sdc-report')}</style>",
            f"<h1>{html.escape(self.title)}</h1>",
            f"<section id='summary'><h2>Verdict</h2><p class='verdict'>{html.escape(self.verdict)}</p></section>",
        ]
        freq_open = False
        for name, t in self.tables.items():
            sid, head = (name.split(":", 1) + [""])[:2]
            if sid == "summary":
                continue
            if sid.startswith("freq-"):
                if not freq_open:
                    parts.append("<section id='frequencies'><h2>Frequency tables before and after</h2>"
                                 "<p class='intro'>" + html.escape(self.intros.get("frequencies", "")) + "</p>")
                    freq_open = True
                parts.append(f"<div class='freq' id='{html.escape(sid)}'><h3>{html.escape(head.strip())}</h3>")
                parts.append(self._table_html(t, max_rows=25) + "</div>")
                continue
            if freq_open:
                parts.append("</section>")
                freq_open = False
            parts.append(f"<section id='{html.escape(sid)}'><h2>{html.escape(head.strip())}</h2>")
            if self.intros.get(sid):
                parts.append(f"<p class='intro'>{html.escape(self.intros[sid])}</p>")
            parts.append(self._table_html(t))
            parts.append("</section>")
        if freq_open:
            parts.append("</section>")
        for name, png in self.plots.items():
            data = base64.b64encode(png).decode("ascii")
            parts.append(f"<section id='{name}'><h2>{html.escape(_PLOT_TITLES.get(name, name))}</h2>")
            if self.intros.get(name):
                parts.append(f"<p class='intro'>{html.escape(self.intros[name])}</p>")
            parts.append(f"<img class='plot' alt='{html.escape(name)}' src='data:image/png;base64,{data}'></section>")
        if self.notes:
            parts.append("<section id='notes'><h2>Notes</h2><ul>")
            parts.extend(f"<li>{html.escape(n)}</li>" for n in self.notes)
            parts.append("</ul></section>")
        parts.append("</div>")
        return "".join(parts)

    def save(self, path: str | Path) -> Path:
        """Write the self-contained HTML page to ``path``; returns the path.

        >>> import polars as pl, polars_sdc
        >>> fr = polars_sdc.datasets.francdat()
        >>> keys = ["Key1", "Key2", "Key3", "Key4"]
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "release_report.html"
        >>> polars_sdc.report(fr, fr.sdc.suppress(2, keys), on=keys).save(path).read_text(encoding="utf-8")[:15]
        '<!DOCTYPE html>'
        """
        p = Path(path)
        p.write_text(self.to_html(), encoding="utf-8")
        return p


_PLOT_TITLES = {
    "steps-map": "Risk–utility path of the steps",
    "losses": "What each variable lost",
    "ru-map": "Risk–utility map",
    "suda": "Share of the SUDA score per key",
    "distribution": "Individual re-identification risk, before and after",
}


def _png(fig) -> tuple[bytes, list[str]]:
    from ..plot import unlabelled_axes

    problems = unlabelled_axes(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue(), problems


# --- orig vs masked, per variable ---------------------------------------------------------


def _comparable(s: pl.Series, other: pl.Series) -> pl.Series:
    if s.dtype != other.dtype:  # as text; a generalised key's level-0 label equals its value ("21" = 21.0)
        from ..generalize.release import label_text

        return label_text(s)
    if is_categorical(s.dtype):
        return s.cast(pl.String)
    return s


def value_changes(orig: pl.DataFrame, masked: pl.DataFrame, column: str) -> dict[str, int]:
    """Counts of one column, ``orig`` against ``masked`` row by row: ``missing_before``,
    ``missing_after``, ``suppressed`` (a value that became missing), ``changed`` (a value
    released as another value; compared as text when the dtype changed) and ``filled``
    (missing that became a value).

    >>> import polars as pl
    >>> o = pl.DataFrame({"a": ["x", "y", "z", None]})
    >>> value_changes(o, pl.DataFrame({"a": ["x", None, "q", None]}), "a")
    {'missing_before': 1, 'missing_after': 2, 'suppressed': 1, 'changed': 1, 'filled': 0}
    """
    a = _comparable(orig.get_column(column), masked.get_column(column))
    b = _comparable(masked.get_column(column), orig.get_column(column))
    if a.dtype != b.dtype:
        a, b = a.cast(pl.String), b.cast(pl.String)
    frame = pl.DataFrame({"a": a, "b": b})
    diff = pl.col("a") != pl.col("b")
    if frame.schema["a"].is_float():
        diff = diff & ~(pl.col("a").is_nan() & pl.col("b").is_nan())
    r = frame.select(
        missing_before=pl.col("a").is_null().sum(),
        missing_after=pl.col("b").is_null().sum(),
        suppressed=(pl.col("a").is_not_null() & pl.col("b").is_null()).sum(),
        changed=(pl.col("a").is_not_null() & pl.col("b").is_not_null() & diff).sum(),
        filled=(pl.col("a").is_null() & pl.col("b").is_not_null()).sum(),
    ).row(0, named=True)
    return {k: int(v) for k, v in r.items()}


def _variables_table(o: pl.DataFrame, m: pl.DataFrame, roles: dict[str, str]) -> pl.DataFrame:
    rows = []
    for c in o.columns:
        if c not in m.columns:
            continue
        ch = value_changes(o, m, c)
        role = roles.get(c, "other")
        if role == "other" and not (ch["suppressed"] or ch["changed"] or ch["filled"]):
            continue
        present = o.height - ch["missing_before"]
        rows.append({
            "variable": c, "role": role,
            "type before": str(o.schema[c]), "type after": str(m.schema[c]),
            "missing before": ch["missing_before"], "missing after": ch["missing_after"],
            "suppressed": ch["suppressed"], "changed": ch["changed"],
            "% of values suppressed or changed": 100.0 * (ch["suppressed"] + ch["changed"]) / present if present else None,
        })
    schema = {"variable": pl.String, "role": pl.String, "type before": pl.String, "type after": pl.String,
              "missing before": pl.Int64, "missing after": pl.Int64, "suppressed": pl.Int64, "changed": pl.Int64,
              "% of values suppressed or changed": pl.Float64}
    order = {"key": 0, "categorical": 1, "numeric": 2, "sensitive": 3, "weight": 4, "household": 5, "other": 6}
    rows.sort(key=lambda r: order[r["role"]])  # stable: frame order within a role
    return pl.DataFrame(rows, schema=schema)


# --- risk: labelled measures --------------------------------------------------------------


def _population_reason(result, name: str, pi: float | None) -> str:
    """Why a population-uniqueness estimate has no value (arx.population_uniqueness: Dankar et
    al.'s rule estimates Pitman when the sampling fraction pi <= 10 %, else Zayatz and SNB)."""
    s = result.as_dict()
    if "population_zayatz" not in s:
        return "needs sampling weights or a population size (without them the file is the population)"
    frac = f"sampling fraction {_num(100 * pi)} %" if pi is not None else "the sampling fraction"
    if name == "population_pitman":
        if pi is not None and pi > 0.1:
            return f"not estimated: {frac} > 10 %, where Dankar et al.'s rule compares Zayatz and SNB"
        return ("Pitman's likelihood equations have no solution for these class sizes"
                if pi is not None else "not estimated (sampling fraction > 10 %) or no solution for these class sizes")
    if name == "population_snb":
        if pi is not None and pi <= 0.1:
            return f"not estimated: {frac} <= 10 %, where Dankar et al.'s rule uses Pitman"
        return ("SNB's equations have no solution for these class sizes" if pi is not None
                else "not estimated (sampling fraction <= 10 %) or no solution for these class sizes")
    if name == "population_zayatz":
        return "the hypergeometric probabilities vanish for these class sizes: no estimate"
    return "no model of Dankar et al.'s rule gave an estimate"


def _risk_table(before, after, keys: list[str], k: int, threshold: float, alpha: float,
                pi: tuple[float | None, float | None] = (None, None)) -> pl.DataFrame:
    b, a = before.as_dict(), after.as_dict()
    thr = _num(100 * threshold)
    nulls = "missing values match any value" if alpha == 1 else f"a missing value counts {alpha:g} of a match"
    rows: list[dict[str, Any]] = []

    def add(label, unit, fb, fa, what, meaning, why=None):
        def val(f, res):
            try:
                v = f(res)
            except KeyError:
                return None
            return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)

        vb, va = val(fb, before), val(fa, after)
        reason = None
        if vb is None or va is None:
            reason = why(*((before, pi[0]) if vb is None else (after, pi[1]))) if why else "not computed"
        rows.append({"measure": label, "unit": unit, "before": vb, "after": va, "what matters": what,
                     "meaning": meaning, "why no value": reason})

    def g(name, scale=1.0):
        return lambda r: None if not isinstance(r[name], (int, float)) else scale * r[name]

    add("Smallest class size (k-anonymity)", None, g("k_anonymity"), g("k_anonymity"), f">= {k} (the target k)",
        f"every combination of key values is shared by at least this many records ({nulls})")
    add(f"Records in classes smaller than {k}", None, g(f"records_violating_k{k}"), g(f"records_violating_k{k}"),
        "0", f"records that break {k}-anonymity")
    add("Sample uniques", None, g("sample_uniques"), g("sample_uniques"), "0 for a public-use file",
        "records alone on their combination of key values")
    add("Global risk (mean individual risk)", "%", g("global_risk", 100), g("global_risk", 100),
        "as low as agreed (= expected re-identifications / records)",
        "expected share of records an intruder matching on the keys re-identifies (sdcMicro measure_risk)")
    add("Expected re-identifications", None, g("expected_reidentifications"), g("expected_reidentifications"),
        "as low as agreed", "sum of the individual risks: how many records an intruder re-identifies on average")
    add("Highest individual risk", "%", lambda r: 100 * float(r.per_record["risk"].max()),
        lambda r: 100 * float(r.per_record["risk"].max()), f"<= {thr} %",
        "the individual risk (1 / estimated population class size, sdcMicro indivRisk) of the riskiest record")
    add(f"Records with individual risk above {thr} %", None,
        lambda r: int((r.per_record["risk"] > threshold).sum()), lambda r: int((r.per_record["risk"] > threshold).sum()),
        "0", "records an intruder re-identifies with a probability above the threshold")
    if "household_risk" in b:
        add("Household risk (mean)", "%", g("household_risk", 100), g("household_risk", 100), "as low as agreed",
            "probability that at least one member of a record's household is re-identified, averaged over records")
        add("Expected household re-identifications", None, g("household_expected_reidentifications"),
            g("household_expected_reidentifications"), "as low as agreed", "sum of the household risks")
    if "records_with_msu" in b:
        add("Records with a minimal sample unique (SUDA2)", None, g("records_with_msu"), g("records_with_msu"),
            "0", "records unique on some subset of the keys (a special-uniques attack needs only that subset)")
        add("Highest DIS-SUDA score", "", g("dis_suda_max"), g("dis_suda_max"), "compare before / after",
            "estimated probability that a record's sample uniqueness is a population uniqueness (DIS-SUDA, 1 % sample)")
    add("Prosecutor risk: highest", "%", g("prosecutor_highest", 100), g("prosecutor_highest", 100), f"<= {thr} %",
        "1 / smallest class: the attacker knows the target is in the file (ARX; a missing value is its own value, not a wildcard)")
    add("Prosecutor risk: average", "%", g("prosecutor_average", 100), g("prosecutor_average", 100),
        "as low as agreed", "classes / records: the share of records an attacker re-identifies (ARX; missing = own value)")
    add(f"Prosecutor risk: records above {thr} %", "%", g("prosecutor_records_at_risk", 100),
        g("prosecutor_records_at_risk", 100), "0 %", "share of records in classes smaller than 1 / threshold (ARX)")
    add("Journalist risk: highest", "%", g("journalist_highest", 100), g("journalist_highest", 100), f"<= {thr} %",
        "1 / smallest estimated population class: the target is anybody of the population (ARX)")
    add(f"Journalist risk: records above {thr} %", "%", g("journalist_records_at_risk", 100),
        g("journalist_records_at_risk", 100), "0 %", "share of records whose population class is smaller than 1 / threshold")
    add("Marketer risk", "%", g("marketer_risk", 100), g("marketer_risk", 100), "as low as agreed",
        "expected share of records re-identified when the attacker tries them all (ARX)")
    model_b, model_a = b.get("dankar_model"), a.get("dankar_model")
    model = model_b if model_b == model_a else f"{model_b} before, {model_a} after"
    add("Population uniques (share of the population)", "%", g("population_uniqueness", 100),
        g("population_uniqueness", 100), "as low as agreed",
        f"estimated share of population units unique on the keys (model by Dankar et al.'s rule: {model})",
        lambda r, p: _population_reason(r, "population_uniqueness", p))
    for name, label in (("population_zayatz", "Zayatz"), ("population_pitman", "Pitman"), ("population_snb", "SNB")):
        add(f"Population uniques, {label} estimate", None, g(name), g(name), "as low as agreed",
            f"estimated number of population units unique on the keys ({label})",
            lambda r, p, name=name: _population_reason(r, name, p))
    return pl.DataFrame(rows, schema={"measure": pl.String, "unit": pl.String, "before": pl.Float64,
                                      "after": pl.Float64, "what matters": pl.String, "meaning": pl.String,
                                      "why no value": pl.String})


def _nan_extreme(values: Any, pick: Any) -> float | None:
    """``pick`` (np.nanmin / np.nanmax) of per-record values, NaN (no released record) left out;
    None when every value is (no released class: every record suppressed)."""
    v = np.asarray(values, dtype=np.float64)
    return float(pick(v)) if v.size and not np.isnan(v).all() else None


#: what the report says where a release has no class to measure (every record suppressed)
NO_RELEASED_CLASS = "no released class (every record suppressed)"
#: ... and where the sensitive variable has no value to measure (every one null)
NO_SENSITIVE_VALUE = "no sensitive value (every one null)"


# --- utility --------------------------------------------------------------------------------


def _shares(s: pl.Series, as_text: bool) -> pl.DataFrame:
    from ..generalize.release import label_text   # a generalised key's level-0 label is its value ("21" = 21.0)

    v = label_text(s) if as_text else s
    return v.drop_nulls().alias("category").value_counts(name="n")   # a column may be named n


def frequency_change(orig: pl.DataFrame, masked: pl.DataFrame, column: str) -> pl.DataFrame:
    """The frequency table of ``column`` before and after: ``category`` (as text), counts,
    shares among the non-missing values (%) and the relative change of each share (%; null for
    a category that did not exist before). Missing values are counted by the per-variable table.

    >>> import polars as pl
    >>> t = frequency_change(pl.DataFrame({"a": ["x", "x", "y", "y"]}), pl.DataFrame({"a": ["x", "x", "x", "y"]}), "a")
    >>> t.select("category", "relative change of share (%)").rows()
    [('x', 50.0), ('y', -50.0)]
    """
    so, sm = orig.get_column(column), masked.get_column(column)
    as_text = so.dtype != sm.dtype or not (so.dtype.is_numeric() or so.dtype.is_temporal() or so.dtype == pl.Boolean)
    before = _shares(so, as_text).rename({"n": "n before"})
    after = _shares(sm, as_text).rename({"n": "n after"})
    t = before.join(after, on="category", how="full", coalesce=True).with_columns(
        pl.col("n before", "n after").fill_null(0).cast(pl.Int64)
    )
    nb, na = max(int(t["n before"].sum()), 1), max(int(t["n after"].sum()), 1)
    t = t.with_columns(
        (100.0 * pl.col("n before") / nb).alias("share before (%)"),
        (100.0 * pl.col("n after") / na).alias("share after (%)"),
    ).with_columns(
        pl.when(pl.col("n before") > 0)
        .then(100.0 * (pl.col("share after (%)") - pl.col("share before (%)")) / pl.col("share before (%)"))
        .otherwise(None).alias("relative change of share (%)")
    )
    return t.sort("category", nulls_last=True).with_columns(pl.col("category").cast(pl.String))


def _categorical_summary(o: pl.DataFrame, m: pl.DataFrame, cols: list[str]) -> tuple[pl.DataFrame, dict]:
    rows, tables = [], {}
    for c in cols:
        t = frequency_change(o, m, c)
        tables[c] = t
        rel = t.filter(pl.col("relative change of share (%)").is_not_null())
        if rel.height:
            i = int(rel["relative change of share (%)"].abs().arg_max())
            big, cat = rel["relative change of share (%)"][i], rel["category"][i]
        else:
            big, cat = None, None
        tvd = 0.5 * float((t["share after (%)"] - t["share before (%)"]).abs().sum())
        rows.append({
            "variable": c,
            "categories before": int((t["n before"] > 0).sum()), "categories after": int((t["n after"] > 0).sum()),
            "new categories": int((t["n before"] == 0).sum()),
            "largest relative change of a share (%)": big, "in category": cat,
            "total variation distance (%)": tvd,
        })
    schema = {"variable": pl.String, "categories before": pl.Int64, "categories after": pl.Int64,
              "new categories": pl.Int64, "largest relative change of a share (%)": pl.Float64,
              "in category": pl.String, "total variation distance (%)": pl.Float64}
    return pl.DataFrame(rows, schema=schema), tables


def _association_table(o: pl.DataFrame, m: pl.DataFrame, cols: list[str]) -> pl.DataFrame:
    from ..utility.association import cramers_v_pair

    rows = []
    for x, y in combinations(cols, 2):
        vb, va = cramers_v_pair(o, x, y), cramers_v_pair(m, x, y)
        rows.append({"pair": f"{x} × {y}", "Cramér's V before": vb, "Cramér's V after": va,
                     "change": None if vb is None or va is None else va - vb})
    return pl.DataFrame(rows, schema={"pair": pl.String, "Cramér's V before": pl.Float64,
                                      "Cramér's V after": pl.Float64, "change": pl.Float64})


def _numeric_tables(o: pl.DataFrame, m: pl.DataFrame, nums: list[str], notes: list[str]) -> tuple[pl.DataFrame, dict]:
    # a NaN is no value: read as missing, as the process log's SSE/SST does
    o, m = (f.with_columns(pl.col(c).fill_nan(None) for c in nums if f.schema[c].is_float()) for f in (o, m))
    per = []
    for c in nums:
        x = o.get_column(c).cast(pl.Float64)
        y = m.get_column(c).cast(pl.Float64)
        from ..loss.sse import sse_sst   # the log's: a suppressed value lost, the original's nulls skipped

        loss = sse_sst(o, m, [c]) if x.null_count() < x.len() and x.std() else None
        mx, my = x.mean(), y.mean()
        sx, sy = x.std(), y.std()
        per.append({
            "variable": c, "mean before": mx, "mean after": my,
            "relative change of the mean (%)": 100.0 * (my - mx) / abs(mx) if mx not in (None, 0.0) and my is not None else None,
            "relative change of the std. dev. (%)": 100.0 * (sy - sx) / sx if sx not in (None, 0.0) and sy is not None else None,
            "SSE/SST (%)": 100.0 * loss if loss is not None else None,
        })
    per_t = pl.DataFrame(per, schema={"variable": pl.String, "mean before": pl.Float64, "mean after": pl.Float64,
                                      "relative change of the mean (%)": pl.Float64,
                                      "relative change of the std. dev. (%)": pl.Float64, "SSE/SST (%)": pl.Float64})
    facts: dict[str, Any] = {}
    # structural nulls (a child's income) and suppressed values: the measures over records use
    # the records complete on the numeric columns in both frames (SSE/SST, means and standard
    # deviations: each column's non-null values); the report says what it skipped
    complete = pl.all_horizontal(pl.col(c).is_not_null() for c in nums)
    ok = o.select(complete).to_series() & m.select(complete).to_series()
    skipped = o.height - int(ok.sum())
    if skipped:
        o, m = o.filter(ok), m.filter(ok)
        notes.append(f"numeric: {_num(skipped)} of {_num(ok.len())} records hold a missing value in a numeric column; "
                     f"record linkage, interval disclosure, the correlations and the risk–utility map use "
                     f"the {_num(o.height)} complete records; SSE/SST (a suppressed value counted as lost), means and "
                     f"standard deviations each column's values")
    facts["skipped"] = skipped
    facts["complete"] = (o, m)
    if o.height >= 2:
        facts["sse_sst"] = float(o.select(nums).sdc.ilssdm(nums, masked=m.select(nums)))
    else:
        notes.append(f"numeric: {o.height} complete record(s); SSE/SST, record linkage and the risk–utility map "
                     "need at least 2 and are left out")
    if len(nums) > 1 and o.height > 2:
        X = o.select(nums).cast(pl.Float64)
        Y = m.select(nums).cast(pl.Float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            cx = np.corrcoef(X.to_numpy(), rowvar=False)
            cy = np.corrcoef(Y.to_numpy(), rowvar=False)
        d = np.abs(cx - cy)
        facts["corr"] = float(np.nanmax(d)) if np.isfinite(d).any() else None
    return per_t, facts


# --- plots ------------------------------------------------------------------------------------


def _plot_distribution(before, after, threshold: float):
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    rb = before.per_record["risk"].to_numpy()
    ra = after.per_record["risk"].to_numpy()
    pos = np.concatenate([rb[rb > 0], ra[ra > 0]])
    lo = max(float(pos.min()) if pos.size else 1e-4, 1e-9) / 1.3
    bins = np.geomspace(lo, 1.0, 41)
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.hist(np.clip(rb, lo, 1.0), bins=bins, histtype="stepfilled", alpha=0.5, color="C3", label="before masking")
    ax.hist(np.clip(ra, lo, 1.0), bins=bins, histtype="step", linewidth=2, color="C0", label="after masking")
    ax.axvline(threshold, color="black", linestyle="--", linewidth=1, label=f"threshold {_num(100 * threshold)} %")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:g} %"))
    ax.set_xlabel("individual re-identification risk (%, log scale)")
    ax.set_ylabel("records")
    ax.set_title(f"Risk per record: mean {_num(100 * rb.mean())} % before, {_num(100 * ra.mean())} % after")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both", axis="x")
    return _png(fig)


def suda_shares(result) -> np.ndarray:
    """The keys' shares (%) of the file's SUDA score, summing to 100 % (zeros when no record
    has a minimal sample unique). sdcMicro's ``contributionPercent`` counts an MSU once for
    every key it contains, so its per-key numbers sum to more than 100 %; here they are
    renormalised to a share."""
    raw = result.suda.attribute_contributions()["contribution"].to_numpy()
    total = float(raw.sum())
    return 100.0 * raw / total if total > 0 else np.zeros_like(raw)


def _plot_suda(before, after, keys: list[str]):
    import matplotlib.pyplot as plt

    sb, sa = suda_shares(before), suda_shares(after)
    fig, ax = plt.subplots(figsize=(7, 3.8))
    x = np.arange(len(keys))
    ax.bar(x - 0.2, sb, 0.4, color="C3", label=f"before masking ({_num(before['records_with_msu'])} records with an MSU)")
    ax.bar(x + 0.2, sa, 0.4, color="C0", label=f"after masking ({_num(after['records_with_msu'])} records with an MSU)")
    ax.set_xticks(x, [_mpl(k) for k in keys], rotation=30, ha="right")
    ax.set_xlabel("key variable")
    ax.set_ylabel("share of the SUDA score (%)")
    ax.set_title("Which keys make records unique (each release sums to 100 %)")
    ax.legend(fontsize=8)
    return _png(fig)


def _plot_variables(t: pl.DataFrame):
    """Per variable (rows of the variables table with a loss): the share of its values present
    before that was suppressed and that was changed, stacked bars."""
    import matplotlib.pyplot as plt

    present = t["% of values suppressed or changed"].fill_null(0.0).to_numpy()
    n_sup, n_chg = t["suppressed"].to_numpy().astype(float), t["changed"].to_numpy().astype(float)
    sup = present * n_sup / np.maximum(n_sup + n_chg, 1.0)
    names = [_mpl(f"{v} ({r})") for v, r in zip(t["variable"], t["role"])]
    fig, ax = plt.subplots(figsize=(7, 0.8 + 0.34 * t.height))
    ax.barh(names, sup, color="C3", label="suppressed (became missing)")
    ax.barh(names, present - sup, left=sup, color="C0", label="changed (released as another value)")
    ax.invert_yaxis()
    ax.set_xlim(0, max(float(present.max()) * 1.05, 1.0))
    ax.set_xlabel("values suppressed or changed (% of the variable's values present before)")
    ax.set_ylabel("variable (role)")
    ax.set_title("What each variable lost")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3, axis="x")
    return _png(fig)


def _plot_ru_map(points, release, method: str):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    ks = ", ".join(str(p[0]) for p in points)
    ax.plot([100 * p[1] for p in points], [100 * p[2] for p in points], "o-", color="C0",
            label=f"{method.upper()} on the numeric columns at k = {ks}")
    for k, x, y in points:
        ax.annotate(f"k = {k}", (100 * x, 100 * y), textcoords="offset points", xytext=(6, 4), fontsize=9)
    ax.plot([100 * release[0]], [100 * release[1]], "*", color="C3", markersize=15,
            label=f"this release ({_num(100 * release[0])} %, {_num(100 * release[1])} %)")
    ax.margins(x=0.12, y=0.1)
    ax.set_xlabel("information loss: SSE/SST (%)")
    ax.set_ylabel("record-linkage risk (% of records re-linked)")
    ax.set_title("Risk–utility map of the numeric columns")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)


# --- the report -----------------------------------------------------------------------------


#: log columns holding fractions, shown in percent under a plain name; other snake_case names
#: of a log get plain words (``records_reclassified`` -> "records reclassified")
_LOG_PERCENT = {"global_risk": "global risk (%)", "household_risk": "household risk (%)", "sse_sst": "SSE/SST (%)"}
_LOG_NAMES = {"k_anonymity": "k-anonymity", "expected_reidentifications": "expected re-identifications",
              "l_diversity": "l-diversity", "by_variable": "per variable (suppressed / changed)"}


def _parameters_text(text: str | None) -> str | None:
    """A step's parameters for people: a JSON object becomes ``k=3, on=db040,age``."""
    import json

    if text is None:
        return None
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    if not isinstance(obj, dict):
        return text

    def value(v: Any) -> str:
        if isinstance(v, list):
            return ",".join(value(x) for x in v)
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k}: {value(x)}" for k, x in v.items()) + "}"
        return str(v)

    return ", ".join(f"{k}={value(v)}" for k, v in obj.items()) or "(none)"


def _by_variable_text(items: Any) -> str | None:
    if items is None:
        return None
    parts = []
    for it in items:
        if not isinstance(it, dict) or not (it.get("suppressed") or it.get("changed")):
            continue
        parts.append(f"{it.get('variable')} {_num(it.get('suppressed') or 0)} / {_num(it.get('changed') or 0)}")
    return "; ".join(parts)


def _steps_frame(steps) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The log as given (checked) and as shown. Two layouts are read: ``step`` (String, the
    method) + ``parameters``; or a problem's log, ``operation`` (String) + ``parameters`` (JSON)
    with an integer ``step`` (its row ``operation == "original"`` is the starting point)."""
    s = _frame(steps, "steps")
    name = "operation" if "operation" in s.columns else "step"
    missing = [c for c in (name, "parameters") if c not in s.columns]
    if missing:
        raise SDCError(f"steps: the log needs the column(s) {', '.join(missing)} "
                       f"(one row per step: {', '.join(STEP_COLUMNS)}, then any effect columns); it has {s.columns}")
    for c in (name, "parameters"):
        if s.schema[c] != pl.String:
            raise SDCError(f"steps: column {c!r} must be text (String), got {s.schema[c]}")
    applied = s.filter(pl.col(name) != "original") if name == "operation" else s
    shown = applied.with_columns(
        pl.col("parameters").map_elements(_parameters_text, return_dtype=pl.String),
    ).drop([c for c in ("step",) if name == "operation" and c in applied.columns])
    if name == "operation":
        shown = shown.rename({"operation": "step"})
    if "by_variable" in shown.columns and isinstance(shown.schema["by_variable"], pl.List):
        shown = shown.with_columns(pl.col("by_variable").map_elements(
            lambda v: _by_variable_text(v.to_list() if isinstance(v, pl.Series) else v), return_dtype=pl.String))
    shown = shown.with_columns(*((pl.col(c).cast(pl.Float64) * 100.0).alias(c) for c in _LOG_PERCENT if c in shown.columns))
    shown = shown.rename({c: n for c, n in {**_LOG_PERCENT, **_LOG_NAMES}.items() if c in shown.columns})
    shown = shown.rename({c: c.replace("_", " ") for c in shown.columns if "_" in c and c not in ("step",)})
    shown = shown.select(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("#"), pl.all())
    return s, shown


def _step_path(log: pl.DataFrame) -> list[tuple[str, float, float]] | None:
    """The risk–utility path of the steps from a log with per-step ``suppressed`` and ``changed``
    counts and ``expected_reidentifications``: (label, cumulative values suppressed or changed,
    expected re-identifications after the step); None when the log lacks them."""
    need = ("suppressed", "changed", "expected_reidentifications")
    if not all(c in log.columns for c in need) or log.height < 2:
        return None
    name = "operation" if "operation" in log.columns else "step"
    touched = (log["suppressed"].fill_null(0) + log["changed"].fill_null(0)).cum_sum().to_list()
    labels = [f"{i}. {n}" if n != "original" else "original" for i, n in enumerate(log[name].to_list())]
    if log[name][0] != "original":
        labels = [f"{i + 1}. {n}" for i, n in enumerate(log[name].to_list())]
    risk = log["expected_reidentifications"].cast(pl.Float64).to_list()
    if any(r is None for r in risk):
        return None
    return [(lab, float(t), float(r)) for lab, t, r in zip(labels, touched, risk)]


def _plot_step_path(path: list[tuple[str, float, float]]):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    xs, ys = [p[1] for p in path], [p[2] for p in path]
    ax.plot(xs, ys, "o-", color="C0", label="after each step (from the log)")
    for lab, x, y in path:
        ax.annotate(_mpl(lab), (x, y), textcoords="offset points", xytext=(6, 5), fontsize=9)
    ax.set_xlabel("values suppressed or changed so far (count, from the log)")
    ax.set_ylabel("expected re-identifications")
    ax.set_title("Risk–utility path of the steps")
    ax.margins(x=0.15, y=0.12)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)


def _generalization_tables(g) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, Any]]:
    """The levels table, the search table and the verdict's facts of a GeneralizationResult."""
    lat = g.lattice
    heights = getattr(g, "heights", None)   # a lattice column may be named otherwise (level_columns)
    height = dict(heights) if heights else {c: int(lat.get_column(n).max()) for c, n in g.level_columns.items()}
    released = g.frame.filter(~g.outliers)
    levels = pl.DataFrame({
        "quasi-identifier": list(g.levels),
        "level": [int(v) for v in g.levels.values()],
        "of (hierarchy height)": [height[c] for c in g.levels],
        # labels, not a structural null (kept null, never generalised)
        "labels released": [int(released.get_column(c).drop_nulls().n_unique()) for c in g.levels],
        "example label": [str(released.get_column(c).drop_nulls()[0]) if released.get_column(c).drop_nulls().len()
                          else "" for c in g.levels],
    })
    search = pl.DataFrame({
        "measure": ["metric", "metric value", "records suppressed", "suppression limit (records)",
                    "transformations checked", "transformations in the lattice", "tied optima"],
        "value": [g.metric, _num(g.loss), _num(g.suppressed), _num(g.max_suppressed), _num(g.checked),
                  _num(lat.height), _num(len(g.ties))],
    })
    facts = {"levels": ", ".join(f"{c} {v}" for c, v in g.levels.items()), "metric": g.metric, "loss": g.loss,
             "suppressed": g.suppressed}
    return levels, search, facts


def _verdict(f: dict[str, Any]) -> str:
    parts = []
    nk = f"{f['keys']} key{'s' if f['keys'] != 1 else ''}"
    wild = ""
    if f["missing_keys_after"]:
        wild = " with missing values as wildcards" if f["alpha"] == 1 else f" with missing values as partial wildcards (alpha {f['alpha']:g})"
    ka = f["k_after"]
    ka_s = _num(ka)
    if ka >= f["k"]:
        parts.append(f"{ka_s}-anonymous on {nk}{wild}")
    else:
        parts.append(f"NOT {f['k']}-anonymous on {nk}{wild}: {_num(f['violating_after'])} records in classes "
                     f"smaller than {f['k']} (smallest class {ka_s})")
    parts.append(f"expected re-identifications {_num(f['expected_before'])} -> {_num(f['expected_after'])} "
                 f"(global risk {_num(f['global_risk_before_pct'])} % -> {_num(f['global_risk_after_pct'])} %)")
    def n_values(n: int) -> str:
        return f"{_num(n)} value{'' if n == 1 else 's'}"

    changes = f"{n_values(f['suppressed'])} suppressed, {n_values(f['changed_categorical'])} changed in keys/categorical variables"
    top = sorted(f.get("changed_by_variable", {}).items(), key=lambda kv: -kv[1])
    if top:
        changes += " (" + ", ".join(f"{c} {_num(n)}" for c, n in top[:3]) + (", ..." if len(top) > 3 else "") + ")"
    if f.get("numeric"):
        changes += f", {n_values(f['changed_numeric'])} changed in numeric variables"
    if f.get("changed_other"):
        others = sorted(f["changed_other_by_variable"].items(), key=lambda kv: -kv[1])
        changes += (f", {n_values(f['changed_other'])} changed in other columns ("
                    + ", ".join(f"{c} {_num(n)}" for c, n in others[:3]) + (", ..." if len(others) > 3 else "") + ")")
    parts.append(changes)
    if f.get("sse_sst_pct") is not None:
        parts.append(f"numeric SSE/SST {_num(f['sse_sst_pct'])} %")
    g = f.get("generalization")
    if g is not None:
        parts.append(f"generalised to levels {g['levels']} ({g['metric']} {_num(g['loss'])}), "
                     f"{_num(g['suppressed'])} record{'' if g['suppressed'] == 1 else 's'} suppressed")
    if f.get("sensitive") is not None:
        def l_of(key: str, why: str | None) -> str:
            return _num(f[key]) if f.get(key) is not None else (why or NO_RELEASED_CLASS)

        text_l = (f"{f['sensitive']}: l-diversity {l_of('l_before', NO_SENSITIVE_VALUE)} -> "
                  f"{l_of('l_after', f.get('l_after_why'))}")
        nb, na = f.get("sensitive_nulls_before", 0), f.get("sensitive_nulls_after", 0)
        if nb or na:
            nulls = _num(nb) if nb == na else f"{_num(nb)} / {_num(na)}"
            text_l += (f" (distinct values per class among the records with a value; {nulls} null "
                       f"value{'' if max(nb, na) == 1 else 's'} not counted)")
        parts.append(text_l)
    text = "; ".join(parts) + "."
    if f.get("steps"):
        text = f"After {len(f['steps'])} step{'s' if len(f['steps']) != 1 else ''} ({', '.join(f['steps'])}): " + text
    return text[0].upper() + text[1:]


def _check_label_against_outliers(m: pl.DataFrame, keys: list[str], suppressed_as: str | None,
                                  generalization: Any) -> None:
    """With the generalisation's result at hand, its suppression mask (``outliers``) decides:
    a label that marks a record the generalisation **kept** (e.g. ``"*"`` given for a release
    made with another label, whose top level is ``"*"``) is an :class:`SDCError` rather than a
    report that counts released records as suppressed."""
    from .suppressed import suppressed_rows

    out = getattr(generalization, "outliers", None)
    if suppressed_as is None or out is None or out.len() != m.height:
        return
    read = suppressed_rows(m, keys, suppressed_as)
    if read is None:
        return
    kept = int((read & ~out).sum())
    if kept:
        own = getattr(generalization, "suppressed_as", None)
        qis = list(getattr(generalization, "levels", None) or {})
        if suppressed_as == own and qis and set(keys) != set(qis):
            # the generalization's own label, read on other keys than its quasi-identifiers: a
            # subset whose every column is at its top shows the label on kept records
            fix = (f"report on the generalization's quasi-identifiers ({', '.join(map(repr, qis))}), which its "
                   f"label marks unambiguously, or generalize with a label no hierarchy level uses "
                   "(e.g. suppressed_as='(suppressed)')")
        else:
            fix = f"give the generalization's own label ({own!r})"
        raise SDCError(f"suppressed_as={suppressed_as!r}: {kept} record(s) the generalization kept show it in every "
                       f"key ({', '.join(map(repr, keys))}) and would read as suppressed; {fix}")


@check_keywords
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
    steps=None,
    k: int = 3,
    threshold: float = 0.1,
    household: str | None = None,
    categorical: ColumnSpec = None,
    generalization=None,
    suppressed_as: str | None = None,
) -> RiskReport:
    """The release report (module docstring): ``orig`` and ``masked`` hold the same records in
    the same order; ``on`` the keys, ``numeric`` the numeric variables, ``sensitive`` the
    sensitive column, ``weight`` the sampling weights (the individual risk of sdcMicro's
    ``measure_risk``), ``household`` the household id (household risk); ``k`` the target k and
    ``threshold`` the acceptable individual risk (ARX's record threshold) the risk table judges
    against; ``steps`` a log of the steps applied (:data:`STEP_COLUMNS`); ``method`` and ``ks``
    the microaggregation drawn on the risk–utility map; ``categorical`` further categorical
    columns (PRAM'd ones, say) whose values and frequency tables are compared like the keys';
    ``generalization`` the :class:`~polars_sdc.generalize.GeneralizationResult` of an ARX-style
    full-domain generalisation (its levels, records suppressed and metric get a section).
    ``suppressed_as``: the label of the records a generalisation suppressed (``"*"``; by
    default ``generalization``'s own, else None): a record of ``masked`` whose every key is that
    label counts as every key missing; without one every value is read as written.
    A problem's :meth:`~polars_sdc.process.Problem.sign_off` is this report built from its roles
    and log.

    >>> import polars as pl
    >>> o = pl.DataFrame({"a": [1, 1, 2, 2, 3, 3], "x": [1.0, 2.0, 3.0, 4.0, 5.0, 9.0]})
    >>> rep = report(o, o.sdc.mdav(2, on="x"), on="a", numeric="x", ks=(2,), k=2)
    >>> rep.verdict
    '2-anonymous on 1 key; expected re-identifications 3 -> 3 (global risk 50 % -> 50 %); 0 values suppressed, 0 values changed in keys/categorical variables, 6 values changed in numeric variables; numeric SSE/SST 22.5 %.'
    >>> sorted(rep.plots)  # no record is unique on a subset of the keys: no SUDA plot
    ['distribution', 'losses', 'ru-map']
    """
    import matplotlib

    matplotlib.use("Agg", force=False)

    from .._validation import check_int
    from .diversity import l_diversity_values, t_closeness_values
    from .frequencies import check_alpha, key_columns
    from .suppressed import check_suppressed_as, suppressed_as_missing
    from .linkage import interval_disclosure, linkage_risk
    from .measure import measure_risk

    o = _frame(orig, "orig")
    m = _frame(masked, "masked")
    if o.height != m.height:
        raise SDCError(f"masked frame: {m.height} rows but the original has {o.height}; they must be the same records")
    keys = key_columns(o, on)
    key_columns(m, keys)
    nums = resolve_columns(o, numeric, kind="numeric", what="numeric", default="error") if numeric is not None else []
    if nums:
        resolve_columns(m, nums, kind="numeric", what="numeric (masked frame)", default="error")
    if sensitive is not None and sensitive in keys:
        raise SDCError(f"column {sensitive!r}: is both a key (`on`) and the sensitive column")
    for c, what in ((sensitive, "sensitive"), (weight, "weight"), (household, "household")):
        if c is not None and c not in o.columns:
            raise SDCError(f"column {c!r} ({what}): not in the original frame")
    extra = resolve_columns(o, categorical, kind="any", what="categorical", default="error") if categorical is not None else []
    for c in extra:
        if c not in m.columns:
            raise SDCError(f"column {c!r} (categorical): not in the masked frame")
    extra = [c for c in extra if c not in keys and c != sensitive]
    k = check_int(k, "k", minimum=1)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
        raise SDCError(f"threshold must be in (0, 1], got {threshold!r}")
    a = check_alpha(alpha)
    raw_log, step_log = _steps_frame(steps) if steps is not None else (None, None)
    if suppressed_as is None and generalization is not None:
        suppressed_as = getattr(generalization, "suppressed_as", None)
    check_suppressed_as(suppressed_as)
    _check_label_against_outliers(m, keys, suppressed_as, generalization)

    notes: list[str] = []
    tables: dict[str, pl.DataFrame] = {}
    intros: dict[str, str] = {}
    plots: dict[str, bytes] = {}
    problems: dict[str, list[str]] = {}

    rks = tuple(sorted({2, 3, 5, k}))
    w_after = weight if weight is not None and weight in m.columns else None
    h_after = household if household is not None and household in m.columns else None
    before = measure_risk(o, keys, weight, alpha=a, ks=rks, threshold=threshold, household=household)
    after = measure_risk(m, keys, w_after, alpha=a, ks=rks, threshold=threshold, household=h_after,
                         suppressed_as=suppressed_as)
    b, af = before.as_dict(), after.as_dict()

    roles = {c: "categorical" for c in extra}
    roles.update({c: "key" for c in keys})
    roles.update({c: "numeric" for c in nums})
    for c, r in ((sensitive, "sensitive"), (weight, "weight"), (household, "household")):
        if c is not None:
            roles[c] = r
    m_keys = suppressed_as_missing(m, keys, suppressed_as)  # a generalised release's suppressed records
    variables = _variables_table(o, m_keys, roles)
    num_set = set(nums)
    changed_num = int(variables.filter(pl.col("variable").is_in(list(num_set)))["changed"].sum())
    # a column without a role that a step changed (swap_records' carry_along, e.g. a household
    # weight) is neither a key/categorical variable nor a numeric one of the roles: its own count
    changed_cat = int(variables.filter(~pl.col("variable").is_in(list(num_set))
                                       & ~pl.col("role").is_in(["weight", "household", "other"]))["changed"].sum())
    other = variables.filter((pl.col("role") == "other") & (pl.col("changed") > 0))
    facts: dict[str, Any] = {
        "records": o.height, "keys": len(keys), "k": k, "alpha": a,
        "k_before": b["k_anonymity"], "k_after": af["k_anonymity"],
        "violating_after": af[f"records_violating_k{k}"],
        "missing_keys_after": int(m_keys.select(keys).null_count().sum_horizontal().item()),
        "expected_before": b["expected_reidentifications"], "expected_after": af["expected_reidentifications"],
        "global_risk_before_pct": 100.0 * b["global_risk"], "global_risk_after_pct": 100.0 * af["global_risk"],
        "suppressed": int(variables.filter(~pl.col("role").is_in(["weight", "household"]))["suppressed"].sum()),
        "changed_categorical": changed_cat, "changed_numeric": changed_num, "numeric": bool(nums),
        "changed_by_variable": {c: n for c, r, n in variables.select("variable", "role", "changed").iter_rows()
                                if n and c not in num_set and r not in ("weight", "household", "other")},
        "changed_other": int(other["changed"].sum()),
        "changed_other_by_variable": dict(other.select("variable", "changed").iter_rows()),
        "sse_sst_pct": None, "steps": step_log["step"].to_list() if step_log is not None else [],
    }

    # numeric columns
    ru_points, release_point = [], None
    if nums:
        per_num, nf = _numeric_tables(o, m, nums, notes)
        rows = []
        oc, mc = nf["complete"]
        if "sse_sst" in nf:
            # over every column's non-null values, a suppressed one lost (the log's SSE/SST); the
            # risk-utility map's point stays on the complete records, as its microaggregations
            from ..loss.sse import sse_sst

            whole = sse_sst(o, m, nums)
            facts["sse_sst_pct"] = 100.0 * (nf["sse_sst"] if whole is None else whole)
            link = linkage_risk(oc, mc, nums)
            idr = interval_disclosure(oc, mc, nums)
            facts["record_linkage_pct"] = 100.0 * link
            release_point = (nf["sse_sst"], link)
            rows += [
                ("Record linkage", "%", 100.0 * link, "as low as agreed",
                 "share of masked records whose nearest original record (distance on the numeric columns) is their own"),
                ("Interval disclosure", "%", 100.0 * idr, "as low as agreed",
                 "share of records whose every original value lies within 5 % of a masked standard deviation of its masked value (sdcMicro dRisk)"),
                ("SSE/SST (information loss)", "%", facts["sse_sst_pct"], "as low as possible",
                 "squared distance of the masked to the original values over the total sum of squares, z-scored columns (ILSSDM)"),
            ]
        mean_chg = per_num["relative change of the mean (%)"].abs().max()
        sd_chg = per_num["relative change of the std. dev. (%)"].abs().max()
        rows += [
            ("Largest relative change of a mean", "%", mean_chg, "close to 0 %", "over the numeric columns"),
            ("Largest relative change of a standard deviation", "%", sd_chg, "close to 0 %", "over the numeric columns"),
        ]
        if nf.get("corr") is not None:
            rows.append(("Largest change of a correlation", "", nf["corr"], "close to 0",
                         "absolute difference of a Pearson correlation between two numeric columns"))
        tables["numeric: Numeric variables: disclosure and information loss"] = pl.DataFrame(
            rows, schema={"measure": pl.String, "unit": pl.String, "value": pl.Float64, "what matters": pl.String,
                          "meaning": pl.String}, orient="row")
        tables["utility: Numeric variables, one by one"] = per_num
        if release_point is not None:
            for kk in ks:
                if kk > oc.height:
                    continue
                mk = oc.select(nums).sdc.microaggregate(kk, on=nums, method=method)
                ru_points.append((kk, oc.select(nums).sdc.ilssdm(nums, masked=mk), linkage_risk(oc, mk, nums)))
    else:
        notes.append("no numeric columns given: record linkage, numeric utility and the risk–utility map are left out")

    # sensitive attribute
    sens_table = None
    if sensitive is not None:
        rows = []
        # a null sensitive value (a structural null: pl030 of a child) is not a sensitive value:
        # l and t are measured on the records that have one (a class of nulls only has no l)
        s_nulls = {"before": o.get_column(sensitive).null_count(), "after": m.get_column(sensitive).null_count()}
        if any(s_nulls.values()):
            notes.append(f"{sensitive}: {_num(s_nulls['before'])} / {_num(s_nulls['after'])} null values "
                         "(original / release) are not sensitive values: l and t are measured on the records "
                         "with a value (l: the distinct values of a class's records that have one; a class "
                         "whose values are all null has no l)")
        # after a t-closeness generalisation, t by its model's ground distance (equal, or the sensitive
        # hierarchy's): the t it guaranteed (the default reads a numeric column by the ordered distance)
        gm = getattr(generalization, "models", None) or {}
        t_model = gm if gm.get("t_closeness") is not None and gm.get("sensitive") == sensitive else None
        if t_model is None:
            t_reading = ("earth mover's distance, ordered for a numeric or Enum sensitive column, equal ground distance "
                         "otherwise")
        elif t_model["t_distance"] == "hierarchical":
            t_reading = ("the generalisation's model: hierarchical ground distance of the sensitive hierarchy, ARX "
                         f"HierarchicalDistanceTCloseness, t <= {_num(t_model['t_closeness'])} guaranteed")
        else:
            t_reading = ("the generalisation's model: equal ground distance, ARX EqualDistanceTCloseness, "
                         f"t <= {_num(t_model['t_closeness'])} guaranteed")

        # after a generalisation with Grassberger's entropy l-diversity, its estimator (the plug-in
        # entropy of the same class is lower: a board read l = 5 as 3.87)
        grassberger_l = (gm.get("l_diversity") is not None and gm.get("l_kind") == "entropy_grassberger"
                         and gm.get("sensitive") == sensitive)

        def l_entropy(frame: pl.DataFrame, star: str | None) -> np.ndarray:
            if grassberger_l:
                from ..generalize.release import grassberger_l_values

                return grassberger_l_values(frame, keys, sensitive, suppressed_as=star)
            return l_diversity_values(frame, keys, sensitive, "entropy", suppressed_as=star)

        def t_values(frame: pl.DataFrame, star: str | None) -> np.ndarray:
            if t_model is not None:
                from ..generalize.release import model_t_values

                try:
                    return model_t_values(frame, keys, sensitive, t_model["t_distance"],
                                          t_model.get("sensitive_hierarchy"), suppressed_as=star)
                except SDCError as exc:   # e.g. the original holds a value an earlier step recoded away
                    notes.append(f"{sensitive}: t read by the default distance where the generalisation's "
                                 f"model cannot read it ({exc})")
            return t_closeness_values(frame, keys, sensitive, suppressed_as=star)

        for label, frame, star in (("before", o, None), ("after", m, suppressed_as)):
            if s_nulls[label]:
                frame = frame.filter(pl.col(sensitive).is_not_null())
            # a generalised release's suppressed records are in no released class (ARX's reading)
            rows.append({
                "release": label,
                "l (distinct values per class, smallest)": _nan_extreme(
                    l_diversity_values(frame, keys, sensitive, "distinct", suppressed_as=star), np.nanmin),
                "l (entropy, smallest)": _nan_extreme(l_entropy(frame, star), np.nanmin),
                "t (closeness, largest)": _nan_extreme(t_values(frame, star), np.nanmax),
            })
            rows[-1]["why no value"] = ((NO_SENSITIVE_VALUE if frame.height == 0 else NO_RELEASED_CLASS)
                                        if all(v is None for k_, v in rows[-1].items() if k_ != "release") else None)
        sens_table = pl.DataFrame(rows, schema_overrides={"why no value": pl.String})
        facts["sensitive"] = sensitive
        facts["sensitive_nulls_before"], facts["sensitive_nulls_after"] = s_nulls["before"], s_nulls["after"]
        facts["l_after_why"] = rows[1]["why no value"]
        facts["l_before"], facts["l_after"] = rows[0]["l (distinct values per class, smallest)"], rows[1]["l (distinct values per class, smallest)"]

    # categorical utility: the keys, the further categorical columns and the sensitive column (as categories)
    cats = keys + extra + ([sensitive] if sensitive is not None else [])
    cat_summary, freq_tables = _categorical_summary(o, m_keys, cats)

    gen_tables = _generalization_tables(generalization) if generalization is not None else None
    if gen_tables is not None:
        facts["generalization"] = gen_tables[2]
    verdict = _verdict(facts)

    # assemble in reading order
    tables_ordered: dict[str, pl.DataFrame] = {}
    if step_log is not None:
        tables_ordered["steps: Steps applied"] = step_log
        intros["steps"] = "The masking steps in the order applied, with their parameters and effects as logged."
    if gen_tables is not None:
        tables_ordered["generalization: Full-domain generalisation (ARX)"] = gen_tables[0]
        tables_ordered["generalization-search: The search"] = gen_tables[1]
        intros["generalization"] = ("Each quasi-identifier released at one level of its hierarchy (0 = the original "
                                    "values); the records of classes that still failed the privacy models are "
                                    "suppressed (every quasi-identifier '*' or missing), counted as missing keys "
                                    "(wildcards) in the risk below.")
    tables_ordered["variables: Values suppressed and changed, per variable"] = variables
    intros["variables"] = ("Counted record by record, original against release: suppressed = a value that became "
                           "missing; changed = a value released as another value (compared as text when the type changed).")
    pis = tuple(f.height / float(f.get_column(weight).sum()) if weight is not None and weight in f.columns else None
                for f in (o, m))
    tables_ordered["risk: Disclosure risk on the keys, before and after"] = _risk_table(before, after, keys, k,
                                                                                      threshold, a, pis)
    intros["risk"] = (f"Keys: {', '.join(keys)}" + (f"; sampling weight {weight}" if weight else "; no sampling weight "
                      "(the file is treated as the population)") + f". Target k = {k}; acceptable individual risk "
                      f"{_num(100 * threshold)} %.")
    for name in list(tables):
        tables_ordered[name] = tables[name]
    intros["numeric"] = f"Numeric variables: {', '.join(nums)}." if nums else ""
    tables_ordered["categorical: Categorical utility (keys" + (", categorical columns" if extra else "")
                   + (" and sensitive column)" if sensitive is not None else ")")] = cat_summary
    intros["categorical"] = ("Shares are among the non-missing values (suppressions are counted per variable above); "
                             "the relative change of a share is (after - before) / before; the total variation "
                             "distance is half the sum of the absolute share differences.")
    intros["frequencies"] = "Categories sorted by name; a long table shows its first 25 rows here (all in rep.tables)."
    for c, t in freq_tables.items():
        tables_ordered[f"freq-{c}: {c}"] = t
    if len(keys) > 1:
        tables_ordered["association: Association between key pairs (Cramér's V)"] = _association_table(o, m_keys, keys)
        intros["association"] = ("Cramér's V (0 = independent, 1 = one determines the other; Sano & Hattori eq. 7) "
                                 "over the records where both values are present.")
    if sens_table is not None:
        tables_ordered[f"sensitive: Sensitive attribute {sensitive}"] = sens_table
        intros["sensitive"] = ("l: distinct sensitive values in the worst class (higher is safer); l (entropy): "
                               + ("by Grassberger's estimator, as the generalisation's entropy l-diversity model "
                                  "(ARX EntropyLDiversity, GRASSBERGER); " if grassberger_l else "exp of the class's "
                                  "entropy; ")
                               + "t: largest distance "
                               "of a class's distribution of the sensitive value to the whole file's (lower is safer; "
                               f"{t_reading}).")

    # plots
    plots["distribution"], problems["distribution"] = _plot_distribution(before, after, threshold)
    intros["distribution"] = ("Individual risk per record on a log scale: masking should move the mass to the left "
                              "and nothing should stay right of the threshold.")
    if before.suda is not None and (suda_shares(before).sum() > 0 or suda_shares(after).sum() > 0):
        plots["suda"], problems["suda"] = _plot_suda(before, after, keys)
        intros["suda"] = ("How much each key takes part in the minimal sample uniques (SUDA2), as a share of the "
                          "release's total SUDA score (the bars of one release sum to 100 %).")
    else:
        notes.append("no record is unique on any subset of the keys before or after: no SUDA plot")
    path = _step_path(raw_log) if raw_log is not None else None
    if path is not None:
        plots["steps-map"], problems["steps-map"] = _plot_step_path(path)
        intros["steps-map"] = ("Each step's cost (values suppressed or changed, cumulated) against the expected "
                               "re-identifications after it, as the log recorded them.")
        logged = path[-1][2]
        if not math.isclose(logged, float(af["expected_reidentifications"]), rel_tol=1e-6, abs_tol=1e-9):
            notes.append(f"the log's last step records {_num(logged)} expected re-identifications, the release "
                         f"measured here {_num(af['expected_reidentifications'])}: the log used other keys, weights "
                         "or missing-value rule than this report")
    lost = variables.filter(~pl.col("role").is_in(["weight", "household", "other"])
                            & ((pl.col("suppressed") + pl.col("changed")) > 0))
    if lost.height:
        plots["losses"], problems["losses"] = _plot_variables(lost)
        intros["losses"] = ("Per variable, the share of its values suppressed and changed (the table of "
                                    "values suppressed and changed, as bars).")
    if ru_points:
        plots["ru-map"], problems["ru-map"] = _plot_ru_map(ru_points, release_point, method)
        intros["ru-map"] = (f"Information loss against record-linkage risk of {method.upper()} microaggregation of the "
                            "numeric columns at several k (the alternatives), with this release as a star.")
        tables_ordered[f"ru-map: Risk–utility map points ({method})"] = pl.DataFrame(
            {"k": [p[0] for p in ru_points], "SSE/SST (%)": [100 * p[1] for p in ru_points],
             "record linkage (%)": [100 * p[2] for p in ru_points]},
            schema={"k": pl.Int64, "SSE/SST (%)": pl.Float64, "record linkage (%)": pl.Float64},
        )
    if "population_zayatz" not in b:
        notes.append("population-uniqueness estimates need sampling weights (weight=): without them the file is "
                     "treated as the whole population")
    return RiskReport(title, tables_ordered, plots, notes, verdict=verdict, facts=facts, intros=intros,
                      risk_before=before, risk_after=after, figure_problems=problems)


def risk_table(result, *, k: int = 3, threshold: float = 0.1, alpha: float = 1.0,
               sampling_fraction: float | None = None) -> pl.DataFrame:
    """The risk measures of one release (a :class:`~polars_sdc.risk.measure.RiskResult`) with
    plain names, units (percent for risks and shares), the threshold that matters, one line of
    meaning and, for a measure without a value, the reason: the report's risk table for a
    single file (the ``polars-sdc risk`` command prints it).

    >>> import polars as pl, polars_sdc
    >>> r = pl.DataFrame({"a": [1, 1, 2, 3]}).sdc.risk("a", suda=False)
    >>> risk_table(r).filter(pl.col("measure").str.starts_with("Global")).select("value", "unit").row(0)
    (75.0, '%')
    """
    t = _risk_table(result, result, list(result.keys), k, threshold, alpha, (sampling_fraction, sampling_fraction))
    return t.drop("after").rename({"before": "value"})


def risk_text(result, *, k: int = 3, threshold: float = 0.1, alpha: float = 1.0,
              sampling_fraction: float | None = None) -> str:
    """:func:`risk_table` as aligned plain text (measure, value with its unit, what matters)."""
    return _text_table(risk_table(result, k=k, threshold=threshold, alpha=alpha, sampling_fraction=sampling_fraction)
                       .select("measure", "unit", "value", "what matters", "why no value"), max_rows=100)
