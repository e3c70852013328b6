"""Every figure the notebooks draw is readable: axis labels, a title, a legend where several
series share an axes (checked with :func:`polars_sdc.plot.unlabelled_axes`).

This is also the test that every notebook runs: its code cells run here, in order, in a fresh
interpreter with the Agg backend (an exception fails the test); figures stay open so they can
be inspected at the end. (`pytest --nbmake notebooks` runs them in a Jupyter kernel instead;
the default run does not repeat that, it would run each notebook twice.)

What each cell prints (stdout) is compared with the notebook's committed output, so a notebook
whose saved output no longer is what the code prints fails here (sessions 26-28 found six stale
ones: Float64 census means after integers kept their dtype, MIL and suppression numbers from
before their improvements); re-execute it with ``python tools/run_notebooks.py notebooks/X.ipynb``.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))

RUNNER = r"""
import json, sys, os
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.show = lambda *a, **k: None
from polars_sdc.plot import unlabelled_axes
path = sys.argv[1]
os.chdir(os.path.dirname(path))
import contextlib, io
cells = [c for c in json.load(open(path))["cells"] if c["cell_type"] == "code"]
env = {"__name__": "__main__"}
problems = []
for i, cell in enumerate(cells, 1):
    src = "".join(cell["source"])
    src = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith(("%", "!")))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(src, path, "exec"), env)
    saved = "".join("".join(o["text"]) for o in cell.get("outputs", [])
                    if o.get("output_type") == "stream" and o.get("name") == "stdout")
    if printed.getvalue() != saved:
        now, was = printed.getvalue().splitlines(), saved.splitlines()
        j = next((j for j, (a, b) in enumerate(zip(now, was)) if a != b), min(len(now), len(was)))
        problems.append(f"code cell {i} prints something else than its saved output (line {j + 1}: saved "
                        f"{(was[j] if j < len(was) else '<nothing>')!r}, now {(now[j] if j < len(now) else '<nothing>')!r}); "
                        f"re-execute: python tools/run_notebooks.py notebooks/{os.path.basename(path)}")
for num in plt.get_fignums():
    fig = plt.figure(num)
    problems += [f"figure {num}: {p}" for p in unlabelled_axes(fig)]
print(json.dumps(problems))
"""


def _spark_missing() -> str | None:
    """Why the Spark notebook cannot run here (None: it can)."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return 'pyspark is not installed (pip install -e ".[dev]")'
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "java is not installed (Spark needs a JVM, e.g. openjdk-17-jre-headless)"
    return None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_notebook_figure_is_labelled(path):
    if "spark" in path.stem and (reason := _spark_missing()):
        if os.environ.get("SDC_REQUIRE_ALL") == "1":
            pytest.fail(f"SDC_REQUIRE_ALL=1 but {reason}")
        pytest.skip(reason)
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(path)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    problems = json.loads(proc.stdout.strip().splitlines()[-1])
    assert problems == [], f"{path.name}: " + "; ".join(problems)
