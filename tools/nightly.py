"""Nightly property run: every hypothesis test with the heavy "nightly" profile.

The profile (tests/conftest.py) runs each property test with 10 times its own number of
examples and larger inputs where a test asks for them (``size(small, large)``: MDAV n up to
600, V-MDAV 500, MHM 400), random (not derandomised) examples, no deadline. Prints one row
per test file: outcome, number of tests, seconds. Takes tens of minutes on 2 cores.

    python tools/nightly.py                      # every test file with a property test
    python tools/nightly.py tests/test_mdav.py   # some files
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def property_test_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py")
                  if "@given(" in p.read_text())


def main(argv: list[str]) -> int:
    files = argv or property_test_files()
    env = dict(os.environ, PYTHONPATH=str(ROOT), HYPOTHESIS_PROFILE="nightly")
    env.pop("CI", None)
    rows, failed = [], 0
    for f in files:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "-o", "addopts=",
             "-k", "not notebook", f],
            cwd=ROOT, env=env, capture_output=True, text=True,
        )
        dt = time.perf_counter() - t0
        summary = (proc.stdout.strip().splitlines() or ["?"])[-1]
        passed = re.search(r"(\d+) passed", summary)
        bad = re.findall(r"^FAILED (\S+)", proc.stdout, re.M)
        failed += bool(proc.returncode)
        rows.append((f, "ok" if proc.returncode == 0 else "FAIL", passed.group(1) if passed else "0", dt,
                     ", ".join(bad)))
        print(f"{f}: {rows[-1][1]} ({dt:.0f} s) {rows[-1][4]}", flush=True)
    print(f"\n| {'file':34s} | result | passed | seconds | failing")
    print(f"|{'-' * 36}|--------|--------|---------|--------")
    for f, res, n, dt, bad in rows:
        print(f"| {f:34s} | {res:6s} | {n:>6s} | {dt:7.0f} | {bad}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
