"""The package's structure (docs/ARCHITECTURE.md: imports point down).

The import graph is read from the source with :mod:`ast` (nothing is imported): an edge
``a -> b`` for every ``import`` / ``from ... import`` of a ``polars_sdc`` module in ``a``;
``from pkg import name`` is an edge to the submodule ``pkg.name`` when there is one, else to
``pkg``. Imports under ``if TYPE_CHECKING:`` are not run and not counted.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "polars_sdc"


def _modules() -> dict[str, tuple[pathlib.Path, bool]]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


MODULES = _modules()


def _target(module: str, package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(module: str, top_level: bool) -> list[tuple[str, str]]:
    """(imported module, imported name or "") of every polars_sdc import ``module`` runs: at
    module level only (``top_level``), or anywhere (inside functions too)."""
    path, package = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):  # the imports under `if TYPE_CHECKING:` never run
        if isinstance(node, ast.If) and _is_type_checking(node):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    if top_level:
        nodes: list[ast.AST] = []

        def visit(body: list[ast.stmt]) -> None:
            for node in body:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    nodes.append(node)
                elif isinstance(node, ast.If):
                    visit(node.body)
                    visit(node.orelse)
                elif isinstance(node, ast.Try):
                    visit(node.body)
                    for handler in node.handlers:
                        visit(handler.body)
                    visit(node.orelse)
                    visit(node.finalbody)

        visit(tree.body)
    else:
        nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    out = []
    for node in nodes:
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name, "") for a in node.names if a.name.split(".")[0] == "polars_sdc"]
            continue
        target = _target(module, package, node)
        if target.split(".")[0] != "polars_sdc":
            continue
        for a in node.names:
            sub = f"{target}.{a.name}"
            out.append((sub, "") if sub in MODULES else (target, a.name))
    return out


def import_graph(top_level: bool) -> dict[str, set[str]]:
    return {m: {t for t, _ in _imports(m, top_level) if t in MODULES} for m in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan), plus modules
    that import themselves."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    counter = 0
    for root in sorted(graph):  # iterative Tarjan: (node, its remaining successors)
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, successors = work[-1]
            for w in successors:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.add(w)
                        if w == v:
                            break
                    if len(component) > 1 or v in graph[v]:
                        out.append(component)
    return out


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}, "f": set()}
    assert sorted(map(sorted, cycles(graph))) == [["a", "b", "c"], ["e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_the_imports():
    graph = import_graph(top_level=True)
    assert "polars_sdc.microagg.refine" in graph["polars_sdc.microagg.pipeline"]
    assert "polars_sdc.microagg.mil" in graph["polars_sdc.microagg.refine"]
    lazy = import_graph(top_level=False)
    assert "polars_sdc.kernels.mil" in lazy["polars_sdc.microagg.mil"]  # imported inside the function
    assert "polars_sdc.kernels.mil" not in graph["polars_sdc.microagg.mil"]


def test_no_import_cycle_at_module_level():
    assert cycles(import_graph(top_level=True)) == []


#: cycles through imports made inside functions that are still there (each outside the
#: microaggregation package); a new cycle, or a known one that grows, fails the test
KNOWN_LAZY_CYCLES = [
    {"polars_sdc._signature", "polars_sdc.operations", "polars_sdc.loss.classic", "polars_sdc.loss.ild"},
    {"polars_sdc.process.problem", "polars_sdc.process.recipe"},
    {"polars_sdc.cli", "polars_sdc.commands"},
    {"polars_sdc.spark", "polars_sdc.spark.recipe"},
]


def test_no_new_import_cycle_through_function_imports():
    found = cycles(import_graph(top_level=False))
    microagg = [c for c in found if any(m.startswith("polars_sdc.microagg") for m in c)]
    assert microagg == [], "the microaggregation modules import each other in a cycle"
    new = [sorted(c) for c in found if not any(c <= known for known in KNOWN_LAZY_CYCLES)]
    assert new == [], "a new import cycle (imports point down: docs/ARCHITECTURE.md)"


def test_the_refiners_sit_below_the_pipeline():
    lazy = import_graph(top_level=False)
    for low in ("polars_sdc.microagg.mil", "polars_sdc.microagg.anneal", "polars_sdc.microagg.refine"):
        assert "polars_sdc.microagg.pipeline" not in lazy[low], low
        assert "polars_sdc.microagg" not in lazy[low], low
    assert "polars_sdc.microagg.refine" not in lazy["polars_sdc.microagg.mil"]
    assert "polars_sdc.microagg.anneal" not in lazy["polars_sdc.microagg.mil"]


def _private_imports_of_spark() -> list[str]:
    out = []
    for module in MODULES:
        if not module.startswith("polars_sdc.spark"):
            continue
        for target, name in _imports(module, top_level=False):
            if not target.startswith("polars_sdc.spark") and name.startswith("_"):
                out.append(f"{module} imports {target}.{name}")
    return sorted(out)


def test_spark_imports_no_private_local_name():
    assert _private_imports_of_spark() == []


#: the functions that take a stream name as their second argument (polars_sdc.rng and the
#: Numba-backed twins of masking/_common.py)
DRAWS = {"bits", "uniform", "normal", "laplace", "stream_hash"}


def _written_stream_names() -> list[str]:
    out = []
    for module, (path, _) in MODULES.items():
        if module == "polars_sdc.rng":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or len(node.args) < 2:
                continue
            func = node.func  # rng.uniform(...) or a bare uniform(...), not df.sdc.laplace(...)
            if isinstance(func, ast.Attribute):
                name = func.attr if isinstance(func.value, ast.Name) and func.value.id == "rng" else ""
            else:
                name = getattr(func, "id", "")
            arg = node.args[1]
            literal = isinstance(arg, ast.JoinedStr) or (isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                                                          and arg.value != "")  # "": a seed check, no draw
            concatenated = isinstance(arg, ast.BinOp) and any(
                isinstance(side, (ast.JoinedStr, ast.Constant)) for side in (arg.left, arg.right))
            if name in DRAWS and (literal or concatenated):
                out.append(f"{module}:{node.lineno} {ast.unparse(arg)}")
    return out


def test_stream_names_are_declared_in_rng_only():
    """One owner of the random stream names: every draw names its stream through
    ``rng.stream(...)`` (the table ``rng.STREAMS``), never by a string written at the call."""
    assert _written_stream_names() == []


def test_the_stream_table_builds_the_names_the_tests_pin():
    from polars_sdc import rng

    assert rng.stream("laplace", column="x") == "laplace/x"
    assert rng.stream("add_noise", column="x") == "add_noise/x"
    assert rng.stream("pram", column="c") == "pram/c" and rng.stream("pram_pd", column="c", stratum=0) == "pram/c/pd/0"
    assert rng.stream("rank_swap", column="x") == "rank_swap/x"
    assert rng.stream("swap_records_donor", level=1) == "swap_records/donor1"
    assert rng.normal_streams("add_noise/x") == ("add_noise/x/n1", "add_noise/x/n2")
    assert rng.stream("laplace", column="a{b}") == "laplace/a{b}"  # a column name is not a format string


#: the MHM path orderings, one kernel module each (issue 29.4): an ordering imports the
#: shared pieces only, never another ordering, so a call compiles only its own kernels
PATH_ORDERS = ("npn", "grid", "vgrid", "kd")


def test_each_mhm_ordering_has_its_own_kernel_module():
    graph = import_graph(top_level=False)
    shared = {"polars_sdc.kernels._common", "polars_sdc.kernels.path_order_common",
              "polars_sdc.kernels.path_order_blocks", "polars_sdc.kernels.mdav", "polars_sdc.kernels"}
    for order in PATH_ORDERS:
        module = f"polars_sdc.kernels.path_order_{order}"
        assert module in graph["polars_sdc.microagg.mhm"], module  # mhm calls it (inside the function)
        assert graph[module] <= shared, (module, graph[module] - shared)
    assert "polars_sdc.kernels.mdav" in graph["polars_sdc.kernels.path_order_kd"]  # kd-mdav's leaves
    top = import_graph(top_level=True)["polars_sdc.microagg.mhm"]
    assert not any(m.startswith("polars_sdc.kernels") for m in top)  # no Numba at import time
