"""Every public kernel (a function of ``polars_sdc/kernels/*.py`` not starting with ``_``) has a
numpy-style docstring with a ``Parameters`` and a ``Notes`` section (issue 29: the kernels
documented where they are; Notes names the paper, sdcMicro or ARX it follows). Read from the
source: nothing is compiled."""
import ast
import pathlib

import pytest

KERNELS = pathlib.Path(__file__).resolve().parents[1] / "polars_sdc" / "kernels"

#: modules whose kernels another change documents (the split of path_order.py into path_order*.py,
#: the MIL / annealing / V-MDAV work); this set may only shrink
PENDING = {"mil.py", "vmdav.py", "anneal.py"}


def _pending(name: str) -> bool:
    return name in PENDING or name.startswith("path_order")


def _public_kernels():
    for path in sorted(KERNELS.glob("*.py")):
        if _pending(path.name) or path.name == "__init__.py":
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                yield path.name, node


@pytest.mark.parametrize("module, node", list(_public_kernels()), ids=lambda v: getattr(v, "name", v))
def test_public_kernel_has_parameters_and_notes(module, node):
    doc = ast.get_docstring(node) or ""
    for section in ("Parameters\n----------", "Notes\n-----"):
        assert section in doc, f"kernels/{module}:{node.name} has no {section.splitlines()[0]} section"

