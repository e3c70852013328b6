"""Distances between values for ILD (thesis 3.1.3 and 3.2; Akiyama & Wada 2.1; Sano & Hattori eq. 2).

A distance needs only ``d >= 0``, ``d(x, y) = 0`` iff ``x = y`` and symmetry; the triangle
inequality is not required (thesis 3.1.3). Each distance here evaluates itself on the U
*distinct* values (rows) of its column(s), never on all N rows:

* :func:`pnorm` / :func:`euclidean` -- p-norms (p = 1, 2, inf, any p >= 1) over numeric columns;
* :func:`discrete` -- 0 if equal, else 1 (any dtype, also whole records);
* :func:`ordinal` -- Sano & Hattori eq. 2: categories from min up to (not including) max, over
  the number of categories;
* :func:`tree` -- number of edges between two nodes of a hierarchy (values may be inner nodes);
* :func:`graph` -- weighted-graph distance from an edge list (shortest paths, or the edge
  weights themselves);
* :func:`hamming`, :func:`levenshtein`, :func:`damerau_levenshtein` -- string distances
  (Numba kernels);
* :func:`function`, :func:`matrix` -- a user's pairwise function or distance matrix;
* :func:`product` -- per-column distances combined as ``sqrt(sum_b w_b d_b^2)`` (thesis
  3.1.3), with ``weights="amount"`` for the thesis's ``w_b = 1 / I_b(A)``.

Wherever a distance is asked for, a name works too: ``"euclidean"``, ``"manhattan"``,
``"chebyshev"``, ``"discrete"``, ``"ordinal"``, ``"hamming"``, ``"levenshtein"``,
``"levenshtein_norm"``, ``"damerau_levenshtein"``, or a Python callable ``f(x, y)``.

One module on purpose (~700 lines): the catalogue of distances users import as
``polars_sdc.dist``, each a small class with the same ``pairwise`` / ``bind`` interface.

>>> import polars as pl
>>> from polars_sdc import dist
>>> d = dist.tree({"a1": "a", "a2": "a", "a11": "a1", "a12": "a1", "a21": "a2"})
>>> d.pairwise(pl.DataFrame({"v": ["a11", "a12", "a21", "a"]})).tolist()[0]
[0.0, 2.0, 4.0, 2.0]
"""
from __future__ import annotations

import copy
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from .._columns import is_categorical, is_numeric
from .._errors import SDCError
from .._signature import check_keywords

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "Distance", "Product", "get", "euclidean", "pnorm", "discrete", "ordinal", "tree", "graph",
    "hamming", "levenshtein", "damerau_levenshtein", "function", "matrix", "product",
]


def _label(columns: Sequence[str]) -> str:
    return columns[0] if len(columns) == 1 else "(" + ", ".join(columns) + ")"


