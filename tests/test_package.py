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


def test_import_time_of_polars_sdc_itself():
    # One subprocess, no retries: polars and numpy are imported first, then `import polars_sdc`
    # under -X importtime, which reports each module's own ("self") import time. polars_sdc's
    # share is the sum over its own modules; anything else it pulls in is listed. The bound is
    # generous (the share is ~0.05 s on an idle machine) so a loaded CI box cannot fail it,
    # while an import of a heavy dependency or a kernel compile at import time still does.
    code = "import polars, numpy\nimport sys\nprint('--', file=sys.stderr)\nimport polars_sdc\n"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], check=True, capture_output=True, text=True)
    after = proc.stderr.split("--\n", 1)[1]
    own, others = 0, []
    for line in after.splitlines():
        if not line.startswith("import time:") or "|" not in line or "self [us]" in line:
            continue
        self_us, _, name = (part.strip() for part in line.split(":", 1)[1].split("|"))
        if name.startswith("polars_sdc"):
            own += int(self_us)
        else:
            others.append(name)
    assert own > 0, proc.stderr
    assert own < 2_000_000, f"polars_sdc's own modules take {own / 1e6:.2f} s to import"
    heavy = [m for m in others if m.split(".")[0] in {"numba", "scipy", "llvmlite", "matplotlib", "sklearn"}]
    assert not heavy, heavy
