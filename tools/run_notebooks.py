"""Execute every notebook in notebooks/ in place so the saved outputs are real.

    python tools/run_notebooks.py [notebooks/00_tour.ipynb ...]
"""
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

paths = [Path(p) for p in sys.argv[1:]] or sorted(Path(__file__).parent.parent.joinpath("notebooks").glob("*.ipynb"))
for path in paths:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=1200, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    nbformat.write(nb, path)
    print("executed", path)