class Distance(ABC):
    """A distance between the values of one column (or the records of several columns).

    Subclasses implement :meth:`pairwise` on distinct values; :meth:`amount` turns it into
    ``sum_u sum_v c_u c_v d(u, v)^e`` (thesis eq. 3.1.2 over distinct values, O(U^2)).
    Build one with the functions of this module (``dist.discrete()``, ``dist.tree(...)``, ...)
    or, for your own, ``dist.function(f)`` / ``dist.matrix(...)``.

    >>> import polars as pl
    >>> from polars_sdc import dist
    >>> d = dist.discrete()
    >>> isinstance(d, dist.Distance), d.pairwise(pl.DataFrame({"c": ["a", "b"]})).tolist()
    (True, [[0.0, 1.0], [1.0, 0.0]])
    """

    multi: bool = False  # may span several columns
    needs: str = "any"  # "numeric", "strings" or "any"
    columns: tuple[str, ...] = ()

    def check(self, columns: Sequence[str], schema: Mapping[str, pl.DataType]) -> None:
        """Raise :class:`SDCError` unless this distance applies to ``columns``.

        >>> import polars as pl
        >>> from polars_sdc import dist
        >>> dist.euclidean().check(["c"], pl.Schema({"c": pl.String}))
        Traceback (most recent call last):
        ...
        polars_sdc._errors.SDCError: column 'c': dtype String is not numeric; dist.euclidean() needs numbers
        """
        if len(columns) > 1 and not self.multi:
            raise SDCError(f"columns {', '.join(map(repr, columns))}: {self!r} applies to one column at a time")
        for c in columns:
            t = schema[c]
            if self.needs == "numeric" and not is_numeric(t):
                raise SDCError(f"column {c!r}: dtype {t} is not numeric; {self!r} needs numbers")
            if self.needs == "strings" and not is_categorical(t):
                raise SDCError(f"column {c!r}: dtype {t} is not String, Categorical or Enum; {self!r} needs strings")

    def bind(self, columns: Sequence[str], frames: Sequence[pl.DataFrame]) -> "Distance":
        """A copy tied to ``columns`` of the given frames (original and masked): fixes
        whatever depends on the data (e.g. the categories of an ordinal column).

        >>> import polars as pl
        >>> from polars_sdc import dist
        >>> v = pl.DataFrame({"c": ["a", "b", "c"]})
        >>> dist.ordinal().bind(["c"], [v, v]).pairwise(v)[0].tolist()   # ranks 0, 1, 2 of 3
        [0.0, 0.3333333333333333, 0.6666666666666666]
        """
        out = copy.copy(self)
        out.columns = tuple(columns)
        return out

    @property
    def _name(self) -> str:
        return _label(self.columns) if self.columns else "?"

    @abstractmethod
    def pairwise(self, values: pl.DataFrame) -> "np.ndarray":
        """The U x U distance matrix between the rows of ``values`` (distinct rows).

        >>> import polars as pl
        >>> from polars_sdc import dist
        >>> dist.euclidean().pairwise(pl.DataFrame({"x": [1.0, 4.0]})).tolist()
        [[0.0, 3.0], [3.0, 0.0]]
        """

    def _positions(self, values: pl.DataFrame, index: Mapping[Any, int], what: str) -> "np.ndarray":
        """The positions in ``index`` of the one-column ``values`` (SDCError naming the first
        value that is not ``what``)."""
        import numpy as np

        vals = values.to_series().to_list()
        missing = [v for v in vals if v not in index]
        if missing:
            raise SDCError(f"column {self._name!r}: value {missing[0]!r} is not {what}")
        return np.array([index[v] for v in vals], dtype=np.int64)

    def amount(self, values: pl.DataFrame, counts: "np.ndarray", exponent: float) -> float:
        """``sum_u sum_v c_u c_v d(u, v)^exponent`` over distinct rows with counts.

        >>> import numpy as np, polars as pl
        >>> from polars_sdc import dist
        >>> dist.discrete().amount(pl.DataFrame({"c": ["a", "b", "c"]}), np.array([2, 1, 1]), 2)
        10.0
        """
        import numpy as np

        D = self.pairwise(values)
        P = D * D if exponent == 2 else (D if exponent == 1 else D**exponent)
        c = np.asarray(counts, dtype=np.float64)
        return float(c @ P @ c)

    def __repr__(self) -> str:
        return f"dist.{type(self).__name__.lower()}()"


# -- numeric -------------------------------------------------------------------------
class PNorm(Distance):
    """``(sum_i |x_i - y_i|^p)^(1/p)``; p = inf gives ``max_i |x_i - y_i|`` (thesis 3.2.3)."""

    multi = True
    needs = "numeric"

    def __init__(self, p: float = 2.0) -> None:
        p = float(p)
        if not (p >= 1):
            raise SDCError(f"p-norm: p must be >= 1 (or inf), got {p}")
        self.p = p

    def pairwise(self, values: pl.DataFrame) -> "np.ndarray":
        import numpy as np

        X = values.select(pl.all().cast(pl.Float64)).to_numpy()
        diff = np.abs(X[:, None, :] - X[None, :, :])
        if math.isinf(self.p):
            return diff.max(axis=2)
        return (diff**self.p).sum(axis=2) ** (1.0 / self.p)

    def __repr__(self) -> str:
        return {1.0: "dist.pnorm(1)", 2.0: "dist.euclidean()"}.get(self.p, f"dist.pnorm({self.p})")


