"""Numba kernels: numpy arrays in, numpy arrays out; no Polars here.

Nothing in this package is imported by ``import polars_sdc``: the method modules import
the kernel they need on first use, so Numba loads and compiles only then (``cache=True``).
"""

from ..progress import watch_compiles

watch_compiles()  # say on stderr when a call compiles kernels (first use)


def compiled_or_cached(kernel, signature=None) -> bool:
    """Whether the Numba dispatcher ``kernel`` is compiled in this process (for a signature
    ``signature(sig)`` accepts, when given) or has an index in Numba's cache (then a call loads
    machine code instead of compiling); False when that cannot be told. Callers use it to avoid
    compiling a kernel whose compile would cost more than running another one.

    >>> from polars_sdc.kernels.sse import total_ss
    >>> isinstance(compiled_or_cached(total_ss), bool)
    True
    """
    if not hasattr(kernel, "signatures"):   # NUMBA_DISABLE_JIT=1: a Python function, nothing to compile
        return True
    if any(signature is None or signature(sig) for sig in kernel.signatures):
        return True
    try:
        import os

        return os.path.exists(kernel._cache._cache_file._index_path)
    except Exception:  # pragma: no cover - Numba internals moved: assume a compile
        return False
