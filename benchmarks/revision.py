"""A module of the package as it was at a git revision, imported beside this tree's (same
process), for before / after benchmarks:

    from revision import module_at      # benchmarks/ is on sys.path: the scripts run from it
    old = module_at("2523952", "polars_sdc/risk/measure.py")

The old file is loaded as a sibling of the current module (``polars_sdc.risk._before_measure``),
so its relative imports resolve against this tree's package: only that one file is old.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from types import ModuleType

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_at(rev: str, path: str) -> ModuleType:
    """The module at ``path`` (``polars_sdc/...py``) of git revision ``rev``."""
    src = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:{path}"], check=True, capture_output=True,
                         text=True).stdout
    parts = path[:-3].split("/")
    name = ".".join(parts[:-1] + [f"_before_{parts[-1]}"])
    file = os.path.join(tempfile.mkdtemp(), os.path.basename(path))
    with open(file, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(name, file)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
