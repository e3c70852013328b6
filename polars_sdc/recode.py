"""Global recoding: minimum-frequency merging of categories (Sano & Hattori, Fig. 1), its
hierarchy- and order-constrained variants, and top/bottom coding of numeric columns.

Fig. 1 of the paper: with ``n`` records and minimum share ``p`` the threshold is
``th = n * p``. Sort the categories of a column by frequency; if a single category has the
smallest frequency, merge it with the second smallest; if several tie for the smallest,
merge all of them; repeat until the smallest frequency exceeds ``th`` or one category is
left. A merged category is named by joining its parts with ``sep`` ("農業・林業"); a label
longer than 200 characters keeps its first parts and ends ``…(+N more)``.

Conventions (the paper leaves them open):

- ``n`` is the number of rows of the column, nulls included; ``th = n * p`` (rounded down
  after a 1e-9 guard against float error, so "count <= th" is exact for integer counts).
- Nulls are a value of their own: never counted as a category, never merged, kept as null.
- Every category has a *natural position*: its index in the Enum for Enum columns, the order
  of first appearance (row order) for String and Categorical columns, or the given order of
  an ordinal column. Ties in frequency go to the category with the lowest position (a merged
  category takes the lowest position of its parts), and the parts of a merged label are
  joined in position order: agriculture (row 001) and forestry (row 002) give "農業・林業".
- Categories that never occur (unused Enum categories) take no part and are dropped from
  the Enum of the result, whose categories are the new labels in position order.

Constrained variants:

- ``hierarchy`` ({category: parent}, parents may have parents): only siblings (same parent)
  merge; Fig. 1 runs among the siblings of the smallest category. A node that has become the
  only one under its parent, or that must merge but has no sibling, is renamed to its parent
  (generalisation one level up). A top-level node without a top-level sibling merges with
  the smallest other top-level subtree, which is first collapsed into its top label.
  Categories missing from the mapping hang from the root.
- ``ordinal`` (an order of the categories): only neighbours merge; the smallest category
  (ties: lowest position) merges with its smaller neighbour (ties: the preceding one).

One module on purpose (~770 lines): the recoding plans (free, ordinal, hierarchy), applying
them to every dtype, and top/bottom coding, which shares the column checks.

>>> import polars as pl
>>> s = pl.Series("industry", ["農業"] * 5 + ["林業"] * 2 + ["サービス業"] * 30
...               + ["不動産業"] * 13 + ["製造業"] * 50)
>>> recode_series(s, 0.05).value_counts(sort=True).rows()[-1]
('農業・林業', 7)
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ._columns import ColumnSpec, is_categorical, resolve_columns
from ._errors import SDCError
from ._validation import check_real

DEFAULT_SEP = "・"
MAX_LABEL_CHARS = 200  # a longer merged label is cut: "a・b・…(+N more)"


# -- the merge plan on a frequency table (no rows here: one entry per category) ------------
@dataclass
class _Node:
    count: int
    pos: int
    parts: list[tuple[int, str]]  # (position, text) of each part, position order
    members: list[int] = field(default_factory=list)  # original category indices
    parent: str | None = None

    def merged(self, others: Sequence["_Node"]) -> "_Node":
        """The union of this node and ``others`` (which are consumed: the largest part and
        member lists are extended in place, so repeated merging costs O(K log K) in all,
        never O(K^2); parts are sorted only when the label is written)."""
        nodes = [self, *others]
        big_parts = max(nodes, key=lambda x: len(x.parts)).parts
        big_members = max(nodes, key=lambda x: len(x.members)).members
        for x in nodes:
            if x.parts is not big_parts:
                big_parts.extend(x.parts)
            if x.members is not big_members:
                big_members.extend(x.members)
        return _Node(
            count=sum(x.count for x in nodes),
            pos=min(x.pos for x in nodes),
            parts=big_parts,
            members=big_members,
            parent=self.parent,
        )


def threshold(n: int, p: float) -> int:
    """The paper's ``th = n * p`` as an integer bound: a category with count <= th is merged.

    >>> threshold(100, 0.05), threshold(100, 0.29)
    (5, 29)
    """
    return int(math.floor(n * p + 1e-9 * max(1.0, n * p)))


def check_p(p: Any) -> float:
    """Validate the minimum share ``p`` of Fig. 1 (0 < p < 1) and return it as a float.

    >>> check_p(0.05)
    0.05
    """
    return check_real(p, "p", minimum=0.0, maximum=1.0, low_open=True, high_open=True)


def merge_plan(
    labels: Sequence[str],
    counts: Sequence[int],
    th: int,
    *,
    sep: str = DEFAULT_SEP,
    hierarchy: Mapping[str, str] | None = None,
    ordinal: bool = False,
    column: str = "",
) -> list[str]:
    """New label of each category after minimum-frequency recoding (Fig. 1 of Sano & Hattori).

    ``labels`` are the categories in their natural position order, ``counts`` their
    frequencies (all > 0) and ``th`` the integer threshold; merging goes on while the
    smallest count is <= th and more than one category is left. ``ordinal=True`` merges only
    neighbours in ``labels`` order; ``hierarchy`` ({category: parent}) merges only siblings.

    >>> merge_plan(["農業", "林業", "サービス業", "不動産業", "製造業"], [5, 2, 30, 13, 50], 5)
    ['農業・林業', '農業・林業', 'サービス業', '不動産業', '製造業']
    >>> merge_plan(["a", "b", "c", "d"], [1, 1, 1, 9], 2)   # a three-way tie merges at once
    ['a・b・c', 'a・b・c', 'a・b・c', 'd']
    """
    if len(labels) != len(counts):
        raise SDCError(f"column {column!r}: {len(labels)} labels for {len(counts)} counts")
    if not isinstance(sep, str) or sep == "":
        raise SDCError(f"column {column!r}: the separator must be a non-empty string, got {sep!r}")
    if hierarchy is not None and ordinal:
        raise SDCError(f"column {column!r}: choose either a hierarchy or an ordinal order, not both")
    import gc

    # one small object per category: the cyclic GC would rescan them all again and again
    # (quadratic in the number of categories); none of them forms a cycle
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _merge_plan(labels, counts, th, sep, hierarchy, ordinal, column)
    finally:
        if enabled:
            gc.enable()


def _merge_plan(labels, counts, th, sep, hierarchy, ordinal, column) -> list[str]:
    if not ordinal and hierarchy is None:
        return _plan_free_fast(labels, counts, th, sep, column)
    nodes = [
        _Node(int(c), i, [(i, str(lab))], [i], None) for i, (lab, c) in enumerate(zip(labels, counts))
    ]
    if ordinal:
        final = _plan_ordinal(nodes, th)
    elif hierarchy is not None:
        final = _plan_hierarchy(nodes, th, _check_hierarchy(hierarchy, column))
    else:
        final = _plan_free(nodes, th)
    out = [""] * len(labels)
    for node in final:
        text = _label(sorted(node.parts), sep)
        for m in node.members:
            out[m] = text
    _check_unique(final, out, labels, column)
    return out


def _label(parts: Sequence[tuple[int, str]], sep: str) -> str:
    """The merged label: the parts joined by ``sep``; beyond MAX_LABEL_CHARS characters the
    first parts that fit, then ``…(+N more)`` with N the number of parts left out (merges of
    thousands of categories would otherwise make labels of megabytes)."""
    texts = [t for _, t in parts]
    if len(texts) <= 1 or sum(len(t) for t in texts) + len(sep) * (len(texts) - 1) <= MAX_LABEL_CHARS:
        return sep.join(texts)
    kept: list[str] = []
    size = 0
    for t in texts:
        if kept and size + len(sep) + len(t) > MAX_LABEL_CHARS - 20:
            break
        kept.append(t)
        size += len(t) + (len(sep) if len(kept) > 1 else 0)
    return f"{sep.join(kept)}{sep}…(+{len(texts) - len(kept)} more)"


def _plan_free(nodes: list[_Node], th: int) -> list[_Node]:
    """Fig. 1 with a heap keyed by (count, position): O(K log K) for K categories."""
    heap = [(x.count, x.pos, x.pos, x) for x in nodes]  # pos is unique among live nodes
    heapq.heapify(heap)
    while len(heap) > 1 and heap[0][0] <= th:
        first = heapq.heappop(heap)[3]
        second = heapq.heappop(heap)[3]
        group = [second]
        if second.count == first.count:  # several tie for the smallest: merge all of them
            while heap and heap[0][0] == first.count:
                group.append(heapq.heappop(heap)[3])
        node = first.merged(group)
        heapq.heappush(heap, (node.count, node.pos, node.pos, node))
    return [item[3] for item in heap]


def _plan_free_fast(labels: Sequence[str], counts: Sequence[int], th: int, sep: str, column: str) -> list[str]:
    """Fig. 1 without hierarchy or order, as :func:`_plan_free` but on flat arrays: a heap of
    (count, position) and a parent pointer per category (a merged category is known by its
    lowest position). O(K log K) time, about 100 bytes per category."""
    import numpy as np

    K = len(labels)
    heap = [(int(c), i) for i, c in enumerate(counts)]
    heapq.heapify(heap)
    parent = np.arange(K, dtype=np.int64)
    merged_any = False
    while len(heap) > 1 and heap[0][0] <= th:
        c1, p1 = heapq.heappop(heap)
        c2, p2 = heapq.heappop(heap)
        group = [p2]
        total = c1 + c2
        if c2 == c1:  # several tie for the smallest: merge all of them
            while heap and heap[0][0] == c1:
                group.append(heapq.heappop(heap)[1])
                total += c1
        root = min(p1, *group)
        for q in (p1, *group):
            parent[q] = root
        heapq.heappush(heap, (total, root))
        merged_any = True
    if not merged_any:
        return [str(x) for x in labels]
    while True:  # every category -> its final root
        up = parent[parent]
        if np.array_equal(up, parent):
            break
        parent = up
    order = np.argsort(parent, kind="stable")  # members of a root in position order
    roots, starts = np.unique(parent[order], return_index=True)
    ends = np.append(starts[1:], K)
    out = [str(x) for x in labels]
    originals = set(out)
    texts = {out[r] for r, a, b in zip(roots.tolist(), starts.tolist(), ends.tolist()) if b - a == 1}
    merged = []
    for a, b in zip(starts.tolist(), ends.tolist()):
        if b - a == 1:
            continue
        members = order[a:b].tolist()
        own = [out[m] for m in members]
        text = _label(list(enumerate(own)), sep)
        if text in texts:
            raise SDCError(
                f"column {column!r}: two recoded categories are both named {text!r}; "
                "choose another separator or rename the hierarchy's parents"
            )
        texts.add(text)
        merged.append((members, own, text))
    for members, own, text in merged:
        if text in originals and text not in own:
            raise SDCError(
                f"column {column!r}: the merged label {text!r} is also an existing category; "
                "choose another separator"
            )
        for m in members:
            out[m] = text
    return out


def _plan_ordinal(nodes: list[_Node], th: int) -> list[_Node]:
    """Adjacent merging: the smallest merges with its smaller neighbour (ties: preceding)."""
    nodes = list(nodes)
    while len(nodes) > 1:
        i = min(range(len(nodes)), key=lambda j: (nodes[j].count, j))
        if nodes[i].count > th:
            break
        if i == 0:
            j = 1
        elif i == len(nodes) - 1:
            j = i - 1
        else:
            j = i - 1 if nodes[i - 1].count <= nodes[i + 1].count else i + 1
        lo, hi = min(i, j), max(i, j)
        nodes[lo : hi + 1] = [nodes[lo].merged([nodes[hi]])]
    return nodes


def _check_hierarchy(hierarchy: Mapping[str, str], column: str) -> dict[str, str]:
    if not isinstance(hierarchy, Mapping):
        raise SDCError(f"column {column!r}: the hierarchy must be a mapping category -> parent")
    parents = {str(k): str(v) for k, v in hierarchy.items() if v is not None}
    for start in parents:
        seen = {start}
        node = parents[start]
        while node in parents:
            if node in seen:
                raise SDCError(f"column {column!r}: the hierarchy has a cycle through {node!r}")
            seen.add(node)
            node = parents[node]
    return parents


def _plan_hierarchy(nodes: list[_Node], th: int, parents: dict[str, str]) -> list[_Node]:
    """Sibling-only merging along a category tree (see the module docstring)."""
    for x in nodes:
        x.parent = parents.get(x.parts[0][1])

    def lift(x: _Node) -> _Node:
        label = x.parent
        return _Node(x.count, x.pos, [(x.pos, label)], x.members, parents.get(label))

    def top(x: _Node) -> str:
        label = x.parent
        while parents.get(label) is not None:
            label = parents[label]
        return label

    nodes = list(nodes)
    while len(nodes) > 1:
        nodes.sort(key=lambda x: (x.count, x.pos))
        first = nodes[0]
        if first.count > th:
            break
        sibs = [x for x in nodes[1:] if x.parent == first.parent]
        if sibs:
            tied = [x for x in sibs if x.count == first.count]
            group = tied if tied else [sibs[0]]
            node = first.merged(group)
            gone = {id(first), *map(id, group)}
            nodes = [x for x in nodes if id(x) not in gone]
            if node.parent is not None and not any(x.parent == node.parent for x in nodes):
                node = lift(node)  # every child of the parent merged: it is the parent
            nodes.append(node)
        elif first.parent is not None:
            nodes[0] = lift(first)
        else:  # top level, no top-level sibling: collapse the smallest other top subtree
            trees: dict[str, list[_Node]] = {}
            for x in nodes[1:]:
                trees.setdefault(top(x), []).append(x)
            name, members = min(
                trees.items(), key=lambda kv: (sum(x.count for x in kv[1]), min(x.pos for x in kv[1]))
            )
            node = members[0].merged(members[1:])
            node = _Node(node.count, node.pos, [(node.pos, name)], node.members, None)
            gone = set(map(id, members))
            nodes = [x for x in nodes if id(x) not in gone] + [node]
    return nodes


def _check_unique(final: list[_Node], out: list[str], labels: Sequence[str], column: str) -> None:
    texts = {}
    for node in final:
        text = out[node.members[0]]
        if text in texts:
            raise SDCError(
                f"column {column!r}: two recoded categories are both named {text!r}; "
                "choose another separator or rename the hierarchy's parents"
            )
        texts[text] = node
    originals = set(map(str, labels))
    for node in final:
        text = out[node.members[0]]
        if len(node.members) > 1 or len(node.parts) > 1:
            own = {str(labels[m]) for m in node.members}
            if text in originals and text not in own:
                raise SDCError(
                    f"column {column!r}: the merged label {text!r} is also an existing category; "
                    "choose another separator"
                )


# -- columns -------------------------------------------------------------------------------
def _category_table(s: pl.Series) -> tuple[pl.Series, list[str], list[int]]:
    """(dense category codes 0..K-1 as UInt32 with nulls kept, labels in natural order,
    counts) of the observed categories of a String / Categorical / Enum series. Codes come
    from the physical representation (Enum, Categorical) or one cast to an Enum (String);
    counting is a numpy bincount: no Python loop over rows."""
    import numpy as np

    if isinstance(s.dtype, pl.Enum):
        labels = list(s.dtype.categories)
        codes = s.cat.physical().cast(pl.UInt32)
    else:
        uniq = s.drop_nulls().unique(maintain_order=True)  # first appearance, row order
        labels = uniq.cast(pl.String).to_list()
        if not labels:
            return pl.Series(s.name, [None] * s.len(), dtype=pl.UInt32), [], []
        ids = uniq.cat.physical().cast(pl.UInt32).to_numpy() if s.dtype == pl.Categorical else None
        if ids is not None and int(ids.max()) < 4 * s.len() + 1_000_000:
            dense = np.zeros(int(ids.max()) + 1, dtype=np.uint32)  # global id -> dense code
            dense[ids] = np.arange(len(labels), dtype=np.uint32)
            codes = pl.Series(dense).gather(s.cat.physical().cast(pl.UInt32))
        else:
            codes = s.cast(pl.String).cast(pl.Enum(labels)).cat.physical().cast(pl.UInt32)
    counts = np.bincount(codes.drop_nulls().to_numpy(), minlength=len(labels))
    used = np.flatnonzero(counts)
    if used.size < len(labels):  # unused Enum categories take no part
        remap = np.full(len(labels), 0, dtype=np.uint32)
        remap[used] = np.arange(used.size, dtype=np.uint32)
        codes = pl.Series(remap).gather(codes)
        labels = [labels[i] for i in used]
        counts = counts[used]
    return codes.rename(s.name), labels, [int(c) for c in counts]


def _order_positions(labels: list[str], order: Sequence[str], column: str) -> list[int]:
    """Indices that sort ``labels`` by the user's ordinal ``order``."""
    if isinstance(order, str) or not isinstance(order, Sequence):
        raise SDCError(f"column {column!r}: the ordinal order must be a list of categories")
    rank = {str(c): i for i, c in enumerate(order)}
    if len(rank) != len(order):
        raise SDCError(f"column {column!r}: the ordinal order lists a category twice")
    missing = [lab for lab in labels if lab not in rank]
    if missing:
        raise SDCError(f"column {column!r}: category {missing[0]!r} is not in the ordinal order")
    return sorted(range(len(labels)), key=lambda i: rank[labels[i]])