@check_keywords
def pnorm(p: float = 2) -> PNorm:
    """The p-norm distance over one or more numeric columns: p = 1 Manhattan, 2 Euclidean,
    ``float("inf")`` Chebyshev (thesis 3.2.3).

    >>> import polars as pl
    >>> pnorm(1).pairwise(pl.DataFrame({"x": [0, 3], "y": [0, 4]})).tolist()
    [[0.0, 7.0], [7.0, 0.0]]
    """
    return PNorm(p)


@check_keywords
def euclidean() -> PNorm:
    """The Euclidean distance (p = 2); with exponent 2 and group means ILD == SSE/SST.

    >>> import polars as pl
    >>> euclidean().pairwise(pl.DataFrame({"x": [0, 3], "y": [0, 4]})).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    """
    return PNorm(2)


# -- categorical ---------------------------------------------------------------------
class Discrete(Distance):
    """0 for equal values, 1 otherwise (Akiyama & Wada 2.1, Sano & Hattori eq. 1)."""

    multi = True

    def pairwise(self, values: pl.DataFrame) -> "np.ndarray":
        import numpy as np

        return 1.0 - np.eye(values.height)

    def amount(self, values: pl.DataFrame, counts: "np.ndarray", exponent: float) -> float:
        import numpy as np

        c = np.asarray(counts, dtype=np.float64)
        return float(c.sum() ** 2 - (c * c).sum())


@check_keywords
def discrete() -> Discrete:
    """The discrete distance: ``I = N^2 - sum_u c_u^2`` in O(U); any dtype, also whole records.

    >>> import polars as pl
    >>> discrete().amount(pl.DataFrame({"v": ["a", "b"]}), [3, 1], 2)
    6.0
    """
    return Discrete()


class Ordinal(Distance):
    """Seed 002 eq. 2: ``|{c'': min(c, c') <= c'' < max(c, c')}| / |D(V)|``."""

    def __init__(self, categories: Sequence[Any] | None = None) -> None:
        self.categories = None if categories is None else list(categories)
        if self.categories is not None and len(set(self.categories)) != len(self.categories):
            raise SDCError("ordinal: categories must be distinct")

    def bind(self, columns: Sequence[str], frames: Sequence[pl.DataFrame]) -> "Ordinal":
        out = super().bind(columns, frames)
        if out.categories is None:
            (c,) = columns
            dtype = frames[0].schema[c]
            if isinstance(dtype, pl.Enum):
                out.categories = dtype.categories.to_list()
            else:
                values = pl.concat([f.get_column(c).cast(dtype) for f in frames]).unique()
                out.categories = values.sort().to_list()
        return out

    def scores(self, values: pl.Series) -> "np.ndarray":
        """Each value's rank divided by the number of categories (so d = |score difference|)."""
        import numpy as np

        rank = {v: i for i, v in enumerate(self.categories)}
        vals = values.to_list()
        missing = [v for v in vals if v not in rank]
        if missing:
            raise SDCError(f"column {self._name!r}: value {missing[0]!r} is not among the ordinal categories")
        return np.array([rank[v] for v in vals], dtype=np.float64) / len(self.categories)

    def pairwise(self, values: pl.DataFrame) -> "np.ndarray":
        import numpy as np

        s = self.scores(values.to_series())
        return np.abs(s[:, None] - s[None, :])

    def __repr__(self) -> str:
        return "dist.ordinal()" if self.categories is None else f"dist.ordinal({self.categories!r})"


@check_keywords
def ordinal(categories: Sequence[Any] | None = None) -> Ordinal:
    """The ordinal distance of Sano & Hattori eq. 2 on one column. The order is ``categories``,
    else an Enum's categories, else the sorted distinct values of the original and masked.

    >>> import polars as pl
    >>> ages = ["<10", "10s", "20s", "30s", "40s", "50s", "60s", "70s", "80s", ">90"]
    >>> d = ordinal(ages).bind(["age"], [])
    >>> float(d.pairwise(pl.DataFrame({"age": ["30s", "50s"]}))[0, 1])
    0.2
    """
    return Ordinal(categories)


_ROOT = object()  # the virtual root joining several top-level nodes


