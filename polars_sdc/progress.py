"""Progress of long work: a percentage with an ETA on stderr, off unless asked.

Library calls take ``progress=True`` (off by default); the ``polars-sdc`` command turns it on
only when stderr is a terminal (never in a pipe or a CI log). The bar is ``tqdm.auto``'s when
tqdm is installed (a widget in a notebook, a text bar in a terminal), else one plain line
rewritten in place. Work is reported *between* the chunks the Python layer already runs —
strata of a microaggregation, EM passes of a reconstruction, column blocks of ILD — and,
inside one long kernel call, from a counter array the kernel writes (MDAV's rows grouped, the
share of ILD's pairwise sum done) with the GIL released, which the bar's ticker thread reads
every 0.5 s (:meth:`Progress.waiting`); kernels never call back into Python. Other single
calls show the elapsed time. A disabled bar costs one attribute look-up per chunk.

Numba compiles a kernel on its first use (then loads it from the cache): while a call
compiles, one line says so on stderr (:func:`watch_compiles`) -- at once when a bar is shown
(the bar then reads "compiling kernels" with a count and its clock keeps running), else once
compiling has taken :data:`COMPILE_NOTICE_AFTER` seconds; ``POLARS_SDC_COMPILE_NOTICE=0``
silences it.

>>> with bar(False, "nothing") as b:   # disabled: a no-op object
...     b.advance(3)
>>> b.enabled
False
"""
from __future__ import annotations

import os
import sys
import threading
import time
from contextvars import ContextVar
from typing import Any, TextIO

#: Seconds between two redraws of the plain (no tqdm) line.
PLAIN_INTERVAL = 0.5
#: Seconds of compiling after which a call without a progress bar says so on stderr.
COMPILE_NOTICE_AFTER = 2.0
#: Compiles less than this many seconds apart belong to one call (one notice).
COMPILE_BURST_GAP = 1.0
#: A method named in a notice is not named again for this many seconds (one call can
#: compile in several bursts, with Python work between them).
COMPILE_NOTICE_REPEAT = 60.0
#: The method named in the compile notice for the first kernel a call compiles, by
#: "module.function" or by module (default: the module's name).
KERNEL_NAMES = {**{f"path_order_{o}": "mhm" for o in ("common", "npn", "blocks", "grid", "vgrid", "kd")},
                "hansen_mukherjee": "mhm", "laplace_em": "reconstruct_gmm",
                "hansen_mukherjee.hm_shortest_path_1d": "univariate",
                "strings": "ild", "logit": "recode_utility", "sse": "loss", "wildcard": "frequencies"}


def kernel_name(kernel: str) -> str:
    """The method a kernel ("module.function") is named by in the compile notice, unless a
    :func:`method_called` block names the method called.

    >>> kernel_name("path_order_kd._kd_walk"), kernel_name("mdav.mdav_labels_tree")
    ('mhm', 'mdav')
    >>> with method_called("mhm"):   # MHM kd-mdav compiling MDAV's kernel first
    ...     kernel_name("mdav.mdav_labels_small")
    'mhm'
    """
    called = _CALLED.get()
    if called is not None:
        return called
    return KERNEL_NAMES.get(kernel) or KERNEL_NAMES.get(kernel.split(".")[0]) or kernel.split(".")[0]


#: The method the user called, while one runs (:func:`method_called`).
_CALLED: ContextVar[str | None] = ContextVar("polars_sdc_method_called", default=None)