def recode_table(
    s: pl.Series,
    p: float,
    *,
    sep: str = DEFAULT_SEP,
    hierarchy: Mapping[str, str] | None = None,
    ordinal: bool | Sequence[str] = False,
    n: int | None = None,
) -> tuple[pl.Series, list[str], list[int], list[str]]:
    """(codes, labels, counts, new label per label) of Fig. 1 for one column; ``n`` (for
    th = n * p) defaults to the column's length.

    >>> import polars as pl
    >>> _, labels, counts, new = recode_table(pl.Series("c", ["x", "y", "x", "z"]), 0.3)
    >>> labels, counts, new
    (['x', 'y', 'z'], [2, 1, 1], ['x', 'y・z', 'y・z'])
    """
    name = s.name
    if not is_categorical(s.dtype):
        raise SDCError(f"column {name!r}: dtype {s.dtype} is not String, Categorical or Enum")
    p = check_p(p)
    codes, labels, counts = _category_table(s)
    th = threshold(s.len() if n is None else n, p)
    use_ordinal = ordinal is not False and ordinal is not None
    if use_ordinal:
        if ordinal is True:
            if not isinstance(s.dtype, pl.Enum):
                raise SDCError(
                    f"column {name!r}: an ordinal String/Categorical column needs its order "
                    "(a list of categories); only an Enum carries one"
                )
            perm = list(range(len(labels)))
        else:
            perm = _order_positions(labels, ordinal, name)
        new_sorted = merge_plan(
            [labels[i] for i in perm], [counts[i] for i in perm], th, sep=sep, ordinal=True, column=name
        )
        new = [""] * len(labels)
        for k, i in enumerate(perm):
            new[i] = new_sorted[k]
    else:
        new = merge_plan(labels, counts, th, sep=sep, hierarchy=hierarchy, column=name)
    return codes, labels, counts, new