class Tree(Distance):
    """Number of edges between two nodes of a hierarchy (thesis 3.1.3, example 3.1.2)."""

    def __init__(self, parent: Mapping[Any, Any]) -> None:
        import numpy as np

        nodes: dict[Any, int] = {}
        for child, par in parent.items():
            if child is None or par is None:
                raise SDCError("tree: null node in the hierarchy")
            nodes.setdefault(child, len(nodes))
            nodes.setdefault(par, len(nodes))
        roots = [v for v in nodes if v not in parent]
        if not roots:
            raise SDCError("tree: the hierarchy has a cycle (no root)")
        par_idx = np.full(len(nodes) + 1, -1, dtype=np.int64)
        for child, par in parent.items():
            par_idx[nodes[child]] = nodes[par]
        if len(roots) > 1:
            nodes[_ROOT] = len(nodes)
            for r in roots:
                par_idx[nodes[r]] = nodes[_ROOT]
        else:
            par_idx = par_idx[:-1]
        n = len(nodes)
        depth = np.full(n, -1, dtype=np.int64)
        for i in range(n):
            path = []
            j = i
            while j >= 0 and depth[j] < 0:
                path.append(j)
                if len(path) > n:
                    raise SDCError("tree: the hierarchy has a cycle")
                j = par_idx[j]
            base = -1 if j < 0 else depth[j]
            for t, q in enumerate(reversed(path)):
                depth[q] = base + 1 + t
        height = int(depth.max()) + 1
        anc = np.full((n, height), -1, dtype=np.int64)
        for i in range(n):
            j = i
            while j >= 0:
                anc[i, depth[j]] = j
                j = par_idx[j]
        self.index = nodes
        self.parent = par_idx
        self.depth = depth
        self._anc = anc

    def nodes_of(self, values: Iterable[Any]) -> "np.ndarray":
        """Node index of each value; :class:`SDCError` for a value outside the hierarchy.

        >>> t = tree({"a1": "a", "a2": "a"})
        >>> int(t.nodes_of(["a2"])[0]) == t.index["a2"]
        True
        """
        import numpy as np

        out = []
        for v in values:
            i = self.index.get(v)
            if i is None:
                raise SDCError(f"column {self._name!r}: value {v!r} is not a node of the hierarchy")
            out.append(i)
        return np.array(out, dtype=np.int64)

    def node_distances(self, a: "np.ndarray", b: "np.ndarray") -> "np.ndarray":
        """|a| x |b| matrix of tree distances between node indices."""
        A = self._anc[a][:, None, :]
        B = self._anc[b][None, :, :]
        shared = ((A == B) & (A >= 0)).sum(axis=2)
        return (self.depth[a][:, None] + self.depth[b][None, :] - 2 * (shared - 1)).astype(float)

    def leaves_under(self) -> "np.ndarray":
        """Number of leaves under each node (a leaf counts itself); for NCP."""
        import numpy as np

        n = self.parent.size
        is_leaf = np.ones(n, dtype=bool)
        is_leaf[self.parent[self.parent >= 0]] = False
        size = np.zeros(n, dtype=np.int64)
        for i in np.flatnonzero(is_leaf):
            for j in self._anc[i]:
                if j >= 0:
                    size[j] += 1
        return size

    def lowest_common_ancestor(self, nodes: "np.ndarray") -> int:
        """The deepest node that is an ancestor-or-self of every node index given."""
        rows = self._anc[nodes]
        same = (rows == rows[0]) & (rows[0] >= 0)
        lvl = int(same.all(axis=0).cumprod().sum()) - 1
        return int(rows[0, lvl])

    def pairwise(self, values: pl.DataFrame) -> "np.ndarray":
        idx = self.nodes_of(values.to_series().to_list())
        return self.node_distances(idx, idx)

    def __repr__(self) -> str:
        return f"dist.tree(<{self.parent.size} nodes>)"


