"""Ski rental between two kernels that give the same result: one cheap to compile and slower
on large inputs ("rent"), one expensive to compile and faster ("buy").

While the fast kernel is neither compiled in this process nor in Numba's cache, a call runs
the cheap kernel as long as the seconds it has spent so far plus its estimate for this call
stay within a budget, about the fast kernel's compile time; then the fast kernel compiles
and every later call, in any process, takes it. The seconds spent are kept beside Numba's
cache of the fast kernel (a small JSON file), so they add up across processes: a first call
does not wait for the big compile, and a machine that keeps calling on large data pays at
most about twice the compile in all (the classic rent-or-buy bound), after which the fast
kernel runs as it would have from the start. ``polars_sdc.warmup()`` compiles the fast kernel
directly (no renting). MDAV uses it (kernels/mdav.py: the brute-force kernel rents, the
kd-tree kernel is bought).
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import Any

#: Renting is on (``polars_sdc.warmup()`` turns it off while it compiles the fast kernels).
ENABLED = True

_LOCK = threading.Lock()


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Within the block, every rental buys (the fast kernels compile): used by warm-up.

    Parameters
    ----------
    None.

    Notes
    -----
    Sets the module's :data:`ENABLED` (all threads) and restores it on exit.

    >>> from polars_sdc.kernels import rental
    >>> with rental.disabled():
    ...     rental.ENABLED
    False
    >>> rental.ENABLED
    True
    """
    global ENABLED
    with _LOCK:
        old, ENABLED = ENABLED, False
    try:
        yield
    finally:
        ENABLED = old


def ready_like(kernel: Any, **like: Any) -> bool:
    """Whether ``kernel`` is compiled in this process, or indexed in Numba's cache (then a call
    loads machine code instead of compiling), for some signature whose arguments named in
    ``like`` have the Numba types of the given values (the others may be anything): e.g.
    ``ready_like(k, nom=None)`` for the numeric specialisation of a kernel whose other
    arguments are always of one type. True for a plain Python function (``NUMBA_DISABLE_JIT=1``);
    when Numba's internals cannot answer, whether any signature is compiled or cached
    (:func:`polars_sdc.kernels.compiled_or_cached`).

    Parameters
    ----------
    kernel : Numba dispatcher
    **like
        Argument name -> a value of the type wanted.

    Notes
    -----
    Reads Numba's cache index (``_cache._cache_file``; Numba 0.60-0.68): an internal API, hence
    the fallback.

    >>> import numpy as np
    >>> from numba import njit
    >>> @njit
    ... def pick(x, opt):
    ...     return x if opt is None else 2 * x
    >>> ready_like(pick, opt=None)
    False
    >>> _ = pick(np.zeros(2), None)
    >>> ready_like(pick, opt=None), ready_like(pick, opt=True)
    (True, False)
    """
    from . import compiled_or_cached

    fits = _signature_test(kernel, like)
    if fits is None:
        return compiled_or_cached(kernel)
    if any(fits(sig) for sig in getattr(kernel, "overloads", ())):
        return True
    cache = getattr(kernel, "_cache", None)
    if not hasattr(cache, "_cache_file"):  # a kernel without cache=True: nothing on disk
        return False
    try:
        return any(fits(key[0]) for key in cache._cache_file._load_index())
    except Exception:  # pragma: no cover - Numba internals moved
        return compiled_or_cached(kernel)


def compiled_like(kernel: Any, **like: Any) -> bool:
    """:func:`ready_like` in this process only (compiled or already loaded from the cache): a
    call now runs without compiling or loading anything.

    Parameters
    ----------
    kernel : Numba dispatcher
    **like
        Argument name -> a value of the type wanted.

    Notes
    -----
    The in-process half of :func:`ready_like`.

    >>> import numpy as np
    >>> from numba import njit
    >>> @njit
    ... def twice(x):
    ...     return 2 * x
    >>> _ = twice(np.zeros(2))
    >>> compiled_like(twice, x=np.zeros(3)), compiled_like(twice, x=np.zeros(3, dtype=np.int32))
    (True, False)
    """
    fits = _signature_test(kernel, like)
    if fits is None:
        return not hasattr(kernel, "signatures")
    return any(fits(sig) for sig in kernel.overloads)


def _signature_test(kernel: Any, like: dict[str, Any]) -> Callable[[Any], bool] | None:
    """A test of a signature (a tuple of Numba types) against ``like``; None for a plain Python
    function or when Numba's internals cannot type the values."""
    if not hasattr(kernel, "signatures"):
        return None
    import inspect

    try:
        names = list(inspect.signature(kernel.py_func).parameters)
        want = {names.index(name): kernel.typeof_pyval(value) for name, value in like.items()}
    except Exception:  # pragma: no cover - Numba internals moved
        return None
    return lambda sig: all(len(sig) > i and sig[i] == t for i, t in want.items())