def recode_series(
    s: pl.Series,
    p: float,
    *,
    sep: str = DEFAULT_SEP,
    hierarchy: Mapping[str, str] | None = None,
    ordinal: bool | Sequence[str] = False,
    n: int | None = None,
    enum_as: pl.DataType | None = None,
) -> pl.Series:
    """Minimum-frequency global recoding (Sano & Hattori, Fig. 1) of one categorical Series.

    The dtype kind is kept (String -> String, Categorical -> Categorical, Enum -> Enum over
    the new categories; ``enum_as=pl.Categorical`` gives a Categorical instead); nulls stay
    null; row order is kept. See the module docstring for ties, ``hierarchy`` and ``ordinal``.

    >>> import polars as pl
    >>> s = pl.Series("x", ["a", "b", "a", None, "c", "a", "a"], dtype=pl.Enum(["a", "b", "c"]))
    >>> out = recode_series(s, 0.2)   # n = 7 rows, th = 1: b and c tie at 1 and merge
    >>> out.to_list(), out.dtype
    (['a', 'b・c', 'a', None, 'b・c', 'a', 'a'], Enum(categories=['a', 'b・c']))
    """
    codes, labels, _, new = recode_table(s, p, sep=sep, hierarchy=hierarchy, ordinal=ordinal, n=n)
    if all(a == b for a, b in zip(labels, new)) and not isinstance(s.dtype, pl.Enum):
        return s.clone()
    return _apply(s, codes, labels, new, enum_as)


