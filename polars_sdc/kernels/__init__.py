"""Numba kernels: numpy arrays in, numpy arrays out; no Polars here.

Nothing in this package is imported by ``import polars_sdc``: the method modules import
the kernel they need on first use, so Numba loads and compiles only then (``cache=True``).
"""

from ..progress import watch_compiles

watch_compiles()  # say on stderr when a call compiles kernels (first use)
