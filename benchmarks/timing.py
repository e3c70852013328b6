"""The benchmarks' one timing helper: best-of-``repeat`` wall and CPU time of a call.

    from timing import timed          # the benchmarks run as scripts: benchmarks/ is on sys.path
    t = timed(lambda: df.sdc.mdav(5), repeat=3)
    print(t.wall, t.cpu, t.result)

``wall`` is ``time.perf_counter``, ``cpu`` is ``time.process_time`` (the whole process: every
thread, so a parallel kernel shows its total work); each is the minimum over the runs (the
least disturbed run on a shared machine), ``result`` the last run's return value.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Timing:
    """Best wall and CPU seconds over the runs, and the last run's result."""

    wall: float
    cpu: float
    result: Any


def timed(fn: Callable[[], Any], repeat: int = 1) -> Timing:
    """Run ``fn()`` ``repeat`` times (at least once); the best wall and CPU time."""
    wall, cpu, out = float("inf"), float("inf"), None
    for _ in range(max(1, int(repeat))):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - w)
        cpu = min(cpu, time.process_time() - c)
    return Timing(wall, cpu, out)