def _apply(s: pl.Series, codes: pl.Series, labels: list[str], new: list[str], enum_as: Any) -> pl.Series:
    """Rebuild the column as one gather of a small lookup Series (new label per code, in the
    output dtype) by the codes; null codes give nulls."""
    if isinstance(s.dtype, pl.Enum):
        first: dict[str, int] = {}
        for i, lab in enumerate(new):  # new categories in position order of their first part
            first.setdefault(lab, i)
        dtype = pl.Enum(sorted(first, key=first.__getitem__)) if enum_as is None else enum_as
    else:
        dtype = s.dtype
    # one lookup entry per distinct new label (not per category: thousands of categories
    # merged into one label would repeat it thousands of times), then two gathers
    index: dict[str, int] = {}
    code_of = [index.setdefault(lab, len(index)) for lab in new]
    lookup = pl.Series(s.name, list(index), dtype=pl.String).cast(dtype)
    return lookup.gather(pl.Series(code_of, dtype=pl.UInt32).gather(codes))


# -- frames --------------------------------------------------------------------------------
def _per_column(option: Any, cols: list[str], what: str) -> dict[str, Any]:
    if option is None:
        return {}
    if not isinstance(option, Mapping):
        raise SDCError(f"`{what}`: expected a mapping column -> {what} spec, got {type(option).__name__}")
    unknown = [c for c in option if c not in cols]
    if unknown:
        raise SDCError(f"column {unknown[0]!r}: has a {what} but is not among the recoded columns")
    return dict(option)