@check_keywords
def tree(hierarchy: Mapping[Any, Any] | pl.DataFrame) -> Tree:
    """The tree distance of a generalisation hierarchy: the number of edges between two
    nodes (thesis 3.1.3). ``hierarchy`` is a child -> parent mapping, or a frame of levels
    whose columns run from the most general (left) to the most specific (right), one path
    per row. Values may be leaves or inner nodes (recoded values). Several top-level nodes
    are joined under a virtual root.

    >>> import polars as pl
    >>> levels = pl.DataFrame({"area": ["East", "East"], "region": ["Kanto", "Kanto"],
    ...                        "pref": ["Tokyo", "Kanagawa"]})
    >>> tree(levels).pairwise(pl.DataFrame({"v": ["Tokyo", "Kanagawa", "East"]})).tolist()
    [[0.0, 2.0, 2.0], [2.0, 0.0, 2.0], [2.0, 2.0, 0.0]]
    """
    if isinstance(hierarchy, pl.DataFrame):
        if hierarchy.width < 2:
            raise SDCError("tree: a frame of levels needs at least two columns (general -> specific)")
        for c in hierarchy.columns:
            if hierarchy.get_column(c).null_count():
                raise SDCError(f"column {c!r}: null value(s) in the hierarchy levels")
        parent: dict[Any, Any] = {}
        cols = hierarchy.columns
        for upper, lower in zip(cols[:-1], cols[1:]):
            for child, par in hierarchy.select(lower, upper).unique().iter_rows():
                if parent.get(child, par) != par:
                    raise SDCError(f"column {lower!r}: value {child!r} has two parents ({parent[child]!r}, {par!r})")
                parent[child] = par
        return Tree(parent)
    if not isinstance(hierarchy, Mapping):
        raise SDCError("tree: expected a child -> parent mapping or a DataFrame of levels")
    return Tree(hierarchy)


class Graph(Distance):
    """Weighted-graph distance (thesis 3.2.1): shortest-path length, or the edge weight."""

    def __init__(self, edges: Any, shortest_paths: bool = True) -> None:
        if isinstance(edges, pl.DataFrame):
            if edges.width != 3:
                raise SDCError("graph: an edge frame needs three columns (node, node, weight)")
            rows = edges.rows()
        else:
            rows = [tuple(e) for e in edges]
        nodes: dict[Any, int] = {}
        weight: dict[tuple[int, int], float] = {}
        for e in rows:
            if len(e) != 3:
                raise SDCError(f"graph: an edge is (node, node, weight), got {e!r}")
            u, v, w = e
            w = float(w)
            if not (w > 0 and math.isfinite(w)):
                raise SDCError(f"graph: edge ({u!r}, {v!r}) has weight {w}; weights must be positive and finite")
            if u == v:
                raise SDCError(f"graph: edge ({u!r}, {v!r}) is a loop")
            i = nodes.setdefault(u, len(nodes))
            j = nodes.setdefault(v, len(nodes))
            key = (min(i, j), max(i, j))
            weight[key] = min(w, weight.get(key, math.inf))
        self.index = nodes
        self.weight = weight
        self.shortest_paths = bool(shortest_paths)
        self._full = None

    def pairwise(self, values: pl.DataFrame) -> "np.ndarray":
        import numpy as np

        idx = self._positions(values, self.index, "a node of the graph")
        n = len(self.index)
        if self.shortest_paths:
            if self._full is None:
                from scipy.sparse import csr_matrix
                from scipy.sparse.csgraph import shortest_path

                ij = np.array(list(self.weight), dtype=np.int64).reshape(-1, 2)
                w = np.array(list(self.weight.values()), dtype=np.float64)
                G = csr_matrix((w, (ij[:, 0], ij[:, 1])), shape=(n, n))
                self._full = shortest_path(G, method="D", directed=False)
            D = self._full[np.ix_(idx, idx)]
        else:
            D = np.full((idx.size, idx.size), np.inf)
            np.fill_diagonal(D, 0.0)
            for a in range(idx.size):
                for b in range(a + 1, idx.size):
                    key = (min(idx[a], idx[b]), max(idx[a], idx[b]))
                    if key in self.weight:
                        D[a, b] = D[b, a] = self.weight[key]
        bad = np.argwhere(np.isinf(D))
        if bad.size:
            a, b = bad[0]
            how = "no path joins" if self.shortest_paths else "no edge joins"
            vals = values.to_series()
            raise SDCError(f"column {self._name!r}: {how} {vals[int(a)]!r} and {vals[int(b)]!r} in the graph")
        return D

    def __repr__(self) -> str:
        return f"dist.graph(<{len(self.index)} nodes, {len(self.weight)} edges>, shortest_paths={self.shortest_paths})"


