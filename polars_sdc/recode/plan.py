"""The minimum-frequency merge plan of Sano & Hattori (Fig. 1) on a frequency table: one
entry per category, no rows. Free merging, its hierarchy- and order-constrained variants, and
the checks that keep the new labels distinct; :mod:`.frame` applies a plan to columns.

Fig. 1 of the paper: with ``n`` records and minimum share ``p`` the threshold is
``th = n * p``. Sort the categories of a column by frequency; if a single category has the
smallest frequency, merge it with the second smallest; if several tie for the smallest,
merge all of them; repeat until the smallest frequency exceeds ``th`` or one category is
left. A merged category is named by :class:`.labels.LabelSpec` (parts joined by ``sep``,
default ``"|"``; the paper's "農業・林業" with ``sep="・"``).

Conventions (the paper leaves them open):

- ``th = n * p`` is rounded down after a 1e-9 guard against float error, so "count <= th" is
  exact for integer counts.
- Ties in frequency go to the category with the lowest *natural position* (a merged category
  takes the lowest position of its parts), and the parts of a merged label are joined in
  position order: agriculture (row 001) and forestry (row 002) give "農業|林業".

Constrained variants:

- ``hierarchy`` ({category: parent}, parents may have parents): only siblings (same parent)
  merge; Fig. 1 runs among the siblings of the smallest category. A node that has become the
  only one under its parent, or that must merge but has no sibling, is renamed to its parent
  (generalisation one level up). A top-level node without a top-level sibling merges with
  the smallest other top-level subtree, which is first collapsed into its top label.
  Categories missing from the mapping hang from the root.
- ``ordinal`` (an order of the categories): only neighbours merge; the smallest category
  (ties: lowest position) merges with its smaller neighbour (ties: the preceding one).

``other=`` pools every merged group into one category, which would merge non-siblings or
non-neighbours: it is refused together with ``hierarchy`` or ``ordinal``.

>>> merge_plan(["農業", "林業", "サービス業", "不動産業", "製造業"], [5, 2, 30, 13, 50], 5, sep="・")
['農業・林業', '農業・林業', 'サービス業', '不動産業', '製造業']
"""
from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._errors import SDCError
from .._validation import check_real
from .labels import DEFAULT_MAX_LABEL, DEFAULT_SEP, LabelSpec


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
    other: str | None = None,
    max_label: int | None = DEFAULT_MAX_LABEL,
    hierarchy: Mapping[str, str] | None = None,
    ordinal: bool = False,
    column: str = "",
) -> list[str]:
    """New label of each category after minimum-frequency recoding (Fig. 1 of Sano & Hattori).

    ``labels`` are the categories in their natural position order, ``counts`` their
    frequencies (all > 0) and ``th`` the integer threshold; merging goes on while the
    smallest count is <= th and more than one category is left. ``ordinal=True`` merges only
    neighbours in ``labels`` order; ``hierarchy`` ({category: parent}) merges only siblings.
    Merged labels: see :class:`.labels.LabelSpec` (``sep``, ``other``, ``max_label``).

    >>> merge_plan(["農業", "林業", "サービス業", "不動産業", "製造業"], [5, 2, 30, 13, 50], 5)
    ['農業|林業', '農業|林業', 'サービス業', '不動産業', '製造業']
    >>> merge_plan(["a", "b", "c", "d"], [1, 1, 1, 9], 2)   # a three-way tie merges at once
    ['a|b|c', 'a|b|c', 'a|b|c', 'd']
    >>> merge_plan(["a", "b", "c", "d", "e"], [3, 3, 4, 4, 99], 4, other="Other")  # a+b, c+d pooled
    ['Other', 'Other', 'Other', 'Other', 'e']
    """
    if len(labels) != len(counts):
        raise SDCError(f"column {column!r}: {len(labels)} labels for {len(counts)} counts")
    try:
        spec = LabelSpec.build(sep, other, max_label)
    except SDCError as exc:
        raise SDCError(f"column {column!r}: {exc}") from None
    if hierarchy is not None and ordinal:
        raise SDCError(f"column {column!r}: choose either a hierarchy or an ordinal order, not both")
    check_other_constraints(spec.other, column, hierarchy=hierarchy is not None, ordinal=ordinal)
    import gc

    # one small object per category: the cyclic GC would rescan them all again and again
    # (quadratic in the number of categories); none of them forms a cycle
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _merge_plan(labels, counts, th, spec, hierarchy, ordinal, column)
    finally:
        if enabled:
            gc.enable()


def check_other_constraints(other: str | None, column: str, *, hierarchy: bool, ordinal: bool) -> None:
    """``other=`` pools every merged group into one category: refused with a hierarchy (it
    would merge non-siblings) or an order (non-neighbours).

    >>> check_other_constraints("Other", "age", hierarchy=False, ordinal=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: column 'age': other= pools every merged group into one category, which ...
    """
    if other is None or not (hierarchy or ordinal):
        return
    what = "a hierarchy forbids (it would merge non-siblings)" if hierarchy else (
        "an ordinal order forbids (it would merge non-neighbours)")
    raise SDCError(
        f"column {column!r}: other= pools every merged group into one category, which {what}; "
        "use max_label= to shorten the labels instead"
    )


def _merge_plan(labels, counts, th, spec: LabelSpec, hierarchy, ordinal, column) -> list[str]:
    if not ordinal and hierarchy is None:
        return _plan_free_fast(labels, counts, th, spec, column)
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
        text = _label(sorted(node.parts), spec)
        for m in node.members:
            out[m] = text
    _check_unique(final, out, labels, column)
    return out


def _label(parts: Sequence[tuple[int, str]], spec: LabelSpec) -> str:
    """The label of a node from its (position, text) parts in position order."""
    return spec.join([t for _, t in parts])


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


def _plan_free_fast(labels: Sequence[str], counts: Sequence[int], th: int, spec: LabelSpec, column: str) -> list[str]:
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
    groups = [order[a:b].tolist() for a, b in zip(starts.tolist(), ends.tolist()) if b - a > 1]
    if spec.other is not None:  # every merged group pooled under one name
        if spec.other in texts:
            raise SDCError(
                f"column {column!r}: other={spec.other!r} is already a category that is not merged; "
                "choose another other= label"
            )
        for m in itertools.chain.from_iterable(groups):
            out[m] = spec.other
        return out
    merged = []
    for members in groups:
        own = [out[m] for m in members]
        text = _label(list(enumerate(own)), spec)
        if text in texts:
            raise SDCError(
                f"column {column!r}: two recoded categories are both named {text!r}; "
                "choose another sep= or a larger max_label="
            )
        texts.add(text)
        merged.append((members, own, text))
    for members, own, text in merged:
        if text in originals and text not in own:
            raise SDCError(
                f"column {column!r}: the merged label {text!r} is also an existing category; "
                "choose another sep= or a larger max_label="
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
                "choose another sep=, a larger max_label= or rename the hierarchy's parents"
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
                    "choose another sep= or a larger max_label="
                )



__all__ = ["check_p", "merge_plan", "threshold"]