def _ordinal_spec(ordinal: Any, cols: list[str]) -> dict[str, Any]:
    if ordinal is None:
        return {}
    if isinstance(ordinal, str):
        ordinal = [ordinal]
    if isinstance(ordinal, Mapping):
        spec = {c: (True if v is None else v) for c, v in ordinal.items()}
    else:
        spec = {c: True for c in ordinal}
    return _per_column(spec, cols, "ordinal")


def recode_frame(
    df: pl.DataFrame,
    columns: ColumnSpec,
    p: float,
    *,
    sep: str = DEFAULT_SEP,
    hierarchy: Mapping[str, Mapping[str, str]] | None = None,
    ordinal: Any = None,
    enum_as: pl.DataType | None = None,
) -> pl.DataFrame:
    """``df`` with each of ``columns`` recoded by :func:`recode_series` (th = height * p).

    ``hierarchy`` maps a column to its {category: parent} tree; ``ordinal`` is a column name,
    a list of Enum columns (their category order) or {column: order list or None}.

    >>> import polars as pl
    >>> df = pl.DataFrame({"id": [1, 2, 3, 4], "c": ["x", "y", "x", "z"]})
    >>> recode_frame(df, "c", 0.3)["c"].to_list()
    ['x', 'y・z', 'x', 'y・z']
    """
    cols = resolve_columns(df, columns, kind="categorical", what="columns", default="error")
    check_p(p)
    trees = _per_column(hierarchy, cols, "hierarchy")
    orders = _ordinal_spec(ordinal, cols)
    out = [
        recode_series(
            df.get_column(c), p, sep=sep, hierarchy=trees.get(c), ordinal=orders.get(c, False),
            enum_as=enum_as,
        )
        for c in cols
    ]
    return df.with_columns(out)


