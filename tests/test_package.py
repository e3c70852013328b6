import subprocess
import sys


def test_import_loads_no_numba_and_registers_namespaces():
    code = (
        "import sys, polars as pl, polars_sdc\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
        "assert 'scipy' not in sys.modules, 'scipy imported'\n"
        "assert hasattr(pl.DataFrame({'a': [1]}), 'sdc')\n"
        "assert hasattr(pl.LazyFrame({'a': [1]}), 'sdc')\n"
        "assert hasattr(pl.col('a'), 'sdc')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_import_time_on_top_of_polars():
    code = (
        "import time, polars\n"
        "t = time.perf_counter(); import polars_sdc; print(time.perf_counter() - t)\n"
    )
    runs = [float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
            for _ in range(3)]
    assert min(runs) < 0.5