class Rental:
    """The rent-or-buy state of one fast kernel (one variant of its arguments, e.g. numeric
    or nominal data, each compiled apart): ``budget`` CPU seconds of renting before buying.

    Parameters
    ----------
    kernel : Numba dispatcher
        The fast kernel (its cache directory holds the spent seconds).
    variant : str
        Which specialisation (each has its own budget and spent seconds).
    budget : float
        CPU seconds of the cheap kernel allowed before the fast kernel compiles; about the fast
        kernel's compile time.
    path : str, optional
        The JSON file of spent seconds (default: ``<Numba cache dir of kernel>/<name>.rental.json``;
        in memory only when there is none or it cannot be written).
    name : str, optional
        The file's name (default: the kernel's).

    Examples
    --------
    >>> import tempfile, os
    >>> r = Rental(None, "numeric", budget=1.0, path=os.path.join(tempfile.mkdtemp(), "r.json"))
    >>> r.spent()
    0.0
    >>> r.rents(ready=False, estimate=0.4), r.rents(ready=True, estimate=0.4)
    (True, False)
    >>> r.pay(0.7); round(r.spent(), 3), r.rents(ready=False, estimate=0.4)
    (0.7, False)
    >>> round(Rental(None, "numeric", 1.0, path=r.path).spent(), 3)  # kept across processes
    0.7
    """

    def __init__(self, kernel: Any, variant: str, budget: float, path: str | None = None,
                 name: str | None = None) -> None:
        self.kernel = kernel
        self.variant = variant
        self.budget = float(budget)
        self.path = path if path is not None else _default_path(kernel, name)
        self._memory = 0.0

    def spent(self) -> float:
        """CPU seconds rented so far (all processes sharing the file; this process's own when
        the file cannot be read)."""
        if self.path is not None:
            try:
                with open(self.path) as f:
                    state = json.load(f)
                if state.get("stamp") == _stamp(self.kernel):
                    return max(float(state.get("spent", {}).get(self.variant, 0.0)), self._memory)
            except (OSError, ValueError, TypeError, AttributeError):
                pass
        return self._memory

    def rents(self, ready: bool, estimate: float) -> bool:
        """Whether to run the cheap kernel now: the fast one is not ``ready`` (see
        :func:`ready_like`) and the seconds spent plus this call's ``estimate`` fit the budget."""
        return ENABLED and not ready and self.spent() + estimate <= self.budget

    def pay(self, seconds: float) -> None:
        """Add ``seconds`` (the cheap kernel's measured CPU time) to the seconds spent (the
        file's read-add-write under an exclusive lock of ``<path>.lock`` where the OS has one, so
        processes paying at once add up)."""
        with _LOCK, _file_lock(self.path):
            total = self.spent() + max(float(seconds), 0.0)
            self._memory = total
            if self.path is None:
                return
            try:
                try:
                    with open(self.path) as f:
                        state = json.load(f)
                    if not isinstance(state, dict) or state.get("stamp") != _stamp(self.kernel):
                        state = {}  # another source's count, or JSON that is not ours (e.g. [])
                except (OSError, ValueError):
                    state = {}
                spent = state.get("spent") if isinstance(state.get("spent"), dict) else {}
                spent[self.variant] = total
                state = {"stamp": _stamp(self.kernel), "spent": spent}
                folder = os.path.dirname(self.path) or "."
                os.makedirs(folder, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=".rental-", dir=folder)
                try:
                    with os.fdopen(fd, "w") as f:
                        json.dump(state, f)
                    os.replace(tmp, self.path)  # atomic: a concurrent reader sees the old or the new file
                except OSError:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)  # a full disk: no stray temporary file left behind
                    raise
            except OSError:
                pass  # a read-only cache: this process keeps its own count


@contextlib.contextmanager
def _file_lock(path: str | None) -> Iterator[None]:
    """An exclusive advisory lock of ``path + ".lock"`` (POSIX ``flock``); none where that is not
    available or the lock file cannot be made (a read-only cache)."""
    if path is None:
        yield
        return
    try:
        import fcntl

        fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o666)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _default_path(kernel: Any, name: str | None = None) -> str | None:
    try:
        return os.path.join(kernel._cache.cache_path, f"{name or kernel.py_func.__name__}.rental.json")
    except AttributeError:  # no Numba cache (NUMBA_DISABLE_JIT, cache=False)
        return None


def _stamp(kernel: Any) -> Any:
    """The source stamp Numba's cache of ``kernel`` is valid for (a changed kernel source
    starts the count again, as it empties Numba's cache)."""
    try:
        return list(kernel._cache._cache_file._source_stamp)
    except AttributeError:
        return None