def recode_map_frame(
    df: pl.DataFrame,
    columns: ColumnSpec,
    p: float,
    *,
    sep: str = DEFAULT_SEP,
    hierarchy: Mapping[str, Mapping[str, str]] | None = None,
    ordinal: Any = None,
) -> pl.DataFrame:
    """The recoding as a table: ``column``, ``original``, ``recoded``, ``count`` (of the
    original category) and ``recoded_count``, one row per observed category in natural order.

    >>> import polars as pl
    >>> df = pl.DataFrame({"c": ["x", "y", "x", "z"]})
    >>> recode_map_frame(df, "c", 0.3).rows()
    [('c', 'x', 'x', 2, 2), ('c', 'y', 'y・z', 1, 2), ('c', 'z', 'y・z', 1, 2)]
    """
    cols = resolve_columns(df, columns, kind="categorical", what="columns", default="error")
    check_p(p)
    trees = _per_column(hierarchy, cols, "hierarchy")
    orders = _ordinal_spec(ordinal, cols)
    parts = []
    for c in cols:
        _, labels, counts, new = recode_table(
            df.get_column(c), p, sep=sep, hierarchy=trees.get(c), ordinal=orders.get(c, False)
        )
        index: dict[str, int] = {}
        code_of = [index.setdefault(lab, len(index)) for lab in new]
        recoded = pl.Series("recoded", list(index), dtype=pl.String).gather(pl.Series(code_of, dtype=pl.UInt32))
        parts.append(pl.DataFrame({
            "column": pl.Series([c] * len(labels), dtype=pl.String),
            "original": pl.Series(labels, dtype=pl.String),
            "recoded": recoded,
            "count": pl.Series(counts, dtype=pl.UInt32),
        }))
    table = pl.concat(parts)
    return table.with_columns(pl.col("count").sum().over("column", "recoded").alias("recoded_count"))