class method_called:
    """Within the block, the compile notice names ``name`` (the method the user called)
    whatever kernel compiles first -- e.g. MHM kd-mdav, whose first compile may be MDAV's
    kernel; the outermost block wins (a method calling another keeps its own name). Also a
    decorator (``@method_called("mhm")``).

    >>> with method_called("risk"), method_called("suda"):
    ...     kernel_name("suda._unique_bits")
    'risk'
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._token = None

    def __enter__(self) -> method_called:
        if _CALLED.get() is None:
            self._token = _CALLED.set(self.name)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._token is not None:
            _CALLED.reset(self._token)
            self._token = None

    def __call__(self, fn: Any) -> Any:
        """As a decorator: every call of ``fn`` runs in a block naming ``name``."""
        import functools

        name = self.name

        @functools.wraps(fn)
        def called(*args: Any, **kwargs: Any) -> Any:
            with method_called(name):
                return fn(*args, **kwargs)

        return called


def stderr_is_terminal() -> bool:
    """True when stderr is an interactive terminal and no ``CI`` variable is set: the default
    of the command line's ``--progress``.

    >>> import io, contextlib
    >>> with contextlib.redirect_stderr(io.StringIO()):
    ...     stderr_is_terminal()
    False
    """
    if os.environ.get("CI"):
        return False
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # closed or replaced stream
        return False


def _tqdm() -> Any:
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


class Null:
    """A disabled bar: every method does nothing."""

    enabled = False
    n = 0.0
    total = None

    def advance(self, n: float = 1.0) -> None:
        pass

    def set_total(self, total: float | None) -> None:
        pass

    def set_postfix(self, text: str) -> None:
        pass

    def waiting(self, label: str | None = None, counter: Any = None) -> Null:
        return self

    def close(self) -> None:
        pass

    def __enter__(self) -> Null:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


class Progress:
    """A bar of ``total`` work units (None: unknown; then elapsed time and units done).

    ``advance(n)`` adds done units, ``set_total`` revises an estimated total (the percentage
    and the ETA follow), ``set_postfix`` shows a short status, ``waiting()`` keeps the elapsed
    time moving while one long call runs, ``close()`` ends the line. ``plain=True`` (or no
    tqdm) draws ``desc  45% 12.3 s, ETA 15 s`` on ``file`` (default: stderr) at most every
    :data:`PLAIN_INTERVAL` seconds.
    """

    enabled = True

    def __init__(self, desc: str, total: float | None = None, *, unit: str = "it",
                 file: TextIO | None = None, plain: bool | None = None) -> None:
        self.desc, self.unit = desc, unit
        self.total = None if total is None else float(total)
        self.n = 0.0
        self.postfix = ""
        self._file = file
        self._t0 = time.perf_counter()
        self._last = -1.0
        self._lock = threading.RLock()
        self._closed = False
        self._waiting = 0
        self._tracked: list[_Waiting] = []
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()
        _OPEN.append(self)
        tqdm = None if plain else _tqdm()
        self._bar = None
        if tqdm is not None:
            self._bar = tqdm(total=self.total, desc=desc, unit=unit, file=file, leave=False,
                             dynamic_ncols=True, mininterval=0.2,
                             bar_format=None if self.total is not None else "{desc}: {elapsed}{postfix}")

    @property
    def _out(self) -> TextIO:
        return self._file if self._file is not None else sys.stderr

    # -- reporting -------------------------------------------------------------------------
    def advance(self, n: float = 1.0) -> None:
        with self._lock:
            self.n += n
            if self._bar is not None:
                self._bar.update(n)
            else:
                self._draw()

    def set_total(self, total: float | None) -> None:
        with self._lock:
            self.total = None if total is None else max(float(total), self.n)
            if self._bar is not None:
                self._bar.total = self.total  # shown at the next (throttled) redraw
            else:
                self._draw()

    def set_postfix(self, text: str) -> None:
        with self._lock:
            self.postfix = text
            if self._bar is not None:
                self._bar.set_postfix_str(text, refresh=False)
            else:
                self._draw()

    def line(self) -> str:
        """The plain text of the bar now: ``desc  45% 12.3 s, ETA 15 s [postfix]``."""
        elapsed = time.perf_counter() - self._t0
        if self.total:
            frac = min(max(self.n / self.total, 0.0), 1.0)
            eta = f", ETA {elapsed * (1 - frac) / frac:.0f} s" if frac > 0 else ""
            text = f"{self.desc} {100 * frac:3.0f}% {elapsed:.1f} s{eta}"
        else:
            text = f"{self.desc} {elapsed:.1f} s"
        return f"{text} {self.postfix}".rstrip()

    def _draw(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self._last < PLAIN_INTERVAL:
            return
        self._last = now
        self._out.write("\r" + self.line() + "\x1b[K")
        self._out.flush()

    def refresh(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._bar is not None:
                self._bar.refresh()
            else:
                self._draw(force=True)

    def waiting(self, label: str | None = None, counter: Any = None) -> _Waiting:
        """A context that redraws the bar (elapsed time) every 0.5 s while one long call runs.
        ``counter`` (an array whose element 0 a kernel updates with the units done, with the
        GIL released) moves the bar from its position at entry while the call runs;
        ``counter="share"`` makes a float64 one (the share of one unit done) that kernels
        called inside find with :func:`active_counter`; that waiting is one unit, counted as
        done at exit.

        >>> import io, numpy as np
        >>> done = np.zeros(1, dtype=np.int64)
        >>> with Progress("mdav", 10, plain=True, file=io.StringIO()) as b:
        ...     with b.waiting("partition", counter=done):
        ...         done[0] = 10      # what the kernel would do
        ...     b.n
        10.0
        """
        return _Waiting(self, label, counter)

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            if self._waiting:
                self._poll()
                self.refresh()

    def _poll(self) -> None:
        """Move the bar to where the counters of the running calls say."""
        with self._lock:
            for w in self._tracked:
                self._advance_to(w.base + float(w.counter[0]))

    def _advance_to(self, n: float) -> None:
        if n > self.n:
            self.advance(n - self.n)

    def close(self) -> None:
        if self in _OPEN:
            _OPEN.remove(self)
        self._stop.set()
        if self._ticker is not None and self._ticker is not threading.current_thread():
            self._ticker.join()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._bar is not None:
                self._bar.close()
            else:
                self._out.write("\r\x1b[K")
                self._out.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_ACTIVE: ContextVar[Any] = ContextVar("polars_sdc_progress_counter", default=None)
#: The bars shown now (open, not closed): the compile notice goes to them.
_OPEN: list[Progress] = []


def active_counter() -> Any:
    """The float64 counter of the innermost ``waiting(..., counter="share")`` of an enabled
    bar (a kernel writes the share of its work done into element 0), or None.

    >>> import io
    >>> with Progress("ILD", 2, plain=True, file=io.StringIO()) as b:
    ...     with b.waiting("pairwise", counter="share"):
    ...         active_counter()[0] = 1.0   # what the kernel does when it ends
    ...     b.n, active_counter()
    (1.0, None)
    """
    return _ACTIVE.get()


class _Waiting:
    """While inside, the bar's ticker thread (one per bar, started on first use) redraws it
    every 0.5 s, so the elapsed time moves during one long call; with a ``counter`` the bar
    also moves to its entry position plus ``counter[0]`` (read again at exit)."""

    def __init__(self, bar: Progress, label: str | None, counter: Any = None) -> None:
        self._token = None
        if isinstance(counter, str):
            if counter != "share":
                raise ValueError(f"counter must be an array or 'share', got {counter!r}")
            import numpy as np

            counter = np.zeros(1)
            self._token = _ACTIVE.set(counter)
        self.bar, self.label, self.counter = bar, label, counter
        self.base = 0.0

    def __enter__(self) -> _Waiting:
        b = self.bar
        if self.label is not None:
            b.set_postfix(self.label)
        with b._lock:
            b._waiting += 1
            if self.counter is not None:
                self.base = b.n
                b._tracked.append(self)
            if b._ticker is None and not b._closed:
                b._ticker = threading.Thread(target=b._tick, daemon=True)
                b._ticker.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        b = self.bar
        with b._lock:
            b._waiting -= 1
            if self.counter is not None:
                b._tracked.remove(self)
                # a "share" waiting is one unit: done when the call returns
                b._advance_to(self.base + (1.0 if self._token is not None else float(self.counter[0])))
        if self._token is not None:
            _ACTIVE.reset(self._token)


def bar(enabled: Any, desc: str, total: float | None = None, *, unit: str = "it") -> Progress | Null:
    """A :class:`Progress` when ``enabled`` (``True``; a :class:`Progress` is passed through),
    else a :class:`Null` that costs nothing.

    >>> import io, contextlib
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     with bar(True, "strata", total=4, unit="rows") as b:
    ...         b.advance(2)
    >>> b.n, b.total
    (2.0, 4.0)
    """
    if isinstance(enabled, (Progress, Null)):
        return enabled
    from ._validation import check_bool

    if not check_bool(enabled, "progress"):
        return Null()
    return Progress(desc, total, unit=unit)


def compile_notice(name: str) -> str:
    """The line printed when a call compiles kernels.

    >>> compile_notice("mdav")
    'polars_sdc: compiling kernels for mdav (first use; cached afterwards)'
    """
    return f"polars_sdc: compiling kernels for {name} (first use; cached afterwards)"


class _CompileWatch:
    """Numba's compile events ("numba:compile") of polars_sdc's kernels, grouped in bursts
    (one call's compiles: less than :data:`COMPILE_BURST_GAP` s apart): the first kernel
    compiled in a burst names it. With a bar shown the notice is printed when the burst
    starts and the bar shows "compiling kernels: N compiled" with its clock running; without
    one a timer prints it once the burst's compiling has lasted :data:`COMPILE_NOTICE_AFTER` s."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.depth = 0  # nesting of the compile events now running (callees compile inside)
        self.name = ""
        self.spent = 0.0  # seconds compiled in this burst before the running outer compile
        self.started = 0.0
        self.ended = -float("inf")
        self.said = False
        self.last: dict[str, float] = {}  # name -> when a notice last named it
        self.count = 0
        self.timer: threading.Timer | None = None
        self.waits: list[tuple[Progress, _Waiting, str]] = []

    def start(self, module: str) -> None:
        with self.lock:
            self.depth += 1
            if self.depth > 1:
                return
            now = time.perf_counter()
            name = kernel_name(module)
            # a new call: a new burst (also right after another method's burst, when a
            # method_called block names the method)
            if now - self.ended > COMPILE_BURST_GAP or (_CALLED.get() is not None and name != self.name):
                self.spent, self.said, self.count = 0.0, False, 0
                self.name = name
            self.started = now
            if os.environ.get("POLARS_SDC_COMPILE_NOTICE", "1").strip().lower() in ("0", "false", "no", "off"):
                return
            bars = [b for b in _OPEN if not b._closed]
            if bars:
                self.say(bars)
                for b in bars:
                    w = b.waiting()
                    w.__enter__()
                    self.waits.append((b, w, b.postfix))
                    b.set_postfix(self.status())
            elif not self.said:
                self.timer = threading.Timer(max(COMPILE_NOTICE_AFTER - self.spent, 0.0), self.late)
                self.timer.daemon = True
                self.timer.start()

    def status(self) -> str:
        return f"compiling kernels (first use): {self.count} compiled"

    def say(self, bars: list[Progress]) -> None:
        if self.said:
            return
        self.said = True
        now = time.perf_counter()
        if now - self.last.get(self.name, -float("inf")) < COMPILE_NOTICE_REPEAT:
            return
        self.last[self.name] = now
        line = compile_notice(self.name)
        tq = next((b._bar for b in bars if b._bar is not None), None)
        if tq is not None:
            tq.write(line, file=bars[0]._file or sys.stderr)
            return
        out = bars[0]._out if bars else sys.stderr
        out.write(("\r\x1b[K" if bars else "") + line + "\n")
        out.flush()

    def late(self) -> None:
        with self.lock:
            if self.depth > 0:
                self.say([b for b in _OPEN if not b._closed])

    def end(self, ours: bool) -> None:
        with self.lock:
            self.depth = max(self.depth - 1, 0)
            if ours:
                self.count += 1
                for b, _, _ in self.waits:
                    b.set_postfix(self.status())
            if self.depth > 0:
                return
            now = time.perf_counter()
            self.spent += now - self.started
            self.ended = now
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            for b, w, postfix in self.waits:
                w.__exit__(None, None, None)
                b.set_postfix(postfix)
            self.waits = []


_WATCH: _CompileWatch | None = None


def watch_compiles() -> None:
    """Listen (once per process) to Numba's compile events of polars_sdc's kernels and say
    on stderr when a call compiles (see :class:`_CompileWatch`). Called when the first
    kernel module is imported (``polars_sdc.kernels``); Numba is loaded then anyway.

    >>> import polars_sdc.progress as progress
    >>> watch_compiles(); watch_compiles()   # idempotent: one listener
    >>> progress._WATCH is not None
    True
    """
    global _WATCH
    if _WATCH is not None:
        return
    from numba.core import event

    watch = _CompileWatch()

    def module_of(ev: Any) -> str | None:
        """"module.function" of a polars_sdc kernel's compile event, else None."""
        disp = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
        func = getattr(disp, "py_func", None)
        mod = getattr(func, "__module__", "") or ""
        if not mod.startswith("polars_sdc."):
            return None
        return mod.rsplit(".", 1)[-1] + "." + getattr(func, "__name__", "")

    class _Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            mod = module_of(ev)
            if watch.depth > 0 or mod is not None:
                watch.start(mod or "")

        def on_end(self, ev: Any) -> None:
            if watch.depth > 0:
                watch.end(module_of(ev) is not None)

    event.register("numba:compile", _Listener())
    _WATCH = watch