@check_keywords
def graph(edges: Any, *, shortest_paths: bool = True) -> Graph:
    """Weighted-graph distance from an edge list of ``(node, node, weight)`` (or a 3-column
    frame), undirected, weights > 0. With ``shortest_paths=True`` the distance is the
    shortest-path length (scipy.sparse.csgraph, Dijkstra); with ``False`` it is the weight
    of the edge joining the two values, which need not satisfy the triangle inequality
    (the thesis allows that) and must exist for every pair that occurs.

    >>> import polars as pl
    >>> g = graph([("a", "b", 1), ("b", "c", 2), ("a", "c", 5)])
    >>> g.pairwise(pl.DataFrame({"v": ["a", "c"]})).tolist()
    [[0.0, 3.0], [3.0, 0.0]]
    >>> graph([("a", "b", 1), ("b", "c", 2), ("a", "c", 5)], shortest_paths=False).pairwise(
    ...     pl.DataFrame({"v": ["a", "c"]})).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    """
    return Graph(edges, shortest_paths)


# -- strings -------------------------------------------------------------------------
def encode_strings(values: Sequence[str]) -> tuple["np.ndarray", "np.ndarray", int]:
    """(chars as dense alphabet ids, offsets, alphabet size) for the string kernels."""
    import numpy as np

    lengths = np.fromiter((len(s) for s in values), dtype=np.int64, count=len(values))
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    code = np.frombuffer("".join(values).encode("utf-32-le"), dtype=np.uint32)
    alphabet, chars = np.unique(code, return_inverse=True)
    return np.ascontiguousarray(chars.astype(np.int64).ravel()), offsets, max(int(alphabet.size), 1)


class StringDistance(Distance):
    """Hamming / Levenshtein / normalised Levenshtein / Damerau-Levenshtein (thesis 3.2.2)."""

    needs = "strings"
    _kinds = {"hamming": 0, "levenshtein": 1, "levenshtein_norm": 2, "damerau_levenshtein": 3}

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def _encode(self, values: pl.DataFrame):
        s = values.to_series().cast(pl.String).to_list()
        if self.kind == "hamming" and s:
            n = len(s[0])
            other = next((x for x in s if len(x) != n), None)
            if other is not None:
                raise SDCError(
                    f"column {self._name!r}: Hamming distance needs strings of equal length, got {s[0]!r} and {other!r}"
                )
        return encode_strings(s)

    def pairwise(self, values: pl.DataFrame) -> "np.ndarray":
        from ..kernels.strings import string_matrix

        chars, offsets, n_alpha = self._encode(values)
        return string_matrix(chars, offsets, self._kinds[self.kind], n_alpha)

    def amount(self, values: pl.DataFrame, counts: "np.ndarray", exponent: float) -> float:
        import numpy as np

        from ..kernels.strings import string_amount

        chars, offsets, n_alpha = self._encode(values)
        c = np.ascontiguousarray(counts, dtype=np.float64)
        return float(string_amount(chars, offsets, c, self._kinds[self.kind], float(exponent), n_alpha))

    def __repr__(self) -> str:
        return f"dist.{self.kind}()" if self.kind != "levenshtein_norm" else "dist.levenshtein(normalized=True)"


@check_keywords
def hamming() -> StringDistance:
    """Hamming distance: the number of differing positions of two strings of equal length.

    >>> import polars as pl
    >>> hamming().pairwise(pl.DataFrame({"s": ["karolin", "kathrin"]})).tolist()
    [[0.0, 3.0], [3.0, 0.0]]
    """
    return StringDistance("hamming")


@check_keywords
def levenshtein(*, normalized: bool = False) -> StringDistance:
    """Levenshtein (edit) distance; ``normalized=True`` divides it by the longer length.

    >>> import polars as pl
    >>> levenshtein().pairwise(pl.DataFrame({"s": ["kitten", "sitting"]})).tolist()
    [[0.0, 3.0], [3.0, 0.0]]
    """
    return StringDistance("levenshtein_norm" if normalized else "levenshtein")