def recode_output_schema(
    schema: pl.Schema,
    columns: ColumnSpec,
    *,
    lazy: bool,
    hierarchy: Mapping[str, Mapping[str, str]] | None = None,
    ordinal: Any = None,
) -> pl.Schema:
    """Schema after :func:`recode_frame` (the options are checked here too, before any data
    is read); on a LazyFrame an Enum column is declared (and returned) Categorical, since its
    new categories are known only from the data.

    >>> import polars as pl
    >>> recode_output_schema(pl.Schema({"e": pl.Enum(["a", "b"])}), "e", lazy=True)
    Schema([('e', Categorical)])
    """
    cols = resolve_columns(schema, columns, kind="categorical", what="columns", default="error")
    for c, h in _per_column(hierarchy, cols, "hierarchy").items():
        _check_hierarchy(h, c)
    for c, o in _ordinal_spec(ordinal, cols).items():
        if o is True and not isinstance(schema[c], pl.Enum):
            raise SDCError(
                f"column {c!r}: an ordinal String/Categorical column needs its order "
                "(a list of categories); only an Enum carries one"
            )
    out = dict(schema)
    if lazy:
        for c in cols:
            if isinstance(out[c], pl.Enum):
                out[c] = pl.Categorical()
    return pl.Schema(out)


# -- top / bottom coding -------------------------------------------------------------------
def top_bottom_expr(
    x: pl.Expr,
    *,
    lower: float | None = None,
    upper: float | None = None,
    lower_p: float | None = None,
    upper_p: float | None = None,
    replacement: str = "threshold",
) -> pl.Expr:
    """Top/bottom coding of a numeric column as a native Polars expression.

    Values above the upper threshold (``upper``, or the ``1 - upper_p`` quantile with
    "higher" interpolation, an observed value) are replaced, and likewise below the lower
    threshold (``lower`` or the ``lower_p`` quantile, "lower" interpolation).
    ``replacement="threshold"`` puts the threshold itself (dtype kept); ``"mean"`` puts the
    mean of the coded values on each side (Float64; the column total is preserved). Nulls
    stay null; thresholds are computed over the whole column.

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [1, 2, 3, 4, 100]})
    >>> df.select(top_bottom_expr(pl.col("x"), upper=10))["x"].to_list()
    [1, 2, 3, 4, 10]
    >>> df.select(top_bottom_expr(pl.col("x"), upper=3, replacement="mean"))["x"].to_list()
    [1.0, 2.0, 3.0, 52.0, 52.0]
    """
    if replacement not in ("threshold", "mean"):
        raise SDCError(f"replacement must be 'threshold' or 'mean', got {replacement!r}")
    for name, v in (("lower_p", lower_p), ("upper_p", upper_p)):
        if v is not None:
            check_p(v)
    if lower is not None and lower_p is not None or upper is not None and upper_p is not None:
        raise SDCError("give a threshold or a share p for each side, not both")
    if lower is None and upper is None and lower_p is None and upper_p is None:
        raise SDCError("top/bottom coding needs lower, upper, lower_p or upper_p")
    for name, v in (("lower", lower), ("upper", upper)):
        if v is not None and (
            isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(float(v))
        ):
            raise SDCError(f"`{name}` must be a number (not NaN), got {v!r}")
    if lower is not None and upper is not None and lower > upper:
        raise SDCError(f"`lower` = {lower!r} is above `upper` = {upper!r}; the coded ranges would overlap")
    if lower_p is not None and upper_p is not None and lower_p + upper_p > 1.0:
        raise SDCError(f"lower_p + upper_p = {lower_p + upper_p!r} exceeds 1; the coded shares would overlap")
    lo = x.quantile(lower_p, "lower") if lower_p is not None else (None if lower is None else pl.lit(lower))
    hi = x.quantile(1.0 - upper_p, "higher") if upper_p is not None else (None if upper is None else pl.lit(upper))
    if replacement == "threshold":
        out = x
        if hi is not None:
            out = pl.when(x > hi).then(hi.cast(pl.dtype_of(x))).otherwise(out)
        if lo is not None:
            out = pl.when(x < lo).then(lo.cast(pl.dtype_of(x))).otherwise(out)
        return out.name.keep()
    xf = x.cast(pl.Float64)
    out = xf
    # the mean by an exactly rounded sum over the whole column: the same in eager, lazy,
    # chunked and streaming runs (a float sum would depend on how the column is chunked)
    if hi is not None:
        out = pl.when(x > hi).then(_exact_mean(xf.filter(x > hi))).otherwise(out)
    if lo is not None:
        out = pl.when(x < lo).then(_exact_mean(xf.filter(x < lo))).otherwise(out)
    return out.name.keep()


