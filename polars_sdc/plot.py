"""Plots users ask for: information loss against k, groups in two dimensions, a reconstructed
distribution against the truth and the noisy release. Each returns the matplotlib Axes it drew
on (pass ``ax=`` to draw into your own figure); every axis is labelled, with units where the
data have them. matplotlib is imported only when a plot is made.

:func:`unlabelled_axes` lists the axes of a figure that miss a label, a title or a legend —
the notebooks' tests use it so that no plot ships without them.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from ._errors import SDCError
from ._typing import ColumnSpec



def literal(text: object) -> str:
    """``text`` for a matplotlib label, shown as it is: ``$`` escaped, so a column named
    ``"$x^$"`` is not read as mathtext (which raises on it).

    >>> print(literal("$x^$"))
    \\$x^\\$
    """
    return str(text).replace("$", r"\$")

def _axes(ax: Any, figsize: tuple[float, float]) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize)[1]


def loss_curve(
    df: pl.DataFrame,
    on: ColumnSpec = None,
    *,
    ks: Iterable[int] = (2, 3, 4, 5, 6, 8, 10),
    methods: Mapping[str, Mapping[str, Any]] | Sequence[str] = ("mdav",),
    **common: Any,
) -> pl.DataFrame:
    """SSE/SST (in %, z-scored ``on`` columns) of each method at each k: columns ``method``,
    ``k``, ``sse_sst_pct``. ``methods`` is a list of method names or ``{label: options}``
    (options of :meth:`DataFrame.sdc.partition`, e.g. ``{"MDAV + MIL": {"method": "mdav",
    "refine": "mil"}}``); ``common`` options go to every call.

    >>> import polars as pl, polars_sdc
    >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0]})
    >>> loss_curve(df, "x", ks=[3], methods=["mdav"])["sse_sst_pct"].round(3).to_list()
    [3.187]
    """
    from .loss.sse import ilssdm_frame
    from .microagg import quasi_identifiers

    if not isinstance(methods, Mapping):
        methods = {name: {"method": name} for name in methods}
    cols = [c for c in quasi_identifiers(df, on, common.get("by")) if df.schema[c].is_numeric()]
    if not cols:
        raise SDCError("`on`: SSE/SST needs at least one numeric quasi-identifier")
    rows = []
    for label, options in methods.items():
        for k in ks:
            groups = df.sdc.partition(k, on, **{**common, **options})
            loss = ilssdm_frame(df, cols, groups=groups)
            rows.append({"method": label, "k": int(k), "sse_sst_pct": 100.0 * loss})
    return pl.DataFrame(rows, schema={"method": pl.String, "k": pl.Int64, "sse_sst_pct": pl.Float64})


def loss_vs_k(
    df: pl.DataFrame,
    on: ColumnSpec = None,
    *,
    ks: Iterable[int] = (2, 3, 4, 5, 6, 8, 10),
    methods: Mapping[str, Mapping[str, Any]] | Sequence[str] = ("mdav",),
    ax: Any = None,
    title: str | None = None,
    **common: Any,
) -> Any:
    """Plot :func:`loss_curve`: SSE/SST (%) against k, one line per method, integer k ticks.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import polars_sdc
    >>> from polars_sdc import datasets, plot
    >>> ax = plot.loss_vs_k(datasets.census().head(200), ks=[3, 5], methods=["mdav", "vmdav"])
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('k (minimum group size)', 'SSE/SST (%)')
    """
    from matplotlib.ticker import MaxNLocator

    table = loss_curve(df, on, ks=ks, methods=methods, **common)
    ax = _axes(ax, (7, 4))
    for (label,), part in table.group_by("method", maintain_order=True):
        ax.plot(part["k"], part["sse_sst_pct"], marker="o", label=label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("k (minimum group size)")
    ax.set_ylabel("SSE/SST (%)")
    ax.set_ylim(bottom=0)
    ax.set_title(title or f"Information loss against k ({df.height} rows)")
    ax.legend(title="method")
    return ax


def groups_2d(
    original: pl.DataFrame,
    x: str,
    y: str,
    groups: str | pl.Series | np.ndarray,
    *,
    ax: Any = None,
    title: str | None = None,
) -> Any:
    """Records of two numeric columns coloured by group, each joined to its group mean (the
    released value, marked x): what microaggregation does, in a picture.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import polars as pl, polars_sdc
    >>> from polars_sdc import plot
    >>> df = pl.DataFrame({"a": [0.0, 1.0, 5.0, 6.0], "b": [0.0, 1.0, 5.0, 7.0]})
    >>> ax = plot.groups_2d(df, "a", "b", df.sdc.partition(2, ["a", "b"]))
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['record (colour: its group)', 'released value (group mean)']
    """
    from .partition import group_ids

    for c in (x, y):
        if c not in original.columns:
            from ._columns import unknown_column

            raise unknown_column(c, original.columns, list_them=False)
    g = group_ids(original, groups).to_numpy()
    pts = original.select(pl.col(x).cast(pl.Float64), pl.col(y).cast(pl.Float64)).with_columns(__g=pl.Series(g))
    means = pts.with_columns(pl.col(x).mean().over("__g").alias("__mx"), pl.col(y).mean().over("__g").alias("__my"))
    ax = _axes(ax, (6, 5))
    for x0, y0, x1, y1 in means.select(x, y, "__mx", "__my").iter_rows():
        ax.plot([x0, x1], [y0, y1], color="grey", lw=0.6, zorder=1)
    ax.scatter(pts[x], pts[y], c=g % 20, cmap="tab20", vmin=0, vmax=19, s=22, zorder=3,
               label="record (colour: its group)")
    centres = means.unique("__g", maintain_order=True)
    ax.scatter(centres["__mx"], centres["__my"], marker="x", color="black", s=36, zorder=4,
               label="released value (group mean)")
    ax.set_xlabel(literal(x))
    ax.set_ylabel(literal(y))
    ax.set_title(title or f"{int(np.unique(g).size)} groups of {original.height} records")
    ax.legend(loc="best", fontsize=8)
    return ax


def reconstruction(
    fit: Any,
    noisy: pl.DataFrame | pl.Series | np.ndarray,
    original: pl.DataFrame | pl.Series | np.ndarray | None = None,
    *,
    column: str | None = None,
    bins: int = 60,
    ax: Any = None,
    title: str | None = None,
    unit: str | None = None,
) -> Any:
    """The density a :class:`~polars_sdc.reconstruct.GMMFit` reconstructs, over a histogram of
    the noisy release (and of the original values, when given), on one axis; y is a density
    (per unit of x), the y range fits the curves, not the noise's long tails.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, polars as pl, polars_sdc
    >>> from polars_sdc import plot
    >>> x = pl.DataFrame({"x": np.random.default_rng(0).normal(size=500)})
    >>> noisy = x.sdc.laplace(0.5, "x", seed=1)
    >>> fit = noisy.sdc.reconstruct_gmm(1, "x", phi=0.5)
    >>> ax = plot.reconstruction(fit, noisy, x, column="x")
    >>> ax.get_ylabel()
    'density (per unit of x)'
    """

    def values(data: Any) -> np.ndarray:
        if isinstance(data, pl.DataFrame):
            name = column or (data.columns[0] if data.width == 1 else None)
            if name is None:
                raise SDCError("column: name the column to plot (the frame has several)")
            return data.get_column(name).cast(pl.Float64).to_numpy()
        if isinstance(data, pl.Series):
            return data.cast(pl.Float64).to_numpy()
        return np.asarray(data, dtype=np.float64).ravel()

    y = values(noisy)
    x = values(original) if original is not None else None
    name = column or (fit.columns[0] if getattr(fit, "columns", None) else "x")
    ref = x if x is not None else y
    lo, hi = np.percentile(ref, [0.5, 99.5])
    pad = 0.15 * (hi - lo if hi > lo else 1.0)
    grid = np.linspace(lo - pad, hi + pad, 600)
    ax = _axes(ax, (8, 4))
    edges = np.linspace(grid[0], grid[-1], bins + 1)
    ax.hist(y, bins=edges, density=True, alpha=0.3, color="C0", label="noisy release")
    top = []
    if x is not None:
        counts, _ = np.histogram(x, bins=edges, density=True)
        ax.stairs(counts, edges, color="black", lw=1.2, label="original values")
        top.append(counts.max())
    dens = np.asarray(fit.pdf(grid), dtype=np.float64).ravel()
    ax.plot(grid, dens, color="C3", lw=2, label=f"reconstructed (GMM, K = {fit.K})")
    top.append(dens.max())
    ax.set_ylim(0, 1.15 * max(top))
    ax.set_xlim(grid[0], grid[-1])
    ax.set_xlabel(literal(f"{name}" + (f" ({unit})" if unit else "")))
    ax.set_ylabel(literal(f"density (per unit of {name})"))
    ax.set_title(title or literal(f"{name}: original, noisy and reconstructed distribution"))
    ax.legend(fontsize=8)
    return ax


def unlabelled_axes(fig: Any) -> list[str]:
    """What is missing on each visible axes of ``fig``: an x label, a y label, a title (its own
    or the figure's), or a legend naming its labelled series when it draws more than one.
    In a grid of subplots one label serves a whole column (x) or row (y), and one legend serves
    every panel whose series it names; colour bars need no labels of their own. An empty list:
    every plot is readable.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(); _ = ax.plot([1, 2], label="a"); _ = ax.plot([2, 1], label="b")
    >>> unlabelled_axes(fig)
    ['axes 0: no x label', 'axes 0: no y label', 'axes 0: no title', 'axes 0: no legend for 2 series']
    >>> plt.close(fig)
    """
    problems = []
    suptitle = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) is not None else ""
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.axison and not _is_colorbar(ax)]
    legend_texts = {t.get_text() for leg in getattr(fig, "legends", []) for t in leg.get_texts()}
    for ax in panels:
        if ax.get_legend() is not None:
            legend_texts |= {t.get_text() for t in ax.get_legend().get_texts()}
    for i, ax in enumerate(fig.axes):
        if ax not in panels:
            continue
        if not ax.get_xlabel() and not any(o.get_xlabel() for o in _same_line(ax, panels, "col")):
            problems.append(f"axes {i}: no x label")
        if not ax.get_ylabel() and not any(o.get_ylabel() for o in _same_line(ax, panels, "row")):
            problems.append(f"axes {i}: no y label")
        if not ax.get_title() and not suptitle:
            problems.append(f"axes {i}: no title")
        labels = [str(a.get_label()) for a in [*ax.lines, *ax.collections, *ax.patches, *ax.containers]
                  if not str(a.get_label()).startswith("_")]
        if len(labels) > 1 and not set(labels) <= legend_texts:
            problems.append(f"axes {i}: no legend for {len(labels)} series")
    return problems


def _is_colorbar(ax: Any) -> bool:
    return getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>"


def _same_line(ax: Any, panels: list[Any], which: str) -> list[Any]:
    """The panel that carries the label for ``ax``'s grid column (``"col"``: the lowest visible
    panel of the column) or row (``"row"``: the first visible panel of the row), if another."""
    spec = ax.get_subplotspec() if hasattr(ax, "get_subplotspec") else None
    if spec is None:
        return []
    line = []
    for other in panels:
        o = other.get_subplotspec() if hasattr(other, "get_subplotspec") else None
        if o is None or o.get_gridspec() is not spec.get_gridspec():
            continue
        if (which == "col" and o.colspan == spec.colspan) or (which == "row" and o.rowspan == spec.rowspan):
            line.append((o.rowspan.stop if which == "col" else -o.colspan.start, other))
    if not line:
        return []
    keeper = max(line, key=lambda t: t[0])[1]
    return [] if keeper is ax else [keeper]


def generalization_lattice(result: Any, *, ax: Any = None, title: str | None = None) -> Any:
    """Plot the lattice of a :func:`polars_sdc.generalize.generalize` result: one point per
    transformation, height (sum of levels) against its loss where the search computed it, else
    its lower bound; colour by status (anonymous / not anonymous / pruned), the optimum starred.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import polars_sdc
    >>> from polars_sdc import datasets, plot
    >>> df, hs = datasets.arx_adult()
    >>> r = df.sdc.generalize({c: hs[c] for c in ["sex", "age", "race"]}, k=5)
    >>> ax = plot.generalization_lattice(r)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('height (sum of levels)', 'loss (bound where not computed)')
    """
    lat = result.lattice
    ax = _axes(ax, (7, 4))
    y = lat.select(pl.coalesce("loss", "bound")).to_series().to_numpy()
    h = lat["height"].to_numpy().astype(float)
    jitter = (np.arange(lat.height) % 7 - 3) * 0.04
    colours = {"anonymous": "tab:green", "not anonymous": "tab:red", "unknown": "tab:gray"}
    for status, colour in colours.items():
        sel = (lat["status"] == status).to_numpy()
        if sel.any():
            ax.scatter(h[sel] + jitter[sel], y[sel], s=8, alpha=0.5, color=colour,
                       label="pruned" if status == "unknown" else status)
    best = lat["optimal"].to_numpy()
    ax.scatter(h[best], y[best], s=160, marker="*", color="black", label="optimum")
    ax.set_xlabel("height (sum of levels)")
    ax.set_ylabel("loss (bound where not computed)")
    ax.set_title(title or f"Generalisation lattice: {lat.height} transformations, {result.checked} checked "
                 f"({result.metric})")
    ax.legend()
    return ax