@check_keywords
def damerau_levenshtein() -> StringDistance:
    """Damerau-Levenshtein distance: edits plus transpositions of adjacent characters
    (unrestricted form).

    >>> import polars as pl
    >>> damerau_levenshtein().pairwise(pl.DataFrame({"s": ["ca", "abc"]})).tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """
    return StringDistance("damerau_levenshtein")


# -- user-defined --------------------------------------------------------------------
def _check_matrix(D: "np.ndarray", where: str) -> None:
    import numpy as np

    if not np.all(np.isfinite(D)) or (D < 0).any():
        raise SDCError(f"{where}: distances must be finite and >= 0")


class Function(Distance):
    """A user's ``f(x, y) -> float``; on several columns x and y are tuples."""

    multi = True

    def __init__(self, fn: Callable[[Any, Any], float]) -> None:
        self.fn = fn

    def pairwise(self, values: pl.DataFrame) -> "np.ndarray":
        import numpy as np

        vals = values.rows() if values.width > 1 else values.to_series().to_list()
        U = len(vals)
        D = np.zeros((U, U))
        for a in range(U):
            for b in range(a + 1, U):
                D[a, b] = D[b, a] = float(self.fn(vals[a], vals[b]))
        _check_matrix(D, f"column {self._name!r}: the distance function")
        return D

    def __repr__(self) -> str:
        return f"dist.function({getattr(self.fn, '__name__', 'f')})"


@check_keywords
def function(fn: Callable[[Any, Any], float]) -> Function:
    """A user-supplied pairwise distance, called once per pair of distinct values
    (U (U - 1) / 2 calls); on several columns it receives row tuples.

    >>> import polars as pl
    >>> function(lambda x, y: abs(len(x) - len(y))).pairwise(pl.DataFrame({"s": ["a", "abc"]})).tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """
    return Function(fn)


class Matrix(Distance):
    """A user's distance matrix over a list of labels."""

    def __init__(self, labels: Sequence[Any], values: Any) -> None:
        import numpy as np

        D = np.asarray(values, dtype=np.float64)
        labels = list(labels)
        if D.shape != (len(labels), len(labels)):
            raise SDCError(f"matrix: {len(labels)} labels need a {len(labels)} x {len(labels)} matrix, got {D.shape}")
        if len(set(labels)) != len(labels):
            raise SDCError("matrix: labels must be distinct")
        _check_matrix(D, "matrix")
        if not np.allclose(D, D.T) or np.any(np.diag(D) != 0):
            raise SDCError("matrix: a distance matrix must be symmetric with a zero diagonal")
        off = D + np.eye(len(labels))
        if (off <= 0).any():
            raise SDCError("matrix: distinct labels must be at a positive distance")
        self.labels = labels
        self.index = {v: i for i, v in enumerate(labels)}
        self.D = D

    def pairwise(self, values: pl.DataFrame) -> "np.ndarray":
        import numpy as np

        idx = self._positions(values, self.index, "a label of the distance matrix")
        return self.D[np.ix_(idx, idx)]

    def __repr__(self) -> str:
        return f"dist.matrix({self.labels!r}, ...)"


@check_keywords
def matrix(labels: Sequence[Any], values: Any) -> Matrix:
    """A distance given as a symmetric matrix over ``labels`` (zero diagonal, positive
    elsewhere), e.g. thesis example 3.1.3: d(a, b) = 1, d(b, c) = 1, d(a, c) = 3.

    >>> import polars as pl
    >>> m = matrix(["a", "b", "c"], [[0, 1, 3], [1, 0, 1], [3, 1, 0]])
    >>> m.pairwise(pl.DataFrame({"v": ["c", "a"]})).tolist()
    [[0.0, 3.0], [3.0, 0.0]]
    """
    return Matrix(labels, values)