def _fsum_mean(s: pl.Series) -> pl.Series:
    import numpy as np

    v = s.drop_nulls().to_numpy()
    if v.size == 0:
        return pl.Series([None], dtype=pl.Float64)
    try:
        mean = math.fsum(v.tolist()) / v.size
    except OverflowError:  # the sum of values near 1e308 overflows: sum them scaled (exact)
        mean = float(np.ldexp(math.fsum(np.ldexp(v, -64).tolist()) / v.size, 64))
    return pl.Series([mean], dtype=pl.Float64)


def _exact_mean(x: pl.Expr) -> pl.Expr:
    return x.map_batches(_fsum_mean, return_dtype=pl.Float64, returns_scalar=True)


def top_bottom_frame_exprs(schema: pl.Schema, columns: ColumnSpec, **options: Any) -> list[pl.Expr]:
    """One :func:`top_bottom_expr` per numeric column of ``columns`` (names kept).

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [1, 50], "y": [-5, 2]})
    >>> df.with_columns(top_bottom_frame_exprs(df.schema, ["x", "y"], lower=0, upper=10)).rows()
    [(1, 0), (10, 2)]
    """
    cols = resolve_columns(schema, columns, kind="numeric", what="columns", default="error")
    for c in cols:
        if schema[c] == pl.Boolean:
            raise SDCError(f"column {c!r}: a Boolean column cannot be top/bottom coded")
        if schema[c].is_integer() and options.get("replacement", "threshold") == "threshold":
            _check_int_threshold(c, schema[c], options.get("lower"), "lower")
            _check_int_threshold(c, schema[c], options.get("upper"), "upper")
    return [top_bottom_expr(pl.col(c), **options).alias(c) for c in cols]


def _check_int_threshold(column: str, dtype: pl.DataType, v: Any, name: str) -> None:
    """A threshold written into an integer column must be a whole number in its range."""
    if v is None or isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(float(v)):
        return  # reported by top_bottom_expr
    info = {pl.Int8: 8, pl.Int16: 16, pl.Int32: 32, pl.Int64: 64, pl.Int128: 128}
    bits = next((b for t, b in info.items() if dtype == t), None)
    if bits is not None:
        lo_, hi_ = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    else:
        ubits = {pl.UInt8: 8, pl.UInt16: 16, pl.UInt32: 32, pl.UInt64: 64}
        b = next((b for t, b in ubits.items() if dtype == t), 128)
        lo_, hi_ = 0, 2**b - 1
    if not (math.isfinite(float(v)) and lo_ <= v <= hi_):
        raise SDCError(
            f"column {column!r}: `{name}` = {v!r} is outside the range of its dtype {dtype} "
            f"({lo_} .. {hi_}); it cannot be written into the column"
        )
    if float(v) != math.floor(float(v)):
        raise SDCError(
            f"column {column!r}: `{name}` = {v!r} is not a whole number, but the column is {dtype}; "
            "use a whole threshold or replacement='mean'"
        )


__all__ = [
    "DEFAULT_SEP",
    "check_p",
    "merge_plan",
    "recode_frame",
    "recode_map_frame",
    "recode_series",
    "recode_table",
    "threshold",
    "top_bottom_expr",
    "top_bottom_frame_exprs",
]
