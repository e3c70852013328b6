"""Argument checks shared by every method: one place for "an integer, not a bool", "a finite
number in a range", "one of these names" and "a seed". Each raises :class:`SDCError` with a
message naming the argument and what it got.

>>> check_int(3, "k", minimum=1)
3
>>> check_int(True, "k")
Traceback (most recent call last):
...
polars_sdc._errors.SDCError: k must be an integer, got True
"""
from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable, Collection, Mapping
from typing import Any

from ._errors import SDCError


def check_int(value: Any, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int; a bool, a float or anything without ``__index__`` is refused.

    >>> check_int(0, "seed", minimum=1)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: seed must be >= 1, got 0
    """
    if isinstance(value, bool):
        raise SDCError(f"{name} must be an integer, got {value!r}")
    try:
        out = operator.index(value)
    except TypeError:
        raise SDCError(f"{name} must be an integer, got {value!r}") from None
    if minimum is not None and out < minimum:
        raise SDCError(f"{name} must be >= {minimum}, got {out}")
    if maximum is not None and out > maximum:
        raise SDCError(f"{name} must be <= {maximum}, got {out}")
    return out


def check_real(
    value: Any,
    name: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite float within the bounds (``low_open`` / ``high_open``: exclusive).

    >>> check_real(0.5, "p", minimum=0, maximum=1, low_open=True, high_open=True)
    0.5
    >>> check_real(float("nan"), "gamma")
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: gamma must be a finite number, got nan
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy floats are Real; "0.1" is not
        raise SDCError(f"{name} must be a number, got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise SDCError(f"{name} must be a finite number, got {value!r}")
    if minimum is not None and (out <= minimum if low_open else out < minimum):
        raise SDCError(f"{name} must be {'>' if low_open else '>='} {minimum}, got {value!r}")
    if maximum is not None and (out >= maximum if high_open else out > maximum):
        raise SDCError(f"{name} must be {'<' if high_open else '<='} {maximum}, got {value!r}")
    return out


def check_named(options: Mapping[str, Any], checks: Mapping[str, Callable[[Any], Any]]) -> dict[str, Any]:
    """``options`` with each value passed through the check of its name (names without a
    check kept as they are), in the order given.

    >>> check_named({"n": 3, "x": "a"}, {"n": lambda v: check_int(v, "n", minimum=4)})
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: n must be >= 4, got 3
    """
    return {name: checks[name](v) if name in checks else v for name, v in options.items()}


def check_bool(value: Any, name: str) -> bool:
    """``value`` if it is a bool (``numpy.bool_`` too); 0/1 or strings are refused."""
    if type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    raise SDCError(f"{name} must be True or False, got {value!r}")


def check_choice(value: Any, name: str, choices: Collection[Any]) -> Any:
    """``value`` if it is one of ``choices``.

    >>> check_choice("kd", "order", ("npn", "kd"))
    'kd'
    >>> check_choice("kdd", "order", ("npn", "kd"))
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: unknown order 'kdd'; choose one of npn, kd
    """
    try:
        ok = value in choices
    except TypeError:
        ok = False
    if not ok:
        raise SDCError(f"unknown {name} {value!r}; choose one of {', '.join(map(str, choices))}")
    return value


def check_seed(seed: Any) -> int | None:
    """A seed: None (fresh entropy) or an integer in [0, 2**64) (bools refused).

    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: seed must be a non-negative integer or None, got -1
    """
    if seed is None:
        return None
    try:
        return check_int(seed, "seed", minimum=0, maximum=2**64 - 1)
    except SDCError:
        raise SDCError(f"seed must be a non-negative integer or None, got {seed!r}") from None