# -- names and the product distance --------------------------------------------------
_NAMES: dict[str, Callable[[], Distance]] = {
    "euclidean": euclidean,
    "manhattan": lambda: pnorm(1),
    "chebyshev": lambda: pnorm(math.inf),
    "discrete": discrete,
    "ordinal": ordinal,
    "hamming": hamming,
    "levenshtein": levenshtein,
    "levenshtein_norm": lambda: levenshtein(normalized=True),
    "damerau_levenshtein": damerau_levenshtein,
}


@check_keywords
def get(spec: Any) -> Distance:
    """A :class:`Distance` from a name, a Distance, or a callable ``f(x, y)``.

    >>> get("levenshtein_norm")
    dist.levenshtein(normalized=True)
    """
    if isinstance(spec, Distance):
        return spec
    if isinstance(spec, str):
        try:
            return _NAMES[spec]()
        except KeyError:
            raise SDCError(f"unknown distance {spec!r}; choose one of {', '.join(_NAMES)}") from None
    if callable(spec):
        return Function(spec)
    raise SDCError(f"expected a distance name, a polars_sdc.dist distance or a function, got {type(spec).__name__}")


def default_for(dtype: pl.DataType) -> Distance:
    """Euclidean for numeric columns, discrete for everything else."""
    return euclidean() if is_numeric(dtype) else discrete()


class Product:
    """Per-column (or per column-group) distances combined as ``sqrt(sum_b w_b d_b^2)``
    (thesis 3.1.3); with exponent 2 the information amount is ``sum_b w_b I_b``. Built by
    ``dist.product(...)``; a ``dist=`` mapping of ILD is the same product.

    >>> import polars as pl, polars_sdc
    >>> from polars_sdc import dist
    >>> d = dist.product({"c": "discrete", "x": "euclidean"})
    >>> d
    dist.product({'c': dist.discrete(), 'x': dist.euclidean()}, weights=None)
    >>> orig = pl.DataFrame({"c": ["a", "b", "a", "b"], "x": [1.0, 2.0, 3.0, 4.0]})
    >>> masked = pl.DataFrame({"c": ["a"] * 4, "x": [1.5, 1.5, 3.5, 3.5]})
    >>> orig.sdc.ild(masked, dist=d) == orig.sdc.ild(masked, dist={"c": "discrete", "x": "euclidean"})
    True
    """

    def __init__(self, parts: Mapping[Any, Any], weights: Any = None) -> None:
        if not isinstance(parts, Mapping) or not parts:
            raise SDCError("product: expected a non-empty mapping column(s) -> distance")
        self.parts: dict[tuple[str, ...], Distance] = {}
        for key, spec in parts.items():
            cols = (key,) if isinstance(key, str) else tuple(key)
            if not cols or not all(isinstance(c, str) for c in cols):
                raise SDCError(f"product: a key is a column name or a tuple of names, got {key!r}")
            self.parts[cols] = get(spec)
        if weights is not None and weights != "amount":
            if not isinstance(weights, Mapping):
                raise SDCError('weights: expected None, "amount" or a mapping column(s) -> weight')
            w = {}
            for key, val in weights.items():
                cols = (key,) if isinstance(key, str) else tuple(key)
                if cols not in self.parts:
                    raise SDCError(f"weights: {key!r} is not a key of the distance")
                if not (float(val) > 0 and math.isfinite(float(val))):
                    raise SDCError(f"weights: the weight of {key!r} must be positive and finite, got {val!r}")
                w[cols] = float(val)
            weights = w
        self.weights = weights

    def __repr__(self) -> str:
        inner = ", ".join(f"{_label(k)!r}: {v!r}" for k, v in self.parts.items())
        return f"dist.product({{{inner}}}, weights={self.weights!r})"


@check_keywords
def product(parts: Mapping[Any, Any], weights: Any = None) -> Product:
    """The product distance ``d = sqrt(sum_b w_b d_b^2)`` over blocks (a column name or a
    tuple of names) -> distance. ``weights``: None (all 1), ``"amount"`` (``w_b = 1 / I_b``
    of the original with exponent 2, the thesis's choice; 0 for a block without information)
    or a mapping.

    >>> product({"x": "euclidean", "c": discrete()}, weights="amount")
    dist.product({'x': dist.euclidean(), 'c': dist.discrete()}, weights='amount')
    """
    return Product(parts, weights)
